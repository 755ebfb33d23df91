"""Two real toolchains: the system nvcc and one installed from the package index, compared."""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import REPO, needs_nvcc

pytestmark = [needs_nvcc, pytest.mark.nvcc]
VERSION = "13.5.37"
RULES = "device-memory-space/no-automatic-in-device-function"


# A cache the tests own, kept between test runs so the toolchain is installed once, and never the user's
# (their registry of toolchains stays as they left it).
CACHE = Path(tempfile.gettempdir()) / "suitegen-tests" / "cache"


def cli(*args):
    env = dict(os.environ, SUITEGEN_CACHE=str(CACHE))
    return subprocess.run([sys.executable, "-m", "suitegen", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=900, env=env)


@pytest.fixture(scope="module")
def second_nvcc():
    proc = cli("toolchain", "add", VERSION)
    if proc.returncode != 0 and "could not install" in proc.stderr:
        pytest.skip(f"the package index is not reachable: {proc.stderr.strip()[-300:]}")
    assert proc.returncode == 0, proc.stderr
    return f"nvcc-{VERSION}"


def test_one_run_two_toolchains_then_diff(second_nvcc, tmp_path):
    both = tmp_path / "both"
    proc = cli("run", "--nvcc", "nvcc", "--nvcc", second_nvcc, "--rules", RULES, "--profile", "quick",
               "--out", str(both), "-j", "2", "-q")
    assert proc.returncode in (0, 1), proc.stderr
    recs = [json.loads(line) for line in (both / "results.jsonl").read_text().splitlines()]
    versions = {r["config"]["nvcc_version"] for r in recs}
    assert len(versions) == 2 and VERSION in versions
    assert len({r["config"]["fingerprint"] for r in recs}) == 2
    assert len(recs) == 28
    page = (both / "index.html").read_text()
    assert "Differences between toolchains" in page

    runs = {}
    for name, nvcc in (("old", "nvcc"), ("new", second_nvcc)):
        runs[name] = tmp_path / name
        proc = cli("run", "--nvcc", nvcc, "--rules", RULES, "--profile", "quick", "--out", str(runs[name]), "-q")
        assert proc.returncode in (0, 1), proc.stderr
    proc = cli("diff", str(runs["old"]), str(runs["new"]), "--format", "json")
    data = json.loads(proc.stdout)
    assert data["compared"] == len(recs) // 2
    assert proc.returncode == (1 if data["counts"]["regression"] else 0)


def test_an_ignored_dialect_is_unresolved(second_nvcc, tmp_path):
    # nvcc 13.5 with g++ 12 warns that -std=c++23 "is not supported with the configured host compiler. Flag will
    # be ignored." and compiles in its default dialect; nvcc 13.0 refuses the value. Neither is ever a PASS.
    out = tmp_path / "c23"
    proc = cli("run", "--nvcc", "nvcc", "--nvcc", second_nvcc, "--rules", RULES, "--std", "c++17,c++23",
               "--arch", "sm_90", "--out", str(out), "-q")
    assert proc.returncode == 1, proc.stderr
    recs = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    c23 = [r for r in recs if r["config"]["std"] == "c++23"]
    c17 = [r for r in recs if r["config"]["std"] == "c++17"]
    assert c23 and all(r["verdict"] == "UNRESOLVED" and "config not honoured" in r["reason"] for r in c23)
    assert all(r["verdict"] != "UNRESOLVED" for r in c17)
    for r in c23:
        seen = r["observed_config"]
        assert seen["error"] or (seen["host_cplusplus"] or 0) < 202100, seen
