"""What a run leaves behind and what it says about itself: the lock, empty folders, nvcc's temporary files,
counts and legs after a stop and a resume, the resume hint, and pipes closed early. Driven by fake toolchains."""
import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

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


# Hangs on the mini oracle's negative cases while the flag file exists (noting its pid); every compile keeps a
# temporary file where nvcc keeps its tmpxft_* files (noting its path), and removes it when it ends normally.
HANGS_WITH_A_TEMP_FILE = r'''
t="${TMPDIR:-/tmp}/tmpxft_sgtest_$$"
touch "$t"; echo "$t" >> "TEMPS"
if [ -e "FLAG" ] && grep -q "long double" main.cu 2>/dev/null; then
  sleep 300 &
  echo $! >> "PIDS"
  wait
fi
rm -f "$t"
exit 0
'''


def _without_venv_on_path() -> dict:
    """Return the environment with this interpreter's bin folder off PATH (a venv that is not activated)."""
    here = Path(sys.executable).parent.resolve()  # a PATH entry may name it relatively (PATH=.venv/bin:$PATH)
    return {**os.environ, "PATH": os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                                                  if not p or Path(p).resolve() != here)}


def test_a_stop_and_a_resume_report_what_each_leg_did(fake_nvcc, mini_oracle, tmp_path):
    from test_stop import wait_for
    flag, pids, temps = tmp_path / "hang", tmp_path / "pids", tmp_path / "temps"
    flag.touch()
    pids.touch()
    nvcc = fake_nvcc(HANGS_WITH_A_TEMP_FILE.replace("FLAG", str(flag)).replace("PIDS", str(pids))
                     .replace("TEMPS", str(temps)))
    script = Path(sys.executable).parent / "suitegen"  # the console script of a venv that is not activated
    invoked = [os.path.relpath(script, REPO)] if script.exists() else [sys.executable, "-m", "suitegen"]
    out = tmp_path / "run"
    argv = [*invoked, "run", "--nvcc", str(nvcc), "--oracle", str(mini_oracle[0]), "--templates", str(mini_oracle[1]),
            "-q", "--std", "c++11,c++14,c++17,c++20", "--arch", "sm_80,sm_90", "--batch", "off", "-j", "2"]
    env = _without_venv_on_path()
    proc = subprocess.Popen([*argv, "--out", str(out)], cwd=REPO, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    wait_for(lambda: len(pids.read_text().split()) >= 2, proc=proc)
    proc.send_signal(signal.SIGTERM)
    stdout, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err

    # 8 positive items finished before the two workers hung on negative ones; 24 were planned
    kept = (out / "results.jsonl").read_text().splitlines()
    assert len(kept) == 8
    assert "this run: 8 items" in stdout
    meta = json.loads((out / "run.json").read_text())
    assert meta["items_this_run"] == 8 and meta["planned"] == 24 and meta["interrupted"] is True
    assert [(g["items"], g["stopped_by"]) for g in meta["legs"]] == [(8, "SIGTERM")]
    md = (out / "summary.md").read_text()
    assert "Partial run: stopped by SIGTERM; 8 of 24 planned items have results" in md
    assert "id='partial'" in (out / "index.html").read_text()
    # the hint names the command as it was invoked (not a bare 'suitegen' that PATH does not find)
    hint = f"Continue with: {' '.join(invoked) if script.exists() else invoked[0] + ' -m suitegen'} run --resume {out}"
    assert hint in err, err
    # what the run leaves: no lock, and no temporary file of a killed compile
    assert not (out / "run.lock").exists()
    left = [t for t in temps.read_text().split() if Path(t).exists()]
    assert len(temps.read_text().split()) >= 10 and not left, left

    flag.unlink()
    resumed = subprocess.run([*invoked, "run", "--resume", str(out)], cwd=REPO, env=env, capture_output=True,
                             text=True, timeout=300)
    assert resumed.returncode == 1, resumed.stderr  # the fake accepts the negative cases: FAIL
    assert "this run: 16 items" in resumed.stdout and "2 legs" in resumed.stdout
    meta = json.loads((out / "run.json").read_text())
    legs = meta["legs"]
    assert [(g["items"], g["stopped_by"]) for g in legs] == [(8, "SIGTERM"), (16, None)]
    assert meta["started"] == legs[0]["started"] and meta["items_this_run"] == 16 and meta["interrupted"] is False
    assert meta["wall_seconds"] == round(legs[0]["wall_seconds"] + legs[1]["wall_seconds"], 2)
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert {r["schema"] for r in records} == {meta["schema"]}, "run.json names its records' schema"
    md = (out / "summary.md").read_text()
    assert "Partial" not in md and "over 2 legs" in md
    assert "leg 1: started" in md and "8 items, stopped by SIGTERM" in md and "16 items, finished" in md
    page = (out / "index.html").read_text()
    assert "id='partial'" not in page and "16 items, finished" in page
    assert not (out / "run.lock").exists()


def test_the_resume_hint_names_the_command_as_invoked(tmp_path, monkeypatch):
    from suitegen.engine.stopping import invocation
    bin_ = tmp_path / "proj" / ".venv" / "bin"
    bin_.mkdir(parents=True)
    script = bin_ / "suitegen"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.chdir(tmp_path / "proj")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setattr(sys, "argv", [str(script), "run"])  # what the kernel hands a script found by its path
    assert invocation() == ".venv/bin/suitegen"
    monkeypatch.chdir(tmp_path)
    assert invocation() == "proj/.venv/bin/suitegen"
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert invocation() == str(script)
    monkeypatch.setenv("PATH", f"{bin_}:/usr/bin:/bin")  # an activated venv: PATH finds this very script
    assert invocation() == "suitegen"
    monkeypatch.setattr(sys, "argv", [str(REPO / "suitegen" / "__main__.py"), "run"])  # python -m suitegen
    monkeypatch.setenv("PATH", "/nowhere")
    assert invocation() == f"{sys.executable} -m suitegen"
    (tmp_path / "with space").mkdir()
    spaced = tmp_path / "with space" / "suitegen"
    spaced.write_text("#!/bin/sh\n")
    monkeypatch.setattr(sys, "argv", [str(spaced)])
    assert invocation() == f"'{spaced}'"


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_the_eta_comes_from_the_planned_units_not_from_items_per_second():
    from suitegen.engine.progress import Estimate
    clock = FakeClock()
    est = Estimate(jobs=2, clock=clock)
    for key in range(4):
        est.plan(key, "batch", 100)  # 4 batches of 100 members
    for key in range(4, 14):
        est.plan(key, "single", 1)  # then 10 single builds
    assert est.seconds_left() is None  # nothing finished: nothing known
    est.begin(0)
    est.begin(1)
    clock.now = 10.0
    est.end(0)  # a batch: 10 s, 0.1 s a member
    # batch 1 is due now, batches 2 and 3 take 10 s each; until one is seen the singles cost the run's mean:
    # 0.2 s a member (batch 0's 10 s and the 10 s batch 1 has run so far, over batch 0's 100 members)
    assert est.seconds_left() == pytest.approx((0 + 10 + 10 + 10 * 0.2) / 2)
    est.end(1)
    est.begin(2)
    est.begin(3)
    clock.now = 15.0  # half way through the last two batches
    assert est.seconds_left() == pytest.approx((5 + 5 + 10 * 0.15) / 2)  # (20 s done + 2 x 5 s) / 200 members
    est.end(2)
    est.end(3)
    est.begin(4)
    clock.now = 17.0
    est.end(4)  # a single build: 2 s, far more than a batch member
    # 9 singles of 2 s on 2 workers
    assert est.seconds_left() == pytest.approx(9 * 2 / 2)
    est.plan(99, "single", 1)  # a batch hands a member over to be built alone: more work
    assert est.seconds_left() == pytest.approx(10 * 2 / 2)


def test_a_resume_starts_its_estimate_from_the_costs_its_earlier_legs_saw():
    from suitegen.engine.progress import Estimate
    est = Estimate(jobs=2, clock=FakeClock(), costs={"batch": [15.0, 110], "single": [20.0, 10]})
    est.plan(0, "single", 1)
    est.plan(1, "single", 1)
    est.plan(2, "batch", 44)
    assert est.seconds_left() == pytest.approx(6.0)  # max(10 / 2, the batch's 6 s)


def test_the_progress_line_keeps_its_eta_while_a_batch_lands_at_once():
    from suitegen.engine.progress import Estimate, Progress
    clock = FakeClock()
    stream = io.StringIO()
    est = Estimate(jobs=1, clock=clock)
    progress = Progress(200, stream=stream, estimate=est, clock=clock)
    est.plan(0, "batch", 100)
    est.plan(1, "batch", 100)
    est.begin(0)
    clock.now = 100.0
    est.end(0)
    est.begin(1)
    for _ in range(100):  # the first batch's 100 records arrive together
        progress.update("PASS")
    clock.now = 160.0  # 60 s into the second batch
    assert progress.eta() == "0:40"
    assert "ETA 1:40" in stream.getvalue()  # printed as the records came, at t=100


def test_reports_say_how_a_run_went_from_its_run_json():
    from suitegen.report.summary import when
    assert when({"started": "t0", "wall_seconds": 5.0}) == {"partial": None, "total": "Started t0, wall 5.0 s.",
                                                           "legs": []}
    legs = [{"started": "t0", "finished": None, "wall_seconds": None, "items": None, "stopped_by": None},
            {"started": "t1", "finished": "t2", "wall_seconds": 3.0, "items": 7, "stopped_by": "SIGINT"}]
    w = when({"started": "t0", "wall_seconds": 3.0, "legs": legs, "interrupted": True, "stopped_by": "SIGINT",
              "results": 7, "planned": 24, "resume_command": "suitegen run --resume r"})
    assert w["partial"] == ("Partial run: stopped by SIGINT; 7 of 24 planned items have results; "
                            "continue with suitegen run --resume r.")
    assert w["total"] == "Started t0, wall 3.0 s in all over 2 legs (the first run and 1 resume)."
    assert w["legs"] == ["leg 1: started t0, ended without a record (the process died)",
                         "leg 2: started t1, wall 3.0 s, 7 items, stopped by SIGINT"]


def test_a_resume_of_a_run_from_before_legs_keeps_its_first_leg():
    from suitegen.qualification.run import _legs
    old = {"started": "t0", "finished": "t1", "wall_seconds": 9.5, "items_this_run": 40, "stopped_by": "SIGTERM"}
    assert _legs(old) == [{"started": "t0", "finished": "t1", "wall_seconds": 9.5, "items": 40,
                           "stopped_by": "SIGTERM"}]
    assert _legs({}) == []


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_a_reader_that_closes_the_pipe_early_gets_no_traceback(extra):
    # The read end is closed before suitegen writes anything: its first write meets a closed pipe.
    proc = subprocess.Popen([sys.executable, "-m", "suitegen", "rules", *extra], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141 and "Traceback" not in err and "BrokenPipe" not in err, err
    # and as in a shell, after the reader took what it wanted
    done = subprocess.run(f"{sys.executable} -m suitegen rules {' '.join(extra)} | head -n 1; "
                          "echo \"status ${PIPESTATUS[0]}\"", shell=True, executable="/bin/bash", cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines()[-1] in ("status 141", "status 0"), done.stdout
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr


def test_a_run_killed_outright_leaves_the_page_and_summary_of_its_last_checkpoint(fake_nvcc, mini_oracle, tmp_path):
    """Reports are rewritten while a run goes: after SIGKILL (no chance to write anything) the folder still has
    a summary and a page saying the run was in progress, with the results gathered by then."""
    from test_reports import page_details
    from test_stop import wait_for
    flag, pids, temps = tmp_path / "hang", tmp_path / "pids", tmp_path / "temps"
    flag.touch()
    pids.touch()
    nvcc = fake_nvcc(HANGS_WITH_A_TEMP_FILE.replace("FLAG", str(flag)).replace("PIDS", str(pids))
                     .replace("TEMPS", str(temps)))
    out = tmp_path / "run"
    argv = [sys.executable, "-m", "suitegen", "run", "--nvcc", str(nvcc), "--oracle", str(mini_oracle[0]),
            "--templates", str(mini_oracle[1]), "-q", "--std", "c++11,c++14,c++17,c++20", "--arch", "sm_80,sm_90",
            "--batch", "off", "-j", "2", "--out", str(out)]
    proc = subprocess.Popen(argv, cwd=REPO, env=dict(os.environ, SUITEGEN_CHECKPOINT_SECONDS="0"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: len(pids.read_text().split()) >= 2 and (out / "index.html").exists(), proc=proc)
        proc.kill()
        proc.communicate(timeout=60)
    finally:
        for pid in pids.read_text().split():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass
    summary = json.loads((out / "summary.json").read_text())
    kept = (out / "results.jsonl").read_text().splitlines()
    assert summary["running"] and 1 <= summary["results"] <= len(kept) <= 8
    page = (out / "index.html").read_text()
    assert "Run in progress at" in page and f"{summary['results']} of 24 planned items had results" in page
    assert len(page_details(out)) == summary["results"]


def test_the_terminal_line_is_redrawn_at_most_every_redraw_seconds_and_at_the_end():
    from suitegen.engine.progress import REDRAW, Estimate, Progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    clock, stream = FakeClock(), Tty()
    progress = Progress(50, stream=stream, estimate=Estimate(clock=clock), clock=clock)
    for _ in range(49):  # together: one line (the estimate is not walked 49 times)
        progress.update("PASS")
    assert stream.getvalue().count("\r") == 1
    clock.now += REDRAW
    progress.update("PASS")  # the last: drawn, and done
    assert stream.getvalue().count("\r") == 2 and "50/50" in stream.getvalue() and "done" in stream.getvalue()
