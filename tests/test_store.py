"""Build stores: build on one machine (--builds-to), run there or on another (--builds-from), verdicts unchanged;
and recording a run's departures from the guide as deviations."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from suitegen.qualification import record
from suitegen.model import Diagnostic, ExecResult, ExecStatus, Observed, Outcome, Phase, Record, Verdict
from suitegen.oracle import loader
from suitegen.report import diff

from conftest import REPO, a_record, needs_nvcc

RULES = ("--rules", "execution-space-specifiers/global-void-return", "--rules", "host-device-agreement",
         "--rules", "rtti/typeid-host-only",
         "--rules", "static-variables/static-local-class-type")  # its rejections are built alone, up to cicc


def cli(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "suitegen", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout)


def verdicts(folder: Path) -> dict:
    return {(r["case_id"], r["config_id"]): (r["verdict"], (r.get("observed") or {}).get("outcome"))
            for r in map(json.loads, (folder / "results.jsonl").read_text().splitlines())}


@pytest.mark.slow
@needs_nvcc
def test_a_store_replays_every_build_without_the_compiler(tmp_path):
    store, first, again = tmp_path / "store", tmp_path / "recorded", tmp_path / "replayed"
    done = cli("run", "--profile", "quick", *RULES, "--builds-to", str(store), "--out", str(first))
    assert done.returncode == 0, done.stdout + done.stderr
    recorded = verdicts(first)
    runtime = [k for k, (v, _) in recorded.items() if "run-" in k[0]]
    assert runtime and all(recorded[k][0] == "UNSUPPORTED" for k in runtime), "nothing runs where builds are recorded"
    (tc_file,) = (store / "toolchains").glob("*.json")
    tc = json.loads(tc_file.read_text())
    tc["nvcc"] = str(tmp_path / "gone" / "nvcc")  # the compiler is not on the machine the store is carried to
    tc_file.write_text(json.dumps(tc))
    done = cli("run", "--profile", "quick", *RULES, "--builds-from", str(store), "--no-exec", "--out", str(again))
    assert done.returncode == 0, done.stdout + done.stderr
    assert verdicts(again) == recorded
    short = [r for r in map(json.loads, (again / "results.jsonl").read_text().splitlines())
             if "-ptx" in ((r.get("observed") or {}).get("commands") or [[]])[0]]
    assert short, "short builds replay too (the store keeps nvcc --dryrun's word on them)"
    products = list((store / "builds").rglob("*.product"))
    assert products, "programs and objects are kept with their results"
    done = cli("run", "--profile", "quick", "--rules", "rtti", "--builds-from", str(store), "--no-exec",
               "--out", str(tmp_path / "missing"))
    missed = [r for r in map(json.loads, (tmp_path / "missing" / "results.jsonl").read_text().splitlines())
              if r["verdict"] == "UNRESOLVED"]
    assert missed and all("not in the build store" in r["reason"] for r in missed)
    assert done.returncode != 0


def _record(rule: str, variant: str, outcome: str, verdict: str, message: str | None, **fields) -> Record:
    said = Diagnostic(severity="error", phase=Phase.CLANG, message=message or "", file="main.cu", line=3)
    diags = (said,) if message else ()
    phase = None if Outcome(outcome).accepted else Phase.CLANG
    return a_record(rule=rule, variant=variant, section=rule.split("/")[0], verdict=Verdict(verdict),
                    case_id=f"{rule}[{variant}]", reason="expected acceptance, rejected",
                    observed=Observed(outcome=Outcome(outcome), phase=phase, exit_code=0, diagnostics=diags), **fields)


def test_recorded_deviations_load_and_name_their_compiler(tmp_path):
    rules = {r.id: r for r in loader.load().rules}
    rule = "rtti/typeid-host-only"
    variant = rules[rule].variants[0].name
    recs = [_record(rule, variant, "rejected", "FAIL", "reference to __host__ variable 'v' in __global__ function"),
            _record(rule, "other", "rejected", "FAIL", None),  # no evidence: not recorded
            _record(rule, "fine", "accepted", "PASS", None)]
    (path,) = record.write(recs, tmp_path, "clang", "clang>=22", "a test")
    (dev,) = loader.load_deviations(path, {rule: "x"})
    assert dev.compiler.value == "clang" and dev.variants == (variant,) and dev.phase is Phase.CLANG
    assert dev.match == r"reference\ to\ __host__\ variable.*in\ __global__\ function"
    failed = ExecResult(status=ExecStatus.FAILED, exit_code=1, detail="1 check(s) failed", output="", duration=0.1,
                        gpu="g", command=())
    ran = _record(rule, "fine", "accepted", "FAIL", None, execution=failed)
    record.write([*recs, ran], tmp_path, "clang", "clang>=22", "a GPU run")  # a later run adds what is new
    first, second = loader.load_deviations(path, {rule: "x"})
    assert (first.variants, first.match) == (dev.variants, dev.match) and (second.variants, second.run) == (("fine",), "failed")
    with pytest.raises(ValueError, match="another compiler or range"):
        record.write([ran], tmp_path, "nvcc", "nvcc==13.0", "another")


def test_diff_says_per_section_which_run_follows_the_guide():
    def rec(case, verdict):
        return a_record(case_id=case, rule=case.split("[")[0], section=case.split("/")[0], verdict=Verdict(verdict))
    a = [rec("s/r[a]", "PASS"), rec("s/r[b]", "PASS"), rec("s/r[c]", "XFAIL"), rec("t/r[a]", "UNSUPPORTED")]
    b = [rec("s/r[a]", "PASS"), rec("s/r[b]", "FAIL"), rec("s/r[c]", "PASS"), rec("t/r[a]", "PASS")]
    d = diff.compare(a, b)
    assert d.sections == {"s": {"both": 1, "before only": 1, "after only": 1, "neither": 0}}
    table = diff.as_sections(d, "nvcc", "clang")
    assert "| s | 3 | 1 | 1 | 1 | 0 |" in table and "| t |" not in table


