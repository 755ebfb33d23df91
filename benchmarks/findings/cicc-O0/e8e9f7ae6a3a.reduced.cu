struct sg_env { unsigned tid, tx, bx, bdim, gdim, lane; int warp; };
__device__ __forceinline__ unsigned long long sg_bits(int x) { return (unsigned)x; }
__device__ __forceinline__ unsigned long long sg_bits(unsigned x) { return x; }
__device__ __forceinline__ unsigned long long sg_bits(long long x) { return (unsigned long long)x; }
__device__ __forceinline__ unsigned long long sg_bits(double x) {
  return (unsigned long long)__double_as_longlong(x); }
__device__ __forceinline__ unsigned sg_funnel_l(unsigned lo, unsigned hi, unsigned n) {
  return __funnelshift_l(lo, hi, n); }
__device__ __forceinline__ unsigned long long sg_umul64hi(unsigned long long a, unsigned long long b) {
  return __umul64hi(a, b); }
namespace sg_p11902 {
__managed__ long long t3[4] = {(-32ll), 10ll, 15ll, (-9223372036854775807ll - 1ll)};
__device__ bool t28[4] = {false, true, false, true};
__device__ unsigned long long t30[16] = {8593275474263861388ull, 32768ull, 18446744073709551608ull, 255ull, 18446744073709551601ull, 63ull, 31ull, 18446744070846240086ull, 5482524798169005040ull, 2147483648ull, 1ull, 18446744073709551601ull, 7ull, 2147483648ull, 2ull, 1ull};
__device__ unsigned long long t34[16] = {2ull, 255ull, 1ull, 18446744073709551604ull, 2863311530ull, 18446744073709551488ull, 18446744073709551584ull, 18446744073709551614ull, 18446744073709486080ull, 10714361536539608654ull, 4294967295ull, 5854546250385260458ull, 18446744073709551584ull, 128ull, 5271715389529123236ull, 18446744073709551609ull};
template <typename T> __device__  T f6(T p5) {
  signed char a7[2] = {((signed char)(p5)), ((signed char)(-(p5)))};
  for (int i8 = 0; i8 < 5; ++i8) {
    unsigned long long v15 = ((unsigned long long)((int)(([](unsigned char p10, int p11) -> signed char {
    constexpr double k13 = ((double)((T)((short)-8)));
    bool a14[4] = {((bool)(19u)), ((bool)((int)(-30668757))), ((bool)((float)(p10))), ((bool)((-16711936) - 9546122198148104274ull))};
    return ((signed char)(sg_umul64hi(((unsigned long long)(a14[(unsigned)((p11 * p10)) % 4u])), ((unsigned long long)(p10)))));
  })(((unsigned char)((unsigned long long)(a7[(unsigned)((-2147483647)) % 2u]))), (((unsigned short)32768) & (-16711935))))));
    v15 *= (((unsigned)((unsigned short)32)) + (!(a7[(unsigned)((18446744073709551361ull ? a7[(unsigned)((~(i8))) % 2u] : v15)) % 2u])));
  }
  if (((bool)((int)(__popc(((unsigned)((short)(p5)))))))) {
    switch ((((unsigned)(__brev(((unsigned)(p5 < true))))) & 1u)) {
    case 0u: {
    } break;
    }
  }
  return p5;
}
__device__  unsigned f25(int p23, unsigned p24) {
  if ((p23 <= 0)) {
    return p24;
  }
  return f25((p23 - 1), ((unsigned)(p24 + 4008529522u)));
}
struct f20_S { int p18; bool p19;
  __device__  bool f20() const {
    for (int i21 = 0; i21 < 1; ++i21) {
      unsigned v22 = ((unsigned)((-277.8304289115507) >= ((((unsigned short)65520) + 678860230) ^ (8980349476882663710ll + p19))));
      v22 &= ((unsigned)((float)((int)(__ffs((int)((unsigned)(v22)))))));
      v22 &= (((unsigned long long)(3930236194u)) % 128ll);
    }
    unsigned short v26 = ((unsigned short)(((~(65536u)) == f25(3, ((unsigned)(p18)))) * ((unsigned char)((-765.552124f) || t3[(unsigned)(65535u) % 4u]))));
    for (int i27 = 0; i27 < 5; ++i27) {
      unsigned char v29 = ((unsigned char)((~(t28[(unsigned)((10097505383582150754ull < p18)) % 4u])) ^ (-(i27))));
      v26 <<= (((unsigned)((unsigned short)(((float)(p19)) + v26))) & 31u);
      v26 = ((unsigned short)(((-8994606987559135599ll) & p18) < ((long long)((short)1))));
    }
    return (((short)63) && 4294967288u);
  }
};
__device__ void body(const sg_env &e, unsigned long long *o) {
  unsigned long long a1[8] = {((unsigned long long)(e.bx)), ((unsigned long long)((int)(__popc(((unsigned)(false)))))), ((unsigned long long)(1u && ((unsigned short)65534))), ((unsigned long long)((int)((unsigned short)32))), ((unsigned long long)((long long)(min(((long long)(896.795654f)), ((long long)(e.warp)))))), ((unsigned long long)(16711935u & 2845010760u)), ((unsigned long long)(161812731u & 1692752631)), ((unsigned long long)(-(e.lane)))};
  float a2[8] = {((float)(e.tx ^ 2u)), ((float)((long long)(4294967278u))), ((float)((-1ll) && e.tx)), ((float)(false && e.warp)), ((float)(true == e.tid)), ((float)((unsigned)(__umulhi(((unsigned)((unsigned short)6)), ((unsigned)(16ull)))))), ((float)(1550636772u)), ((float)(t3[(unsigned)(e.tid) % 4u] ? (-7ll) : (-6980948602986152600ll)))};
  switch ((((unsigned)((unsigned char)255)) & 1u)) {
  case 0u: {
  } break;
  default: {
  } break;
  }
  long long a4[8] = {((long long)((int)(4294934528u))), ((long long)((signed char)8)), ((long long)((int)(-105177785551752296ll))), ((long long)(a1[(unsigned)(sg_funnel_l(((unsigned)((unsigned char)166)), ((unsigned)((unsigned char)0)), e.tx)) % 8u] - 4278255360ull)), ((long long)(f20_S{((int)(t3[(unsigned)(f6<long long>((-2147483647ll))) % 4u])), ((bool)(e.bdim))}.f20())), ((long long)(4278255361u << a1[(unsigned)(16u) % 8u])), ((long long)(((unsigned short)65280) >= t30[(unsigned)(e.tid) % 16u])), ((long long)(2080924346u ? (-81440899) : a1[(unsigned)(75u) % 8u]))};
  if (((bool)((a4[(unsigned)(((int)(abs(((int)(t3[(unsigned)((3228116176u || e.tid)) % 4u])))))) % 8u] != (-65536)) | ((long long)(min(((long long)(6719105667603582464ull)), ((long long)(3ull)))))))) {
    for (int i31 = 0; i31 < 2; ++i31) {
    }
  }
  switch ((((unsigned)(1880855375u == (-((-1478243864))))) & 1u)) {
  case 0u: {
  } break;
  default: {
  } break;
  }
  signed char a33[8] = {((signed char)((unsigned)(154.0f))), ((signed char)(0.5f)), ((signed char)(10ull - t34[(unsigned)((-(16u))) % 16u])), ((signed char)(31ull - 307010376u)), ((signed char)(3114865426111135299ll)), ((signed char)(e.bx == 255)), ((signed char)(-32ll)), ((signed char)((int)(t30[(unsigned)(e.lane) % 16u])))};
  if (((4294967277u + e.tx) > (3342388121u == 9223372036854775806ll))) {
    float v35 = ((float)(((unsigned long long)(4294967295ull >> e.tx)) ^ (!(((int)(max(((int)(e.gdim)), ((int)((unsigned short)3)))))))));
    for (int i36 = 0; i36 < 1; ++i36) {
      v35 += e.lane;
    }
    for (int i37 = 0; i37 < 4 && (long long)i37 < (long long)((e.tx & 3u)); ++i37) {
      v35 += 1674317714;
      int v38 = ((int)(((t28[(unsigned)((i37 >> i37)) % 4u] || i37) - (-1198561608)) ? i37 : (((int)(__clz((int)((unsigned)(t34[(unsigned)(a33[(unsigned)(76u) % 8u]) % 16u]))))) | (e.tid - i37))));
    }
    v35 -= v35;
  } else {
    for (int i40 = 0; i40 < 0; ++i40) {
    }
    int a41[8] = {((int)((int)(signed char)((int)(e.bx)))), ((int)(2863311530ull * e.bx)), ((int)(e.bdim - 1.5e-05)), ((int)(2147483647 <= ((unsigned short)128))), ((int)(3770017370u - 2u)), ((int)(t34[(unsigned)((0 * 32768ull)) % 16u])), ((int)(12 >= 252645135)), ((int)(16052345203777962451ull))};
  }
  for (int i42 = 0; i42 < 4 && (long long)i42 < (long long)((e.tx & 3u)); ++i42) {
  }
  o[0] = sg_bits((-7582538249245487401ll));
  o[1] = sg_bits(((e.lane | a4[(unsigned)((e.gdim - (-32))) % 8u]) >> (((unsigned)(((signed char)-3) - t3[(unsigned)(((bool)(8))) % 4u])) & 63u)));
  o[2] = sg_bits(((((unsigned char)254) - (-1195123319)) >> (0.5 > 16ull)));
  o[3] = sg_bits((((double)(a2[(unsigned)(63ll) % 8u])) - (3986258802u % ((signed char)-6))));
  o[4] = sg_bits(799738889u);
  o[5] = sg_bits((((long long)(__mul64hi(((long long)(-15)), ((long long)(1039287191u))))) * (5u + 116.07128285597605)));
}
}  // namespace sg_p11902
extern "C" __global__ void sg_k_p11902(unsigned long long *sg_out) {
  const unsigned sg_t = blockIdx.x * blockDim.x + threadIdx.x;
  const sg_env e = {sg_t, threadIdx.x, blockIdx.x, blockDim.x, gridDim.x, threadIdx.x % 32u, warpSize};
  unsigned long long *o = sg_out + (unsigned long long)sg_t * 6u;
  sg_p11902::body(e, o);
  atomicAdd(sg_out + 192u + 0, (unsigned long long)o[3]);
  atomicXor(sg_out + 192u + 1, (unsigned long long)o[0]);
}
#include <cstdio>
static const unsigned long long sg_expect[194] = {10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 10864205824464064215ull, 0ull, 1195123573ull, 13974022235109720064ull, 799738889ull, 13861592087922199472ull, 4446853754481803264ull, 0ull};
int main() { const int n = 194; unsigned long long *d, h[194]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p11902<<<1, 32>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
