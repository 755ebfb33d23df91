__constant__ long long t14[16] = {2147483647ll, 128ll, 20ll, 2147483647ll, 2147483648ll, 1665730614710478336ll, 0, 0, 0, 2ll, 15ll, 9223372036854775807ll, 127ll, 6785175127584767171ll, 892711157779477008ll, 12ll};
extern "C" __global__ void sg_k_p6810(unsigned long long *o) {
  long long v12 = 0ll;
  v12 += ((unsigned long long)((unsigned)(t14[(unsigned)(false) % 16u])));
  long long a27[8] = {0ll, 0ll, 1ll, 0ll, 0ll, 1ll, 1ll, 1ll};
  o[0] = ((unsigned long long)((unsigned long long)((long long)(((unsigned)(__umulhi(((unsigned)(v12)), ((unsigned)(3620946150u))))) - a27[(unsigned)(((unsigned long long)((threadIdx.x % 32u)))) % 8u]))));
}
#include <cstdio>
static const unsigned long long sg_expect[1] = {1810473074ull};
int main() { const int n = 1; unsigned long long *d, h[1]; int bad = 0;
  cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8); sg_k_p6810<<<1, 1>>>(d); cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);
  if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, got %llu\n", i, sg_expect[i], h[i]);
  printf(bad ? "WRONG %d\n" : "OK\n", bad); return bad != 0; }
