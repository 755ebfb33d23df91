"""Batches of the cases' own way: many items of one config in one build (``run_batch``), and the batches of the valid
twins that negative items need (``run_twins``). A verdict a batch could have caused is never taken from it: what a
batch cannot judge with certainty is left to be built alone (``item.run_alone``), so every FAIL's evidence and
reproducer is its single-case command."""
from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

from suitegen.compilers import batch
from suitegen.compilers.compile import FRONT_END, MODULE, stopped_at_front_end
from suitegen.execute.deferred import Deferred
from suitegen.execute.programs import run_members
from suitegen.judge.behaviour import AfterBuild
from suitegen.judge.expectations import Preparation
from suitegen.judge.verdicts import verdict
from suitegen.model import (Batched, Case, CompileResult, Config, ExecResult, ExecStatus, Expect, Outcome, Phase, Record,
                            Verdict, digest)
from suitegen.oracle import fields
from suitegen.qualification import front_end_only
from suitegen.qualification.builds import NEEDS_MODULE, NEEDS_PRODUCT
from suitegen.qualification.facts import behaviour
from suitegen.qualification.item import (ALONE, BATCH, TWINS, Built, Done, Unit, host_value_checks, run_after, settled,
                                         unit_kind, valid_twin)
from suitegen.qualification.session import Session, now

# The verdicts a batch may give; any other is built again, alone ("compiled; not run" is UNSUPPORTED).
TRUSTED_FROM_BATCH = (Verdict.PASS, Verdict.XFAIL, Verdict.UNSUPPORTED)


@unit_kind(TWINS)
def run_twins(session: Session, unit: Unit) -> Done:
    """Build a batch of twins (``twin_units``) and keep, in the session, each one the batch attributes with
    certainty (``batch.split``: as its single build would give it); it judges nothing. A twin left out is
    built alone by the item that needs it."""
    built: dict[str, Member] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="suitegen-twins-") as tmp:
            built = _build(session, unit.cases, unit.config, Path(tmp), {}, {c.key: None for c in unit.cases},
                           {c.key: AfterBuild.NOTHING for c in unit.cases})
    finally:  # a stop or a harness error too: the items waiting build their twins alone
        session.twins.put([(c.key, unit.config.key) for c in unit.cases],
                          {(key, unit.config.key): member.result for key, member in built.items()})
    return Done(records=[])


@unit_kind(BATCH)
def run_batch(session: Session, unit: Unit) -> Done:
    """Judge a batch's items, of one config, from as few builds as attribution allows (``Unit.wider``: see ``Unit``).

    A verdict a batch could have caused is never taken from it: anything but PASS, XFAIL or "compiled;
    not run" (and for a program that ran, anything but PASS) is built again alone, so every FAIL's
    evidence and reproducer is its single-case command; those single builds are the leftovers returned.
    """
    cases, config, wider, started = unit.cases, unit.config, unit.wider, now()
    preps, records, todo = settled(session, cases, config, started)
    stopping = {c.key for c in todo if _stops_the_build(session, config=config, prep=preps[c.key])}
    leftovers = [Unit(config=config, cases=(c,), why=STOPS, kind=ALONE) for c in todo if c.key in stopping]
    todo = [c for c in todo if c.key not in stopping]
    with tempfile.TemporaryDirectory(prefix="suitegen-batch-") as tmp:
        tried: dict[str, list[str]] = {}
        hints = {c.key: preps[c.key].expectation.diagnostic for c in todo}
        afters = {c.key: preps[c.key].after for c in todo}
        stopped: set[str] = set()  # members whose expected error stopped a build of the batch (``_again``)
        built = _front_end_first_batch(session, todo, config, Path(tmp), tried, hints, afters, stopped, preps)
        whole = [c for c in todo if c.key not in built and c.key not in stopped]
        built.update(_build(session, whole, config, Path(tmp), tried, hints, afters, stopped, wider=wider)
                     if len(whole) > 1 else {})
        session.stoppers.update((config.toolchain.fingerprint, preps[k].expectation.diagnostic) for k in stopped
                                if preps[k].expectation.expect is Expect.REJECT)
        loaded: dict[Path, ExecResult] = {}  # one load per batch module, shared by its load-only members
        hosted = _batchhost_value_checks(session, todo, built, afters, config)
        valued = _batch_device_values(session, todo, built, afters)
        grouped = _batch_programs(session, todo, built, afters)
        left = "the only item of its batch to build" if len(todo) == 1 else "no batch build attributed it"
        for case in todo:
            if case.key not in built:
                leftovers.append(Unit(config=config, cases=(case,), why=left, tried=tuple(tried.get(case.key, [])),
                                      kind=ALONE))
                continue
            member = built[case.key]
            prep, after = preps[case.key], afters[case.key]
            execution = None
            if member.result.outcome.accepted:
                if after is AfterBuild.LOAD:
                    if member.built.module not in loaded:
                        loaded[member.built.module] = run_after(session, case, config, prep, member.built)
                    execution = loaded[member.built.module]
                else:
                    execution = (hosted.get(case.key) or valued.get(case.key) or grouped.get(case.key)
                                 or run_after(session, case, config, prep, member.built))
            judgement = verdict(prep, case, member.result, session.oracle.deviations, execution=execution,
                                execution_skipped=session.execution_skipped, twin=valid_twin(session, case, config, prep))
            trusted = (Verdict.PASS,) if execution else TRUSTED_FROM_BATCH
            if judgement.verdict not in trusted:
                said = " ".join(judgement.reason.split())[:300]  # so a record says what the batch saw
                leftovers.append(Unit(config=config, cases=(case,), tried=(member.source.id,), kind=ALONE,
                                      why=f"the batch said {judgement.verdict.value}: {said}"))
                continue
            records.append(behaviour(Record.of(case=case, config=config, judgement=judgement, result=member.result,
                                               started=started, execution=execution,
                                               observed_config=prep.observed, batch=member.source), case))
    return Done(records=records, leftovers=tuple(leftovers))


STOPS = "a batch of the run showed that its expected error stops the build at the first such error"


def _front_end_first_batch(session: Session, cases: Sequence[Case], config: Config, root: Path,
                           tried: dict[str, list[str]], hints: dict[str, str | None], afters: dict[str, AfterBuild],
                           stopped: set[str], preps: dict[str, Preparation]) -> dict[str, "Member"]:
    """Where every member of a batch is built first only up to its device front end (``front_end_only.tried``), build
    the batch so (``batch.front_end_command``: it skips the host side's preprocessor and cudafe++, and cicc
    reports the errors cudafe++ would stop at beside its own): return the members it judged PASS or XFAIL, as
    ``run_one``'s short build does for one item. The others are built whole."""
    if len(cases) < 2 or not all(front_end_only.tried(preps[c.key]) for c in cases):
        return {}
    if batch.front_end_command(cases, config) is None:
        return {}
    built = _build(session, cases, config, root, tried, hints, afters, stopped, short=True)
    by_key = {c.key: c for c in cases}
    return {key: member for key, member in built.items()
            if verdict(preps[key], by_key[key], member.result, session.oracle.deviations).verdict in front_end_only.SHORT_VERDICTS}


def _stops_the_build(session: Session, *, config: Config, prep: Preparation) -> bool:
    """Whether an item is expected to be rejected with an error the run has seen stop a build (not where a
    recorded deviation says the toolchain accepts it: ``Preparation.seen``)."""
    exp, seen = prep.expectation, prep.seen
    return (exp is not None and exp.expect is Expect.REJECT and exp.diagnostic is not None
            and (config.toolchain.fingerprint, exp.diagnostic) in session.stoppers
            and not (seen and seen[0].observed.accepted))


def _batch_programs(session: Session, cases: Sequence[Case], built: dict[str, "Member"],
                    afters: dict[str, AfterBuild]) -> dict[str, ExecResult]:
    """Run the runtime members of each batched program that built in as few processes as they allow (a
    process start and CUDA context each cost about 0.3 s); only their passes are kept.

    The members run one after another in one process. Where one does not pass (it failed, or its crash,
    hang or exit ended the process), it is left to run alone, and the members after it that did not pass
    (a fault of its may have spoilt the context, or ended the process before them) run together again in a
    fresh process: so one faulting member costs its neighbours one process, not one each. After two such
    processes in a row where no member passed (the program fails as a whole: its module does not load, say),
    the rest run alone at once, not one fewer per process."""
    groups: dict[Path, dict[int, str]] = {}
    for case in cases:
        member = built.get(case.key)
        if member is not None and afters[case.key] is AfterBuild.PROGRAM and member.result.outcome.accepted:
            groups.setdefault(member.built.product, {})[member.built.member] = case.key
    out: dict[str, ExecResult] = {}
    for path, members in groups.items():
        if len(members) < 2 or isinstance(session.fatbin, Deferred):  # deferred: each runs alone, elsewhere
            continue
        todo, barren = sorted(members), 0
        while len(todo) >= 2 and barren < 2:
            ran = run_members(path, todo, path.parent, session.options.exec_timeout, session.gpus.take())
            shared = f"ran in one process with the {len(todo) - 1} other runtime members of its batch program"
            passed = {i for i, r in ran.items() if r.status is ExecStatus.PASSED}
            out.update({members[i]: replace(ran[i], detail=shared) for i in passed})
            barren = 0 if passed else barren + 1
            first = next((k for k, i in enumerate(todo) if i not in passed), len(todo))
            todo = [i for i in todo[first + 1:] if i not in passed]
    return out


def _batch_device_values(session: Session, cases: Sequence[Case], built: dict[str, "Member"],
                         afters: dict[str, AfterBuild]) -> dict[str, ExecResult]:
    """Run the device value checks of a batch's attributed members: one worker request per batch module, which
    loads it once (``FatbinRunner.values``); each result is the one its own check gives."""
    by_module: dict[Path, list[Case]] = {}
    for case in cases:
        member = built.get(case.key)
        if member is not None and afters[case.key] is AfterBuild.DEVICE_VALUE and member.result.outcome.accepted:
            by_module.setdefault(member.built.module, []).append(case)
    out: dict[str, ExecResult] = {}
    for module, members in by_module.items():
        if len(members) < 2 or isinstance(session.fatbin, Deferred) or not module.exists():
            continue  # one member, a recording run, or no module: each as ``run_after`` does it
        ran = session.fatbin.values(module, [(built[c.key].built.member, c.variant.value) for c in members])
        out.update({c.key: r for c, r in zip(members, ran)})
    return out


def _batchhost_value_checks(session: Session, cases: Sequence[Case], built: dict[str, "Member"],
                       afters: dict[str, AfterBuild], config: Config) -> dict[str, ExecResult]:
    """Run the host value checks of a batch's members that were attributed: one driver per batch object."""
    by_object: dict[Path, dict[str, int]] = {}
    for case in cases:
        member = built.get(case.key)
        if member is not None and afters[case.key] is AfterBuild.HOST_VALUE and member.result.outcome.accepted:
            by_object.setdefault(member.built.product, {})[case.key] = member.built.member
    values = {c.key: c.variant.value for c in cases}
    out: dict[str, ExecResult] = {}
    for obj, members in by_object.items():
        out.update(host_value_checks(session, obj, config, cases[0].variant.flags, members, values))
    return out


def batch_id(cases: Sequence[Case], config: Config, short: bool = False) -> str:
    """Return a batch build's id: its members and config, and whether it runs only up to the device front end
    (run records, reproducers and xdist groups name it)."""
    return digest([c.key for c in cases], config.key, *(["front-end"] if short else []), length=12)


@dataclass(frozen=True, kw_only=True, slots=True)
class Member:
    """A batch member's result, as the batch attributed it: where it came from and what it built."""

    result: CompileResult
    source: Batched
    built: Built


def _build(session: Session, cases: Sequence[Case], config: Config, root: Path, tried: dict[str, list[str]],
           hints: dict[str, str | None], afters: dict[str, AfterBuild], stopped: set[str] | None = None,
           peeling: bool = False, short: bool = False, wider: Config | None = None) -> dict[str, Member]:
    """Return case key -> its ``Member`` for the members a batch attributes with certainty; ``tried`` collects,
    per member left over, the batches it was in.

    ``hints`` holds each member's expected diagnostic (a regex, or None); ``afters``, what runs after each
    member's build (the batch keeps its module, or builds past the cache for its object or program). Members
    left unattributed are built again together while that makes progress (see below); the ones still left,
    and all members of a batch that crashes or times out, are left to be built alone. ``short``: built only up
    to the device front end (``batch.front_end_command``), which attributes only its rejections there, and
    only where the build stopped at the first front end a whole build runs. ``wider``: see ``Unit``.
    """
    source = Batched(id=batch_id(cases, config, short), size=len(cases))
    folder = root / source.id
    folder.mkdir()
    wanted = {afters.get(c.key) for c in cases}
    command = batch.front_end_command(cases, config) if short else batch.command(cases, config)
    result = batch.compile_batch(cases, config, folder, timeout=session.options.timeout,
                                 cached=not wanted & set(NEEDS_PRODUCT) and not session.options.no_cache,
                                 image=bool(wanted & set(NEEDS_MODULE)), argv=command,
                                 wider=None if short else wider)
    product = folder / command[command.index("-o") + 1]
    parts = batch.split(result, len(cases))
    if short and not stopped_at_front_end(config, result):
        parts = [None] * len(cases)  # it got past the front end, or stopped elsewhere: built whole
    out, rest = {}, []
    for index, (case, part) in enumerate(zip(cases, parts)):
        if part is None:
            rest.append(case)
            tried.setdefault(case.key, []).append(source.id)
        else:
            out[case.key] = Member(result=part, source=source,
                                   built=Built(module=folder / MODULE, product=product, member=index))
    if result.outcome.infrastructure or len(rest) < 2 or short and not out:
        return out
    again = _again(result, cases, rest, out, hints, peeling, stopped)
    for part, peel in again:
        if len(part) >= 2:
            out.update(_build(session, part, config, root, tried, hints, afters, stopped, peeling=peel, short=short,
                              wider=wider))
    return out


# compilers whose rejections report every member's errors (the host compiler goes on past its errors)
EVERY_MEMBER = (Phase.CUDAFE, Phase.CLANG, Phase.HOST_COMPILER)


def _again(result, cases, rest, out, hints, peeling, stopped: set[str] | None = None) -> list[tuple[list[Case], bool]]:
    """Return which of a build's unattributed members to build again together (groups, each with its
    peeling flag); the others are built alone.

    - A compiler that reports every member's errors (cudafe++, cicc's deferred errors, clang's Sema, which
      reports a whole side: the host side's errors come in the next build; the host compiler): the rest are
      built again together.
    - A phase that stopped at one member's error (cicc stops at some errors, and the linkers and the
      host compiler may): members expected to give an error like it are left alone (added to ``stopped``:
      the run's later batches send members expected to give it alone at once, ``Session.stoppers``), the rest
      built again. Where cicc stopped, the rest are built again until a build attributes them or stops at
      the next such error (a build that cicc rejects costs little more than one member's build up to cicc);
      elsewhere, after two builds that peel one member without such a hint, the rest are left alone. That
      member's own expected error is not learned: members cicc reports together often share its pattern.
    - A build that attributed some: the rest are built again, but for the members a diagnostic crossed
      between (``batch.crossed``), which are left alone.
    - A build that attributed nobody (an error outside every member): the members its errors and
      warnings name are left alone and the rest built again; where they name nobody, it is halved.
    """
    peeled = len(cases) - len(rest)
    if peeled:  # the members a diagnostic crossed between would cross again: alone
        crossing = {cases[i].key for i in batch.crossed(result) if i < len(cases)}
        rest = [c for c in rest if c.key not in crossing]
    if peeled == 1 and result.outcome is Outcome.REJECTED and result.phase not in EVERY_MEMBER:
        (only,) = out.values()
        messages = [d.message for d in only.result.diagnostics if d.severity in ("error", "fatal")]
        alike = {c.key for c in rest if hints.get(c.key) and any(_matches(hints[c.key], m) for m in messages)}
        if alike:
            if stopped is not None:
                stopped |= alike
            return [([c for c in rest if c.key not in alike], False)]
        if result.phase is FRONT_END:
            return [(rest, False)]  # the next build stops at the next such error, or attributes the rest
        return [] if peeling else [(rest, True)]
    if peeled:
        return [(rest, False)]
    named = batch.suspects(result, len(cases))
    if named:
        return [([c for i, c in enumerate(cases) if i not in named], False)]
    if len(rest) >= 4:
        middle = len(rest) // 2
        return [(rest[:middle], False), (rest[middle:], False)]
    return []


def _matches(pattern: str, message: str) -> bool:
    try:
        return fields.search(pattern, message, re.I)
    except re.error:
        return False
