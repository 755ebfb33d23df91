#ifndef __CUDACC_RTC__
#include <cstring>
#endif
struct sg_env { unsigned tid, tx, bx, bdim, gdim, lane; int warp; };
#define SG_HD __host__ __device__ __forceinline__
#ifdef __CUDA_ARCH__
#define SG_DEV(device, host) device
#else
#define SG_DEV(device, host) host
#endif
SG_HD unsigned long long sg_bits(float x) { return SG_DEV(__float_as_uint(x), [&] { unsigned u; memcpy(&u, &x, 4); return u; }()); }
SG_HD unsigned sg_funnel_r(unsigned lo, unsigned hi, unsigned n) {
  return SG_DEV(__funnelshift_r(lo, hi, n), (unsigned)((((unsigned long long)hi << 32) | lo) >> (n & 31u))); }
namespace sg_p5671 {
__constant__ int t29[16] = {0, (-1431655766), (-2), 0, 7, 1511015514, 65535, 843266340, 65536, (-16711936), 128, 19, 544414806, (-63), (-1374257155), (-252645135)};
__managed__ float t32[8] = {(-779.139099f), 351.137482f, 258.0f, 1e+10f, (-977.435181f), 0.333333313f, 0.5f, 1.49999996e-05f};
__device__ void body(const sg_env &e, unsigned long long *o) {
  unsigned long long a1[4] = {12559317331497094393ull, ((unsigned long long)(65535ll)), 18446744073709551607ull, ((unsigned long long)(((unsigned char)15)))};
  unsigned long long v12 = 625642752ull;
  for (int i13 = 0; i13 < 4 && (long long)i13 < (long long)(e.tx); ++i13) {
    v12 ^= ((unsigned)((!(i13))));
  }
  unsigned a31[4] = {((unsigned)((t32[(unsigned)(((short)-21606)) % 8u] ? 0ull : 256u))), 4278255360u, e.lane, 0u};
  int v33 = 0;
  int v34 = ((int)(v12));
  float v35 = ((float)(((int)((sg_funnel_r(2147483647u, 0u, 4u) ? (((short)-32) != a31[(unsigned)(((long long)(v34))) % 4u]) : ((bool)(a1[(unsigned)(v34) % 4u])))))));
  unsigned v36 = 15u;
      v36 = ((unsigned)(((bool)((t29[(unsigned)(e.tid) % 16u] ? 2944174433154654536ull : 0u)))));
  o[1] = sg_bits(v35);
  o[2] = sg_bits(((e.tid && v33) | (v36 + v36)));
}
}  // namespace sg_p5671
extern "C" __global__ void sg_k_p5671(unsigned long long *sg_out) {
  const unsigned sg_t = blockIdx.x * blockDim.x + threadIdx.x;
  const sg_env e = {sg_t, threadIdx.x, blockIdx.x, blockDim.x, gridDim.x, threadIdx.x % 32u, warpSize};
  unsigned long long *o = sg_out + (unsigned long long)sg_t * 10u;
  sg_p5671::body(e, o);
  { __shared__ unsigned sg_a0;
    if (threadIdx.x == 0) sg_a0 = 93u; __syncthreads();
    for (int sg_r = 0; sg_r < 3; ++sg_r) atomicOr(&sg_a0, (unsigned)(((unsigned)o[0]) + (unsigned)sg_r * 3u)); __syncthreads();
    o[7] = sg_a0; __syncthreads(); }
  o[8] = __reduce_min_sync(0xffffffffu, (unsigned)((unsigned)o[0]));
  o[9] = (unsigned long long)(((unsigned long long)o[4]) ^ __shfl_sync(0xffffffffu, ((unsigned long long)o[4]), (int)(((threadIdx.x % 32u) * 1u + 11u) & 31u)));
  atomicMax(sg_out + 320u + 0, (unsigned long long)o[2]);
}
#include <cstdio>
static const unsigned long long sg_expect[321] = {0ull, 1065353216ull, 0ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 0ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 0ull, 1065353216ull, 1073741824ull, 0ull, 0ull, 0ull, 0ull, 95ull, 0ull, 0ull, 1073741824ull};
int main() { const int n = 321; unsigned long long *d, h[321]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p5671<<<1, 32>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
