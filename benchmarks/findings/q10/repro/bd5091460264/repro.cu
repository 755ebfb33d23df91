__device__ unsigned t2[8] = {0u, 3946657533u, 4294967293u, 588844750u, 256u, 8u, 256u, 1u};
__constant__ bool t18[8] = {true, false, false, false, false, false, true, true};
__device__  unsigned f25(int p23, unsigned p24) {
  return f25(p23, p24);
}
extern "C" __global__ void sg_k_p41(unsigned long long *o) {
  const unsigned sg_t = blockIdx.x * blockDim.x + threadIdx.x;
  bool v1 = true;
  short v14 = 0;
  switch (((unsigned)((bool)((sg_t))))) {
  case 5u: {
    v1 >>= ((unsigned)(t18[(unsigned)(t2[(unsigned)(f25(1, 0)) % 8u]) % 8u] ? v14 : v14));
  } break;
  }
}
