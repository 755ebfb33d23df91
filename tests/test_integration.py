"""End to end with the real nvcc on PATH: compile, judge, CLI, resume, corpora, pytest plugin."""
import hashlib
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from suitegen.engine import matrix
from suitegen.qualification import session as engine
from suitegen.qualification.item import run_one
from suitegen.engine.options import RunOptions
from suitegen.model import Verdict
from suitegen.oracle import loader

from conftest import REPO, needs_nvcc, plain_config

pytestmark = [needs_nvcc, pytest.mark.nvcc]
SMALL = "device-memory-space/no-automatic-in-device-function"


def variants(*rule_ids: str) -> int:
    """Return how many cases the oracle has for these rules (nothing here is counted by hand)."""
    return sum(len(r.variants) for r in loader.load().rules if r.id in rule_ids)


def judged_fine(verdicts) -> bool:
    """Whether no verdict fails a run (PASS, XFAIL, UNSUPPORTED): what any conforming toolchain should give."""
    return not any(Verdict(v).is_failure for v in verdicts)


def cli(*args, cwd=REPO, timeout=600):
    return subprocess.run([sys.executable, "-m", "suitegen", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout)


def records(folder: Path):
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def session():
    return engine.open_session(RunOptions(rules=(SMALL, "device-memory-space/no-data-member",
                                                 "device-memory-space/empty-ctor-dtor")))


def _one(session, case_id, std="c++17"):
    (case,) = [c for c in session.cases if c.id == case_id]
    cfg = plain_config(session.toolchains, RunOptions(std=(std,), arch=("sm_90",), profile="quick"))
    return case, run_one(session, case, cfg)


def test_reject_case_fails_for_its_rules_reason(session):
    case, rec = _one(session, f"{SMALL}[neg-automatic-device-global]")
    assert rec.verdict is Verdict.PASS, rec.reason
    errors = [d for d in rec.observed.diagnostics if d.severity == "error"]
    assert errors[0].line == case.violation_line and "automatic" in errors[0].message
    assert rec.observed.phase.value in ("cudafe++", "cicc")


def test_accept_case_passes(session):
    _, rec = _one(session, f"{SMALL}[pos-static-managed-device]")
    assert rec.verdict is Verdict.PASS and rec.observed.outcome.accepted


def test_predicate_cases_follow_the_guides_definition(session):
    _, rec = _one(session, "device-memory-space/empty-ctor-dtor[device-ctor-body]")
    assert rec.verdict is Verdict.PASS and rec.expected.expect.value == "reject"
    _, rec = _one(session, "device-memory-space/empty-ctor-dtor[device-base-empty-ctor]")
    assert rec.verdict is Verdict.PASS and rec.expected.expect.value == "accept"


def test_known_deviation_shows_as_xfail_with_evidence(session):
    _, rec = _one(session, "device-memory-space/no-data-member[neg-shared-struct]")
    assert rec.verdict is Verdict.XFAIL, rec.reason
    data = rec.to_json()
    assert data["observed"]["outcome"] == "accepted-with-warnings"
    assert data["deviation"]["seen"] and "does not apply" in data["deviation"]["diagnostic"]


def test_cli_run_writes_results_and_summary(tmp_path):
    out = tmp_path / "run"
    proc = cli("run", "--rules", SMALL, "--std", "c++17,c++20", "--arch", "sm_90", "--out", str(out), "-j", "2")
    assert proc.returncode == 0, proc.stderr + proc.stdout
    if json.loads((out / "run.json").read_text())["gpu"]["available"]:
        assert "execution skipped" not in proc.stderr
    else:
        assert proc.stderr.count("execution skipped") == 1, "said once, whatever the number of items"
    recs = records(out)
    n = variants(SMALL)
    assert len(recs) == 2 * n and judged_fine(r["verdict"] for r in recs)
    for r in recs:
        assert r["config"]["fingerprint"] and r["config"]["nvcc_version"].startswith("13.")
        assert r["observed"]["commands"][0][0].endswith("nvcc") and r["duration"] > 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["results"] == 2 * n and summary["cases"] == n and summary["configs"] == 2
    assert sum(summary["sections"]["device-memory-space"].values()) == 2 * n
    for verdict, count in summary["counts"].items():
        assert count == sum(r["verdict"] == verdict for r in recs)
    assert "device-memory-space" in proc.stdout and "total" in proc.stdout


def test_cli_exit_1_on_fail_and_usage_errors(tmp_path):
    # An arch nvcc does not know is a usage error, found before anything is planned or built.
    proc = cli("run", "--rules", f"{SMALL}", "--std", "c++17", "--arch", "sm_10", "--out", str(tmp_path / "r"))
    assert proc.returncode == 2 and "does not know sm_10" in proc.stderr
    assert not (tmp_path / "r" / "results.jsonl").exists()
    assert cli("run", "--std", "c++99").returncode == 2
    assert cli("run", "--arch", "gfx90a").returncode == 2
    assert cli("bogus").returncode == 2


@pytest.mark.slow
def test_interrupted_run_keeps_results_and_resumes(tmp_path):
    out = tmp_path / "run"
    args = [sys.executable, "-m", "suitegen", "run", "--rules", "global-functions-and-templates/parameter-types",
            "--std", "c++17", "--arch", "sm_90", "--out", str(out), "-j", "1", "-q", "--batch", "off"]
    proc = subprocess.Popen(args, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline:
        if (out / "results.jsonl").exists() and len((out / "results.jsonl").read_text().splitlines()) >= 3:
            break
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    kept = records(out)
    n = variants("global-functions-and-templates/parameter-types")
    assert 3 <= len(kept) < n
    assert json.loads((out / "summary.json").read_text())["interrupted"] is True
    assert "--resume" in err
    resumed = cli("run", "--resume", str(out), "-j", "2")
    assert resumed.returncode == 0, resumed.stderr
    final = records(out)
    assert len(final) == n and len({(r["case_key"], r["config_key"]) for r in final}) == n
    assert final[: len(kept)] == kept, "resume appends; it never rewrites what was kept"


def _tree_hash(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(folder)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def test_generate_is_reproducible_and_self_describing(tmp_path):
    for name in ("a", "b"):
        proc = cli("generate", "--rules", "device-memory-space", "--out", str(tmp_path / name))
        assert proc.returncode == 0, proc.stderr
    assert _tree_hash(tmp_path / "a") == _tree_hash(tmp_path / "b")
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    entry = next(e for e in manifest["cases"] if e["variant"] == "neg-automatic-device-global")
    assert entry["expectation"]["expect"] == "reject" and entry["violation_line"]
    default = matrix.profile("default")
    assert len(entry["configs"]) == len(default.stds) * len(default.archs)
    assert entry["configs"][0]["command"][0] == "nvcc"
    assert (tmp_path / "a" / entry["dir"] / "main.cu").exists()


@pytest.mark.slow
def test_pytest_plugin_same_verdicts_as_cli(pytester, tmp_path):
    junit = tmp_path / "junit.xml"
    out = tmp_path / "pyrun"
    result = pytester.runpytest_subprocess(
        "--suitegen", str(REPO / "oracle" / "device-memory-space.toml"), "--suitegen-std", "c++17",
        "--suitegen-arch", "sm_90", "--suitegen-rules", SMALL, "--suitegen-rules",
        "device-memory-space/no-data-member", "--suitegen-out", str(out), "-n", "2",
        f"--junitxml={junit}", "-p", "no:cacheprovider")
    cli_out = tmp_path / "clirun"
    proc = cli("run", "--rules", SMALL, "--rules", "device-memory-space/no-data-member", "--std", "c++17",
               "--arch", "sm_90", "--out", str(cli_out))
    by_key = lambda recs: {(r["case_key"], r["config_key"]): r["verdict"] for r in recs}
    assert by_key(records(out)) == by_key(records(cli_out))
    verdicts = list(by_key(records(cli_out)).values())
    assert len(verdicts) == variants(SMALL, "device-memory-space/no-data-member")
    passed, xfailed = verdicts.count("PASS"), verdicts.count("XFAIL")
    failed = sum(Verdict(v).is_failure for v in verdicts)
    result.assert_outcomes(passed=passed, xfailed=xfailed, failed=failed)
    assert proc.returncode == (1 if failed else 0), proc.stderr
    from junitparser import JUnitXml, Properties
    xml = JUnitXml.fromfile(str(junit))
    cases = [c for suite in xml for c in suite]
    assert len(cases) == len(verdicts)
    assert sum(c.is_skipped for c in cases) == xfailed and sum(c.is_passed for c in cases) == passed
    for c in cases:
        (props,) = list(c.iterchildren(Properties))
        values = {p.name: p.value for p in props}
        assert values["rule"].startswith("device-memory-space/") and values["std"] == "c++17"
        assert values["fingerprint"] and values["verdict"] in verdicts and "gpu" in values


def test_pytest_item_names(pytester):
    result = pytester.runpytest_subprocess(
        "--suitegen", str(REPO / "oracle" / "device-memory-space.toml"), "--suitegen-std", "c++17",
        "--suitegen-arch", "sm_90", "--suitegen-rules", SMALL, "--co", "-q", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines([f"*::{SMALL}[[]neg-automatic-device-device,c++17,sm_90[]]"])


def test_project_tests_do_not_collect_the_suite(pytester):
    result = pytester.runpytest_subprocess(str(REPO / "oracle"), "--co", "-q", "-p", "no:cacheprovider")
    assert "device-memory-space/" not in result.stdout.str()


def test_pytest_runs_a_generated_corpus(pytester, tmp_path):
    corpus = tmp_path / "generated" / "small"
    proc = cli("generate", "--rules", SMALL, "--out", str(corpus), "--profile", "quick")
    assert proc.returncode == 0, proc.stderr
    result = pytester.runpytest_subprocess(str(corpus), "-n", "2", "-p", "no:cacheprovider")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) + outcomes.get("xfailed", 0) == variants(SMALL) and "failed" not in outcomes


def test_diagnose_is_told_apart_from_what_the_valid_dialect_prints():
    """bool-increment-removed[neg-cxx17]: nvcc's #708-D under c++17 is the warning it prints under c++14 too,
    so it does not meet the expectation (a recorded deviation); dynamic exception specifications are an error
    under c++17 that c++14 does not give."""
    s = engine.open_session(RunOptions(rules=("cxx17-features/bool-increment-removed",
                                              "cxx17-features/dynamic-exception-specifications-removed")))
    _, rec = _one(s, "cxx17-features/bool-increment-removed[neg-cxx17]")
    assert rec.verdict is Verdict.XFAIL, rec.reason
    assert "also given under c++14, where the program is valid" in rec.reason
    _, rec = _one(s, "cxx17-features/dynamic-exception-specifications-removed[neg-cxx17-throw-type]")
    assert rec.verdict is Verdict.PASS and "not given under c++14" in rec.reason
