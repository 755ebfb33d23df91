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
namespace sg_p4519 {
__device__ float t1[16] = {123.456001f, 281.0f, 127.0f, 93.0f, (-99.0f), (-54.2720146f), (-990.789734f), 853.786499f, (-804.10321f), (-157.566727f), 0.333333313f, 0.0f, 592.827209f, (-1.0f), 215.0f, 882.516907f};
__device__ void body(const sg_env &e, unsigned long long *o) {
  float v2 = (-150.0f);
  for (int i3 = 0; i3 < 4 && (long long)i3 < (long long)((e.tx & 3u)); ++i3) {
    v2 += (-2577179.0f);
  }
  double v19 = ((double)(v2));
  v2 += 32;
  float v20 = ((float)(((double)(v2))));
  switch (((unsigned)(((bool)(v19))))) {
  case 0u: {
    v19 += 1.0f;
    v2 += ((double)(v2));
  } break;
  }
  float v39 = ((float)((([](int p21, double p22) -> double {
    ushort4 q27 = make_ushort4(((unsigned short)0), ((unsigned short)19593), ((unsigned short)65535), ((unsigned short)(p22)));
    return ((double)(q27.w));
  })((-7), 0.0) ? ((bool)(t1[(unsigned)(e.tid) % 16u])) : ((bool)((v2 ? (-1e-10) : v20))))));
  o[1] = sg_bits(v39);
  o[3] = sg_bits(v19);
}
}  // namespace sg_p4519
extern "C" __global__ void sg_k_p4519(unsigned long long *sg_out) {
  const unsigned sg_t = blockIdx.x * blockDim.x + threadIdx.x;
  const sg_env e = {sg_t, threadIdx.x, blockIdx.x, blockDim.x, gridDim.x, threadIdx.x % 32u, warpSize};
  unsigned long long *o = sg_out + (unsigned long long)sg_t * 4u;
  sg_p4519::body(e, o);
}
#include <cstdio>
static const unsigned long long sg_expect[128] = {0ull, 1065353216ull, 0ull, 3272998912ull, 0ull, 1065353216ull, 0ull, 3390918340ull, 0ull, 1065353216ull, 0ull, 3399306648ull, 0ull, 1065353216ull, 0ull, 3404461006ull, 0ull, 1065353216ull, 0ull, 3272998912ull, 0ull, 1065353216ull, 0ull, 3390918340ull, 0ull, 1065353216ull, 0ull, 3399306648ull, 0ull, 1065353216ull, 0ull, 3404461006ull, 0ull, 1065353216ull, 0ull, 3272998912ull, 0ull, 1065353216ull, 0ull, 3390918340ull, 0ull, 1065353216ull, 0ull, 3399306648ull, 0ull, 1065353216ull, 0ull, 3404461006ull, 0ull, 1065353216ull, 0ull, 3272998912ull, 0ull, 1065353216ull, 0ull, 3390918340ull, 0ull, 1065353216ull, 0ull, 3399306648ull, 0ull, 1065353216ull, 0ull, 3404461006ull, 0ull, 1065353216ull, 0ull, 3272998912ull, 0ull, 1065353216ull, 0ull, 3390918340ull, 0ull, 1065353216ull, 0ull, 3399306648ull, 0ull, 1065353216ull, 0ull, 3404461006ull, 0ull, 1065353216ull, 0ull, 3272998912ull, 0ull, 1065353216ull, 0ull, 3390918340ull, 0ull, 1065353216ull, 0ull, 3399306648ull, 0ull, 1065353216ull, 0ull, 3404461006ull, 0ull, 1065353216ull, 0ull, 3272998912ull, 0ull, 1065353216ull, 0ull, 3390918340ull, 0ull, 1065353216ull, 0ull, 3399306648ull, 0ull, 1065353216ull, 0ull, 3404461006ull, 0ull, 1065353216ull, 0ull, 3272998912ull, 0ull, 1065353216ull, 0ull, 3390918340ull, 0ull, 1065353216ull, 0ull, 3399306648ull, 0ull, 1065353216ull, 0ull, 3404461006ull};
int main() { const int n = 128; unsigned long long *d, h[128]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p4519<<<1, 32>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
