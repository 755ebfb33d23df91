__device__ __forceinline__ unsigned long long sg_bits(float x) { return ([&] { unsigned u; memcpy(&u, &x, 4); return u; }()); }
__constant__ double t15[4] = {(-331.83202927897787), 5.0, 123.456, 10000000000.0};
extern "C" __global__ void sg_k_p561(unsigned long long *o) {
  const unsigned sg_t = blockIdx.x * blockDim.x + threadIdx.x;
  o[0] = sg_bits((__int2float_rn((((bool)(t15[(unsigned)((sg_t)) % 4u]))))));
}
#include <cstdio>
static const unsigned long long sg_expect[1] = {1065353216ull};
int main() { const int n = 1; unsigned long long *d, h[1]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p561<<<1, 1>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
