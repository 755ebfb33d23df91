"""Batched builds: many cases of one config in one build, each diagnostic attributed to its case.

A case may join a batch only if each of its files is a fragment that fits a namespace (see
``cases.fragment``: includes first, nothing that reaches outside a namespace or changes the rest of the
translation unit). Each member sits in its own namespace after ``#line 1 "sg_bN/<file>"`` (see
``members``), so nvcc reports its diagnostics under its own file name and line, as a single compile
would; the macros a member defines are undefined after it.

Compile-only cases (``-c``, one file) batch as they are; one that defines ``int main()`` has it as
``sg_bN::main``, a function nobody calls. Programs (``link``, and ``rdc-link`` with several files) batch
too: a batch has one translation unit per file name of its members; each member's ``int main()`` becomes
``sg_bN::main``, and the batch's own ``main`` (the driver ``templates/drivers/batch.cu.j2``) runs member N
when given N, so every member still runs in its own process.

The batch's result is split per member only where the split is certain (``split``); for the others the
caller builds them again (a smaller batch, or alone).
"""
from __future__ import annotations

import re
from dataclasses import replace
from itertools import takewhile
from pathlib import Path, PurePath
from typing import Sequence

from suitegen.cases.fragment import fragments
from suitegen.cases.render import driver
from suitegen.compilers import backends
from suitegen.compilers.compile import cached_build
from suitegen.compilers.members import member_file, member_name, member_of, mentioned, named_member, unqualified
from suitegen.model import Case, CompileResult, Config, Diagnostic, Mode, Outcome

DISPATCH = "sg_batch_main.cu"
# a batched program given several members runs them in turn and brackets each one's output
MEMBER_BEGIN, MEMBER_END = "SUITEGEN-MEMBER-BEGIN", "SUITEGEN-MEMBER-END"
ERROR_LIMIT = re.compile(r"error limit", re.I)
# A linker's closing line, printed once after its errors: it goes to every member with an error there.
CLOSING = re.compile(r"^(merge_elf failed|ld returned \d+ exit status)$")


def batchable(case: Case) -> bool:
    """Whether a case can share a build with others (see the module's docstring)."""
    mode = case.variant.mode
    frags = list(fragments(case).values())
    if mode is Mode.FATBIN or not all(f.fits_namespace for f in frags):
        return False
    if mode is Mode.COMPILE and len(frags) != 1:
        return False
    if mode is Mode.COMPILE and not frags[0].mains:
        return True
    return frags[0].mains == 1 and sum(f.mains for f in frags) == 1 and frags[0].plain_main


def group_key(case: Case, config: Config) -> tuple:
    """Return what members of one batch share: the config, the build mode, the case's flags, its files'
    names and their quoted includes. System headers (``<...>``) need not match: a batch includes every
    member's (see ``sources``)."""
    local = tuple((name, tuple(i for i in f.includes if '"' in i)) for name, f in fragments(case).items())
    return config.key, case.variant.mode, case.variant.flags, local


def headers(case: Case) -> tuple[str, ...]:
    """Return the system headers a case includes (``<...>``), sorted: every member's join its batch's build, so
    ``item.units`` puts members that include the same ones side by side before cutting a group into batches."""
    return tuple(sorted({line for f in fragments(case).values() for line in f.includes if "<" in line}))


def suspects(result: CompileResult, size: int) -> set[int]:
    """Return the members to build alone where a batch attributes nobody: those with an error of their own (in
    their region, or placed in another's and naming them: ``_placed_elsewhere``), those that an error or warning
    outside every region names by symbol, and those a diagnostic crossing between members leaves uncertain
    (``crossed``)."""
    out: set[int] = set()
    for d in result.diagnostics:
        index = _placed_elsewhere(d)
        index = member_of(d.file) if index is None else index
        named = mentioned(d.message) or set()
        if index is not None and d.severity in ("error", "fatal"):
            out.add(index)
        elif index is None and d.severity in ("error", "fatal", "warning"):
            out |= named
    return {i for i in out | crossed(result) if i < size}


def batch_files(cases: Sequence[Case]) -> dict[str, str]:
    """Return the batch's file names, one per file name of its members: batch.cu for the main file."""
    return {name: "batch.cu" if i == 0 else f"batch-{name}" for i, name in enumerate(cases[0].files)}


def sources(cases: Sequence[Case]) -> dict[str, str]:
    """Return the batch's sources: the shared includes, each member in its own namespace (its macros
    undefined after it), and for programs a ``main`` that runs the member its argument names."""
    program = cases[0].variant.mode is not Mode.COMPILE
    frags = [fragments(case) for case in cases]
    out = {}
    for i, (name, target) in enumerate(batch_files(cases).items()):
        # Every member's includes, in first-seen order: standard headers declare what their own names
        # say, so a member's single compile and its batch see the same declarations of what it uses.
        includes = list(dict.fromkeys(line for f in frags for line in f[name].includes))
        members = ["\n".join(f[name].enclose(member_name(index), member_file(index, name)))
                   for index, f in enumerate(frags)]
        out[target] = driver("batch.cu.j2", includes=includes, members=members, dispatch=program and i == 0,
                             namespaces=[member_name(index) for index in range(len(cases))], file=DISPATCH,
                             begin=MEMBER_BEGIN, end=MEMBER_END)
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


def front_end_command(cases: Sequence[Case], config: Config) -> list[str] | None:
    """Return the command that builds a batch only up to its device front end, or None where its compiler has
    none (``backends.Backend.front_end_command``)."""
    case = cases[0]
    return backends.of(config.toolchain.kind).front_end_command(config, case.variant.mode,
                                                                (*case.variant.flags, *case.mode_flags),
                                                                list(batch_files(cases).values()))


def compile_batch(cases: Sequence[Case], config: Config, folder: Path, timeout: float,
                  cached: bool = False, image: bool = False, argv: list[str] | None = None,
                  wider: Config | None = None) -> CompileResult:
    """Write the batch into ``folder`` (a private scratch folder), compile it and classify the outcome
    (``image``: and leave its device module there, see ``compile.cached_build``; ``argv``: the command, its
    ``command`` unless given, or its ``front_end_command``; ``wider``: a config for more targets whose build of
    the batch may stand for this one, see ``sources.wider``)."""
    return cached_build(config, argv or command(cases, config), sources(cases), folder, timeout, cached, image,
                        wider=command(cases, wider) if wider is not None else None)


def split(result: CompileResult, size: int) -> list[CompileResult | None]:
    """Return each member's result as a single compile would give it, or None where that is not certain.

    Certain: every phase ran (the batch was accepted) and each member's diagnostics are the ones in its
    own region, naming only its symbols, or followed by notes only in its region (``_noted_member``), or placed
    in another's region but naming only its symbols (``_placed_elsewhere``); or the batch was rejected and the
    member has an error of its own (its single compile stops there too). Uncertain: a crash, timeout or refused
    command line; an error or warning that belongs to no member or to several; the front end's error limit; a
    member without an error in a rejected batch (the phases after the failing one never saw it); the members a
    diagnostic leaves uncertain where it sits in one member's region and names another's symbols (``crossed``).
    """
    if result.outcome.infrastructure:
        return [None] * size
    crossing = crossed(result)
    own: list[list] = [[] for _ in range(size)]
    closing = []
    moved = None  # the member the last diagnostic placed in another's region went to: its notes follow it
    for at, d in enumerate(result.diagnostics):
        if d.severity != "note":
            moved = None
        if _crosses(d):
            moved = _placed_elsewhere(d)
            moved = moved if moved is not None and moved < size else None
            if moved is not None:
                own[moved].append(replace(d, message=unqualified(d.message)))
            continue  # both sides are uncertain otherwise (``crossed``)
        if moved is not None:
            own[moved].append(replace(d, message=unqualified(d.message)))
            continue
        index = member_of(d.file)
        if index is None and d.file is None:
            index = named_member(d.message)
        if index is None and d.file is not None:
            index = _noted_member(result.diagnostics, at)
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
        own[index].append(replace(d, file=single, message=unqualified(d.message)))
    for line in closing:
        errors = [diags for diags in own if any(d.phase is line.phase and d.severity == "error" for d in diags)]
        if not errors:
            return [None] * size
        for diags in errors:
            diags.append(line)
    return [None if index in crossing else _member(result, tuple(diags), size) for index, diags in enumerate(own)]


def _noted_member(diags: Sequence[Diagnostic], at: int) -> int | None:
    """Return the member a diagnostic outside every member's region belongs to by its notes: the host compiler's
    error on cudafe++'s stub, followed by notes that all sit in one member's region (``candidates are: ...``) and
    naming no other member; else None."""
    notes = list(takewhile(lambda d: d.severity == "note", diags[at + 1:]))
    members = {member_of(d.file) for d in notes}
    if len(members) != 1 or None in members or (mentioned(diags[at].message) or set()) - members:
        return None
    return members.pop()


def _placed_elsewhere(d: Diagnostic) -> int | None:
    """Return the member a diagnostic in another member's region belongs to: the one member its message names.

    nvcc places the diagnostics of a compiler-derived function (a ``[subobject]`` constructor) at a position of its
    own choosing, often in a neighbour's region; the symbols the message names are the member's, which no other
    member can name. Such a diagnostic keeps the batch's file name (``sg_b2/main.cu``) and line: it is at no line of
    the member's own file (``verdicts.matches``). None where the message names several members, or also the one
    whose region holds it."""
    index, named = member_of(d.file), mentioned(d.message)
    return next(iter(named)) if index is not None and named and len(named) == 1 and index not in named else None


def crossed(result: CompileResult) -> set[int]:
    """Return the members a diagnostic that sits in one member's region but names another's symbols leaves
    uncertain: where it names one other member (``_placed_elsewhere``), the member whose region holds it, if that
    region holds any error or warning of its own (which may be one of the other's, placed there without naming
    it); where it names several, all of them and the holder."""
    out: set[int] = set()
    for d in result.diagnostics:
        crossing = _crosses(d)
        if crossing and _placed_elsewhere(d) is None:
            out |= crossing
        elif crossing:
            holder = member_of(d.file)
            if any(member_of(e.file) == holder and e.severity in ("error", "fatal", "warning") and not _crosses(e)
                   for e in result.diagnostics):
                out.add(holder)
    return out


def _crosses(d: Diagnostic) -> set[int]:
    """Return the members a diagnostic crosses between: the one whose region holds it and the others whose symbols
    it names (empty where it stays with one member)."""
    index, named = member_of(d.file), mentioned(d.message)
    return {index} | named if index is not None and named and named != {index} else set()


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
