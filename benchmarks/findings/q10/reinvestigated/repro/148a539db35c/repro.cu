
#ifndef __CUDACC_RTC__
#include <cstring>
#endif
#define SG_HD __host__ __device__ __forceinline__
SG_HD unsigned long long sg_bits(bool x) { return x ? 1ull : 0ull; }
SG_HD unsigned long long sg_bits(signed char x) { return (unsigned char)x; }
SG_HD unsigned long long sg_bits(unsigned char x) { return x; }
SG_HD unsigned long long sg_bits(short x) { return (unsigned short)x; }
SG_HD unsigned long long sg_bits(unsigned short x) { return x; }
SG_HD unsigned long long sg_bits(int x) { return (unsigned)x; }
SG_HD unsigned long long sg_bits(unsigned x) { return x; }
SG_HD unsigned long long sg_bits(long long x) { return (unsigned long long)x; }
SG_HD unsigned long long sg_bits(unsigned long long x) { return x; }
#ifdef __CUDA_ARCH__
#define SG_DEV(device, host) device
#else
#define SG_DEV(device, host) host
#endif
SG_HD unsigned long long sg_bits(float x) { return SG_DEV(__float_as_uint(x), [&] { unsigned u; memcpy(&u, &x, 4); return u; }()); }
SG_HD unsigned long long sg_bits(double x) {
  return SG_DEV((unsigned long long)__double_as_longlong(x), [&] { unsigned long long u; memcpy(&u, &x, 8); return u; }()); }
SG_HD int sg_min_i(int a, int b) { return SG_DEV(min(a, b), a < b ? a : b); }
SG_HD int sg_max_i(int a, int b) { return SG_DEV(max(a, b), a > b ? a : b); }
SG_HD unsigned sg_min_u(unsigned a, unsigned b) { return SG_DEV(min(a, b), a < b ? a : b); }
SG_HD unsigned sg_max_u(unsigned a, unsigned b) { return SG_DEV(max(a, b), a > b ? a : b); }
SG_HD long long sg_min_ll(long long a, long long b) { return SG_DEV(min(a, b), a < b ? a : b); }
SG_HD unsigned long long sg_max_ull(unsigned long long a, unsigned long long b) { return SG_DEV(max(a, b), a > b ? a : b); }
SG_HD int sg_abs_i(int a) { return SG_DEV(abs(a), a < 0 ? -a : a); }
SG_HD long long sg_abs_ll(long long a) { return SG_DEV(llabs(a), a < 0 ? -a : a); }
SG_HD unsigned sg_funnel_l(unsigned lo, unsigned hi, unsigned n) {
  return SG_DEV(__funnelshift_l(lo, hi, n), (unsigned)(((((unsigned long long)hi << 32) | lo) << (n & 31u)) >> 32)); }
SG_HD unsigned sg_funnel_r(unsigned lo, unsigned hi, unsigned n) {
  return SG_DEV(__funnelshift_r(lo, hi, n), (unsigned)((((unsigned long long)hi << 32) | lo) >> (n & 31u))); }
SG_HD unsigned sg_funnel_lc(unsigned lo, unsigned hi, unsigned n) {
  return SG_DEV(__funnelshift_lc(lo, hi, n), n >= 32u ? lo : (unsigned)(((((unsigned long long)hi << 32) | lo) << n) >> 32)); }
SG_HD unsigned sg_byte_perm_h(unsigned x, unsigned y, unsigned s) {
  unsigned long long pool = ((unsigned long long)y << 32) | x; unsigned r = 0;
  for (int n = 0; n < 4; ++n) r |= (unsigned)((pool >> (8 * ((s >> (4 * n)) & 7u))) & 0xFFu) << (8 * n);
  return r; }
SG_HD unsigned sg_byte_perm(unsigned x, unsigned y, unsigned s) { return SG_DEV(__byte_perm(x, y, s), sg_byte_perm_h(x, y, s)); }
SG_HD unsigned sg_umulhi(unsigned a, unsigned b) { return SG_DEV(__umulhi(a, b), (unsigned)(((unsigned long long)a * b) >> 32)); }
SG_HD int sg_mulhi(int a, int b) { return SG_DEV(__mulhi(a, b), (int)(((long long)a * b) >> 32)); }
SG_HD unsigned long long sg_umul64hi(unsigned long long a, unsigned long long b) {
  return SG_DEV(__umul64hi(a, b), (unsigned long long)(((unsigned __int128)a * b) >> 64)); }
SG_HD long long sg_mul64hi(long long a, long long b) { return SG_DEV(__mul64hi(a, b), (long long)(((__int128)a * b) >> 64)); }
SG_HD int sg_popc(unsigned v) { return SG_DEV(__popc(v), __builtin_popcount(v)); }
SG_HD int sg_popcll(unsigned long long v) { return SG_DEV(__popcll(v), __builtin_popcountll(v)); }
SG_HD int sg_clz(unsigned v) { return SG_DEV(__clz((int)v), v ? __builtin_clz(v) : 32); }
SG_HD int sg_clzll(unsigned long long v) { return SG_DEV(__clzll((long long)v), v ? __builtin_clzll(v) : 64); }
SG_HD unsigned sg_brev_h(unsigned v) { unsigned r = 0; for (int i = 0; i < 32; ++i) r |= ((v >> i) & 1u) << (31 - i); return r; }
SG_HD unsigned long long sg_brevll_h(unsigned long long v) {
  unsigned long long r = 0; for (int i = 0; i < 64; ++i) r |= ((v >> i) & 1ull) << (63 - i); return r; }
SG_HD unsigned sg_brev(unsigned v) { return SG_DEV(__brev(v), sg_brev_h(v)); }
SG_HD unsigned long long sg_brevll(unsigned long long v) { return SG_DEV(__brevll(v), sg_brevll_h(v)); }
SG_HD int sg_ffs(unsigned v) { return SG_DEV(__ffs((int)v), __builtin_ffs((int)v)); }
SG_HD unsigned sg_rotl(unsigned x, unsigned n) { n &= 31u; return n ? (x << n) | (x >> (32u - n)) : x; }
SG_HD int sg_sext8(int x) { return (int)(signed char)x; }
SG_HD int sg_sext16(int x) { return (int)(short)x; }
namespace sg_p7150 {
// seed q10:7150, policy atomics
__constant__ unsigned short t10[16] = {((unsigned short)63524), ((unsigned short)39360), ((unsigned short)1), ((unsigned short)38172), ((unsigned short)21437), ((unsigned short)127), ((unsigned short)51011), ((unsigned short)784), ((unsigned short)65532), ((unsigned short)65535), ((unsigned short)65535), ((unsigned short)3), ((unsigned short)11), ((unsigned short)65521), ((unsigned short)30958), ((unsigned short)16)};
__device__ short w14[32];
__device__ unsigned t26[4] = {1227629825u, 4294967283u, 14u, 31u};
__device__ unsigned w28[32];
__device__ __noinline__ bool f3(long long p2) {
  if (((bool)(((long long)((-(((short)-10396)))))))) {
    long long v4 = p2;
    unsigned char a5[2] = {((unsigned char)(((short)((-695.370972f))))), ((unsigned char)50)};
    unsigned long long a6[4] = {((unsigned long long)(sg_popc(3898970451u))), ((unsigned long long)((0 ? v4 : 3049485007u))), ((unsigned long long)(((int)(4294967295u)))), ((unsigned long long)((a5[(unsigned)(39u) % 2u] >> (((unsigned)(p2)) & 31u))))};
  }
  return ((bool)(p2));
}
__host__ __device__  unsigned f20(int p18, unsigned p19) {
  if ((p18 <= 0)) {
    return p19;
  }
  return f20((p18 - 1), ((unsigned)((p19 * 3704640573u))));
}
__host__ __device__  unsigned short f34(float p32, signed char p33) {
  return ((unsigned short)((18446744073709551608ull >> (((unsigned)(16711935ull)) & 63u))));
}
__device__ void body(unsigned tid, unsigned tx, unsigned bx, unsigned bdim, unsigned gdim, unsigned lane, int warp, unsigned long long *o) {
  long long a1[4] = {((long long)(f3(((long long)(((unsigned short)256)))))), ((-19ll) | 5), ((long long)((!(((unsigned short)0))))), ((long long)((65535 << false)))};
  unsigned a9[2] = {((unsigned)(8218623872680886550ll)), ((unsigned)((-(0))))};
  switch ((((unsigned)(t10[(unsigned)(sg_ffs(3485263225u)) % 16u])) & 3u)) {
  case 0u: {
  } break;
  case 1u: {
  } break;
  case 3u: {
  } break;
  default: {
  } break;
  }
  int v11 = ((int)(((short)16)));
  unsigned long long v12 = ((unsigned long long)(((int)(sg_mul64hi(((long long)((!((-174.0))))), ((long long)(bx)))))));
  int v13 = ((int)((((v11 ? v12 : (-63)) | (v12 == v11)) ^ (5ull || (v11 ^ a1[(unsigned)(((signed char)(1861303497146812520ll))) % 4u])))));
  w14[tid] = ((short)((sg_funnel_lc(((unsigned)(v13)), ((unsigned)(v12)), gdim) >> ((signed char)(lane)))));
  if ((1u <= (4294967295u & (-16711935)))) {
    if (((bool)(((32u > v13) - (t10[(unsigned)((-(v12))) % 16u] <= v12))))) {
      v11 += sg_min_u(((unsigned)(((int)(v13)))), (true ^ bx));
      signed char v15 = ((signed char)((((unsigned long long)(((-18) + v12))) && (v13 - v13))));
      v12 -= sg_min_u(((unsigned)(v13)), ((unsigned)(sg_sext8(((int)(4294967279u))))));
      float v16 = ((float)(((v13 * (v13 < bx)) > ((false + (-1431655766)) - (v11 ^ v13)))));
    }
    unsigned v17 = tx;
    v11 &= ((int)((v11 < v17)));
    v13 ^= f20(6, ((unsigned)(((unsigned short)(t10[(unsigned)(([](bool p21, unsigned long long p22, signed char p23) -> unsigned {
    unsigned short v27 = ((unsigned short)((~(((p22 << (((unsigned)(4294967040u)) & 63u)) == (960.8840797056655 == 3ull))))));
    return ((unsigned)(sg_ffs(((unsigned)(t10[(unsigned)(sg_umulhi(((unsigned)(v27)), ((unsigned)(16711935)))) % 16u])))));
  })(((bool)(v12)), ((unsigned long long)(242.0f)), ((signed char)(4294967286u)))) % 16u])))));
  }
  w28[tid] = ((unsigned)(((long long)((v12 ? v13 : v12)))));
  v12 &= ((unsigned long long)(((unsigned char)(v11))));
  unsigned v29 = ((unsigned)(((int)(((unsigned long long)(t26[(unsigned)((((unsigned short)65522) >> (((unsigned)(warp)) & 31u))) % 4u]))))));
  if (((bool)(((short)(sg_mulhi(((int)(v29)), v13)))))) {
    switch ((((unsigned)((sg_funnel_lc(((unsigned)(4278255360ll)), ((unsigned)(a1[(unsigned)((tid + 32u)) % 4u])), w28[tid]) ? (v12 < w14[tid]) : ((signed char)(v13))))) & 7u)) {
    case 2u: {
    } break;
    case 4u: {
      v12 ^= ((unsigned long long)((345.718048f + 18446744073709551597ull)));
      v13 *= ((unsigned)((v12 * v11)));
    } break;
    default: {
      v13 -= (v12 != ((int)(bdim)));
    } break;
    }
    int v30 = ((int)((31u | (sg_min_u(a9[(unsigned)(warp) % 2u], ((unsigned)(595.9504610062925))) ? (v12 | a1[(unsigned)((7670997471030735447ull || tx)) % 4u]) : (gdim - ((unsigned char)187))))));
  }
  if (((bool)(((586.644897f - v13) * v12)))) {
    for (int i31 = 0; i31 < 1; ++i31) {
      v12 ^= (gdim + (4287206171u - true));
      v11 ^= f34(((-42.7028809f) + a1[(unsigned)((18446744073709551610ull + v13)) % 4u]), ((signed char)(1.5e-05)));
      double v36 = ((double)((sg_max_ull(((unsigned long long)((lane * v29))), ((unsigned long long)(((int)(i31))))) | ((unsigned)(sg_umulhi(((unsigned)(a1[(unsigned)(((short)(w14[tid]))) % 4u])), ((unsigned)(32ull))))))));
    }
    v11 = ((int)((((unsigned short)15) >= (v13 >> (((unsigned)(bdim)) & 31u)))));
    int4 q37 = make_int4(v11, ((int)((((-2147483647 - 1) * v12) & 1026299296u))), ((int)(((unsigned)(((long long)(19ll)))))), 2058657368);
    v11 ^= sg_max_u(bx, ((unsigned)(0.100000001f)));
  } else {
    for (int i38 = 0; i38 < 3; ++i38) {
      unsigned char v39 = ((unsigned char)((-(sg_clz(v29)))));
      bool v40 = (false <= sg_mul64hi(((long long)((t26[(unsigned)(sg_min_ll(((long long)(v11)), ((long long)(18446744073709551604ull)))) % 4u] >= (-252645135)))), ((long long)((v11 + v12)))));
      int v41 = ((int)(((v39 + i38) ^ ((unsigned)(lane)))));
      v12 |= a1[(unsigned)((!(bx))) % 4u];
    }
  }
  long long v42 = ((long long)((((unsigned char)((v12 - warp))) ? ((w28[tid] * ((unsigned short)6534)) >= (warp / (-32))) : ((lane >= a9[(unsigned)((12u <= tid)) % 2u]) | (v12 != tx)))));
  switch ((((unsigned)((v11 ^ (-((-2)))))) & 7u)) {
  case 3u: {
    v12 <<= (((unsigned)(((bool)(sg_max_ull(((unsigned long long)((-3064437092216557246ll))), v12))))) & 63u);
  } break;
  case 5u: {
    v11 >>= (((unsigned)(v11)) & 31u);
  } break;
  default: {
    v11 = ((((unsigned short)65535) * warp) ^ sg_ffs(((unsigned)(v42))));
  } break;
  }
  unsigned v43 = ((unsigned)((((v29 * ((signed char)13)) << ((long long)(2.0))) < ((short)((v12 * tid))))));
  v42 *= ((long long)(665.3959444221682));
  unsigned long long v44 = ((unsigned long long)((((-(a1[(unsigned)(18446744073709551606ull) % 4u])) ^ sg_brev(((unsigned)(3ll)))) | (((int)((-14ll))) * (v11 ? v11 : v43)))));
  int v45 = ((int)((((v12 + v13) + (v12 ^ 18446744073709551615ull)) * ((~(v12)) & ((-1975368340) & lane)))));
  float4 q46 = make_float4(((float)(((bx - v13) * ((int)(v11))))), ((float)(6534965829630221324ull)), ((float)(((v44 | v29) + (warp < v43)))), ((float)((~((a9[(unsigned)(w28[tid]) % 2u] & 2112341615u))))));
}
}  // namespace sg_p7150
extern "C" __global__ void sg_k_p7150(unsigned long long *sg_out) {
  const unsigned sg_t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long *o = sg_out + (unsigned long long)sg_t * 1u;
  sg_p7150::body(sg_t, threadIdx.x, blockIdx.x, blockDim.x, gridDim.x, threadIdx.x % 32u, warpSize, o);
}
#include <cstdio>
static const unsigned long long sg_expect[32] = {0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull};
int main() { const int n = 32; unsigned long long *d, h[32]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p7150<<<1, 32>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
