__constant__ double t2[4] = {111.0, 1.5e-05, 123.456, (-1.0)};
__device__ double t7[4] = {239.42790538471127, 1.5e-05, 0, 230.0266383682524};
__constant__ double t11[16] = {0.0, 409.1568687185668, 81.0, (-34.0), 921.3730274829802, (-169.0), 10000000000.0, 3.0, 123.0, 0, 0.1, 2.0, 0, (-1e-10), (-984.5519226719537), (-12.0)};
__device__ double t53[16] = {833.4907931909145, 2.0, 65504.0, 1.0, 375.55170920607407, 3.0, 85.0, 10000000000.0, (-0.0), (-1e-10), 3.0, 370.5754251731671, (-58.0), 1.0, 0, 77.28612020803257};
__device__  unsigned long long f10(int p8, unsigned long long p9) {
  if ((p8 <= 0)) {
    return p9;
  }
  return f10((p8 - 1), 0);
}
struct f6_S { float p3; float p4; float p5;
  __device__  double f6() const {
    if (((bool)(t7[(unsigned)(f10(2, 1ull)) % 4u] - ((double)(p4))))) {
    }
    return ((double)(false));
  }
};
__device__ void body(unsigned tid, unsigned tx, unsigned bx, unsigned gdim, unsigned long long *o) {
  bool a1[2] = {((bool)(~(bx))), ((bool)(f6_S{((float)(t2[(unsigned)(tid) % 4u])), ((float)(-28.0)), ((float)(8))}.f6()))};
  unsigned v21 = ((unsigned)((((int)(-1.0)) - (122.0 / 2)) ? (((-99.0) - t2[(unsigned)(0) % 4u]) + (439.6815586777959 - 81.0)) : (-1.0f)));
  constexpr double k58 = ((double)(~(1476034748u)));
  if (((bool)((0.3333333 * t11[(unsigned)(((-7) * v21)) % 16u]) * ((float)(tx))))) {
    v21 &= ((t11[(unsigned)((v21 ? v21 : tx)) % 16u] * 65504.0) == 0);
  } else {
    float v60 = ((float)(((v21 - k58) - (k58 * v21)) - 0));
    for (int i61 = 0; i61 < 3; ++i61) {
      v60 += ((float)(v21 ? v60 : k58));
    }
    if ((0 < (tid + v60))) {
      v21 &= 0;
    }
  }
  double a64[4] = {0, (t11[(unsigned)(tid) % 16u] ? k58 : v21), k58, 0};
}
extern "C" __global__ void sg_k_p3925(unsigned long long *sg_out) {
  const unsigned sg_t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long *o = sg_out + (unsigned long long)sg_t * 2u;
  body(sg_t, threadIdx.x, blockIdx.x, gridDim.x, o);
  atomicMax(sg_out + 8u + 0, (unsigned long long)o[1]);
  atomicXor(sg_out + 8u + 1, (unsigned long long)o[0]);
}
#include <cstdio>
static const unsigned long long sg_expect[10] = {0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull};
int main() { const int n = 10; unsigned long long *d, h[10]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p3925<<<1, 4>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
