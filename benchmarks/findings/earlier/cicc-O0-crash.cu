__device__ unsigned f(int d, unsigned x) { if (d <= 0) return x; return f(d - 1, x * 3u); }
extern "C" __global__ void k(unsigned *o) { for (int i = 0; i < 0; ++i) o[0] = f(3, o[1]); }
