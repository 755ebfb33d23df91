__device__ int w1[1];
__device__ unsigned f10(int p8, unsigned p9) {
  return f10(p8, p9);
}
__device__  int f5(double p3, int p4) {
  if ((([](double p6) -> double {
    double v14 = (f10(1, 0));
  })(0))) {
  }
}
extern "C" __global__ void sg_k_p1534(unsigned long long *o) {
  w1[0] = ((warpSize) ? 1 : f5(0, 0));
}
