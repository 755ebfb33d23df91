#ifndef __CUDACC_RTC__
#include <cstring>
#endif
struct sg_env { unsigned tid, tx, bx, bdim, gdim, lane; int warp; };
#define SG_HD __host__ __device__ __forceinline__
#ifdef __CUDA_ARCH__
#define SG_DEV(device, host) device
#else
#define SG_DEV(device, host) host
#endif
SG_HD unsigned long long sg_bits(float x) { return SG_DEV(__float_as_uint(x), [&] { unsigned u; memcpy(&u, &x, 4); return u; }()); }
namespace sg_p2953 {
__device__ bool w17[32];
__host__ __device__ __forceinline__ double f28(double p26, double p27) {
  return 837395062.0;
}
__device__ void body(const sg_env &e, unsigned long long *o) {
  bool v13 = true;
  double v14 = 0.1;
    if (((bool)(((double)(e.bx))))) {
      v14 *= ((double)(640.64032f));
    }
  w17[e.tid] = ((bool)((v14 - (-213.0f))));
  bool v19 = ((bool)((2.0 / ((float)(v14)))));
  switch (((unsigned)(((int)(((bool)(e.tx))))))) {
  case 1u: {
    v13 ^= ((bool)((f28(837395318.0, 0.0) ? ((double)(v19)) : ((unsigned)(v14)))));
  } break;
  }
  for (int i30 = 0; i30 < 8; ++i30) {
    v13 *= true;
  }
  o[2] = sg_bits(((float)(v13)));
}
}  // namespace sg_p2953
extern "C" __global__ void sg_k_p2953(unsigned long long *sg_out) {
  const unsigned sg_t = blockIdx.x * blockDim.x + threadIdx.x;
  const sg_env e = {sg_t, threadIdx.x, blockIdx.x, blockDim.x, gridDim.x, threadIdx.x % 32u, warpSize};
  unsigned long long *o = sg_out + (unsigned long long)sg_t * 8u;
  sg_p2953::body(e, o);
}
#include <cstdio>
static const unsigned long long sg_expect[256] = {0ull, 0ull, 1065353216ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull};
int main() { const int n = 256; unsigned long long *d, h[256]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p2953<<<1, 32>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
