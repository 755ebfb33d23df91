__device__ __forceinline__ unsigned sg_max_u(unsigned a, unsigned b) { return (a > b ? a : b); }
extern "C" __global__ void sg_k_p1564(unsigned long long *o) {
  unsigned long long v17 = ((!(([](unsigned long long p3, unsigned long long p4) -> int {
    return 1;
  })(1ull, (sg_max_u(1u, 1u))))));
  unsigned v18 = (((unsigned short)((int)(signed char)((int)(4225945180293016467ull | v17)))));
  v18 ^= 1u;
  unsigned v37 = ((v18));
  o[0] = (v37);
}
#include <cstdio>
static const unsigned long long sg_expect[1] = {65426ull};
int main() { const int n = 1; unsigned long long *d, h[1]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p1564<<<1, 1>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
