extern "C" __global__ void sg_k_p1995(unsigned long long *o) {
  short v3 = 0;
  v3 = ((([](short p5, unsigned char p6) -> unsigned char {
    return ((unsigned char)(__brev((((unsigned short)((signed char)(p6)))))));
  })(0, ((unsigned char)242))));
  short v36 = (((v3)));
  o[0] = (v36);
}
#include <cstdio>
static const unsigned long long sg_expect[1] = {0ull};
int main() { const int n = 1; unsigned long long *d, h[1]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p1995<<<1, 1>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
