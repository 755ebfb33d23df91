#ifdef __CUDA_ARCH__
#endif
__device__ __forceinline__ unsigned long long sg_max_ull(unsigned long long a, unsigned long long b) { return (a > b ? a : b); }
extern "C" __global__ void sg_k_p7697(unsigned long long *o) {
  short v26 = (sg_max_ull(1ull, 18446744073458572609ull));
  unsigned v29 = 0u;
  for (int i33 = 0; i33 < 4 && (long long)i33 < (long long)((threadIdx.x)); ++i33) {
    v26 *= ((i33));
  }
  for (int i36 = 0; i36 < 7; ++i36) {
    v29 -= ((v26 ^ (-32)));
    v29 += v26;
  }
  o[0] = (v29);
}
#include <cstdio>
static const unsigned long long sg_expect[1] = {334432ull};
int main() { const int n = 1; unsigned long long *d, h[1]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p7697<<<1, 1>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
