#define SG_HD __host__ __device__ __forceinline__
#ifdef __CUDA_ARCH__
#define SG_DEV(device, host) device
#else
#define SG_DEV(device, host) host
#endif
SG_HD unsigned long long sg_bits(unsigned x) { return x; }
SG_HD unsigned sg_funnel_r(unsigned lo, unsigned hi, unsigned n) {
  return SG_DEV(__funnelshift_r(lo, hi, n), (unsigned)((((unsigned long long)hi << 32) | lo) >> (n & 31u))); }
__device__ void body(unsigned long long *o) {
  unsigned short v10 = ((unsigned short)(sg_funnel_r(1u, 1u, 0u)));
  v10 *= (-7);
  unsigned short v35 = ((unsigned short)(((signed char)(v10))));
  unsigned v36 = ((unsigned)((-(v35))));
  o[0] = sg_bits(v36);
}
extern "C" __global__ void sg_k_p6288(unsigned long long *o) { body(o); }
#include <cstdio>
static const unsigned long long sg_expect[1] = {4294901767ull};
int main() { const int n = 1; unsigned long long *d, h[1]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p6288<<<1, 1>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
