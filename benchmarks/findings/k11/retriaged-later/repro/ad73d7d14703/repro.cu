__device__ __forceinline__ unsigned long long sg_bits(float x) { return ([&] { unsigned u; memcpy(&u, &x, 4); return u; }()); }
__device__ __forceinline__ float sg_fdiv_rn(float a, float b) { return __fdiv_rn(a, b); }
__device__ __forceinline__ float sg_i2f_rn(int a) { return __int2float_rn(a); }
extern "C" __global__ void sg_k_p658(unsigned long long *sg_out) {
  const unsigned sg_t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long *o = sg_out + (unsigned long long)sg_t * 1u;
  o[0] = sg_bits(sg_i2f_rn((((bool)(((sg_fdiv_rn(0, 18.0f) ? 0.0f : ((threadIdx.x)))))))));
}
#include <cstdio>
static const unsigned long long sg_expect[2] = {0ull, 1065353216ull};
int main() { const int n = 2; unsigned long long *d, h[2]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p658<<<1, 2>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
