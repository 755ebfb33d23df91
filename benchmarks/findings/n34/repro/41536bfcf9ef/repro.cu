__device__ __forceinline__ unsigned long long sg_bits(double x) {
  return (unsigned long long)__double_as_longlong(x); }
__constant__ bool t2[8] = {true, false, true, false, true, false, true, false};
__device__ float t7[8] = {(-801.648865f), 3.0f, 1.49999996e-05f, 439.923309f, (-1.00000001e-10f), 86.0f, (-132.879639f), 214.0f};
__managed__ float t30[4] = {(-141.0f), 65504.0f, 123.456001f, 505.846863f};
__device__ unsigned long long f42(int p40, unsigned long long p41) {
  if ((p40 <= 0)) {
    return p41;
  }
  return f42((p40 - 1), 0);
}
template <typename T> __device__  T f38(T p35, T p36, T p37) {
  int a39[2] = {((int)(-(612.595947f))), ((int)(f42(3, ((unsigned long long)(519.786255f)))))};
  return ((T)((double)(-500.459808f)));
}
__device__ void body(unsigned tid, unsigned bdim, unsigned gdim, int warp, unsigned long long *o) {
  double v1 = ((double)(__longlong_as_double(__double_as_longlong(((double)(cos(((double)(63 + (bdim - gdim))))))) & ~255ll)));
  double v3 = 0;
  float v4 = ((float)((double)((float)(v3))));
  double v6 = ((double)(t2[(unsigned)(tid) % 8u] * 0.100000001f));
  if (((bool)(([](double p8, double p9) -> double {
    int v19 = ((int)((float)(((double)(__longlong_as_double(__double_as_longlong(((double)(tan(((double)(27.0)))))) & ~255ll))) ? p8 : ((float)(__uint_as_float(__float_as_uint(((float)(sinhf(((float)(5)))))) & ~255u))))));
    return (p9 ? 123.456 : v19);
  })((v3 * t7[(unsigned)(tid) % 8u]), v6)))) {
    (void)(((bool)((double)(__longlong_as_double(__double_as_longlong(((double)(atan(((double)(copysign(((double)(170.0f)), ((double)(v3))))))))) & ~255ll)))));
  } else {
      v6 -= ((double)(__longlong_as_double(__double_as_longlong(((double)(erfc(((double)(__longlong_as_double(__double_as_longlong(((double)(log(((double)(bdim)))))) & ~255ll))))))) & ~255ll)));
  }
  int i29 = 0;
    bool v43 = ((bool)((double)(f38<float>(((float)(__uint_as_float(__float_as_uint(((float)(sinf(((float)(t30[(unsigned)0 % 4u])))))) & ~255u))), ((float)(-(v1))), ((float)(v6))))));
  o[0] = sg_bits(v6);
}
extern "C" __global__ void sg_k_p2225(unsigned long long *sg_out) {
  const unsigned sg_t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long *o = sg_out + (unsigned long long)sg_t * 4u;
  body(sg_t, blockDim.x, gridDim.x, warpSize, o);
  { __shared__ unsigned sg_s0[1024];
    if ((threadIdx.x >> 12) == 0u) {
    sg_s0[threadIdx.x] = ((unsigned)o[0]); __syncthreads();
    unsigned r = sg_s0[(threadIdx.x * 1u + 52u) % blockDim.x]; __syncthreads();
    o[2] = (unsigned)(((unsigned)o[0]) + r);
  }
  }
  { __shared__ unsigned long long sg_s1[1024];
    sg_s1[threadIdx.x] = ((unsigned long long)o[1]); __syncthreads();
    unsigned long long r = sg_s1[(threadIdx.x * 1u + 35u) % blockDim.x]; __syncthreads();
    o[3] = (unsigned long long)(((unsigned long long)o[1]) + r);
  }
}
#include <cstdio>
static const unsigned long long sg_expect[8] = {4591870180174331904ull, 0ull, 1073741824ull, 0ull, 13822933621275406336ull, 0ull, 1943625728ull, 0ull};
int main() { const int n = 8; unsigned long long *d, h[8]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p2225<<<1, 2>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
