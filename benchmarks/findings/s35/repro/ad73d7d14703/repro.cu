__device__ __forceinline__ unsigned long long sg_bits(float x) { return ([&] { unsigned u; memcpy(&u, &x, 4); return u; }()); }
extern "C" __global__ void sg_k_p956(unsigned long long *o) {
  bool v4 = 0;
  v4 += (((__fmul_rz(0, 0))));
  v4 |= ((bool)((14.0f / ((double)((gridDim.x))))));
  float v28 = ((v4));
  o[0] = sg_bits(v28);
}
#include <cstdio>
static const unsigned long long sg_expect[1] = {1065353216ull};
int main() { const int n = 1; unsigned long long *d, h[1]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p956<<<1, 1>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
