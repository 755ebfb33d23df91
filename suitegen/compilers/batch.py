"""Batched builds: many cases of one config in one build, each diagnostic attributed to its case.

A case may join a batch only if it is self-contained: its ``#include`` lines first in each file, and
nothing that reaches outside a namespace or changes the rest of the translation unit (pragmas,
``#undef``, ``extern "C"``, global-scope qualifiers). Each member sits in its own namespace after
``#line 1 "sg_bN/<file>"``, so nvcc reports its diagnostics under its own file name and line, as a
single compile would; the macros a member defines are undefined after it.

Compile-only cases (``-c``) batch as they are. Programs (``link``, and ``rdc-link`` with several files)
batch too: a batch has one translation unit per file name of its members; each member's ``int main()``
becomes ``sg_bN::main``, and the batch's own ``main`` runs member N when given N, so every member still
runs in its own process.

The batch's result is split per member only where the split is certain (``split``); for the others the
caller builds them again (a smaller batch, or alone).
"""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path, PurePath
from typing import Sequence

from suitegen.compilers import backends
from suitegen.compilers.compile import cached_build
from suitegen.model import Case, CompileResult, Config, Mode, Outcome

PREFIX = "sg_b"  # batch member N sits in namespace sg_bN, its files under sg_bN/
MEMBER_DIR = re.compile(rf"^{PREFIX}(\d+)$")
# A global-scope qualifier (``::x``; not ``T::x``, ``f()::x`` or ``::operator new``) would leave the namespace.
SCOPE = re.compile(r"namespace\s+std\b|^\s*::(?!\s*operator\b)|(?<![\w:>)\]])::\s*(?!operator\b)\w|extern\s+\"C|#\s*(pragma|undef)",
                   re.M)
DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)", re.M)
MAIN = re.compile(r"\bmain\s*\(")
PLAIN_MAIN = re.compile(r"^int\s+main\s*\(\s*(void)?\s*\)", re.M)
DISPATCH = "sg_batch_main.cu"
# a batched program given several members runs them in turn and brackets each one's output
MEMBER_BEGIN, MEMBER_END = "SUITEGEN-MEMBER-BEGIN", "SUITEGEN-MEMBER-END"
INCLUDE = re.compile(r"^\s*#\s*include\b")
PLAIN = re.compile(r"^\s*(//.*)?$")  # a blank or comment-only line
ERROR_LIMIT = re.compile(r"error limit", re.I)
# A member named in a message without a file (a linker's or ptxas's): demangled, or mangled with its length.
NAMED = re.compile(rf"\b{PREFIX}(\d+)::|(?<!\d)(\d{{1,2}}){PREFIX}(\d+)")
QUALIFIER = re.compile(rf"\b{PREFIX}\d+::")
# A linker's closing line, printed once after its errors: it goes to every member with an error there.
CLOSING = re.compile(r"^(merge_elf failed|ld returned \d+ exit status)$")


def includes(text: str) -> tuple[str, ...] | None:
    """Return a file's leading #include lines, or None when an #include comes after other code."""
    found: list[str] = []
    seen_code = False
    for line in text.splitlines():
        if INCLUDE.match(line):
            if seen_code:
                return None
            found.append(line.strip())
        elif not PLAIN.match(line):
            seen_code = True
    return tuple(found)


def preamble(case: Case) -> tuple | None:
    """Return what a case's batch must share with it: each file's name and leading includes (None: can't)."""
    out = []
    for name, text in case.files.items():
        inc = includes(text)
        if inc is None:
            return None
        out.append((name, inc))
    return tuple(out)


def batchable(case: Case) -> bool:
    """Whether a case can share a build with others (see the module's docstring)."""
    mode = case.variant.mode
    if mode is Mode.FATBIN or preamble(case) is None:
        return False
    texts = list(case.files.values())
    if any(SCOPE.search(text) for text in texts):
        return False
    if mode is Mode.COMPILE:
        return len(texts) == 1 and not MAIN.search(texts[0])
    mains = [len(MAIN.findall(text)) for text in texts]
    return mains[0] == 1 and sum(mains) == 1 and PLAIN_MAIN.search(texts[0]) is not None


def group_key(case: Case, config: Config) -> tuple:
    """Return what members of one batch share: the config, the build mode, the case's flags, its files'
    names and their quoted includes. System headers (``<...>``) need not match: a batch includes every
    member's (see ``sources``)."""
    local = tuple((name, tuple(i for i in inc if '"' in i)) for name, inc in preamble(case) or ())
    return config.key, case.variant.mode, case.variant.flags, local


def member_namespace(index: int) -> str:
    """Return the namespace batch member ``index`` sits in."""
    return f"{PREFIX}{index}"


def member_file(index: int, name: str) -> str:
    return f"{member_namespace(index)}/{name}"


def member_of(file: str | None) -> int | None:
    """Return the member index a diagnostic's file names, or None outside every member."""
    if not file:
        return None
    parts = PurePath(file).parts
    m = MEMBER_DIR.match(parts[-2]) if len(parts) >= 2 else None
    return int(m.group(1)) if m else None


def mentioned(message: str) -> set[int] | None:
    """Return the members a message names by symbol (``sg_b3::f``, ``_ZN5sg_b31fEv``); None: unreadable."""
    found = set()
    for m in NAMED.finditer(message):
        if m.group(1) is not None:
            found.add(int(m.group(1)))
        else:
            digits = int(m.group(2)) - len(PREFIX)
            if digits < 1 or len(m.group(3)) < digits:
                return None
            found.add(int(m.group(3)[:digits]))
    return found


def named_member(message: str) -> int | None:
    """Return the one member a message names by symbol, or None."""
    found = mentioned(message)
    return found.pop() if found and len(found) == 1 else None


def suspects(result: CompileResult, size: int) -> set[int]:
    """Return the members to build alone where a batch attributes nobody: those with an error in their
    own region, and those that an error or warning outside every region names by symbol."""
    out: set[int] = set()
    for d in result.diagnostics:
        index = member_of(d.file)
        if index is not None and d.severity in ("error", "fatal"):
            out.add(index)
        elif index is None and d.severity in ("error", "fatal", "warning"):
            out |= mentioned(d.message) or set()
    return {i for i in out if i < size}


def batch_files(cases: Sequence[Case]) -> dict[str, str]:
    """Return the batch's file names, one per file name of its members: batch.cu for the main file."""
    return {name: "batch.cu" if i == 0 else f"batch-{name}" for i, name in enumerate(cases[0].files)}


def sources(cases: Sequence[Case]) -> dict[str, str]:
    """Return the batch's sources: the shared includes, each member in its own namespace (its macros
    undefined after it), and for programs a ``main`` that runs the member its argument names."""
    program = cases[0].variant.mode is not Mode.COMPILE
    out = {}
    for i, (name, target) in enumerate(batch_files(cases).items()):
        dispatch = program and i == 0
        # Every member's includes, in first-seen order: standard headers declare what their own names
        # say, so a member's single compile and its batch see the same declarations of what it uses.
        lines = list(dict.fromkeys(line for case in cases for line in includes(case.files[name]) or ()))
        lines += ["#include <cstdio>", "#include <cstdlib>"] if dispatch else []
        for index, case in enumerate(cases):
            text = case.files[name]
            body = ["" if INCLUDE.match(line) else line for line in text.splitlines()]
            lines += [f"namespace {member_namespace(index)} {{", f'#line 1 "{member_file(index, name)}"', *body,
                      f"}}  // {member_namespace(index)}", *(f"#undef {macro}" for macro in DEFINE.findall(text))]
        if dispatch:
            lines += [f'#line 1 "{DISPATCH}"', "static int sg_member(int i) {", "  switch (i) {",
                      *(f"    case {i}: return {member_namespace(i)}::main();" for i in range(len(cases))),
                      "  }", "  return 3;", "}",
                      "int main(int argc, char **argv) {",
                      "  if (argc <= 2) return sg_member(argc > 1 ? std::atoi(argv[1]) : -1);",
                      f"  // several members, one after another: {MEMBER_BEGIN} i, its output, {MEMBER_END} i status",
                      "  for (int a = 1; a < argc; ++a) {",
                      f'    std::printf("{MEMBER_BEGIN} %d\\n", std::atoi(argv[a]));',
                      "    std::fflush(stdout);",
                      "    int status = sg_member(std::atoi(argv[a]));",
                      "    cudaDeviceSynchronize();",
                      "    std::fflush(stdout);",
                      f'    std::printf("{MEMBER_END} %d %d\\n", std::atoi(argv[a]), status);',
                      "    std::fflush(stdout);", "  }", "  return 0;", "}"]
        out[target] = "\n".join(lines) + "\n"
    return out


def translation_unit(cases: Sequence[Case]) -> str:
    """Return the batch's main translation unit (all of it, for single-file members)."""
    return sources(cases)["batch.cu"]


def command(cases: Sequence[Case], config: Config) -> list[str]:
    """Return the command line of a batch (the same as a single case's, on the batch's files)."""
    case = cases[0]
    out = "batch.o" if case.variant.mode is Mode.COMPILE else "batch.out"
    return backends.of(config.toolchain.kind).build_command(config, case.variant.mode,
                                                            (*case.variant.flags, *case.mode_flags),
                                                            list(batch_files(cases).values()), out)


def compile_batch(cases: Sequence[Case], config: Config, folder: Path, timeout: float,
                  cached: bool = False, image: bool = False) -> CompileResult:
    """Write the batch into ``folder`` (a private scratch folder), compile it and classify the outcome
    (``image``: and leave its device module there, see ``compile.cached_build``)."""
    return cached_build(config, command(cases, config), sources(cases), folder, timeout, cached, image)


def split(result: CompileResult, size: int) -> list[CompileResult | None]:
    """Return each member's result as a single compile would give it, or None where that is not certain.

    Certain: every phase ran (the batch was accepted) and each member's diagnostics are the ones in its
    own region or naming only its symbols; or the batch was rejected and the member has an error of its
    own (its single compile stops there too). Uncertain: a crash, timeout or refused command line; an
    error or warning that belongs to no member or to several, or sits in one member's region but names
    another's symbols; the front end's error limit; a member
    without an error in a rejected batch (the phases after the failing one never saw it).
    """
    if result.outcome.infrastructure:
        return [None] * size
    own: list[list] = [[] for _ in range(size)]
    closing = []
    for d in result.diagnostics:
        index = member_of(d.file)
        named = mentioned(d.message)
        if index is not None and named and named != {index}:
            # the file names one member and the message another's symbols: nvcc places some diagnostics of
            # a compiler-derived member (a ``[subobject]`` constructor) in another member's file
            return [None] * size
        if index is None and d.file is None:
            index = named_member(d.message)
        if index is None and d.file is None and CLOSING.match(d.message):
            closing.append(d)
            continue
        if index is None or index >= size:
            if d.severity in ("error", "fatal", "warning"):
                return [None] * size
            continue  # a note or remark nvcc prints once per translation unit
        if ERROR_LIMIT.search(d.message):
            return [None] * size
        single = PurePath(d.file).name if d.file else None
        own[index].append(replace(d, file=single, message=QUALIFIER.sub("", d.message)))
    for line in closing:
        errors = [diags for diags in own if any(d.phase is line.phase and d.severity == "error" for d in diags)]
        if not errors:
            return [None] * size
        for diags in errors:
            diags.append(line)
    return [_member(result, tuple(diags), size) for diags in own]


def _member(result: CompileResult, diags: tuple, size: int) -> CompileResult | None:
    share = result.duration / size
    if result.outcome.accepted:
        warned = any(d.severity == "warning" for d in diags)
        return replace(result, outcome=Outcome.ACCEPTED_WITH_WARNINGS if warned else Outcome.ACCEPTED,
                       phase=None, diagnostics=diags, output="", duration=share)
    errors = [d for d in diags if d.severity in ("error", "fatal")]
    if not errors:
        return None
    phase = result.phase if any(d.phase is result.phase for d in errors) else errors[-1].phase
    return replace(result, outcome=Outcome.REJECTED, phase=phase, diagnostics=diags, output="", duration=share)
