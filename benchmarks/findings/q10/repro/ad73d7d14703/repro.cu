__device__ double w33[1];
extern "C" __global__ void sg_k_p6848(unsigned long long *o) {
  const unsigned sg_t = blockIdx.x * blockDim.x + threadIdx.x;
  int v1 = 3;
  v1 ^= ((int)((float)(__fdiv_rz(((float)(0)), ((float)(3.0f))))));
  float v32 = ((float)((bool)((double)(__dadd_rn(((double)(-7.0)), ((double)(0.0)))))));
  w33[(sg_t)] = ((double)(((double)(v32)) ? false : ((int)(__float2int_rd(((float)(v1)))))));
  o[0] = ((unsigned long long)(__float_as_uint(((float)(v32)))));
}
#include <cstdio>
static const unsigned long long sg_expect[1] = {1065353216ull};
int main() { const int n = 1; unsigned long long *d, h[1]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p6848<<<1, 1>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
