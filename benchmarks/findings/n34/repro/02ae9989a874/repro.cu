extern "C" __global__ void sg_k_p3372(unsigned long long *o) {
  unsigned long long v9 = (((__umulhi((4294941602u), ((((__mul64hi((1ll), 0)))))))));
  v9 -= (((blockDim.x) < 1ull));
  long long v11 = (v9);
  o[0] = (v11);
}
#include <cstdio>
static const unsigned long long sg_expect[1] = {0ull};
int main() { const int n = 1; unsigned long long *d, h[1]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p3372<<<1, 1>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
