"""Child processes (nvcc, programs, GPU workers), each in its own process group.

Every child a run starts (compiles, config and feature probes, programs, GPU workers) goes through here, so a timeout kills the child's whole group (an
nvcc and its cicc, a fake nvcc and its ``sleep``), and a stopping run (Ctrl-C, SIGTERM, SIGHUP)
can kill every live group at once. A child killed because the run is stopping raises ``Stopped``:
its result says nothing about the case and is never recorded.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

_live: set[subprocess.Popen] = set()
_lock = threading.Lock()
_stopping = threading.Event()
_cores: threading.Semaphore | None = None  # see ``limit_cores``
TRACE = "SUITEGEN_TRACE_CHILDREN"  # a file: every finished child appended as a JSON line (for benchmarks)
# glibc's malloc on transparent huge pages for the children that work the CPU (a paging setting: what a compiler
# says and builds is the same). nvcc's cudafe++ touches about 190 MB even for an empty file: 46,000 page faults,
# half its time. Measured here (2 cores, nvcc 13.0): quick cold 78 -> 70 core-s, the same verdicts. It takes effect
# where the kernel's transparent huge pages are "always" or "madvise", and does nothing where they are "never".
HUGE_PAGES = "glibc.malloc.hugetlb=1"


class Stopped(Exception):
    """The run is stopping: the child was killed (or never started) for that reason."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Completed:
    """What one child process did."""

    argv: tuple[str, ...]
    returncode: int | None  # None when it was killed for timing out
    output: str  # stdout and stderr together, as the child interleaved them
    timed_out: bool
    duration: float


def spawn(argv: Sequence[str], **kw) -> subprocess.Popen:
    """Start a child in a new session (its own process group) and track it until it is reaped."""
    if _stopping.is_set():
        raise Stopped()
    proc = subprocess.Popen(list(argv), start_new_session=True, **kw)
    with _lock:  # stop_all sets the flag under this lock: a child is either seen by it or killed here
        _live.add(proc)
        stopping = _stopping.is_set()
    if stopping:
        kill_group(proc)
        forget(proc)
        raise Stopped()
    return proc


def forget(proc: subprocess.Popen) -> None:
    """Stop tracking a child that has been reaped."""
    with _lock:
        _live.discard(proc)


def kill_group(proc: subprocess.Popen) -> None:
    """Kill a child's whole process group (it leads it), then reap the child."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            proc.kill()
        except ProcessLookupError:
            pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def limit_cores(n: int | None) -> None:
    """Let at most ``n`` children that work the CPU (compilers, probes, host programs) run at once (None: no
    limit). A run gives its unit threads more than that where GPU programs run, which hold no core while the
    GPU serves them: so threads that wait on the GPU leave the cores to builds."""
    global _cores
    _cores = threading.Semaphore(n) if n else None


def run(argv: Sequence[str], *, timeout: float, cwd: Path | str | None = None,
        env: Mapping[str, str] | None = None, core: bool = True) -> Completed:
    """Run a child to completion or ``timeout``; on a timeout its whole group is killed. ``core``: it works
    the CPU, so it waits for a core where they are limited (``limit_cores``); its timeout and duration start
    once it has one.

    A child run in a folder (``cwd``: a scratch folder) gets it as its ``TMPDIR``: nvcc's ``tmpxft_*``
    files and the host compiler's then live there, and go with the folder even when the child is killed.
    A child that works the CPU gets ``HUGE_PAGES``, unless its environment already sets that tunable.
    Raises OSError if it cannot start and ``Stopped`` if the run is stopping.
    """
    cores = _cores if core else None
    if core:
        env = with_huge_pages(os.environ if env is None else env)
    if cores is not None:
        cores.acquire()
    try:
        return _run(argv, timeout, cwd, env)
    finally:
        if cores is not None:
            cores.release()


def with_huge_pages(env: Mapping[str, str]) -> dict[str, str]:
    """Return ``env`` with ``HUGE_PAGES`` added to its glibc tunables (kept as it is where it names that one)."""
    tunables = env.get("GLIBC_TUNABLES", "")
    name = HUGE_PAGES.split("=")[0]
    if any(t.split("=")[0] == name for t in tunables.split(":")):
        return dict(env)
    return {**env, "GLIBC_TUNABLES": f"{tunables}:{HUGE_PAGES}" if tunables else HUGE_PAGES}


def _run(argv: Sequence[str], timeout: float, cwd: Path | str | None, env: Mapping[str, str] | None) -> Completed:
    start = time.monotonic()
    if cwd is not None:
        env = {**(os.environ if env is None else env), "TMPDIR": str(Path(cwd).resolve())}
    proc = spawn(argv, cwd=cwd, env=None if env is None else dict(env), stdout=subprocess.PIPE,
                 stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    timed_out = False
    try:
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_group(proc)
            out, _ = proc.communicate()
        except BaseException:  # Ctrl-C in a front-end, a stop signal: never leave the child running
            kill_group(proc)
            raise
        # A child that exits leaves its group behind if it spawned a straggler: clean that up too.
        if not timed_out:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    finally:
        forget(proc)
    if _stopping.is_set():
        raise Stopped()
    done = Completed(argv=tuple(argv), returncode=None if timed_out else proc.returncode,
                     output=out.decode(errors="replace"), timed_out=timed_out, duration=time.monotonic() - start)
    if os.environ.get(TRACE):
        _trace(os.environ[TRACE], done, start, cwd)
    return done


def _trace(path: str, done: Completed, start: float, cwd) -> None:
    """Append one finished child to the trace file: when it started and ended (monotonic seconds), its
    command, its folder's name and its exit status. One ``write`` of one line, so threads do not interleave."""
    line = json.dumps({"start": round(start, 3), "end": round(start + done.duration, 3), "argv": list(done.argv),
                       "cwd": Path(cwd).name if cwd else None, "rc": done.returncode}) + "\n"
    with open(path, "a") as f:
        f.write(line)


def stop_all() -> int:
    """Mark the run as stopping and kill every live child's group; return how many were killed."""
    with _lock:
        _stopping.set()
        live = list(_live)
    for proc in live:
        if proc.poll() is None:
            kill_group(proc)
    return len(live)


def stopping() -> bool:
    """Return whether the run is stopping."""
    return _stopping.is_set()


def reset() -> None:
    """Forget a stop (a new run in the same process, or a test)."""
    _stopping.clear()
