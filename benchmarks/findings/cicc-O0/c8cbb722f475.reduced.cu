struct sg_env { unsigned tid, tx, bx, bdim, gdim, lane; int warp; };
__device__ __forceinline__ unsigned sg_funnel_l(unsigned lo, unsigned hi, unsigned n) {
  return __funnelshift_l(lo, hi, n); }
namespace sg_p16051 {
__device__ unsigned t3[8] = {969030727u, 19u, 3851017923u, 14u, 2905498720u, 4294967040u, 4294967281u, 0u};
__device__ signed char t7[4] = {((signed char)-127), ((signed char)2), ((signed char)-36), ((signed char)63)};
__managed__ signed char t13[4] = {((signed char)9), ((signed char)-1), ((signed char)-20), ((signed char)-128)};
__constant__ unsigned short t22[16] = {((unsigned short)32767), ((unsigned short)5), ((unsigned short)0), ((unsigned short)7), ((unsigned short)65528), ((unsigned short)0), ((unsigned short)255), ((unsigned short)65280), ((unsigned short)15), ((unsigned short)18), ((unsigned short)12), ((unsigned short)32768), ((unsigned short)62287), ((unsigned short)1), ((unsigned short)3), ((unsigned short)25606)};
__device__ __forceinline__ signed char f11(unsigned char p8, signed char p9, unsigned char p10) {
  unsigned v12 = ((unsigned)(((long long)(min(((long long)(p9 ? ((signed char)8) : p8)), ((long long)(p10))))) ? ((signed char)13) : ((short)(((unsigned short)45949) < p9))));
  unsigned v14 = ((unsigned)((unsigned char)((((unsigned char)80) - t13[(unsigned)(((short)(p10))) % 4u]) & (((unsigned char)255) >> v12))));
  return ((signed char)(v14 ? t7[(unsigned)((false ^ ((unsigned char)38))) % 4u] : p10));
}
__device__ __forceinline__ unsigned short f24(signed char p23) {
}
__device__ __forceinline__ short f5(signed char p4) {
  int v16 = ((int)((unsigned char)(((short)(1u)) / f11(((unsigned char)(p4)), p4, ((unsigned char)(false))))));
  unsigned short v33 = ((unsigned short)(((short)(((short)2) ? ((unsigned short)65520) : v16)) - (([](short p17, int p18, unsigned char p19) -> bool {
  })(((short)(true)), ((int)(255u)), ((unsigned char)0)) ? (p4 - t22[(unsigned)(f24(((signed char)(true)))) % 16u]) : (p4 + 4294967286u))));
  return ((short)(((unsigned char)248) * t7[(unsigned)(((int)((signed char)0))) % 4u]));
}
struct f36_S { short p34; unsigned char p35;
  __device__  signed char f36() const {
    for (int i37 = 0; i37 < 3; ++i37) {
    }
    return ((signed char)((short)-32));
  }
};
__device__ void body(const sg_env &e, unsigned long long *o) {
  unsigned v1 = (((885748813u + e.bdim) << (((unsigned char)15) == 8)) & ((short)((unsigned char)254)));
  unsigned short a2[8] = {((unsigned short)(v1 == v1)), ((unsigned short)(v1)), ((unsigned short)(v1)), ((unsigned short)(v1 != ((unsigned short)22506))), ((unsigned short)(sg_funnel_l(v1, v1, ((unsigned)((signed char)2))))), ((unsigned short)(v1 * t3[(unsigned)(v1) % 8u])), ((unsigned short)(v1 * v1)), ((unsigned short)((short)127))};
  int v40 = ((int)(f36_S{((short)(((unsigned char)(e.tx)) ? f5(((signed char)(v1))) : 0u)), ((20 >> (((unsigned)(63)) & 31u)) ? ((unsigned char)(a2[(unsigned)(v1) % 8u])) : ((unsigned char)(v1)))}.f36()));
  unsigned v41 = ((unsigned)(v40));
  unsigned v42 = ((unsigned)((((unsigned short)(v40)) < (!(v40))) << (((unsigned)((unsigned char)(((unsigned short)3855) + e.lane))) & 31u)));
  constexpr int k43 = ((int)((short)((unsigned short)((-174725190) - ((unsigned short)65532)))));
  switch ((((unsigned)((e.bx ? e.lane : v42) || (((unsigned short)65535) - ((short)12743)))) & 7u)) {
  default: {
  } break;
  }
  if (((bool)((unsigned char)((short)19)))) {
    unsigned short v44 = ((unsigned short)(((unsigned char)((-2147483647) + v1)) + (~(((int)(abs(((int)(e.lane)))))))));
    unsigned char a45[8] = {((unsigned char)(v1 + k43)), ((unsigned char)((short)(v44))), ((unsigned char)((signed char)(v42))), ((unsigned char)((unsigned)(-337902144))), ((unsigned char)(~(t13[(unsigned)((v44 - v42)) % 4u]))), ((unsigned char)(v42 + v40)), ((unsigned char)((int)(min(((int)(t13[(unsigned)((v41 - ((unsigned short)65527))) % 4u])), ((int)(v41)))))), ((unsigned char)(((unsigned)(v44)) << (((unsigned)((short)32767)) & 31u)))};
    int v46 = ((int)(((((signed char)0) + ((short)-23841)) + (a45[(unsigned)(((short)(v44))) % 8u] ^ v41)) - ((int)((short)((unsigned short)17)))));
    switch ((((unsigned)(((short)7207) | (((unsigned char)8) + ((short)-1047)))) & 3u)) {
    case 3u: {
    } break;
    default: {
    } break;
    }
  }
  signed char v48 = ((signed char)((unsigned char)(!((((signed char)8) / v1)))));
  short v49 = ((short)(((unsigned)(((short)-32767) < true)) << (v1 > v40)));
  v1 |= ((v49 | v41) >> v42);
  for (int i54 = 0; i54 < 4 && (long long)i54 < (long long)((e.tx & 3u)); ++i54) {
    if (((bool)((int)(v49 >> v41)))) {
    }
  }
  o[3] = ((unsigned long long)((unsigned)(v42)));
}
}  // namespace sg_p16051
extern "C" __global__ void sg_k_p16051(unsigned long long *sg_out) {
  const unsigned sg_t = blockIdx.x * blockDim.x + threadIdx.x;
  const sg_env e = {sg_t, threadIdx.x, blockIdx.x, blockDim.x, gridDim.x, threadIdx.x % 32u, warpSize};
  unsigned long long *o = sg_out + (unsigned long long)sg_t * 5u;
  sg_p16051::body(e, o);
  { __shared__ unsigned sg_s0[1024];
    if ((threadIdx.x >> 12) == 0u) {
    sg_s0[threadIdx.x] = ((unsigned)o[2]); __syncthreads();
    unsigned r = sg_s0[(threadIdx.x * 5u + 51u) % blockDim.x]; __syncthreads();
    o[4] = (unsigned)(((unsigned)o[2]) + r);
  }
  }
}
#include <cstdio>
static const unsigned long long sg_expect[320] = {0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull};
int main() { const int n = 320; unsigned long long *d, h[320]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p16051<<<2, 32>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
