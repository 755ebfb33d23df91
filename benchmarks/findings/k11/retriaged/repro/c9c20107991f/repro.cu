__constant__ double t9[4] = {123.456, 65504.0, 0, 957.4155508594135};
__constant__ float t16[8] = {2.0f, 215.0f, 0, 0, 0, 222.298431f, 0.100000001f, 0};
__device__ unsigned short f19(int p17, unsigned short p18) {
  if ((p17)) {
    return ((unsigned short)0);
  }
  return f19(p17, 0);
}
__device__ void body(unsigned tid, unsigned tx, unsigned gdim, unsigned long long *o) {
  double v10 = (((tx) ? ((float)(__fsub_ru(((float)(gdim)), ((float)(1.0f))))) : (t9[(unsigned)(tid) % 4u])));
  int v20 = (t16[(unsigned)(f19(1, 0)) % 8u]);
  o[1] = (v10);
}
extern "C" __global__ void sg_k_p3936(unsigned long long *sg_out) {
  const unsigned sg_t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long *o = sg_out + (unsigned long long)sg_t * 2u;
  body(sg_t, threadIdx.x, gridDim.x, o);
  atomicXor(sg_out + 8u + 0, (unsigned long long)o[0]);
}
#include <cstdio>
static const unsigned long long sg_expect[9] = {0ull, 123ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull};
int main() { const int n = 9; unsigned long long *d, h[9]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p3936<<<1, 4>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
