"""On a GPU: the warp, synchronisation and atomic functions hold with the real nvcc, and a planted fault in each
area (a shuffle that reads the wrong way, an atomic maximum that takes the minimum, a block count that became an
or) fails its rule alone; a toolchain that drops __launch_bounds__ fails the launches that must fail."""
import json
import subprocess
import sys

import pytest

from suitegen.execute.gpus import detect_gpu

from conftest import REPO, needs_nvcc, real_nvcc_behind

GPU = detect_gpu()
pytestmark = [needs_nvcc, pytest.mark.gpu,
              pytest.mark.skipif(not GPU.available, reason=f"needs a CUDA GPU ({GPU.reason})")]


def run(tmp_path, name, rules, *args):
    out = tmp_path / name
    done = subprocess.run([sys.executable, "-m", "suitegen", "run", "--profile", "quick", "--rules", rules,
                           "--generated", "0", "--out", str(out), "-q", *args],
                          capture_output=True, text=True, cwd=REPO, timeout=600)
    return done, [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("rules,edit,broken", [
    ("warp-functions/*", "s|__shfl_down_sync|__shfl_up_sync|g", "warp-functions/shfl-down-sync"),
    ("atomic-functions/*", "s|atomicMax(|atomicMin(|g", "atomic-functions/atomic-max"),
    ("warp-functions/*", "s|__syncthreads_count(p)|__syncthreads_or(p)|g", "warp-functions/syncthreads-count-and-or"),
])
def test_the_functions_hold_and_a_planted_fault_fails_its_rule(tmp_path, rules, edit, broken):
    done, recs = run(tmp_path, "real", rules)
    assert done.returncode == 0 and len(recs) >= 25, done.stdout[-3000:]
    ran = [r for r in recs if r["variant"].startswith("run-")]  # the others are compile checks
    assert {r["verdict"] for r in recs} == {"PASS"} and all(r["execution"]["status"] == "passed" for r in ran)
    (tmp_path / "w").mkdir()
    done, recs = run(tmp_path, "fault", rules, "--nvcc", str(real_nvcc_behind(tmp_path / "w", edit)))
    assert done.returncode == 1, done.stdout[-3000:]
    assert {r["rule"] for r in recs if r["verdict"] == "FAIL"} == {broken}


def test_a_toolchain_that_drops_launch_bounds_fails_the_launches_over_the_bound(tmp_path):
    (tmp_path / "w").mkdir()
    nvcc = real_nvcc_behind(tmp_path / "w", "s|__launch_bounds__([^)]*)||g")
    done, recs = run(tmp_path, "fault", "launch-bounds/fail-over-max-threads", "--nvcc", str(nvcc))
    assert done.returncode == 1, done.stdout[-3000:]
    failed = {r["variant"] for r in recs if r["verdict"] == "FAIL"}
    assert failed and all(v.startswith("run-over") for v in failed), failed
    assert all(r["verdict"] == "PASS" for r in recs if r["variant"].startswith("run-at-bound")), "at the bound: runs"
