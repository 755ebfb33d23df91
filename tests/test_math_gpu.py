"""On a GPU: the math rules hold with the real nvcc, and planted faults (lost accuracy, a wrong rounding mode)
fail them."""
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
    done = subprocess.run([sys.executable, "-m", "suitegen", "run", "--profile", "nightly", "--std", "c++17",
                           "--arch", "sm_90", "--rules", rules,
                           "--generated", "0", "--out", str(out), "-q", *args],
                          capture_output=True, text=True, cwd=REPO, timeout=600)
    return done, [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def test_math_rules_run_within_their_bounds(tmp_path):
    done, recs = run(tmp_path, "real", "math-*")
    assert len(recs) > 250
    assert not [r for r in recs if r["verdict"] not in ("PASS", "XFAIL", "UNSUPPORTED")], done.stdout[-3000:]
    off = [r for r in recs if r["verdict"] == "UNSUPPORTED"]
    assert all(r["reason"].startswith("requires") for r in off), "a variant is off only where its flags are not"
    assert {r["config_id"] for r in recs if r["verdict"] == "PASS"} >= {
        "c++17,sm_90", *(f"c++17,sm_90,{f}" for f in ("-use_fast_math", "-ftz=true", "-prec-div=false",
                                                        "-prec-sqrt=false", "-fmad=false"))}
    ran = [r for r in recs if (r["execution"] or {}).get("status") == "passed"]
    assert len(ran) > 250 and all("largest error" in r["execution"]["detail"] for r in ran)
    shared = [r for r in ran if (r.get("batch") or {}).get("id", "").startswith("checks-")]
    assert len(shared) > 200, "the checks run on their kernels in modules shared by several rules"


@pytest.mark.parametrize("fault,rules,flags,edit", [
    ("accuracy", "math-functions/*", "-use_fast_math", ""),  # sinf becomes __sinf, and so on
    ("rounding", "math-intrinsics/fadd*", "", "s|__fadd_rn|__fadd_rz|g"),
])
def test_a_planted_math_fault_fails(tmp_path, fault, rules, flags, edit):
    (tmp_path / "w").mkdir()
    nvcc = real_nvcc_behind(tmp_path / "w", edit, flags)
    done, recs = run(tmp_path, fault, rules, "--nvcc", str(nvcc))
    assert done.returncode == 1, done.stdout[-3000:]
    failed = [r for r in recs if r["verdict"] == "FAIL"]
    assert failed and all("ulp" in r["execution"]["detail"] or "absolute" in r["execution"]["detail"]
                          for r in failed)
    if fault == "rounding":
        assert {r["rule"] for r in failed} == {"math-intrinsics/fadd_rn"}  # its default and -ftz variants
    else:
        assert {"math-functions/sinf", "math-functions/expf"} <= {r["rule"] for r in failed}


def test_a_planted_fault_fails_the_math_rules_under_each_math_flag_set(tmp_path):
    """A toolchain that loses accuracy in division, sqrtf, expf, x * y + z and __fadd_rn fails each math flag
    set of the matrix through the variant whose bound holds there (and the plain config through the defaults)."""
    (tmp_path / "w").mkdir()
    worse = "* 1.001f"
    edit = ";".join(f"s|{call}|({call}) {worse}|" for call in ("a0 / a1", "sqrtf(a0)", "expf(a0)", "a0 \\* a1 + a2",
                                                                "__fadd_rn(a0, a1)"))
    nvcc = real_nvcc_behind(tmp_path / "w", edit)
    rules = ["math-functions/fdiv", "math-functions/sqrtf", "math-functions/expf", "math-functions/ffma-contract",
             "math-intrinsics/fadd_rn"]
    done, recs = run(tmp_path, "flags", rules[0], *[a for r in rules[1:] for a in ("--rules", r)], "--nvcc", str(nvcc))
    assert done.returncode == 1, done.stdout[-3000:]
    failed = {r["config_id"].removeprefix("c++17,sm_90").lstrip(",") for r in recs if r["verdict"] == "FAIL"}
    assert failed == {"", "-use_fast_math", "-ftz=true", "-prec-div=false", "-prec-sqrt=false", "-fmad=false"}
    assert not [r for r in recs if r["verdict"] not in ("FAIL", "UNSUPPORTED")], "every variant that runs fails"
