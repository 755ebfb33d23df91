"""Stopping and resuming: SIGTERM and SIGHUP stop a run like Ctrl-C, no child outlives it, every item
ends with exactly one record, and a run folder belongs to one live run. Driven by fake toolchains."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import REPO

# Cases of the mini oracle that hold 'long double' (its negative variants) hang while the flag file exists;
# each hanging compile leaves a 'sleep' child in its process group and notes the child's pid.
HANGING = r'''
if [ "$1" = "--dryrun" ]; then  # the same front-end stages for every command: short builds are taken
  echo '#$ gcc -E -D__CUDA_ARCH__=900 -x c++ main.cu -o /tmp/tmpxft_0-1_main.cpp1.ii'
  echo '#$ cicc --c++17 /tmp/tmpxft_0-1_main.cpp1.ii -o /tmp/tmpxft_0-2_main.ptx'
  exit 0
fi
if [ -e "FLAG" ] && grep -q "long double" main.cu 2>/dev/null; then
  sleep 300 &
  echo $! >> "PIDS"
  wait
fi
exit 0
'''
MATRIX = ["--std", "c++11,c++14,c++17,c++20", "--arch", "sm_80,sm_90"]  # 3 cases x 8 configs


@pytest.fixture
def hanging(fake_nvcc, mini_oracle, tmp_path):
    flag, pids = tmp_path / "hang", tmp_path / "pids"
    flag.touch()
    pids.touch()
    nvcc = fake_nvcc(HANGING.replace("FLAG", str(flag)).replace("PIDS", str(pids)))
    base = [sys.executable, "-m", "suitegen", "run", "--nvcc", str(nvcc), "--oracle", str(mini_oracle[0]),
            "--templates", str(mini_oracle[1]), "-q"]
    return base, flag, pids


def start(argv):
    return subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(pred, timeout=120, proc=None):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if pred():
            return
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the run ended first: {proc.communicate()}")
        time.sleep(0.1)
    raise AssertionError("timed out waiting")


def alive(pid: int) -> bool:
    """Whether a process runs (a zombie waiting for init to reap it does not)."""
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def lines(folder):
    path = folder / "results.jsonl"
    return path.read_text().splitlines() if path.exists() else []


@pytest.mark.parametrize("sig, status", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_signal_stops_kills_children_and_resumes_to_one_record_per_item(hanging, tmp_path, sig, status):
    base, flag, pids = hanging
    out = tmp_path / "run"
    proc = start(base + MATRIX + ["--out", str(out), "-j", "2"])
    wait_for(lambda: len(pids.read_text().split()) >= 2, proc=proc)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == status, err
    assert f"stopped by {sig.name}" in err and "--resume" in err
    children = [int(p) for p in pids.read_text().split()]
    wait_for(lambda: not any(alive(p) for p in children), timeout=10)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] is True and summary["results"] == len(lines(out)) < 24
    assert all("harness error" not in r for r in lines(out)), "a killed compile is not recorded as an outcome"

    flag.unlink()
    resumed = subprocess.run(base + ["--resume", str(out)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 1, resumed.stderr  # the fake accepts the negative cases: FAIL
    records = [json.loads(line) for line in lines(out)]
    assert len(records) == 24 and len({(r["case_key"], r["config_key"]) for r in records}) == 24


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]])
def test_a_pytest_session_stopped_by_sigterm_says_so_writes_its_junit_and_leaves_no_child(hanging, tmp_path, xdist):
    """``pytest --suitegen`` on a farm whose scheduler stops the job with SIGTERM (to its process group): the session
    stops as on Ctrl-C, pytest still writes its summary and JUnit file, and no compile outlives it."""
    base, _, pids = hanging
    nvcc, orc, tpl = (base[base.index(o) + 1] for o in ("--nvcc", "--oracle", "--templates"))
    out, junit = tmp_path / "run", tmp_path / "junit.xml"
    python = os.path.abspath(sys.executable)  # run from tmp_path
    proc = subprocess.Popen([python, "-m", "pytest", "-p", "no:cacheprovider", "--suitegen", orc,
                             "--suitegen-templates", tpl, "--suitegen-nvcc", nvcc, "--suitegen-std", "c++17,c++20",
                             "--suitegen-arch", "sm_90", "--suitegen-out", str(out), "--junitxml", str(junit),
                             *xdist], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    wait_for(lambda: pids.read_text().split(), proc=proc)  # a compile hangs
    os.killpg(proc.pid, signal.SIGTERM)  # the session's group: the controller and its xdist workers
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "stopped by SIGTERM" in stdout, (stdout, stderr)
    assert junit.is_file() and "<testsuite" in junit.read_text()
    children = [int(p) for p in pids.read_text().split()]
    wait_for(lambda: not any(alive(p) for p in children), timeout=10)


def test_a_line_cut_short_by_a_crash_is_dropped_and_the_item_redone(hanging, tmp_path):
    base, flag, _ = hanging
    flag.unlink()
    out = tmp_path / "run"
    first = subprocess.run(base + ["--std", "c++17", "--arch", "sm_90", "--out", str(out)], cwd=REPO,
                           capture_output=True, text=True, timeout=300)
    assert first.returncode == 1, first.stderr
    kept = lines(out)
    # A crash in the middle of writing the last record: half a line, no newline.
    (out / "results.jsonl").write_text("\n".join(kept[:-1]) + "\n" + kept[-1][: len(kept[-1]) // 2])
    resumed = subprocess.run(base + ["--resume", str(out)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert "incomplete line" in resumed.stderr
    records = [json.loads(line) for line in lines(out)]  # every line whole again
    assert len(records) == 3 and len({(r["case_key"], r["config_key"]) for r in records}) == 3


def test_a_live_run_folder_refuses_a_second_run(hanging, tmp_path):
    base, _, pids = hanging
    out = tmp_path / "run"
    first = start(base + MATRIX + ["--out", str(out), "-j", "1"])
    try:
        wait_for(lambda: len(pids.read_text().split()) >= 1, proc=first)
        for extra in (["--resume", str(out)], ["--out", str(out)]):
            second = subprocess.run(base + extra, cwd=REPO, capture_output=True, text=True, timeout=120)
            assert second.returncode == 2 and "in use by a live run" in second.stderr, second.stderr
            assert f"pid {first.pid}" in second.stderr
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=60)
    assert first.returncode == 143


def test_a_timed_out_compile_leaves_no_process_behind(hanging, tmp_path):
    base, _, pids = hanging
    out = tmp_path / "run"
    proc = subprocess.run(base + ["--std", "c++17", "--arch", "sm_90", "--out", str(out), "--timeout", "2"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    records = [json.loads(line) for line in lines(out)]
    timed_out = [r for r in records if r["observed"] and r["observed"]["outcome"] == "timed-out"]
    assert len(timed_out) == 2 and all(r["verdict"] == "UNRESOLVED" for r in timed_out)
    assert all("-ptx" not in r["observed"]["commands"][0] for r in timed_out), "evidence from the full build"
    children = [int(p) for p in pids.read_text().split()]
    assert len(children) == 4, "each item: its front-end build (-ptx), which hung, then its full build"
    wait_for(lambda: not any(alive(p) for p in children), timeout=10)


def test_handled_puts_its_handler_in_place_for_the_block_and_the_replaced_ones_back():
    from suitegen.engine.stopping import STOP_SIGNALS, handled
    before = {s: signal.getsignal(s) for s in STOP_SIGNALS}
    seen = []
    with handled(lambda signum, frame: seen.append(signum)) as previous:
        assert previous == before
        signal.raise_signal(signal.SIGHUP)
        with handled(signal.SIG_IGN):  # nested: ignored within, the outer handler back after
            signal.raise_signal(signal.SIGHUP)
        signal.raise_signal(signal.SIGTERM)
    assert seen == [signal.SIGHUP, signal.SIGTERM]
    assert {s: signal.getsignal(s) for s in STOP_SIGNALS} == before


def test_a_stop_between_a_write_and_its_mark_waits_for_both():
    """The race that wrote a record twice: a stop after the append, before the item was marked as written, made the
    clean-up append it again. Within ``held`` the stop waits for the block, then raises."""
    from suitegen.engine.stopping import StopRun, held

    def stop(signum, frame):
        raise StopRun(signum)

    previous = signal.signal(signal.SIGINT, stop)
    written, marked = [], set()
    try:
        with pytest.raises(StopRun):
            with held():
                written.append("record")
                signal.raise_signal(signal.SIGINT)  # the stop comes here, between the write and the mark
                marked.add("record")
        assert written == ["record"] and marked == {"record"}
        assert signal.getsignal(signal.SIGINT) is stop  # the handler is back
        with held():  # a block with no stop raises nothing
            marked.add("again")
    finally:
        signal.signal(signal.SIGINT, previous)
    # under the default handler the waiting signal is raised again as the block ends: a child that was told to stop
    # stops (here with SIGTERM's status)
    child = subprocess.run([sys.executable, "-c", "import os, signal\nfrom suitegen.engine.stopping import held\n"
                            "with held():\n    os.kill(os.getpid(), signal.SIGTERM)\n    print('block done')\n"
                            "print('after the block')\n"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert child.returncode == -signal.SIGTERM and child.stdout == "block done\n", child