"""``suitegen fuzz`` on the GPU: every program runs under every build, and a planted nvcc fault is reduced."""
import json
import os
import subprocess
import sys

import pytest

from conftest import MULTIPLY_TO_ADD, needs_nvcc, real_nvcc_behind
from suitegen.execute.gpus import detect_gpu

GPU = detect_gpu()
pytestmark = [needs_nvcc, pytest.mark.gpu, pytest.mark.skipif(not GPU.available, reason=GPU.reason)]


def fuzz_cli(*args):
    return subprocess.run([sys.executable, "-m", "suitegen", "fuzz", "--per-file", "16", *args],
                          capture_output=True, text=True, timeout=900)


def test_every_program_runs_under_every_build(tmp_path):
    out = tmp_path / "c"
    done = fuzz_cli("--seed", "gpu-test", "--max-programs", "32", "--no-reduce", "--out", str(out))
    assert done.returncode in (0, 1), done.stdout + done.stderr
    records = [json.loads(line) for line in (out / "programs.jsonl").read_text().splitlines()]
    assert len(records) == 32
    for r in records:  # a value for every build: right, or wrong (a finding); never a harness failure
        assert set(r["builds"]) == {"default", "ptxas-O0", "cicc-O0"}, r
        assert all(s in ("ok", "wrong") for s in r["builds"].values()), r
    assert sum(all(s == "ok" for s in r["builds"].values()) for r in records) >= 28


def test_a_planted_nvcc_fault_is_confirmed_and_reduced(tmp_path):
    """nvcc behind a wrapper that turns every ``*`` into ``+``: programs go wrong under every build, and the
    reducer keeps a multiplication in a short standalone program."""
    (tmp_path / "w").mkdir()
    nvcc = real_nvcc_behind(tmp_path / "w", MULTIPLY_TO_ADD)
    out = tmp_path / "c"
    done = fuzz_cli("--seed", "planted", "--policy", "wide", "--max-programs", "16", "--nvcc", str(nvcc),
                    "--reduce-budget", "120s", "--out", str(out))
    assert done.returncode == 1, done.stdout + done.stderr
    found = [f for f in json.loads((out / "findings.json").read_text()) if f["kind"] == "wrong-code"]
    assert found and all(f["reduced_still_differs"] for f in found), found
    best = min(found, key=lambda f: f["lines"])
    assert " * " in best["reproducer"] and best["lines"] <= 40, best["reproducer"]


def test_a_reproducer_s_device_forms_compute_what_it_computes(tmp_path):
    """Every device form of the reproducers of 24 generated programs (every policy) prints OK on the GPU: the forms
    a finding may be reported in keep the device meaning of the file the reduction judged (built side by side); and
    the shortest form of each is clean under compute-sanitizer's tools, as a right build's program must be (no race,
    no barrier in divergent code, no read of unwritten memory: else the triage would call our programs at fault)."""
    from concurrent.futures import ThreadPoolExecutor
    from suitegen.compilers import toolchain
    from suitegen.campaigns.fuzz import BUILDS
    from suitegen.compilers.modules import build_program
    from suitegen.execute import sanitizer
    from suitegen.synth import emit, policies, populate, present, reduce
    tc = toolchain.probe(toolchain.discover()[0])

    def wrong(item) -> tuple | None:  # what a form that does not print OK did, else None
        name, policy, form = item
        exe, log = build_program(tc, BUILDS["default"], form, tmp_path / name)
        if exe is None:
            return policy, "did not build", log[-2000:]
        ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
        if not ran.stdout.strip().endswith("OK"):
            return policy, ran.stdout, form
        said = sanitizer.judged(tc, exe) if name.endswith("-0") else "clean"
        return None if sanitizer.clean(said) else (policy, said, form)
    items = []
    for k in range(24):
        program = populate.generate("forms-gpu", k, sorted(policies.POLICIES)[k % len(policies.POLICIES)])
        items += [(f"{k}-{j}", program.policy, form)
                  for j, form in enumerate(present.forms(emit.standalone(program, reduce.expected(program))))]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 4) as pool:
        failed = [w for w in pool.map(wrong, items) if w is not None]
    assert len(items) > 24 and not failed, failed[:3]


def test_a_fault_under_one_build_is_cut_to_a_short_file_that_shows_it_there_alone(tmp_path):
    """nvcc behind a wrapper that turns the device code's ``*`` into ``+`` under ``-Xcicc -O0`` alone: the finding is
    wrong under cicc-O0 and no other build, and its reproducer (the whole file cut last, kernel and ``main`` too:
    ``file_pass``) still holds a multiplication, is short, and prints WRONG under the wrapper's cicc-O0 build
    and OK under the real nvcc's default build, built alone."""
    (tmp_path / "w").mkdir()
    real = real_nvcc_behind(tmp_path / "w")
    nvcc = tmp_path / "w" / "nvcc"
    nvcc.write_text('#!/bin/sh\ncase " $* " in *" -Xcicc -O0 "*) for a in "$@"; do case "$a" in *.cu) '
                    'sed -i "/^int main()/,\\$!s| \\* | + |g" "$a";; esac; done;; esac\n'
                    + real.read_text().split("\n", 1)[1])
    out = tmp_path / "c"
    done = fuzz_cli("--seed", "planted1", "--policy", "wide", "--max-programs", "32", "--nvcc", str(nvcc),
                    "--reduce-budget", "200s", "-j", str(os.cpu_count() or 4), "--out", str(out))
    assert done.returncode == 1, done.stdout + done.stderr
    found = [f for f in json.loads((out / "findings.json").read_text()) if f["kind"] == "wrong-code"]
    assert found and all(f["failing"] == ["cicc-O0"] and f["reproduces"] for f in found), found
    best = min(found, key=lambda f: f["lines"])
    assert " * " in best["reproducer"].split("int main()")[0] and best["lines"] <= 20, best["reproducer"]
    # the file pass cut it (each suspect's share: half to the model's reducer, a quarter to the line pass, the rest)
    assert best["lines"] < best.get("lines_before_file", 0) and "file" in best["seconds"], best
    for compiler, flags, verdict in ((str(nvcc), ["-Xcicc", "-O0"], "WRONG"), ("nvcc", [], "OK")):
        src = tmp_path / f"r-{verdict}.cu"  # a file each: the wrapper edits the one it builds
        src.write_text(best["reproducer"])
        subprocess.run([compiler, "-arch=sm_90", *flags, str(src), "-o", str(tmp_path / verdict)], check=True)
        ran = subprocess.run([str(tmp_path / verdict)], capture_output=True, text=True, timeout=120)
        assert ran.stdout.split()[-2 if verdict == "WRONG" else -1] == verdict, (ran.stdout, best["reproducer"])


MAIN = """
int main() {
  unsigned *d; cudaMalloc(&d, 128 * sizeof(unsigned)); INIT
  k<<<1, 64>>>(d); cudaDeviceSynchronize();
  unsigned h[64]; cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost); printf("%u\\n", h[0]); return 0;
}
"""
# one kernel body (of two warps) per tool, undefined or indeterminate in the way that tool finds, and a clean one; and
# whether main zeroes the buffer first
SANITIZED = {
    "clean": ("__shared__ unsigned s[64]; s[threadIdx.x] = threadIdx.x; __syncthreads(); "
              "o[threadIdx.x] = s[63 - threadIdx.x];", True),
    "memcheck": ("o[threadIdx.x + (1u << 20)] = 1u;", True),
    "racecheck": ("__shared__ unsigned s[64]; s[threadIdx.x] = threadIdx.x; "
                  "o[threadIdx.x] = s[63 - threadIdx.x];", True),  # the clean one without its barrier
    "synccheck": ("if (threadIdx.x < 16) __syncthreads(); o[threadIdx.x] = 1u;", True),
    "initcheck": ("o[threadIdx.x] = o[threadIdx.x + 64] + 1u;", False),
}


@pytest.mark.parametrize("name", list(SANITIZED))
def test_compute_sanitizer_s_tools_each_find_their_kind_of_undefined_program(name, tmp_path):
    """A right build's program is judged by memcheck, racecheck, synccheck and initcheck: each finds the fault of its
    kind (out of bounds, a shared-memory race, a barrier in divergent code, a read of unwritten global memory), named
    with the tool, and a program with none of them is clean under all four."""
    from suitegen.campaigns.fuzz import BUILDS
    from suitegen.compilers import toolchain
    from suitegen.compilers.modules import build_program
    from suitegen.execute import sanitizer
    tc = toolchain.probe(toolchain.discover()[0])
    body, written = SANITIZED[name]
    source = ("#include <cstdio>\n__global__ void k(unsigned *o) { " + body + " }\n"
              + MAIN.replace("INIT", "cudaMemset(d, 0, 128 * sizeof(unsigned));" if written else ""))
    exe, log = build_program(tc, BUILDS["default"], source, tmp_path)
    assert exe is not None, log
    said = sanitizer.judged(tc, exe)
    if name == "clean":
        assert said == "clean (memcheck, racecheck, synccheck, initcheck)" and sanitizer.clean(said)
    else:
        assert said.startswith(f"errors ({name}): ") and not sanitizer.clean(said), said
        assert sanitizer.judged(tc, exe, (name,)) == said  # the tool alone finds it too
