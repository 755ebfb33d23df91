__device__ __forceinline__ int sg_ffs(unsigned v) { return (__builtin_ffs((int)v)); }
__device__ void body(int warp, unsigned long long *o) {
  unsigned char v2 = (sg_ffs(1u));
  v2 <<= (((-(warp))) & 31u);
  o[0] = (v2);
}
extern "C" __global__ void sg_k_p5882(unsigned long long *o) { body(warpSize, o); }
#include <cstdio>
static const unsigned long long sg_expect[1] = {1ull};
int main() { const int n = 1; unsigned long long *d, h[1]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p5882<<<1, 1>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
