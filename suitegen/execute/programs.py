"""Runs built programs on the GPU and reports what they printed; never judges.

Each program runs in its own process with a timeout, so a kernel that faults, traps or hangs,
or leaves its CUDA context unusable, takes down only its own case.
"""
from __future__ import annotations

import itertools
import json
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from suitegen.model import ExecResult, ExecStatus

DEFAULT_EXEC_TIMEOUT = 60.0
RESULT_LINE = re.compile(r"^SUITEGEN-RESULT: (PASS|FAIL)\b ?(.*)$", re.M)


class GpuPool:
    """Hands out GPUs round-robin from the caller's CUDA_VISIBLE_DEVICES (indexing into it)."""

    def __init__(self, visible: str | None, names: tuple[str, ...] = ()):
        if visible is None or visible.strip() == "":
            ids = [str(i) for i in range(len(names))] or ["0"]
        else:
            ids = [v.strip() for v in visible.split(",") if v.strip()]
        self.ids = ids
        self.names = names
        self._next = itertools.count()
        self._lock = threading.Lock()

    def take(self) -> tuple[str, str]:
        """Return (CUDA_VISIBLE_DEVICES value, description) for the next program."""
        with self._lock:
            idx = next(self._next) % len(self.ids)
        dev = self.ids[idx]
        name = self.names[int(dev)] if dev.isdigit() and int(dev) < len(self.names) else ""
        return dev, f"GPU {dev}" + (f" ({name})" if name else "")


def run_program(program: Path, cwd: Path, timeout: float, gpu: tuple[str, str]) -> ExecResult:
    """Run one built program pinned to one GPU and classify what it did."""
    env = dict(os.environ, CUDA_VISIBLE_DEVICES=gpu[0])
    argv = (str(program),)
    start = time.monotonic()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, _ = proc.communicate()
        return ExecResult(status=ExecStatus.TIMED_OUT, exit_code=None, detail=f"no result after {timeout:g}s",
                          output=out.decode(errors="replace"), duration=time.monotonic() - start,
                          gpu=gpu[1], command=argv)
    text = out.decode(errors="replace")
    return classify(text, proc.returncode, time.monotonic() - start, gpu[1], argv)


def classify(text: str, code: int, duration: float, gpu: str, argv=()) -> ExecResult:
    """Turn a program's output and exit status into an ExecResult."""
    found = RESULT_LINE.findall(text)
    if code < 0:
        status, detail = ExecStatus.CRASHED, f"killed by {signal.Signals(-code).name}"
    elif not found:
        status, detail = ExecStatus.CRASHED, f"exited {code} without a SUITEGEN-RESULT line"
    elif found[-1][0] == "PASS" and code == 0:
        status, detail = ExecStatus.PASSED, ""
    else:
        checks = re.findall(r"^SUITEGEN-CHECK-FAILED: (.*)$", text, re.M)
        status = ExecStatus.FAILED
        detail = "; ".join([found[-1][1] or f"exit {code}", *checks[:5]])
    return ExecResult(status=status, exit_code=code, detail=detail, output=text, duration=duration,
                      gpu=gpu, command=tuple(argv))


class FatbinRunner:
    """Launches fatbin cases in long-lived cupy worker processes, one per thread, replaced after a fault."""

    def __init__(self, gpus: GpuPool, timeout: float, command: tuple[str, ...] | None = None):
        self.gpus, self.timeout = gpus, timeout
        self.command = command or (sys.executable, "-m", "suitegen.execute.gpu_worker")
        self._local = threading.local()
        self._all: list[subprocess.Popen] = []

    def _worker(self) -> tuple[subprocess.Popen, tuple[str, str]]:
        w = getattr(self._local, "worker", None)
        if w is None or w[0].poll() is not None:
            gpu = self.gpus.take()
            env = dict(os.environ, CUDA_VISIBLE_DEVICES=gpu[0])
            proc = subprocess.Popen(list(self.command), stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
                                    start_new_session=True)
            self._all.append(proc)
            w = self._local.worker = (proc, gpu)
        return w

    def run(self, module: Path, check) -> ExecResult:
        """Launch one module's kernel as ``check`` says and compare with its expected values."""
        proc, gpu = self._worker()
        start = time.monotonic()
        argv = ("suitegen.execute.gpu_worker", str(module), check.kernel)
        try:
            proc.stdin.write(json.dumps(check.request(str(module))) + "\n")
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], self.timeout)
            line = proc.stdout.readline() if ready else None
        except (BrokenPipeError, OSError):
            line = ""
        took = time.monotonic() - start
        if line is None:
            self._discard(proc)
            return ExecResult(status=ExecStatus.TIMED_OUT, exit_code=None, detail=f"no reply after {self.timeout:g}s",
                              output="", duration=took, gpu=gpu[1], command=argv)
        if not line:
            self._discard(proc)
            return ExecResult(status=ExecStatus.CRASHED, exit_code=proc.poll(), detail="the GPU worker died",
                              output="", duration=took, gpu=gpu[1], command=argv)
        reply = json.loads(line)
        if not reply["ok"]:
            self._discard(proc)
            return ExecResult(status=ExecStatus.FAILED, exit_code=None, detail=reply["error"], output=line,
                              duration=took, gpu=gpu[1], command=argv)
        bad = check.mismatches(reply["out"])
        status = ExecStatus.FAILED if bad else ExecStatus.PASSED
        return ExecResult(status=status, exit_code=0, detail="; ".join(bad[:5]), output=line[-2000:],
                          duration=took, gpu=gpu[1], command=argv)

    def _discard(self, proc: subprocess.Popen) -> None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        self._local.worker = None

    def close(self) -> None:
        for proc in self._all:
            if proc.poll() is None:
                proc.stdin.close()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
