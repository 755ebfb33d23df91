"""Runs built programs on the GPU and reports what they printed; never judges.

Each program runs in its own process group with a timeout, so a kernel that faults, traps or hangs,
or leaves its CUDA context unusable, takes down only its own case.
"""
from __future__ import annotations

import os
import re
import signal
from pathlib import Path

from suitegen import procs
from suitegen.compilers.batch import MEMBER_BEGIN, MEMBER_END
from suitegen.model import ExecResult, ExecStatus

DEFAULT_EXEC_TIMEOUT = 60.0
RESULT_LINE = re.compile(r"^SUITEGEN-RESULT: (PASS|FAIL)\b ?(.*)$", re.M)
MEMBER_OUTPUT = re.compile(rf"^{MEMBER_BEGIN} (?P<index>\d+)\n(?P<output>.*?)^{MEMBER_END} (?P=index) (?P<status>-?\d+)$",
                           re.M | re.S)


def run_program(program: Path, cwd: Path, timeout: float, gpu: tuple[str, str],
                args: tuple[str, ...] = ()) -> ExecResult:
    """Run one built program (with ``args``: which member of a batched program) pinned to one GPU, and
    classify what it did."""
    done = procs.run((str(program), *args), timeout=timeout, cwd=cwd,
                     env=dict(os.environ, CUDA_VISIBLE_DEVICES=gpu[0]), core=False)
    if done.timed_out:
        return ExecResult(status=ExecStatus.TIMED_OUT, exit_code=None, detail=f"no result after {timeout:g}s",
                          output=done.output, duration=done.duration, gpu=gpu[1], command=done.argv)
    return classify(done.output, done.returncode, done.duration, gpu[1], done.argv)


def run_members(program: Path, members: list[int], cwd: Path, timeout: float,
                gpu: tuple[str, str]) -> dict[int, ExecResult]:
    """Run several members of a batched program in one process, one after another (it brackets each
    one's output), and return the result of each member that finished; a crash, a hang or an exit ends
    the process, and the members it did not finish are missing. Each result's command is the member's
    own (the single run that reproduces it)."""
    done = procs.run((str(program), *map(str, members)), timeout=timeout, cwd=cwd,
                     env=dict(os.environ, CUDA_VISIBLE_DEVICES=gpu[0]), core=False)
    out = {}
    for m in MEMBER_OUTPUT.finditer(done.output):
        index = int(m.group("index"))
        out[index] = classify(m.group("output"), int(m.group("status")), done.duration / len(members), gpu[1],
                              (str(program), str(index)))
    return out


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
