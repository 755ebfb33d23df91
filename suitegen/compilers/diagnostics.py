"""Parses ``nvcc -v`` output into diagnostic records and the phase that failed.

``nvcc -v`` echoes each sub-command as ``#$ cmd`` before running it, and ``# --error 0xN --``
after one fails, so every message can be attributed to the stage that printed it.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import PurePath

from suitegen.model import FROZEN, Diagnostic, Phase

# EDG front ends print "f.cu(3): error #20091-D: ..."; NVVM prints "f.cu(5): Error: ..." and
# "warning: f.cu(11): Warning: ...".
EDG = re.compile(r"^(?:warning: )?(?P<file>[^\s(][^()]*?)\((?P<line>\d+)\): (?P<sev>catastrophic error|"
                 r"internal error|error|warning|remark|note|Error|Warning)(?: #(?P<num>\d+)(?:-D)?)?: (?P<msg>.*)$")
GCC = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?:\d+:)? (?P<sev>fatal error|error|warning|note): "
                 r"(?P<msg>.*)$")
TOOL = re.compile(r"^(?P<tool>ptxas|nvlink|nvcc|fatbinary|cicc|cudafe\+\+)\s+(?P<sev>fatal|error|warning|"
                  r"info)\s*: (?P<msg>.*)$")
# ld names the object a message is about before its severity ("ld: x.o: warning: ..."); a message with neither
# severity is an error. Its two-line form puts the function first ("ld: x.o: in function `f':"), then where in
# the object (a section and offset, or a line) and the error ("x.cpp:(.text+0x34): undefined reference to `g'").
LINKER = re.compile(r"^(?:/\S*/)?(?:ld|collect2)(?:\.\w+)?: (?:[^\s:][^:]*: (?=(?:warning|error): |in function ))?"
                    r"(?:(?P<sev>error|warning): )?(?P<msg>.*)$")
LINKER_FUNCTION = re.compile(r"^in function (?P<fn>`.*'):$")  # the first line's message
LINKER_LOCATED = re.compile(r"^[^\s:][^:]*:(?:\([^)]*\)|\d+): (?P<msg>.*)$")
# Names in a message (a symbol, a type, a file): they vary from one program and build to the next. An apostrophe
# inside a word ("doesn't") opens none.
ERROR_CODE = re.compile(r"^# --error 0x(?P<code>[0-9a-fA-F]+) --$")
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
INTERNAL_ERROR = re.compile(r"^[^\s(][^()]*\(\d+\): internal error")
# What a crashed compiler prints (lower case): nvcc's own report of a sub-tool that died of a signal reads
# "nvcc error   : 'cicc' died due to signal 11 (Invalid memory reference)", then "'cicc' core dumped" where a core was
# written (``nvcc -v`` also prints the sub-tool's status: ``SIGNAL_CODES``).
CRASH_MARKERS = ("internal error", "internal compiler error", "segmentation fault", "core dumped",
                 "assertion failed", "stack dump", "illegal instruction", "died due to signal")
BROKEN_IR = "broken module found"  # NVVM's IR verifier failed: the compiler made invalid IR (a crash)
# NVVM's IR reader refusing the module cicc's own front end made, after the verifier's message ("Stored value type
# does not match pointer operand type!"): " i8*<unnamed>: parse <what> (Producer: 'LLVM7.0.1' Reader: 'LLVM 7.0.1')".
# Invalid IR again, so a crash like BROKEN_IR; the line is its diagnostic (it has no source location).
IR_READER = re.compile(r"^\s*\S*: parse (?P<msg>.+\(Producer: '[^']*' Reader: '[^']*'\))$")
# NVRTC prints NVVM's own errors with no file ("error: Broken module found, compilation aborted!")
# and some of its front end's warnings with neither ("Warning #20208-D: 'long double' is treated as 'double' ...")
BARE = re.compile(r"^(?P<sev>[Ee]rror|[Ww]arning)(?: #(?P<num>\d+)(?:-D)?)?: (?P<msg>.*)$")
# 128 + signal number: a sub-tool killed by SIGILL, SIGABRT, SIGBUS, SIGFPE, SIGKILL or SIGSEGV.
SIGNAL_CODES = frozenset({0x84, 0x86, 0x87, 0x88, 0x89, 0x8B})
TOOL_PHASES = {"cudafe++": Phase.CUDAFE, "cicc": Phase.CICC, "ptxas": Phase.PTXAS,
               "fatbinary": Phase.FATBINARY, "nvlink": Phase.NVLINK, "nvcc": Phase.NVCC, "nvrtc": Phase.NVRTC}
HOST_TOOLS = re.compile(r"^(?:.*-)?(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+|icpx|icpc|cl)(?:-\d+)?(?:\.exe)?$")
SEVERITIES = {"catastrophic error": "error", "fatal error": "fatal", "internal error": "error", "info": "remark"}


@dataclass(**FROZEN)
class ParsedOutput:
    """Diagnostics, sub-commands and the failing stage found in one nvcc run."""

    diagnostics: tuple[Diagnostic, ...]
    subcommands: tuple[tuple[Phase, str], ...]
    failed_phase: Phase | None
    failed_code: int | None  # the exit status nvcc reported for the failing sub-command
    crash: bool


def command_phase(command: str) -> Phase:
    """Return the pipeline stage a ``#$`` sub-command belongs to."""
    try:
        argv = shlex.split(command)
    except ValueError:
        argv = command.split()
    if not argv:
        return Phase.NVCC
    tool = PurePath(argv[0].replace("$CICC_PATH/", "")).name
    if tool in TOOL_PHASES:
        return TOOL_PHASES[tool]
    if HOST_TOOLS.match(tool):
        if "-E" in argv:
            return Phase.HOST_PREPROCESS
        return Phase.HOST_COMPILER if "-c" in argv else Phase.LINK
    if tool in ("ld", "collect2"):
        return Phase.LINK
    return Phase.NVCC


def _names_crash(line: str) -> bool:
    """Whether an output line holds one of ``CRASH_MARKERS``."""
    low = line.lower()
    return any(marker in low for marker in CRASH_MARKERS)


def parse(output: str) -> ParsedOutput:
    """Parse combined stdout/stderr of ``nvcc -v`` into a ParsedOutput."""
    phase = Phase.NVCC
    diags: list[Diagnostic] = []
    subs: list[tuple[Phase, str]] = []
    failed_phase = failed_code = None
    crash = False
    function = ""  # the function the linker's last two-line message is about
    for raw in output.splitlines():
        line = raw.rstrip()
        if line.startswith("#$ "):
            cmd = line[3:].strip()
            if not ASSIGNMENT.match(cmd):
                phase = command_phase(cmd)
                subs.append((phase, cmd))
            continue
        if phase is Phase.LINK:
            function = linker_function(line, function)
            if function and not LINKER_LOCATED.match(line):
                continue  # the first line of a two-line message: its second says what is wrong
        m = ERROR_CODE.match(line)
        if m:
            failed_phase, failed_code = phase, int(m.group("code"), 16)
            crash |= failed_code in SIGNAL_CODES
            continue
        diag = diagnostic(line, phase, function)
        if diag is not None:
            diags.append(diag)
            crash |= INTERNAL_ERROR.match(line) is not None or BROKEN_IR in line.lower() or (
                IR_READER.match(line) is not None) or (diag.file is None and _names_crash(line))  # a tool's own report
        elif _names_crash(line):
            # Only lines that are not the program's own diagnostics: "static assertion failed" is a verdict.
            crash = True
    return ParsedOutput(diagnostics=tuple(diags), subcommands=tuple(subs), failed_phase=failed_phase,
                        failed_code=failed_code, crash=crash)


def linker_function(line: str, function: str) -> str:
    """Return the function a linker output line leaves later lines about: the one it names first in a two-line
    message (``ld: x.o: in function `f':``), ``function`` on that message's second lines, else ""."""
    m = LINKER.match(line)
    named = LINKER_FUNCTION.match(m["msg"]) if m and not m["sev"] else None
    if named:
        return named["fn"]
    return function if LINKER_LOCATED.match(line) else ""


def diagnostic(line: str, phase: Phase, function: str = "") -> Diagnostic | None:
    """Return the diagnostic one output line holds, printed during ``phase``, or None (``function``: the function
    the linker's two-line message that this line ends is about, ``linker_function``)."""
    m = EDG.match(line)
    if m:
        sev = m["sev"].lower()
        return Diagnostic(severity=SEVERITIES.get(sev, sev), message=m["msg"], phase=phase,
                          file=m["file"], line=int(m["line"]), number=m["num"])
    m = TOOL.match(line)
    if m:
        return Diagnostic(severity=SEVERITIES.get(m["sev"], m["sev"]), message=m["msg"],
                          phase=TOOL_PHASES[m["tool"]])
    m = GCC.match(line)
    if m:
        return Diagnostic(severity=SEVERITIES.get(m["sev"], m["sev"]), message=m["msg"], phase=phase,
                          file=m["file"], line=int(m["line"]))
    m = LINKER.match(line)
    if m and phase is Phase.LINK:
        return Diagnostic(severity=m["sev"] or "error", message=m["msg"], phase=Phase.LINK)
    m = LINKER_LOCATED.match(line)
    if m and phase is Phase.LINK:
        return Diagnostic(severity="error", message=f"in function {function}: {m['msg']}" if function else m["msg"],
                          phase=Phase.LINK)
    m = IR_READER.match(line)
    if m and phase in (Phase.CICC, Phase.NVRTC):
        return Diagnostic(severity="error", message=m["msg"], phase=phase)
    m = BARE.match(line)
    if m and phase is Phase.NVRTC:
        return Diagnostic(severity=m["sev"].lower(), message=m["msg"], phase=Phase.NVRTC, number=m["num"])
    return None
