extern "C" __global__ void sg_k_p185(unsigned long long *o) {
  unsigned char v2 = ((max(0, (1))));
  v2 <<= ((([](signed char p6) -> signed char {
    return ((signed char)-32);
  })(((warpSize)))) & 31u);
  unsigned char v27 = v2;
  o[0] = (v27);
}
#include <cstdio>
static const unsigned long long sg_expect[1] = {1ull};
int main() { const int n = 1; unsigned long long *d, h[1]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p185<<<1, 1>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
