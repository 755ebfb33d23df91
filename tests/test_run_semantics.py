"""What fails a run: XPASS does (unless allowed), and an ignored -std is UNRESOLVED, never PASS.
Driven by a fake nvcc that accepts everything and answers the config probe like nvcc 13.5 with g++ 12."""
import json
import subprocess
import sys

import pytest
from junitparser import JUnitXml

from conftest import REPO, WRITES_OUTPUT, follows_the_guide

DEVIATION = '''
when = "nvcc==13.0"
[[deviation]]
rule = "demo/no-long-double"
variants = ["neg-device"]
observed = "rejected"
diagnostic = "some other error"
match = "some other error"
seen = "2026-11-01"
'''


@pytest.fixture
def accepting(fake_nvcc, mini_oracle):
    nvcc = fake_nvcc(WRITES_OUTPUT + "exit 0\n")
    return [sys.executable, "-m", "suitegen", "run", "--nvcc", str(nvcc), "--oracle", str(mini_oracle[0]),
            "--templates", str(mini_oracle[1]), "--arch", "sm_90", "-q"], mini_oracle[0]


def records(folder):
    return {(r["variant"], r["config"]["std"]): r for r in map(json.loads, (folder / "results.jsonl").open())}


def test_an_ignored_std_is_unresolved_never_pass(accepting, tmp_path):
    base, _ = accepting
    out = tmp_path / "run"
    proc = subprocess.run(base + ["--std", "c++17,c++23", "--out", str(out)], cwd=REPO, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    recs = records(out)
    assert recs[("pos-host", "c++17")]["verdict"] == "PASS"
    assert recs[("pos-host", "c++17")]["observed_config"]["host_cplusplus"] == 201703
    for variant in ("pos-host", "neg-device", "neg-global"):
        r = recs[(variant, "c++23")]
        assert r["verdict"] == "UNRESOLVED" and r["observed"] is None, "nothing is built for an unhonoured config"
        assert "asked -std=c++23" in r["reason"] and "Flag will be ignored" in r["reason"]
        assert r["observed_config"]["host_cplusplus"] == 201703 and r["schema"] == 3


def test_xpass_fails_the_run_unless_allowed(fake_nvcc, mini_oracle, tmp_path):
    nvcc = fake_nvcc(follows_the_guide())
    base = [sys.executable, "-m", "suitegen", "run", "--nvcc", str(nvcc), "--oracle", str(mini_oracle[0]),
            "--templates", str(mini_oracle[1]), "--std", "c++17", "--arch", "sm_90", "-q"]
    clean = subprocess.run(base + ["--out", str(tmp_path / "clean")], cwd=REPO, capture_output=True, text=True)
    assert clean.returncode == 0, clean.stderr
    assert {r["verdict"] for r in records(tmp_path / "clean").values()} == {"PASS"}
    # A deviation recorded for nvcc 13.0 (the fake's version) that no longer shows: a stale record.
    (mini_oracle[0] / "deviations" / "demo.toml").write_text(DEVIATION)
    strict = tmp_path / "strict"
    proc = subprocess.run(base + ["--out", str(strict)], cwd=REPO, capture_output=True, text=True)
    assert records(strict)[("neg-device", "c++17")]["verdict"] == "XPASS"
    assert proc.returncode == 1 and json.loads((strict / "summary.json").read_text())["failed"] is True
    case = {c.name: c for suite in JUnitXml.fromfile(str(strict / "junit.xml")) for c in suite}["neg-device[c++17,sm_90]"]
    assert not case.is_passed and case.result[0].type == "XPASS"
    assert any((strict / "repro").iterdir()), "a stale record gets a reproducer like any failure"
    loose = tmp_path / "loose"
    proc = subprocess.run(base + ["--out", str(loose), "--allow-xpass"], cwd=REPO, capture_output=True, text=True)
    assert records(loose)[("neg-device", "c++17")]["verdict"] == "XPASS" and proc.returncode == 0, proc.stderr
    case = {c.name: c for suite in JUnitXml.fromfile(str(loose / "junit.xml")) for c in suite}["neg-device[c++17,sm_90]"]
    assert case.is_passed
