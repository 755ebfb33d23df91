"""The wheel: built, installed into a fresh virtual environment outside the checkout, and used from there."""
import fcntl
import json
import subprocess
import sys
import venv
import zipfile

import pytest

from suitegen.oracle import loader

from conftest import REPO, needs_nvcc

pytestmark = [pytest.mark.slow]
SMALL = "device-memory-space/no-automatic-in-device-function"


def sh(*argv, cwd, timeout=600):
    proc = subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{argv}: {proc.stdout[-2000:]}{proc.stderr[-2000:]}"
    return proc


@pytest.fixture(scope="module")
def wheel(tmp_path_factory, worker_id):
    """Return the wheel built from the checkout, once per test session: pip builds in the checkout's build/
    folder, which two xdist workers building at once would share (one then finds the other's files gone)."""
    root = tmp_path_factory.getbasetemp()
    shared = root if worker_id == "master" else root.parent  # the session's folder, above every worker's
    with open(shared / "wheel.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not list((shared / "dist").glob("suitegen-*.whl")):
            sh(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", shared / "dist", REPO, cwd=shared)
    (built,) = (shared / "dist").glob("suitegen-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory):
    """Return the bin folder of a fresh venv (outside the checkout) with the built wheel installed."""
    root = tmp_path_factory.mktemp("venv")
    venv.create(root / "venv", with_pip=True)
    sh(root / "venv" / "bin" / "python", "-m", "pip", "install", "-q", wheel, cwd=root)
    return root / "venv" / "bin"


def left_out(wheel) -> list[str]:
    """Return the package files of the checkout (every .py file under suitegen/, package folders with or without
    an __init__.py) that the wheel lacks."""
    shipped = set(zipfile.ZipFile(wheel).namelist())
    ours = [p.relative_to(REPO).as_posix() for p in sorted((REPO / "suitegen").rglob("*.py"))
            if "__pycache__" not in p.parts]
    return [p for p in ours if p not in shipped]


def test_every_package_folder_is_in_the_wheel(wheel):
    assert left_out(wheel) == []
    shipped = set(zipfile.ZipFile(wheel).namelist())
    assert {"suitegen/data/oracle/sections.toml", "suitegen/engine/matrix.toml"} <= shipped
    assert any(n.startswith("suitegen/data/templates/drivers/") for n in shipped), "the data mappings stay"


@needs_nvcc
@pytest.mark.nvcc
@pytest.mark.parametrize("argv", [
    ["fuzz", "--no-gpu", "--builds", "", "--host-builds", "host-O0", "--max-programs", "8"],
    ["run", "--list", "--profile", "quick", "--rules", SMALL],
], ids=["tiny-campaign", "run-list"])
def test_the_installed_command_fuzzes_and_plans_from_another_folder(argv, installed, tmp_path):
    proc = sh(installed / "suitegen", *argv, cwd=tmp_path)
    if argv[0] == "fuzz":
        assert "8 generated" in proc.stdout and (tmp_path / "reports" / "fuzz" / "seed-1" / "index.html").is_file()
    else:
        names = proc.stdout.split()
        assert names and all(n.startswith(SMALL + "[") for n in names)


@needs_nvcc
@pytest.mark.nvcc
def test_the_wheel_carries_the_oracle_and_runs_from_anywhere(installed, tmp_path):
    rules = sh(installed / "suitegen", "rules", "--json", cwd=tmp_path)
    assert len(json.loads(rules.stdout)) == len(loader.load().rules)
    out = tmp_path / "run"
    sh(installed / "suitegen", "run", "--profile", "quick", "--rules", SMALL, "--out", out, "-q", cwd=tmp_path)
    meta = json.loads((out / "run.json").read_text())
    assert "site-packages" in meta["oracle"]["root"] and str(REPO) not in meta["oracle"]["root"]
    assert meta["oracle"]["content_hash"] == loader.load().content_hash, "the wheel ships this oracle"
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    variants = len(next(r for r in loader.load().rules if r.id == SMALL).variants)
    assert len(records) == variants and all(r["verdict"] in ("PASS", "XFAIL") for r in records)


@needs_nvcc
@pytest.mark.nvcc
def test_the_installed_plugin_collects_the_packaged_oracle(installed, tmp_path):
    proc = sh(installed / "python", "-m", "pytest", "--suitegen", "--suitegen-profile", "quick",
              "--suitegen-rules", SMALL, "--co", "-q", "-p", "no:cacheprovider", cwd=tmp_path)
    names = [line for line in proc.stdout.splitlines() if "::" in line]
    assert names and all(SMALL in n for n in names)
