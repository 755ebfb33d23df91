__device__ __forceinline__ unsigned sg_funnel_r(unsigned lo, unsigned hi, unsigned n) {
  return __funnelshift_r(lo, hi, n); }
namespace sg_p6288 {
__device__ void body(unsigned long long *o) {
  unsigned short v10 = ((unsigned short)(sg_funnel_r(1u, 1u, 0u)));
  v10 *= (-7);
  unsigned short v35 = ((unsigned short)((signed char)(v10)));
  unsigned v36 = ((unsigned)(-(v35)));
  o[0] = ((unsigned long long)(__float_as_uint(((float)(v36)))));
}
}  // namespace sg_p6288
extern "C" __global__ void sg_k_p6288(unsigned long long *o) { sg_p6288::body(o); }
#include <cstdio>
static const unsigned long long sg_expect[1] = {1333788416ull};
int main() { const int n = 1; unsigned long long *d, h[1]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p6288<<<1, 1>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
