__device__ unsigned w1[2];
__managed__ long long t28[8] = {(-9ll), 0, 4278255360ll, (-2ll), 0ll, 0, 4278255360ll, 4201940574078020210ll};
__device__  unsigned f9(int p7, unsigned p8) {
  if ((p7 <= 0)) {
    return p8;
  }
  return f9(0, 0);
}
__device__ void body(unsigned tid, unsigned tx, unsigned bdim, unsigned lane, unsigned long long *o) {
  long long v2 = 615ll;
  if (((bool)(w1[tid]))) {
    v2 = ((long long)(true));
  }
  unsigned long long a6[4] = {(f9(4, 1u)), ((v2 * tid)), 404ull, 3ull};
  int v12 = 509;
  unsigned char v24 = 0;
  for (int i26 = 0; i26 < 4 && (long long)i26 < (long long)(tx); ++i26) {
    v24 = ((-5104590241679950241ll));
    v12 *= 2u;
  }
  switch (((((((unsigned char)245) - v12))) & 1u)) {
  case 0u: {
    v2 = ((t28[(unsigned)((a6[(unsigned)0 % 4u] >> 13ll)) % 8u] <= a6[(unsigned)((lane % bdim)) % 4u]));
  } break;
  }
  o[1] = (v24 ? v2 : a6[(unsigned)0 % 4u]);
}
extern "C" __global__ void sg_k_p2186(unsigned long long *sg_out) {
  const unsigned sg_t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long *o = sg_out + (unsigned long long)sg_t * 2u;
  body(sg_t, threadIdx.x, blockDim.x, threadIdx.x % 32u, o);
  atomicAdd(sg_out + 4u + 0, (unsigned long long)o[0]);
}
#include <cstdio>
static const unsigned long long sg_expect[5] = {0ull, 0ull, 0ull, 615ull, 0ull};
int main() { const int n = 5; unsigned long long *d, h[5]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p2186<<<1, 2>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
