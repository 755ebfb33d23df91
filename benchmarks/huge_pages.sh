#!/bin/bash
# Whether glibc malloc on transparent huge pages (procs.HUGE_PAGES) makes nvcc builds cheaper on this machine:
#   benchmarks/huge_pages.sh [JOBS] [BUILDS_PER_JOB] [ROUNDS]
# JOBS loops (default: the core count) each run BUILDS_PER_JOB builds of one small translation unit (nvcc -c,
# sm_90), with glibc.malloc.hugetlb=0 and =1 in turn, ROUNDS times; prints each round's wall, user and sys seconds
# and the kernel's transparent huge page settings.
jobs=${1:-$(nproc)}; builds=${2:-6}; rounds=${3:-2}
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cat > "$dir/x.cu" <<'EOF'
#include <cstdio>
struct S { int v; __host__ __device__ S(int x) : v(x * 2) {} };
template <class T> __global__ void k(T *p, int n) { int i = threadIdx.x; if (i < n) p[i] = T(S(i).v); }
template __global__ void k<int>(int *, int);
template __global__ void k<float>(float *, int);
int main() { std::printf("%d\n", S(3).v); }
EOF
echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled) defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag)"
echo "$jobs jobs x $builds builds each"
for round in $(seq "$rounds"); do
  for h in 0 1; do
    TIMEFORMAT="hugetlb=$h round $round: %R s wall, %U s user, %S s sys"
    time (
      for j in $(seq "$jobs"); do
        (for b in $(seq "$builds"); do
           GLIBC_TUNABLES=glibc.malloc.hugetlb=$h nvcc -arch=sm_90 -c "$dir/x.cu" -o "$dir/x$j.o" || exit 1
         done) &
      done
      wait
    )
  done
done
