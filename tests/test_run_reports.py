"""What a run leaves behind and what it says about itself: the lock, empty folders, nvcc's temporary files,
counts and legs after a stop and a resume, the resume hint, and pipes closed early. Driven by fake toolchains."""
import json
import os
import signal
import subprocess
import sys

import pytest

from conftest import REPO, follows_the_guide
from suitegen.frontends.cli import main


@pytest.fixture
def mini_run(fake_nvcc, mini_oracle):
    """Return the argv (without 'run') of a small run with a fake nvcc that does what the guide says."""
    nvcc = fake_nvcc(follows_the_guide())
    return ["--nvcc", str(nvcc), "--oracle", str(mini_oracle[0]), "--templates", str(mini_oracle[1]), "-q"]


def test_a_clean_finish_removes_the_lock(mini_run, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", *mini_run, "--std", "c++17", "--arch", "sm_90", "--out", str(out)]) == 0
    assert (out / "results.jsonl").exists() and not (out / "run.lock").exists()


@pytest.mark.parametrize("bad", [["--nvcc", "/no/such/nvcc"], ["--std", "c++99"], ["--profile", "no-such"]])
def test_a_failed_start_leaves_no_run_folder(mini_run, tmp_path, monkeypatch, capsys, bad):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "named" / "run"
    argv = [*mini_run, *bad]
    assert main(["run", *argv, "--out", str(out)]) == 2
    assert not (tmp_path / "named").exists()
    assert main(["run", *argv]) == 2  # the default folder under ./reports
    assert not (tmp_path / "reports").exists()


def test_a_failed_start_keeps_a_folder_that_was_there(mini_run, tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    assert main(["run", *mini_run, "--std", "c++99", "--out", str(out)]) == 2
    assert out.is_dir() and not any(out.iterdir())


def test_a_lock_left_by_a_run_that_died_is_taken_over(mini_run, tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / "run.lock").write_text("pid 1 on elsewhere: suitegen run, since yesterday\n")  # unlocked: its holder died
    assert main(["run", *mini_run, "--std", "c++17", "--arch", "sm_90", "--out", str(out)]) == 0
    assert not (out / "run.lock").exists()


def test_a_child_run_in_a_scratch_folder_gets_it_as_tmpdir(tmp_path):
    from suitegen import procs
    procs.reset()
    done = procs.run(["sh", "-c", 'echo "$TMPDIR"'], timeout=30, cwd=tmp_path)
    assert done.output.strip() == str(tmp_path.resolve())
    done = procs.run(["sh", "-c", 'echo "$TMPDIR"'], timeout=30, cwd=tmp_path, env={"PATH": os.environ["PATH"]})
    assert done.output.strip() == str(tmp_path.resolve())
