struct sg_env { unsigned tid, tx, bx, bdim, gdim, lane; int warp; };
__device__ __forceinline__ unsigned sg_funnel_l(unsigned lo, unsigned hi, unsigned n) {
  return __funnelshift_l(lo, hi, n); }
namespace sg_p15736 {
__device__ int t8[4] = {17, 3, (-1780019544), 16711935};
__managed__ unsigned t17[4] = {19u, 3233593983u, 5u, 0u};
__managed__ unsigned t22[8] = {6u, 255u, 1320655883u, 4294967295u, 4294967276u, 4294967276u, 15u, 4294967293u};
template <typename T> __device__  T f4(T p3) {
  return ((T)(p3 + ((unsigned)(__brev(((unsigned)(18446744073709518849ull)))))));
}
template <typename T> __device__  T f20(T p18, T p19) {
  return ((T)((int)((int)(signed char)((int)(t22[(unsigned)(p19) % 8u] - p18)))));
}
__device__  unsigned f31(unsigned p28, bool p29, short p30) {
  return (((unsigned)(19873512)) << (((unsigned)(t22[(unsigned)(((unsigned long long)(p29))) % 8u])) & 31u));
}
__device__ void body(const sg_env &e, unsigned long long *o) {
  unsigned v1 = ((unsigned)((unsigned long long)(__brevll(((unsigned long long)((double)(3u)))))));
  v1 >>= (((unsigned)((v1 ? e.bdim : 1808403200) * (e.tid >> v1))) & 31u);
  unsigned v2 = ((unsigned)(((unsigned long long)(e.tid)) << ((unsigned)(min(((unsigned)(v1 ^ ((unsigned short)3855))), ((unsigned)(v1)))))));
  if (((bool)((-1431655766) ? ((unsigned)(v1)) : (v1 != 4294901760u)))) {
  } else {
    v2 >>= (((unsigned)(~(v1))) & 31u);
    int v7 = ((int)(f4<bool>((((long long)(8)) && ((int)(__popc(((unsigned)((signed char)-8)))))))));
    if (((false > v7) != (t8[(unsigned)(((unsigned)((signed char)-60))) % 4u] >= t8[(unsigned)(((long long)(min(((long long)(3)), ((long long)((unsigned char)255)))))) % 4u]))) {
    }
  }
  unsigned short v11 = ((unsigned short)(e.tid));
  unsigned a12[4] = {e.bdim, ((unsigned)(1942946313)), ((unsigned)((unsigned long long)(max(((unsigned long long)(2147483648u)), ((unsigned long long)(v11)))))), ((unsigned)(([](int p13, unsigned short p14) -> signed char {
    double v24 = ((double)(874.128052f / (p14 != ((int)(abs(((int)((signed char)-127))))))));
    return ((signed char)((int)(max(((int)(127ll)), ((int)(2147483647))))));
  })(((int)((unsigned short)32768)), ((unsigned short)6108))))};
  v2 -= e.tx;
  if (((bool)(a12[(unsigned)(((int)(__clz((int)((unsigned)(v1)))))) % 4u]))) {
    unsigned v33 = ((unsigned)((long long)(f31(e.tid, ((bool)(-15)), ((short)(true))) + ((float)(a12[(unsigned)(v11) % 4u])))));
  }
  long long v34 = ((long long)(e.warp));
  o[7] = ((unsigned long long)((unsigned long long)((long long)(v2))));
}
}  // namespace sg_p15736
extern "C" __global__ void sg_k_p15736(unsigned long long *sg_out) {
  const unsigned sg_t = blockIdx.x * blockDim.x + threadIdx.x;
  const sg_env e = {sg_t, threadIdx.x, blockIdx.x, blockDim.x, gridDim.x, threadIdx.x % 32u, warpSize};
  unsigned long long *o = sg_out + (unsigned long long)sg_t * 8u;
  sg_p15736::body(e, o);
}
#include <cstdio>
static const unsigned long long sg_expect[256] = {0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967295ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967294ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967293ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967292ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967291ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967290ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967289ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967288ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967287ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967286ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967285ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967284ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967283ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967282ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967281ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967280ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967279ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967278ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967277ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967276ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967275ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967274ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967273ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967272ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967271ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967270ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967269ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967268ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967267ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967266ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 4294967265ull};
int main() { const int n = 256; unsigned long long *d, h[256]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p15736<<<1, 32>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
