"""Launches device-only modules (fatbins) through cupy in long-lived GPU worker processes.

Many modules run per worker process; a worker that faults or hangs is killed (its whole process
group) and replaced, so one bad kernel fails only its own case. The workers are a pool the run's threads
share (at most ``workers`` at once, started as needed): each holds a CUDA context, which the driver starts
one at a time, so a worker per thread would make a run of many threads wait for contexts it barely uses.
"""
from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

from suitegen import procs
from suitegen.compilers.members import mangled
from suitegen.execute.gpus import GpuPool
from suitegen.execute.images import compute_capability, loaded_code, module_targets, runs_on
from suitegen.model import ExecResult, ExecStatus

VALUE_KERNELS = ("sg_kernel", "use")  # a case's value kernel: __global__ void NAME(int *out)


def value_kernels(member: int | None) -> list[str]:
    """Return the mangled names a case's value kernel may have: at global scope, or in batch member
    ``member``'s namespace (sg_bN)."""
    if member is None:
        return [f"_Z{len(n)}{n}Pi" for n in VALUE_KERNELS]
    return [f"_ZN{mangled(member)}{len(n)}{n}EPi" for n in VALUE_KERNELS]


Worker = tuple[subprocess.Popen, tuple[str, str]]  # a worker process, and the GPU (index, name) it runs on


def _value_argv(module: Path, kernels: list[str]) -> tuple[str, ...]:
    return ("suitegen.execute.gpu_worker", "--value", str(module), kernels[0])


def _judged_value(result: ExecResult, got: list | None, expected: int) -> ExecResult:
    """Return a value check's result from the out its kernel stored (None: the module has no value kernel)."""
    if got is None:
        bad = "the module has no value kernel (sg_kernel(int *) or use(int *))"
    elif got[0] != expected:
        bad = f"out[0]: expected {expected}, the device stored {got[0]}"
    else:
        return replace(result, detail=f"out[0] == {expected}")
    return replace(result, status=ExecStatus.FAILED, detail=bad)


class FatbinRunner:
    """Launches fatbin cases in a pool of long-lived cupy worker processes (at most ``workers``, shared by the
    threads that ask), each replaced after a fault."""

    def __init__(self, gpus: GpuPool, timeout: float, command: tuple[str, ...] | None = None,
                 workers: int | None = None):
        self.gpus, self.timeout, self.workers = gpus, timeout, max(workers or os.cpu_count() or 1, 1)
        self.command = command or (sys.executable, "-m", "suitegen.execute.gpu_worker")
        self._cond = threading.Condition()
        self._idle: list[Worker] = []
        self._started = 0  # workers alive: idle or lent
        self._all: list[subprocess.Popen] = []
        self._held: dict[tuple, list[str] | None] = {}  # module file (path and stamp) -> the images it holds

    def _images(self, module: Path) -> list[str] | None:
        """Return the images a module file holds (see images.module_targets; None where it is no module),
        read once per file however many batch members ask."""
        try:
            st = module.stat()
        except OSError:
            return None
        key = (str(module), st.st_mtime_ns, st.st_size, st.st_ino)
        if key not in self._held:
            try:
                self._held[key] = module_targets(module.read_bytes())
            except OSError:
                return None
        return self._held[key]

    def _borrow(self) -> Worker:
        """Return an idle worker, a new one while fewer than ``workers`` are alive, else wait for one."""
        with self._cond:
            while True:
                while self._idle:
                    w = self._idle.pop()
                    if w[0].poll() is None:
                        return w
                    self._started -= 1  # it died while idle
                if self._started < self.workers:
                    self._started += 1
                    break
                self._cond.wait()
        try:
            gpu = self.gpus.take()
            env = dict(os.environ, CUDA_VISIBLE_DEVICES=gpu[0], CUDA_MODULE_LOADING="EAGER")
            proc = procs.spawn(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, env=env)
        except BaseException:
            self._give_back(None)
            raise
        with self._cond:
            self._all.append(proc)
        return proc, gpu

    def _give_back(self, w: Worker | None) -> None:
        """Return a borrowed worker to the pool (None: it was discarded, so another may start)."""
        with self._cond:
            if w is None:
                self._started -= 1
            else:
                self._idle.append(w)
            self._cond.notify()

    def run(self, module: Path, check) -> ExecResult:
        """Launch one module's kernel as ``check`` says and compare with its expected values."""
        result = self._ask(check.request(str(module)), ("suitegen.execute.gpu_worker", str(module), check.kernel),
                           module)
        if result.status is not ExecStatus.PASSED:
            return result
        bad = check.mismatches(json.loads(result.output)["out"])
        return replace(result, status=ExecStatus.FAILED if bad else ExecStatus.PASSED,
                       detail="; ".join(filter(None, (check.summary, *bad[:5]))), output=result.output[-2000:])

    def value(self, module: Path, member: int | None, expected: int) -> ExecResult:
        """Run a value check: the case's value kernel (``member``: its namespace in a batch module), one
        thread, must store ``expected`` in out[0]."""
        kernels = value_kernels(member)
        result = self._ask({"value": str(module), "kernels": kernels}, _value_argv(module, kernels), module)
        if result.status is not ExecStatus.PASSED:
            return result
        return _judged_value(result, json.loads(result.output)["out"], expected)

    def values(self, module: Path, members: list[tuple[int | None, int]]) -> list[ExecResult]:
        """Run the value checks of a batch module's members (member, expected) in one request to one worker,
        the module loaded once; each result is what ``value`` gives it alone. The members from a fault on
        (it ends the worker, and may have spoilt the context) are each checked alone, as ``value`` does."""
        kernels = [value_kernels(member) for member, _ in members]
        shared = self._ask({"values": str(module), "members": kernels},
                           ("suitegen.execute.gpu_worker", "--values", str(module)), module)
        try:
            outs = json.loads(shared.output)["out"] if shared.output else []
        except (ValueError, KeyError, TypeError):
            outs = []
        share = shared.duration / max(len(outs), 1)
        reply = [json.dumps({"ok": True, "out": got, **({} if got else {"missing": names})}) + "\n"
                 for names, got in zip(kernels, outs)]
        done = [_judged_value(replace(shared, status=ExecStatus.PASSED, detail="", output=line, duration=share,
                                      command=_value_argv(module, names)), got, expected)
                for (_, expected), names, got, line in zip(members, kernels, outs, reply)]
        return done + [self.value(module, member, expected) for member, expected in members[len(done):]]

    def cells(self, module: Path, launches: list[tuple[str, int, int, int]]) -> tuple[ExecResult, list | None]:
        """Launch generated programs' kernels (name, blocks, threads, buffer cells), each on a zeroed
        64-bit buffer; return the run and each kernel's buffer (None unless it PASSED)."""
        result = self._ask({"cells": str(module), "launches": [list(x) for x in launches]},
                           ("suitegen.execute.gpu_worker", "--cells", str(module)), module)
        if result.status is not ExecStatus.PASSED:
            return result, None
        return result, json.loads(result.output)["out"]

    def load(self, module: Path) -> ExecResult:
        """Load a module on the GPU, every kernel resolved (PTX JIT-compiled where needed); run nothing."""
        return self._ask({"load": str(module)}, ("suitegen.execute.gpu_worker", "--load", str(module)), module)

    def _ask(self, request: dict, argv: tuple[str, ...], module: Path) -> ExecResult:
        """Send one request to a worker of the pool; PASSED with the reply as output, or why not. A module
        holding no image this worker's GPU can run is not sent: NOT_RUN says what it holds."""
        w = self._borrow()
        try:
            result, keep = self._send(w, request, argv, module)
        except BaseException:
            self._discard(w[0])
            self._give_back(None)
            raise
        self._give_back(w if keep else None)
        return result

    def _send(self, w: Worker, request: dict, argv: tuple[str, ...], module: Path) -> tuple[ExecResult, bool]:
        """Return the worker's answer to one request, and whether the worker may serve again."""
        proc, gpu = w
        targets = self._images(module)
        cc = compute_capability(gpu[1])
        loaded = loaded_code(targets, cc) if targets else ""
        if targets is not None and not (targets and runs_on(targets, cc)):
            held = f"it holds {', '.join(targets)}" if targets else "it holds no image (an empty fatbin)"
            return ExecResult(status=ExecStatus.NOT_RUN, exit_code=None, gpu=gpu[1], command=argv, output="",
                              duration=0.0, detail=f"not run: {held}, nothing {gpu[1]} can run"), True
        start = time.monotonic()
        try:
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], self.timeout)
            line = proc.stdout.readline() if ready else None
        except (BrokenPipeError, OSError):
            line = ""
        took = time.monotonic() - start
        if procs.stopping():
            raise procs.Stopped()  # the worker is discarded (``_ask``)
        if line is None:
            self._discard(proc)
            return ExecResult(status=ExecStatus.TIMED_OUT, exit_code=None, detail=f"no reply after {self.timeout:g}s",
                              output="", duration=took, gpu=gpu[1], command=argv, loaded=loaded), False
        if not line:
            self._discard(proc)
            return ExecResult(status=ExecStatus.CRASHED, exit_code=proc.poll(), detail="the GPU worker died",
                              output="", duration=took, gpu=gpu[1], command=argv, loaded=loaded), False
        reply = json.loads(line)
        if not reply["ok"]:
            self._discard(proc)
            return ExecResult(status=ExecStatus.FAILED, exit_code=None, detail=reply["error"], output=line,
                              duration=took, gpu=gpu[1], command=argv, loaded=loaded), False
        return ExecResult(status=ExecStatus.PASSED, exit_code=0, detail="", output=line, duration=took,
                          gpu=gpu[1], command=argv, loaded=loaded), True

    def _discard(self, proc: subprocess.Popen) -> None:
        procs.kill_group(proc)
        procs.forget(proc)

    def close(self) -> None:
        with self._cond:
            every = list(self._all)
        for proc in every:
            if proc.poll() is None:
                proc.stdin.close()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    procs.kill_group(proc)
            procs.forget(proc)
