"""suitegen bisect: every boundary where a case's behaviour changed, including a flip and a flip back."""
import subprocess

import pytest

from suitegen.compilers.toolchain import ToolchainError
from suitegen.history.releases import bisect, boundaries, releases
from suitegen.report.diff import Entry


def rec(verdict, message=None, std="c++17"):
    return Entry(case_id="demo/r[v]", rule="demo/r", section="demo", std=std, arch="sm_90", verdict=verdict,
                 outcome="rejected" if message else "accepted", phase="cudafe++" if message else None, message=message)


RUNS = [("13.0.48", [rec("PASS", "bad")]), ("13.0.88", [rec("PASS", "bad")]), ("13.1.80", [rec("FAIL")]),
        ("13.2.51", [rec("PASS", "bad")]), ("13.2.86", [rec("PASS", "worse")])]


def test_every_boundary_is_reported_a_flip_and_its_flip_back():
    found = boundaries(RUNS)
    assert [(b.before, b.after) for b in found] == [("13.0.88", "13.1.80"), ("13.1.80", "13.2.51"),
                                                    ("13.2.51", "13.2.86")]
    text = found[0].describe()
    assert "13.0.88 -> 13.1.80 changed verdict, outcome, phase, message" in text
    assert "before: PASS rejected cudafe++ bad" in text and "after: FAIL accepted" in text
    assert "changed message" in found[2].describe() and "worse" in found[2].describe()
    assert boundaries(RUNS[:2]) == [], "nothing changed"


def test_bisect_installs_and_runs_every_release_in_order(tmp_path):
    installed, ran = [], []

    def add(version):
        installed.append(version)
        return {"name": f"nvcc-{version}"}

    def run(name, folder):
        ran.append((name, folder.name))
        return dict(RUNS)[name.removeprefix("nvcc-")]

    versions, found, items = bisect("13.0.48", "13.2.86", run, tmp_path, add=add,
                                    listing=lambda low, high: [v for v, _ in RUNS])
    assert installed == versions == [v for v, _ in RUNS] and items == 1
    assert ran[0] == ("nvcc-13.0.48", "13.0.48") and len(found) == 3


def test_releases_come_from_the_package_index_oldest_first():
    def fake(argv, **kw):
        return subprocess.CompletedProcess(argv, 0, "nvidia-cuda-nvcc (13.5.37)\nAvailable versions: 13.5.37, "
                                           "13.2.86, 13.10.1, 13.0.88, 13.0.48\n", "")
    assert releases("13.0.88", "13.5.37", runner=fake) == ["13.0.88", "13.2.86", "13.5.37"]
    with pytest.raises(ToolchainError, match="no nvidia-cuda-nvcc release from 14.0.0"):
        releases("14.0.0", "14.1.0", runner=fake)
    with pytest.raises(ToolchainError, match="cannot list"):
        releases("13.0.0", "13.5.0", runner=lambda argv, **kw: subprocess.CompletedProcess(argv, 1, "", "offline"))
