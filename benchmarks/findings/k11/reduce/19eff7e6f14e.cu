extern "C" __global__ void sg_k_p5079(unsigned long long *sg_out) {
  const unsigned sg_t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long *o = sg_out + (unsigned long long)sg_t * 6u;
  bool v2 = false;
  bool v9 = ((bool)((int)((double)(v2))));
    v9 ^= ((bool)(1.5e-05 / (threadIdx.x)));
  o[3] = ((unsigned long long)(__float_as_uint(((float)(v9)))));
  { __shared__ unsigned long long sg_a0;
    if (threadIdx.x == 0) sg_a0 = 18446744073709551615ull; __syncthreads();
    atomicAnd(&sg_a0, ((unsigned long long)o[2])); __syncthreads();
    o[4] = sg_a0; __syncthreads(); }
  { __shared__ unsigned sg_s1[1024];
    sg_s1[threadIdx.x] = ((unsigned)o[3]); __syncthreads();
    unsigned r = sg_s1[(threadIdx.x * 1u + 24u) % blockDim.x]; __syncthreads();
    o[5] = (unsigned)(((unsigned)o[3]) + r);
  }
  atomicXor(sg_out + 384u + 0, (unsigned long long)o[3]);
  atomicAdd(sg_out + 384u + 1, (unsigned long long)o[1]);
}
#include <cstdio>
static const unsigned long long sg_expect[386] = {0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 2130706432ull, 0ull, 0ull};
int main() { const int n = 386; unsigned long long *d, h[386]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p5079<<<1, 64>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
