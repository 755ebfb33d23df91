__device__ unsigned t9[16] = {4294967295u, 2u, 2147483648u, 7u, 65535u, 1420335088u, 127u, 4294967168u, 4294967281u, 3906231692u, 7u, 7u, 3451649083u, 3331034828u, 11u, 2472111020u};
__device__ unsigned short f43(int p41, unsigned short p42) {
  return f43(p41, 0);
}
template <typename T> __device__  T f39(T p38) {
  int4 q40 = make_int4((f43(1, 0)), 0, 0, 0);
}
__device__  int f35(int p32, unsigned p33, int p34) {
  uchar4 q37 = make_uchar4((f39<unsigned>(t9[(unsigned)(1u) % 16u])), 0, 0, 0);
}
extern "C" __global__ void sg_k_p487(unsigned long long *o) {
  o[0] = (((warpSize)) ? 0 : f35(0, 0, (warpSize)));
}
