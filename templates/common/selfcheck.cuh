// Self-checking support for runtime cases: the program prints exactly one result line,
//   SUITEGEN-RESULT: PASS            or
//   SUITEGEN-RESULT: FAIL <what>
// and exits 0 on PASS, 1 on FAIL. Expected values come from the host side, never from the
// kernel under test.
#include <cstdio>
#include <cstdlib>

static int sg_failures = 0;

#define SG_CHECK(cond)                                                          \
  do {                                                                          \
    if (!(cond)) {                                                              \
      std::printf("SUITEGEN-CHECK-FAILED: %s (line %d)\n", #cond, __LINE__);    \
      ++sg_failures;                                                            \
    }                                                                           \
  } while (0)

#define SG_CUDA(call)                                                           \
  do {                                                                          \
    cudaError_t sg_err = (call);                                                \
    if (sg_err != cudaSuccess) {                                                \
      std::printf("SUITEGEN-RESULT: FAIL cuda error %s at line %d: %s\n",      \
                  cudaGetErrorName(sg_err), __LINE__, #call);                   \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

static int sg_report() {
  if (sg_failures == 0) {
    std::printf("SUITEGEN-RESULT: PASS\n");
    return 0;
  }
  std::printf("SUITEGEN-RESULT: FAIL %d check(s) failed\n", sg_failures);
  return 1;
}
