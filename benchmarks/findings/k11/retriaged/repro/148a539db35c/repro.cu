__managed__ int t13[4] = {(-256), (-1), 2136772233, (-3)};
__device__ unsigned short f4(int p2, unsigned short p3) {
  if ((p2 <= 0)) {
    return p3;
  }
  return f4((p2 - 1), ((unsigned short)(p3 + ((unsigned short)65534))));
}
__device__ double f8(float p7) {
  float v9 = ((float)((double)(p7)));
  return ((double)((-370.28568691078317) ? v9 : v9));
}
__device__ void body(unsigned tid, unsigned tx, unsigned bdim, unsigned lane, unsigned long long *o) {
    int v1 = ((int)((double)(((float)(true)) * (532.761353f < (-712.743271655933)))));
    if (((bool)(f4(0, ((unsigned short)((double)(v1))))))) {
    }
  float v10 = ((float)(__uint_as_float(__float_as_uint(((float)(coshf(((float)(((double)(37.0f)) != f8(((float)(-1431655766))))))))) & ~255u)));
  bool v11 = ((bool)(v10));
  if (((bool)((float)((int)(lane))))) {
    for (int i12 = 0; i12 < 7; ++i12) {
      v11 >>= (((unsigned)((bool)((double)(fma(((double)(i12)), ((double)(t13[(unsigned)(tid) % 4u])), ((double)((float)(v10)))))))) & 31u);
    }
  } else {
    double v27 = ((double)(__longlong_as_double(__double_as_longlong(((double)(exp2(((double)((v11 ? 1.0f : ((float)(1873362327))) + ((double)(6.50507545f)))))))) & ~255ll)));
    float v28 = ((float)((double)(__longlong_as_double(__double_as_longlong(((double)(cbrt(((double)((float)(__uint_as_float(__float_as_uint(((float)(exp2f(((float)((double)(__longlong_as_double(__double_as_longlong(((double)(log1p(((double)(503.722778f)))))) & ~255ll)))))))) & ~255u)))))))) & ~255ll))));
  }
  bool v29 = ((bool)((float)(floorf(((float)(__uint_as_float(__float_as_uint(((float)(expm1f(((float)(fmaf(((float)(v10)), ((float)(t13[(unsigned)(((-201.0f) < v11)) % 4u])), ((float)(bdim))))))))) & ~255u)))))));
}
extern "C" __global__ void sg_k_p280(unsigned long long *sg_out) {
  const unsigned sg_t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long *o = sg_out + (unsigned long long)sg_t * 2u;
  body(sg_t, threadIdx.x, blockDim.x, threadIdx.x % 32u, o);
  { __shared__ unsigned sg_c0; __shared__ unsigned sg_v0;
    if (threadIdx.x == 0) { sg_c0 = 0u; sg_v0 = 0; } __syncthreads();
    if (atomicAdd(&sg_c0, 1u) == 3u) sg_v0 = (unsigned)((unsigned)blockIdx.x * (unsigned)98u + (unsigned)78u);
    __syncthreads(); o[1] = sg_v0; __syncthreads(); }
}
#include <cstdio>
static const unsigned long long sg_expect[8] = {0ull, 78ull, 0ull, 78ull, 0ull, 78ull, 0ull, 78ull};
int main() { const int n = 8; unsigned long long *d, h[8]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p280<<<1, 4>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
