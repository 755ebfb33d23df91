"""Value checks of host-only cases: their object is linked with a small driver that calls ``use(int *out)``
(out starting at 0) and prints what it stored; never judges.

The driver is plain C++ (a ``.cpp``): the compiler driver hands it to the host compiler alone, so linking
costs the host compile and the link, not a CUDA compilation of the driver (about 0.1 s instead of 0.7 s).

One driver serves every member of a batch object (its arguments name the members it runs, one after
another). The members of one object run in one process (``run_all``); where that process does not exit 0
(a crash, a hang) each member runs again in its own, so a crash takes down only its own case.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

from suitegen import procs
from suitegen.cases.render import driver as render_driver
from suitegen.compilers import backends
from suitegen.compilers.members import member_name
from suitegen.model import Config, ExecResult, ExecStatus, Mode, Outcome

DRIVER = "sg_value_main.cpp"
PROGRAM = "sg_value.out"
VALUE_TAG = "SUITEGEN-VALUE"
VALUE_LINE = re.compile(rf"^{VALUE_TAG} (\d+): (-?\d+)$", re.M)


def driver(members: Sequence[int | None]) -> str:
    """Return the driver's source (``templates/drivers/values.cpp.j2``): ``main(N)`` calls member N's ``use``
    (``None``: the one at global scope)."""
    return render_driver("values.cpp.j2", tag=VALUE_TAG,
                         namespaces=[None if m is None else member_name(m) for m in members])


def link(obj: Path, config: Config, flags: Sequence[str], members: Sequence[int | None],
         timeout: float) -> Path | ExecResult:
    """Link ``obj`` (built with ``flags`` under ``config``) with the driver for ``members``; return the
    program, or the result every member's check gets when it does not link (TIMED_OUT or FAILED)."""
    from suitegen.compilers.compile import cached_build  # a build like any other: a build store keeps and serves it
    folder = obj.parent
    argv = [a for a in backends.of(config.toolchain.kind).build_command(config, Mode.LINK, flags, [obj.name, DRIVER],
                                                                         PROGRAM) if a != "-v"]
    done = cached_build(config, argv, {obj.name: obj.read_bytes(), DRIVER: driver(members)}, folder, timeout,
                        cached=False)
    if not done.outcome.accepted:
        why = done.output[-2000:] or f"the link exited {done.exit_code}"
        status = ExecStatus.TIMED_OUT if done.outcome is Outcome.TIMED_OUT else ExecStatus.FAILED
        return ExecResult(status=status, exit_code=done.exit_code, detail=f"the value driver did not link: {why}",
                          output=why, duration=done.duration, gpu="host", command=tuple(argv))
    return folder / PROGRAM


def run_all(program: Path, expected: Sequence[int], timeout: float) -> list[ExecResult]:
    """Run every member of a linked driver (member i must print ``expected[i]``) in one process; a member is
    run alone (``run``) where that process did not exit 0 (then every member is) or printed no value for it.
    Each result's command is its own single run's."""
    if len(expected) < 2:
        return [run(program, i, value, timeout) for i, value in enumerate(expected)]
    done = procs.run((str(program), *map(str, range(len(expected)))), timeout=timeout, cwd=program.parent)
    found = {} if done.timed_out or done.returncode != 0 else {int(i): v for i, v in VALUE_LINE.findall(done.output)}
    share = done.duration / len(expected)
    return [_judged(found[i], value, exit_code=0, output=f"{VALUE_TAG} {i}: {found[i]}\n", duration=share,
                    gpu="host", command=(str(program), str(i))) if i in found else run(program, i, value, timeout)
            for i, value in enumerate(expected)]


def run(program: Path, index: int, expected: int, timeout: float) -> ExecResult:
    """Run member ``index`` of a linked driver alone: it must print ``expected``."""
    done = procs.run((str(program), str(index)), timeout=timeout, cwd=program.parent)
    base = dict(exit_code=done.returncode, output=done.output[-2000:], duration=done.duration, gpu="host",
                command=tuple(done.argv))
    if done.timed_out:
        return ExecResult(status=ExecStatus.TIMED_OUT, detail=f"no value after {timeout:g}s", **base)
    found = [v for i, v in VALUE_LINE.findall(done.output) if int(i) == index]
    if done.returncode != 0 or not found:
        return ExecResult(status=ExecStatus.CRASHED, detail=f"exited {done.returncode} without a value", **base)
    return _judged(found[-1], expected, **base)


def _judged(text: str, expected: int, **base) -> ExecResult:
    """Return a value check's result from the value a member printed."""
    got = int(text)
    if got != expected:
        return ExecResult(status=ExecStatus.FAILED, detail=f"out[0]: expected {expected}, the host stored {got}",
                          **base)
    return ExecResult(status=ExecStatus.PASSED, detail=f"out[0] == {expected}", **base)
