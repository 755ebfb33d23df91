"""A reproducer's device forms (``synth.present``): shorter, device code alone, and still built by nvcc."""
import subprocess

import pytest

from conftest import needs_nvcc
from suitegen.synth import emit, populate, present, reduce

HEAD = ("#ifndef __CUDACC_RTC__\n#include <cstring>\n#endif\n#define SG_HD __host__ __device__ __forceinline__\n"
        + emit.SG_DEV_MACRO)


def test_the_host_arm_and_its_helpers_go():
    text = (HEAD + "SG_HD unsigned sg_h(unsigned v) { return v + 1u; }\n"
            "SG_HD unsigned sg_f(unsigned v) { return SG_DEV(__brev(v), sg_h(v)); }\n"
            "__device__ void body(unsigned long long *o) {\n  o[0] = sg_f(3u);\n}\n")
    assert present.device_only(text) == ("__device__ __forceinline__ unsigned sg_f(unsigned v) { return __brev(v); }\n"
                                         "__device__ void body(unsigned long long *o) {\n  o[0] = sg_f(3u);\n}\n")


@pytest.mark.parametrize("helper, call, inlined", [
    ("unsigned long long sg_a(unsigned v, int n) { return v << n; }", "sg_a(x + 1u, 2)",
     "((unsigned long long)(((unsigned)(x + 1u)) << ((int)(2))))"),
    ("int sg_b(int a, int b) { return max(a, b); }", "sg_b(sg_b(1, y), 2)",
     "((int)(max(((int)(((int)(max(((int)(1)), ((int)(y))))))), ((int)(2)))))"),
    ("int sg_c(int a) { return a * a; }", "sg_c(f())", None),  # a parameter read twice: the call stays
    ("int sg_d(int a, int b) { return a ? b : 0; }", "sg_d(1, g())", None),  # an argument evaluated only sometimes
])
def test_a_one_expression_helper_takes_the_place_of_its_calls(helper, call, inlined):
    text = f"__device__ __forceinline__ {helper}\n__device__ void body(unsigned long long *o) {{ o[0] = {call}; }}\n"
    out = present.inline_helpers(text)
    if inlined is None:
        assert out == text
    else:
        assert out == f"__device__ void body(unsigned long long *o) {{ o[0] = {present.tidy(inlined)}; }}\n"


def test_the_body_takes_the_place_of_its_call():
    one_line = ("__device__ void body(unsigned gdim, unsigned long long *o) {\n  o[0] = gdim + 1u;\n}\n"
                'extern "C" __global__ void sg_k_p1(unsigned long long *o) { body(gridDim.x, o); }\n')
    assert present.body_into_kernel(one_line) == ('extern "C" __global__ void sg_k_p1(unsigned long long *o) {\n'
                                                  "  o[0] = (gridDim.x) + 1u;\n}\n")
    several = ("__device__ void body(unsigned tid, unsigned long long *o) {\n  int tidy = 2;\n  o[0] = tid + tidy;\n}\n"
               'extern "C" __global__ void sg_k_p2(unsigned long long *sg_out) {\n'
               "  const unsigned sg_t = blockIdx.x * blockDim.x + threadIdx.x;\n"
               "  unsigned long long *o = sg_out + (unsigned long long)sg_t * 2u;\n  body(sg_t, o);\n}\n")
    assert present.body_into_kernel(several) == (
        'extern "C" __global__ void sg_k_p2(unsigned long long *sg_out) {\n'
        "  const unsigned sg_t = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  unsigned long long *o = sg_out + (unsigned long long)sg_t * 2u;\n"
        "  int tidy = 2;\n  o[0] = (sg_t) + tidy;\n}\n")
    assert present.body_into_kernel(several.replace("tid + tidy;", "tid;\n  return;")) == \
        several.replace("tid + tidy;", "tid;\n  return;")  # a body that returns early stays a function


@needs_nvcc
def test_the_forms_of_generated_reproducers_are_shorter_device_code_that_nvcc_builds(tmp_path):
    """Reproducers of programs of several policies: each form is shorter, has no host form left, and nvcc builds the
    shortest (whether it still computes the same is the GPU test's: ``test_fuzz_gpu``)."""
    for k, policy in enumerate(("math", "rounding", "wide")):
        program = populate.generate("forms", k, policy)
        text = emit.standalone(program, reduce.expected(program))
        forms = present.forms(text)
        assert forms and all(f.count("\n") <= text.count("\n") for f in forms)
        shortest = forms[0]
        assert "SG_DEV" not in shortest and "#include <cstring>" not in shortest and "body(" not in shortest
        src = tmp_path / f"{policy}.cu"
        src.write_text(shortest)
        done = subprocess.run(["nvcc", "-std=c++17", "-arch=sm_90", "-fmad=false", "-c", str(src), "-o",
                               str(src.with_suffix(".o"))], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr + shortest


def test_a_reduction_starts_from_the_shortest_form_its_test_keeps():
    program = populate.generate("forms", 0, "math")
    text = emit.standalone(program, reduce.expected(program))
    forms = present.forms(text)
    assert len(forms) >= 2
    judged = []

    def keeps_all_but_the_shortest(batch):
        judged.append(list(batch))
        return [f != forms[0] for f in batch]
    assert present.shortest_kept(text, keeps_all_but_the_shortest) == forms[1]
    assert judged == [forms], "every form judged once, in one batch"
    assert present.shortest_kept(text, lambda batch: [False] * len(batch)) == text
