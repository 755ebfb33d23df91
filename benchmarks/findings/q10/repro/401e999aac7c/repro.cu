extern "C" __global__ void sg_k_p86(unsigned long long *o) {
  int v8 = ([](long long p3, unsigned long long p4, signed char p5) -> int {
    ushort4 q7 = make_ushort4(0, 0, 0, 0);
    return ((int)((unsigned)((unsigned short)(p5))));
  })(1ll, 0ull, ((signed char)-2));
  long long a9[2] = {((long long)(v8)), 1ll};
  o[0] = ((unsigned long long)((unsigned long long)((long long)(a9[(unsigned)(0u) % 2u]))));
}
#include <cstdio>
static const unsigned long long sg_expect[1] = {65534ull};
int main() { const int n = 1; unsigned long long *d, h[1]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p86<<<1, 1>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
