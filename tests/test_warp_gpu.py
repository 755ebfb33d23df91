"""On a GPU: the warp and block synchronisation functions hold with the real nvcc, and a planted fault (a shuffle
that reads the wrong way) fails them."""
import json
import subprocess
import sys

import pytest

from suitegen.execute.gpus import detect_gpu

from conftest import REPO, needs_nvcc, real_nvcc_behind

GPU = detect_gpu()
pytestmark = [needs_nvcc, pytest.mark.gpu,
              pytest.mark.skipif(not GPU.available, reason=f"needs a CUDA GPU ({GPU.reason})")]


def run(tmp_path, name, *args):
    out = tmp_path / name
    done = subprocess.run([sys.executable, "-m", "suitegen", "run", "--profile", "quick", "--rules",
                           "warp-functions/*", "--generated", "0", "--out", str(out), "-q", *args],
                          capture_output=True, text=True, cwd=REPO, timeout=600)
    return done, [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def test_warp_functions_hold_and_a_planted_shuffle_fault_fails_them(tmp_path):
    done, recs = run(tmp_path, "real")
    assert done.returncode == 0 and len(recs) == 25, done.stdout[-3000:]
    assert {r["verdict"] for r in recs} == {"PASS"} and all(r["execution"]["status"] == "passed" for r in recs)
    (tmp_path / "w").mkdir()
    nvcc = real_nvcc_behind(tmp_path / "w", "s|__shfl_down_sync|__shfl_up_sync|g")
    done, recs = run(tmp_path, "fault", "--nvcc", str(nvcc))
    assert done.returncode == 1, done.stdout[-3000:]
    assert {r["rule"] for r in recs if r["verdict"] == "FAIL"} == {"warp-functions/shfl-down-sync"}
