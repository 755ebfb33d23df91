"""On a GPU: generated programs in qualification pass with the real nvcc, and planted faults fail them."""
import json
import subprocess
import sys

import pytest

from suitegen.execute.gpus import detect_gpu

from conftest import REPO, needs_nvcc, real_nvcc_behind

GPU = detect_gpu()
pytestmark = [needs_nvcc, pytest.mark.gpu,
              pytest.mark.skipif(not GPU.available, reason=f"needs a CUDA GPU ({GPU.reason})")]

# Planted faults: a wrapper edits the source nvcc is given (arithmetic, a conversion, a warp exchange).
FAULTS = {
    "arithmetic": r"s| \^ | \| |g",
    "conversion": r"s|((unsigned short)(|((unsigned int)(|g",
    "warp-exchange": r"s|__shfl_xor_sync|__shfl_down_sync|g",
}


def run(tmp_path, name, *args):
    out = tmp_path / name
    done = subprocess.run([sys.executable, "-m", "suitegen", "run", "--profile", "quick", "--rules", "generated",
                           "--out", str(out), "--findings", str(tmp_path / "findings.json"), "-q", *args],
                          capture_output=True, text=True, cwd=REPO, timeout=600)
    return done, [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def test_generated_programs_pass_with_the_real_nvcc(tmp_path):
    done, recs = run(tmp_path, "real", "--generated", "96")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    programs = [r for r in recs if r["variant"] == "run"]  # the others are injected violations
    assert len(programs) == 96 and {r["verdict"] for r in programs} == {"PASS"}
    assert all(r["execution"]["status"] == "passed" for r in programs)


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_planted_fault_fails_generated_programs(tmp_path, fault):
    (tmp_path / "w").mkdir()
    nvcc = real_nvcc_behind(tmp_path / "w", FAULTS[fault])
    budget = "120" if fault == "arithmetic" else "0"  # one fault is triaged too: confirmed, reduced, filed
    done, recs = run(tmp_path, fault, "--generated", "160", "--nvcc", str(nvcc), "--reduce-budget", budget)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    failed = [r for r in recs if r["verdict"] == "FAIL"]
    assert failed, {r["verdict"] for r in recs}
    wrong = [r for r in failed if (r["execution"] or {}).get("status") == "failed"]
    assert wrong and all("wrong cells" in r["reason"] and "expected" in r["execution"]["output"] for r in wrong), failed
    assert (tmp_path / fault / "repro").is_dir()
    if budget != "0":
        found = [json.loads(p.read_text()) for p in (tmp_path / fault / "findings").glob("*/finding.json")]
        reduced = [f for f in found if f["kind"] == "wrong-code" and f["reduced_still_differs"]]
        assert reduced, [(f["kind"], f.get("why")) for f in found]
        # the run's --reduce-budget is one time box for all its wrong programs, so the last may have had no round:
        # each still shows the fault's operator, and the smallest (the one the box allowed) is smaller than it was
        assert all(" ^ " in f["reproducer"] for f in reduced)
        best = min(reduced, key=lambda f: f["size"])
        assert best["size"] < best["original_size"], best["reproducer"]
        assert list((tmp_path / fault / "repro").glob("*/reduced.cu"))
