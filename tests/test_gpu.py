"""On a GPU: runtime cases run, and a faulting or hanging kernel fails only its own case."""
import json
import shutil
import subprocess
import sys

import pytest

from suitegen.execute.gpus import detect_gpu

from conftest import DIVISION_TO_MULTIPLY, MULTIPLY_TO_ADD, REPO, needs_nvcc, real_nvcc_behind, write_demo_oracle

GPU = detect_gpu()
pytestmark = [needs_nvcc, pytest.mark.gpu,
              pytest.mark.skipif(not GPU.available, reason=f"needs a CUDA GPU ({GPU.reason})")]

PROGRAM = '''\
{% include "common/selfcheck.cuh" %}
__global__ void kernel(int *out, int *bad, int mode) {
  if (mode == 1) { *bad = 1; }   // an address the host made up: an illegal address at run time
  if (mode == 2) { while (true) { __nanosleep(1000); } }  // hangs
  *out = warpSize;
}
int main() {
  int *out;
  SG_CUDA(cudaMalloc(&out, sizeof(int)));
  kernel<<<1, 1>>>(out, reinterpret_cast<int *>(0x10), {{ mode }});
  SG_CUDA(cudaDeviceSynchronize());
  int host = 0;
  SG_CUDA(cudaMemcpy(&host, out, sizeof(int), cudaMemcpyDeviceToHost));
  SG_CHECK(host == 32);
  return sg_report();
}
'''


@pytest.fixture
def planted(tmp_path):
    return write_demo_oracle(tmp_path, '''
        section = "demo"
        [[rule]]
        id = "warp-size"
        statement = "warpSize is 32 on every current GPU."
        template = "demo/run.cu.j2"
          [[rule.variant]]
          name = "run-{mode}"
          expect = "runtime"
          mode = "link"
          observe = "the kernel writes warpSize; the host checks 32"
          matrix = { mode = [0, 1, 2, 3] }
        ''', {"run.cu.j2": PROGRAM})


def test_fault_and_hang_fail_alone(planted, tmp_path):
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "suitegen", "run", "--oracle", str(planted[0]), "--templates",
                           str(planted[1]), "--std", "c++17", "--arch", "sm_90", "--out", str(out), "-j", "4",
                           "--exec-timeout", "10", "-q"], cwd=REPO, capture_output=True, text=True, timeout=300)
    recs = {r["variant"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert recs["run-0"]["verdict"] == "PASS" and recs["run-3"]["verdict"] == "PASS", proc.stderr
    assert recs["run-1"]["verdict"] == "FAIL" and "cudaError" in recs["run-1"]["reason"], recs["run-1"]["reason"]
    assert recs["run-2"]["verdict"] == "UNRESOLVED" and recs["run-2"]["execution"]["status"] == "timed-out"
    assert recs["run-0"]["execution"]["gpu"].startswith("GPU ")
    assert proc.returncode == 1


# Toolchains with a planted arithmetic fault: the real nvcc behind a wrapper.
FAST_MATH = {"flags": "--use_fast_math"}  # --ftz=true --prec-div=false --prec-sqrt=false
DIVISION_EDITED = {"edit": DIVISION_TO_MULTIPLY}


@pytest.mark.parametrize("wrapper, failing, passing", [
    (FAST_MATH, ["host-device-agreement[run-float-default-flags]",
                 "device-arithmetic-semantics[run-float-default-flags]"],
     ["device-arithmetic-semantics[run-unsigned]"]),
    # Host and device code both pass through the edited source: only the Python oracle sees the change.
    (DIVISION_EDITED, ["device-arithmetic-semantics[run-float-default-flags]",
                       "device-arithmetic-semantics[run-double-default-flags]", "device-arithmetic-semantics[run-double]"],
     ["host-device-agreement[run-double]", "device-arithmetic-semantics[run-unsigned]"]),
])
def test_planted_arithmetic_faults_fail(tmp_path, wrapper, failing, passing):
    nvcc = real_nvcc_behind(tmp_path, **wrapper)
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "suitegen", "run", "--nvcc", str(nvcc), "--no-cache", "--std", "c++20",
                           "--arch", "sm_90", "--rules", "execution-space-specifiers/host-device-agreement", "--rules",
                           "execution-space-specifiers/device-arithmetic-semantics", "--out", str(out), "-q"],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    recs = {r["case_id"].split("/", 1)[1]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    for name in failing:
        assert recs[name]["verdict"] == "FAIL", (name, recs[name]["reason"], proc.stderr[-2000:])
        assert recs[name]["execution"] is not None, "the fault was seen on the GPU, not at compile time"
    for name in passing:
        assert recs[name]["verdict"] == "PASS", (name, recs[name]["reason"])


def test_valid_modules_load_and_say_what_the_driver_ran(tmp_path):
    """Each valid compile-only item's module is loaded (and its value kernel run) on the GPU; an sm_80 build
    runs JIT-compiled PTX on a newer GPU, an sm_90 build its SASS on an H100/H200."""
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "suitegen", "run", "--std", "c++17", "--arch", "sm_80",
                           "--arch", "sm_90", "--rules", "device-memory-space/no-automatic-in-device-function",
                           "--out", str(out), "-q"], cwd=REPO, capture_output=True, text=True, timeout=600)
    recs = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    loaded = [r for r in recs if (r["behaviour"] or {}).get("check") in ("load-only", "semantic")]
    assert loaded and all(r["behaviour"]["ran"] and r["verdict"] == "PASS" for r in loaded), proc.stderr[-2000:]
    by_arch = {r["config"]["arch"]: r["behaviour"]["loaded"] for r in loaded}
    assert by_arch["sm_80"].startswith("PTX compute_80") or by_arch["sm_80"] == "SASS sm_80", by_arch
    if "9.0" in GPU.devices[0]:
        assert by_arch["sm_90"] == "SASS sm_90"


VALUE_RULES = '''
section = "demo"
[[rule]]
id = "products"
statement = "Multiplication of ints computes their product."
template = "demo/product.cu.j2"
  [[rule.variant]]
  name = "value-{mode}"
  expect = "accept"
  matrix = { mode = [0, 1, 2, 3, 4] }
  value = 42
'''
VALUE_KERNEL = '''\
__global__ void sg_kernel(int *out) {
  int a = 6 + {{ mode }} - {{ mode }};
  if ({{ mode }} == 1) { *reinterpret_cast<int *>(0x10) = 1; }  // an illegal address
  if ({{ mode }} == 2) { __trap(); }
  *out = a * 7;  // 6 * 7 = 42
}
'''


@pytest.mark.parametrize("wrapper", [None, MULTIPLY_TO_ADD])
def test_value_checks_on_the_gpu_fail_alone_and_catch_a_planted_edit(tmp_path, wrapper):
    """Batched value kernels: a fault fails its member alone; an edited product fails every member."""
    orc, tpl = write_demo_oracle(tmp_path, VALUE_RULES, {"product.cu.j2": VALUE_KERNEL})
    nvcc = real_nvcc_behind(tmp_path, wrapper) if wrapper else shutil.which("nvcc")
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "suitegen", "run", "--oracle", str(orc), "--templates", str(tpl),
                           "--nvcc", str(nvcc), "--no-cache", "--std", "c++17", "--arch", "sm_90", "--out", str(out),
                           "-q"], cwd=REPO, capture_output=True, text=True, timeout=600)
    recs = {r["variant"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert all(r["behaviour"]["check"] == "semantic" and r["behaviour"]["ran"] for r in recs.values())
    if wrapper:
        assert all(r["verdict"] == "FAIL" for r in recs.values()), proc.stderr[-2000:]
        assert "expected 42, the device stored 13" in recs["value-0"]["reason"]
        return
    assert [recs[f"value-{m}"]["verdict"] for m in range(5)] == ["PASS", "FAIL", "FAIL", "PASS", "PASS"], \
        [r["reason"] for r in recs.values()]
    assert "illegal" in recs["value-1"]["reason"].lower() and recs["value-0"]["batch"]["how"] == "batch"
