"""Batched builds: many cases of one config in one translation unit, each diagnostic attributed to its case.

A case may join a batch only if it is self-contained: one file, its ``#include`` lines first, and
nothing that reaches outside a namespace or changes the rest of the translation unit (pragmas, macros
other than the self-check's, ``extern "C"``, global-scope qualifiers, ``__CUDA_ARCH__`` tests). Each
member sits in its own namespace after ``#line 1 "sg_bN/main.cu"``, so nvcc reports its diagnostics under
its own file name and line, as a single compile would.

Compile-only cases (``-c``) batch as they are. Programs (``mode = "link"``) batch too: each member's
``int main()`` becomes ``sg_bN::main``, and the batch's own ``main`` runs member N when given N, so every
member still runs in its own process.

The batch's result is split per member only where the split is certain (``split``); for the others the
caller builds them again (a smaller batch, or alone).
"""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path, PurePath
from typing import Sequence

from suitegen.build.compile import cached_build, nvcc_argv
from suitegen.model import Case, CompileResult, Config, Mode, Outcome

MEMBER = re.compile(r"^sg_b(\d+)$")
SCOPE = re.compile(r"namespace\s+std\b|^\s*::|(?<![\w:])::\s*\w|extern\s+\"C|#\s*(pragma|undef)|__CUDA_ARCH__|"
                   r"inline\s+namespace", re.M)
DEFINE = re.compile(r"#\s*define\s+(\w+)")
SELFCHECK_MACROS = frozenset({"SG_CHECK", "SG_CUDA"})  # templates/common/selfcheck.cuh: the same text in every case
MAIN = re.compile(r"\bmain\s*\(")
PLAIN_MAIN = re.compile(r"^int\s+main\s*\(\s*(void)?\s*\)", re.M)
DISPATCH = "sg_batch_main.cu"
INCLUDE = re.compile(r"^\s*#\s*include\b")
PLAIN = re.compile(r"^\s*(//.*)?$")  # a blank or comment-only line
ERROR_LIMIT = re.compile(r"error limit", re.I)


def preamble(case: Case) -> tuple[str, ...] | None:
    """Return a case's leading #include lines, or None when an #include comes after other code."""
    includes: list[str] = []
    seen_code = False
    for line in case.files[case.main_file].splitlines():
        if INCLUDE.match(line):
            if seen_code:
                return None
            includes.append(line.strip())
        elif not PLAIN.match(line):
            seen_code = True
    return tuple(includes)


def batchable(case: Case) -> bool:
    """Whether a case can share a translation unit with others (see the module's docstring)."""
    text = case.files[case.main_file]
    if case.variant.mode not in (Mode.COMPILE, Mode.LINK) or len(case.files) != 1 or preamble(case) is None:
        return False
    if SCOPE.search(text) or any(name not in SELFCHECK_MACROS for name in DEFINE.findall(text)):
        return False
    if case.variant.mode is Mode.COMPILE:
        return not MAIN.search(text)
    return len(MAIN.findall(text)) == 1 and PLAIN_MAIN.search(text) is not None


def group_key(case: Case, config: Config) -> tuple:
    """Return what members of one batch share: the config, the build mode, the case's flags and its includes."""
    return config.key, case.variant.mode, case.variant.flags, preamble(case)


def member_file(index: int) -> str:
    return f"sg_b{index}/main.cu"


def member_of(file: str | None) -> int | None:
    """Return the member index a diagnostic's file names, or None outside every member."""
    if not file:
        return None
    parts = PurePath(file).parts
    if len(parts) < 2 or parts[-1] != "main.cu":
        return None
    m = MEMBER.match(parts[-2])
    return int(m.group(1)) if m else None


def translation_unit(cases: Sequence[Case]) -> str:
    """Return the batch's source: the shared includes, each member in its own namespace, and for programs
    a ``main`` that runs the member its argument names."""
    program = cases[0].variant.mode is Mode.LINK
    lines = list(preamble(cases[0]) or ()) + (["#include <cstdlib>"] if program else [])
    for i, case in enumerate(cases):
        body = ["" if INCLUDE.match(line) else line for line in case.files[case.main_file].splitlines()]
        lines += [f"namespace sg_b{i} {{", f'#line 1 "{member_file(i)}"', *body, f"}}  // sg_b{i}"]
    if program:
        lines += [f'#line 1 "{DISPATCH}"', "int main(int argc, char **argv) {",
                  "  switch (argc > 1 ? std::atoi(argv[1]) : -1) {",
                  *(f"    case {i}: return sg_b{i}::main();" for i in range(len(cases))), "  }", "  return 3;", "}"]
    return "\n".join(lines) + "\n"


def command(cases: Sequence[Case], config: Config) -> list[str]:
    """Return the nvcc command line of a batch (the same as a single case's, on batch.cu)."""
    if cases[0].variant.mode is Mode.LINK:
        return [*nvcc_argv(config, cases[0].variant.flags), "batch.cu", "-o", "batch.out"]
    return [*nvcc_argv(config, cases[0].variant.flags), "-c", "batch.cu", "-o", "batch.o"]


def compile_batch(cases: Sequence[Case], config: Config, folder: Path, timeout: float,
                  cached: bool = False) -> CompileResult:
    """Write the batch into ``folder`` (a private scratch folder), compile it and classify the outcome."""
    return cached_build(config, command(cases, config), {"batch.cu": translation_unit(cases)}, folder, timeout,
                        cached)


def split(result: CompileResult, size: int) -> list[CompileResult | None]:
    """Return each member's result as a single compile would give it, or None where that is not certain.

    Certain: every phase ran (the batch was accepted) and each member's diagnostics are the ones in its
    own region; or the batch was rejected and the member has an error of its own (its single compile
    stops there too). Uncertain: a crash, timeout or refused command line; an error or warning outside
    every member; the front end's error limit; a member without an error in a rejected batch (the
    phases after the failing one never saw it).
    """
    if result.outcome.infrastructure:
        return [None] * size
    own: list[list] = [[] for _ in range(size)]
    for d in result.diagnostics:
        index = member_of(d.file)
        if index is None or index >= size:
            if d.severity in ("error", "fatal", "warning"):
                return [None] * size
            continue  # a note or remark nvcc prints once per translation unit
        if ERROR_LIMIT.search(d.message):
            return [None] * size
        own[index].append(replace(d, file="main.cu"))
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
