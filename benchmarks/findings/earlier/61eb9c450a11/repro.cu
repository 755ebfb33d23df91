struct sg_env { unsigned tid, tx, bx, bdim, gdim, lane; int warp; };
#define SG_HD __host__ __device__ __forceinline__
SG_HD unsigned long long sg_bits(bool x) { return x ? 1ull : 0ull; }
SG_HD unsigned sg_rotl(unsigned x, unsigned n) { n &= 31u; return n ? (x << n) | (x >> (32u - n)) : x; }
namespace sg_p4201 {
__device__ int w48[32];
__device__ void body(const sg_env &e, unsigned long long *o) {
  unsigned short v2 = ((unsigned short)(((unsigned)((sg_rotl(((unsigned)((-3))), ((unsigned)(((short)8)))) - ((unsigned short)(((unsigned short)0))))))));
  unsigned short v3 = ((unsigned short)(((signed char)(((unsigned)(((signed char)0)))))));
    for (int i5 = 0; i5 < 4 && (long long)i5 < (long long)(e.tx); ++i5) {
      v2 &= 4294934528u;
    }
  v3 = ((unsigned short)((((short)-128) | ((unsigned char)(v2)))));
  short v45 = ((short)(((signed char)((-(((int)(v3))))))));
  w48[e.tid] = (((unsigned short)(v45)) - ((int)(v3)));
  bool v49 = ((bool)(w48[e.tid]));
  o[4] = sg_bits(v49);
}
}  // namespace sg_p4201
extern "C" __global__ void sg_k_p4201(unsigned long long *sg_out) {
  const unsigned sg_t = blockIdx.x * blockDim.x + threadIdx.x;
  const sg_env e = {sg_t, threadIdx.x, blockIdx.x, blockDim.x, gridDim.x, threadIdx.x % 32u, warpSize};
  unsigned long long *o = sg_out + (unsigned long long)sg_t * 6u;
  sg_p4201::body(e, o);
}
#include <cstdio>
static const unsigned long long sg_expect[192] = {0ull, 0ull, 0ull, 0ull, 1ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull};
int main() { const int n = 192; unsigned long long *d, h[192]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p4201<<<1, 32>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
