"""compute-sanitizer on a built program: does it do what no compiler may be blamed for?

A program whose right build reads memory out of bounds (memcheck), races on shared memory (racecheck), waits at a
barrier not every thread reaches (synccheck) or reads global memory nothing wrote (initcheck) is undefined or
indeterminate: a build that prints something else is no compiler bug. ``RIGHT`` is what a right build's program
must pass; a wrong build's program gets ``WRONG``, memcheck alone, whose word says where its fault lies. A tool is
taken as clean only where it ran to its summary line and found no error.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

from suitegen import procs

RIGHT = ("memcheck", "racecheck", "synccheck", "initcheck")
WRONG = ("memcheck",)
ERRORS = 99  # the exit status asked of compute-sanitizer where a tool finds an error
# each line of the tool's own (the program's lines come between them, and one may end without a newline before it)
TOOL = re.compile(r"========= (.*)")
# a tool's last word: its errors, or racecheck's hazards (a warning too: a race is undefined, however benign it looks)
SUMMARY = re.compile(r"========= (?:ERROR SUMMARY: (\d+) error|RACECHECK SUMMARY: (\d+) hazard)")
ERROR_LINE = re.compile(r"Invalid|rror:|hazard|Race|Barrier|Uninitiali")  # the line that says what a tool found
SECONDS = 120.0  # a tool's time on a reproducer (a plain run takes well under a second)


def tool(toolchain) -> Path | None:
    """Return the compute-sanitizer of ``toolchain`` (beside its nvcc, else on PATH), or None where there is none."""
    beside = Path(toolchain.nvcc).parent / "compute-sanitizer"
    found = beside if beside.is_file() else shutil.which("compute-sanitizer")
    return Path(found) if found else None


def judged(toolchain, exe: Path | None, tools: tuple[str, ...] = RIGHT) -> str:
    """Return what ``tools`` say of a built program, one after another: "clean (memcheck, ...)", the first error found
    ("errors (racecheck): ..."), or why a tool gave no word ("did not finish (initcheck)", "no summary (memcheck):
    ..."); "" where there is no program or the toolkit has no compute-sanitizer. Only an error blames the program
    (``blames``)."""
    sanitizer = tool(toolchain)
    if exe is None or sanitizer is None:
        return ""
    for name in tools:
        done = procs.run((str(sanitizer), "--tool", name, "--error-exitcode", str(ERRORS), str(exe)),
                         timeout=SECONDS, cwd=exe.parent, core=False)
        own = [line.strip() for line in TOOL.findall(done.output)]
        counts = [int(a or b) for a, b in SUMMARY.findall(done.output)]
        if done.timed_out:
            return f"did not finish ({name})"
        if any(counts) or not counts and done.returncode == ERRORS:  # the summary's count, else the exit status
            first = next((l for l in own if ERROR_LINE.search(l)), None) or next((l for l in own if "SUMMARY" in l), "")
            return f"errors ({name}): {first[:200]}"
        if not counts:
            return f"no summary ({name}): {(own or done.output.strip().splitlines() or ['(nothing)'])[-1][:200]}"
    return f"clean ({', '.join(tools)})"


def clean(word: str | None) -> bool:
    """Whether a word of ``judged`` says clean (a bare "clean": a finding filed when memcheck alone ran, or the host's
    sanitizers' word)."""
    return bool(word) and (word == "clean" or word.startswith("clean ("))


def blames(word: str | None) -> bool:
    """Whether a word of ``judged`` finds the program at fault: an error, not a tool that gave no word."""
    return bool(word) and word.startswith("errors")


def said(word: str) -> str:
    """A word of ``judged`` as a report shows it: a word without its tools ("clean", "errors: ..."), from a finding
    filed before the other tools ran, as memcheck's."""
    return re.sub(r"^(clean|errors)(?=:|$)", r"\1 (memcheck)", word)
