"""Builds generated programs as host C++ (g++, with UBSan) and runs them against the model's outputs.

This needs no GPU: every program's per-thread ``body`` is the same text a kernel runs, built here
with the execution-space keywords defined away. The runner prints ``<program> thread T output J:
expected X, got Y`` for each wrong output, and UBSan's ``runtime error:`` lines name undefined
behaviour; either is a problem of that program (or of the model: a false alarm to be fixed).
"""
from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from suitegen import procs
from suitegen.model import FROZEN

# -frounding-math: g++ 12 folds ``0.0 - (double)u`` (u unsigned) into ``-(double)u``, which is -0.0 for u == 0
# where IEEE gives +0.0, even at -O0 and for values known only at run time; the flag keeps that fold away and
# changes no result (the rounding mode stays to-nearest).
# -ffp-contract=off: no fused multiply-add on a host that has one (the model rounds every operation).
HOST_BUILDS = {"host-O0": ("-O0", "-frounding-math", "-ffp-contract=off"),
               "host-O2": ("-O2", "-frounding-math", "-ffp-contract=off"),
               # AddressSanitizer too: where a run faults on the GPU, whether the program itself reads or writes
               # out of bounds (triage checks a faulting finding so)
               "host-asan": ("-O0", "-frounding-math", "-ffp-contract=off", "-fsanitize=address")}
SANITIZE = ("-fsanitize=undefined", "-fsanitize=float-cast-overflow")  # the second is not part of the first
WRONG = re.compile(r"^(\w+) thread (\d+) output (\d+): expected (\d+), got (\d+)$", re.M)
UBSAN = re.compile(r"^(.*?):(\d+):\d+: runtime error: (.*)$", re.M)
ASAN = re.compile(r"ERROR: AddressSanitizer: (\S+)(?: on address \S+)?")  # which program: none says (outside any)


@dataclass(**FROZEN)
class HostRun:
    """What one host build and run said about each program of its file."""

    name: str
    argv: tuple[str, ...]
    ok: bool  # built and ran to the end
    wrong: dict  # program name -> [(thread, output, expected, got)]
    undefined: tuple  # UBSan messages (file:line: message)
    log: str
    undefined_in: frozenset = frozenset()  # the programs whose lines UBSan named ("?" outside any)
    timed_out: bool = False  # its build or its run reached the timeout it was given


def compiler() -> str | None:
    """Return the host C++ compiler to use (``$CXX``, else g++), or None if there is none."""
    return shutil.which(os.environ.get("CXX", "g++"))


def run(source: str, folder: Path, name: str, flags: tuple[str, ...], cxx: str | None = None,
        timeout: float = 600.0) -> HostRun:
    """Build ``source`` with the host compiler and ``flags`` (plus UBSan) and run it."""
    cxx = cxx or compiler()
    folder.mkdir(parents=True, exist_ok=True)
    src, exe = folder / f"{name}.cpp", folder / f"{name}.out"
    src.write_text(source)
    argv = (cxx, "-std=c++17", "-w", *flags, *SANITIZE, src.name, "-o", exe.name)
    built = procs.run(argv, timeout=timeout, cwd=folder)
    if built.returncode != 0:
        return HostRun(name=name, argv=argv, ok=False, wrong={}, undefined=(), log=built.output[-4000:],
                       timed_out=built.timed_out)
    ran = procs.run((str(exe),), timeout=timeout, cwd=folder,
                    env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0") if "-fsanitize=address" in flags else None)
    wrong: dict = {}
    for m in WRONG.finditer(ran.output):
        wrong.setdefault(m.group(1), []).append(tuple(int(x) for x in m.group(2, 3, 4, 5)))
    undefined = tuple(f"{Path(m.group(1)).name}:{m.group(2)}: {m.group(3)}" for m in UBSAN.finditer(ran.output))
    overruns = tuple(f"AddressSanitizer: {kind}" for kind in ASAN.findall(ran.output))
    undefined += overruns
    owners = _owners(source)
    blamed = {owners.get(int(m.group(2)), "?") for m in UBSAN.finditer(ran.output)} | ({"?"} if overruns else set())
    finished = ran.returncode in (0, 1) and not undefined
    return HostRun(name=name, argv=argv, ok=finished, wrong=wrong, undefined=undefined, log=ran.output[-4000:],
                   undefined_in=frozenset(blamed), timed_out=ran.timed_out)


def values(source: str, folder: Path, flags: tuple[str, ...], cxx: str | None = None,
           timeout: float = 120.0) -> list[int] | None:
    """Build and run a file that prints one value per line (``emit.host_dump``), under UBSan; return the
    values, or None where it did not build, did not finish, or UBSan reported anything."""
    cxx = cxx or compiler()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "dump.cpp").write_text(source)
    built = procs.run((cxx, "-std=c++17", "-w", *flags, *SANITIZE, "dump.cpp", "-o", "dump.out"),
                      timeout=timeout, cwd=folder)
    if built.returncode != 0:
        return None
    ran = procs.run((str(folder / "dump.out"),), timeout=timeout, cwd=folder)
    if ran.returncode != 0 or "runtime error:" in ran.output:
        return None
    try:
        return [int(x) for x in ran.output.split()]
    except ValueError:
        return None


def _owners(source: str) -> dict[int, str]:
    """Return, per 1-based line, the program whose namespace (``namespace sg_<name> {``) holds it."""
    owner, out = "?", {}
    for n, line in enumerate(source.splitlines(), 1):
        if line.startswith("namespace sg_"):
            owner = line.split()[1].removeprefix("sg_")
        elif line.startswith("}  // namespace"):
            out[n] = owner
            owner = "?"
        out[n] = owner
    return out
