#ifndef __CUDACC_RTC__
#include <cstring>
#endif
#ifndef __CUDACC_RTC__
#include <cfenv>
#include <cmath>
#endif
#define SG_HD __host__ __device__ __forceinline__
#ifdef __CUDA_ARCH__
#define SG_DEV(device, host) device
#else
#define SG_DEV(device, host) host
#endif
SG_HD unsigned long long sg_bits(float x) { return SG_DEV(__float_as_uint(x), [&] { unsigned u; memcpy(&u, &x, 4); return u; }()); }
SG_HD float sg_fsub_ru(float a, float b) { return SG_DEV(__fsub_ru(a, b), [&] { int m_ = fegetround(); fesetround(FE_UPWARD); volatile float a_ = a; volatile float b_ = b; volatile float r_ = a_ - b_; fesetround(m_); return (float)r_; }()); }
SG_HD int sg_d2i_rn(double a) { return SG_DEV(__double2int_rn(a), (int)rint(a)); }
__constant__ double t9[4] = {123.456, 65504.0, 0, 957.4155508594135};
__constant__ float t16[8] = {2.0f, 215.0f, 0, 0, 0, 222.298431f, 0.100000001f, 0};
__host__ __device__  unsigned short f19(int p17, unsigned short p18) {
  if (((bool)(p17))) {
    return ((unsigned short)0);
  }
  return f19(p17, 0);
}
__device__ void body(unsigned tid, unsigned tx, unsigned gdim, unsigned long long *o) {
  double v10 = ((double)((((bool)(tx)) ? sg_fsub_ru(((float)(gdim)), 1.0f) : ((float)(t9[(unsigned)(tid) % 4u])))));
  int v20 = sg_d2i_rn(((double)(t16[(unsigned)(f19(1, 0)) % 8u])));
  o[1] = sg_bits(((float)(v10)));
}
extern "C" __global__ void sg_k_p3936(unsigned long long *sg_out) {
  const unsigned sg_t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long *o = sg_out + (unsigned long long)sg_t * 2u;
  body(sg_t, threadIdx.x, gridDim.x, o);
  atomicXor(sg_out + 8u + 0, (unsigned long long)o[0]);
}
#include <cstdio>
static const unsigned long long sg_expect[9] = {0ull, 1123477881ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull};
int main() { const int n = 9; unsigned long long *d, h[9]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p3936<<<1, 4>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
