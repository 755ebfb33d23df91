__device__ unsigned short f22(int p20, unsigned short p21) {
  return f22(p20, 0);
}
template <typename T> __device__ T f13(T p12) {
  short v23 = ((p12) ? 1 : ([](unsigned char p15, unsigned short p16) -> int {
    return ((int)(f22(1, 0)));
  })(0, 0));
}
struct f11_S { unsigned char p9; signed char p10;
  __device__ signed char f11() const {
    signed char v29 = (f13<unsigned char>(((unsigned char)1)));
  }
};
extern "C" __global__ void sg_k_p78(unsigned long long *o) {
  unsigned v30 = (f11_S{0, 0}.f11());
}
