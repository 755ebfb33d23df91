"""Items: prepare, build, run on the GPU, judge. One (case, config) alone, or many of one config batched."""
from __future__ import annotations

import tempfile
import traceback
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

from suitegen import hooks, procs
from suitegen.build import batch
from suitegen.build.compile import compile_case, program_path
from suitegen.engine.session import Session, now
from suitegen.execute.programs import run_program
from suitegen.judge.deviations import covering
from suitegen.judge.verdicts import Preparation, expectation_for, make_env, prepare, verdict
from suitegen.model import Case, Config, Deviation, Expect, Judgement, Mode, Outcome, Phase, Record, Verdict, digest

BATCH_SIZE = 96  # members of one build expected to be accepted: its cost is mostly nvcc's fixed part
REJECT_BATCH_SIZE = 32  # expected to be rejected: several errors each, under cudafe++'s limit of 100
# The verdicts a batch may give; any other is built again, alone ("compiled; not run" is UNSUPPORTED).
TRUSTED_FROM_BATCH = (Verdict.PASS, Verdict.XFAIL, Verdict.UNSUPPORTED)


@dataclass(frozen=True, kw_only=True, slots=True)
class Unit:
    """Work for one thread: one item, or the batchable items of one config that share a translation unit."""

    config: Config
    cases: tuple[Case, ...]


# Phases that print every member's errors, so a batch rejected there still attributes each; after them
# (the host compiler on cudafe++'s stub, the linkers) a batch would attribute one member at most.
BATCHED_REJECTIONS = ("front-end",)


def expected_side(case: Case, config: Config, deviations: Sequence[Deviation] = ()) -> tuple | None:
    """Return which way a build is expected to go: () accepted, (phase,) rejected there; None: build it alone.

    The guide's expectation, or where a recorded deviation covers the item, what the toolchain was seen
    to do. Batches are formed per side, so one member's rejection does not stop its neighbours' later
    phases. Only a hint: it ignores detected features, so every host forms the same batches.
    """
    env = make_env(config, case, ())
    exp = expectation_for(case, env)
    seen = [d.observed for d in covering(case, env, deviations, exp)]
    if seen:
        return () if seen[0].accepted else None
    if exp.expect is not Expect.REJECT:
        return ()
    return (exp.phase,) if exp.phase in BATCHED_REJECTIONS else None


def units(items: Sequence[tuple[Case, Config]], batching: bool = True, size: int = BATCH_SIZE,
          deviations: Sequence[Deviation] = ()) -> list[Unit]:
    """Return the items as units: batchable items grouped by config, flags, includes and expected side;
    the rest alone."""
    groups: dict[tuple, list[Case]] = {}
    configs: dict[tuple, Config] = {}
    out: list[Unit] = []
    for case, config in items:
        side = expected_side(case, config, deviations) if batching and batch.batchable(case) else None
        if side is not None:
            key = (*batch.group_key(case, config), side)
            groups.setdefault(key, []).append(case)
            configs[key] = config
        else:
            out.append(Unit(config=config, cases=(case,)))
    for key, cases in groups.items():
        limit = size if key[-1] == () else min(size, REJECT_BATCH_SIZE)
        for start in range(0, len(cases), limit):
            out.append(Unit(config=configs[key], cases=tuple(cases[start:start + limit])))
    return out


def run_unit(session: Session, unit: Unit) -> list[Record]:
    """Judge every item of a unit."""
    if len(unit.cases) == 1:
        return [run_one(session, unit.cases[0], unit.config)]
    return run_batch(session, unit.cases, unit.config)


def _prepare(session: Session, case: Case, config: Config) -> Preparation:
    features = session.features.get(config.toolchain.fingerprint, frozenset())
    return prepare(case, config, features, unhonoured=lambda: session.unhonoured(config, case))


def _observed(session: Session, prep: Preparation, case: Case, config: Config):
    judged = prep.final is None or prep.final.verdict is Verdict.UNRESOLVED  # conditions met: config probed
    return session.observed(config, case) if judged else None


def run_one(session: Session, case: Case, config: Config) -> Record:
    """Judge one item alone: nothing is built for an UNSUPPORTED or unhonoured config."""
    started = now()
    prep = _prepare(session, case, config)
    result = execution = None
    if prep.final is None:
        with tempfile.TemporaryDirectory(prefix="suitegen-") as tmp:
            folder = Path(tmp)
            runtime = prep.expectation.expect is Expect.RUNTIME
            runs = runtime and case.variant.mode is not Mode.COMPILE and session.gpus is not None
            result = compile_case(case, config, folder, timeout=session.options.timeout,
                                  cached=not runs and not session.options.no_cache)
            program = program_path(case, folder)
            if runtime and result.outcome.accepted and program and session.gpus is not None:
                if case.variant.mode is Mode.FATBIN:
                    check = hooks.get("check", case.variant.check)(case.variant.params)
                    execution = session.fatbin.run(program, check)
                else:
                    execution = run_program(program, folder, session.options.exec_timeout, session.gpus.take())
    judgement = verdict(prep, case, result, session.oracle.deviations, execution=execution,
                        execution_skipped=session.execution_skipped)
    return Record(case=case, config=config, judgement=judgement, result=result, started=started,
                  execution=execution, observed=_observed(session, prep, case, config))


def run_batch(session: Session, cases: Sequence[Case], config: Config) -> list[Record]:
    """Judge items of one config from as few builds as attribution allows (programs still run one each).

    A verdict a batch could have caused is never taken from it: anything but PASS, XFAIL or "compiled;
    not run" (and for a program that ran, anything but PASS) is built again alone, so every FAIL's
    evidence and reproducer is its single-case command.
    """
    started = now()
    preps = {c.key: _prepare(session, c, config) for c in cases}
    records = [Record(case=c, config=config, judgement=preps[c.key].final, result=None, started=started,
                      observed=_observed(session, preps[c.key], c, config))
               for c in cases if preps[c.key].final is not None]
    todo = [c for c in cases if preps[c.key].final is None]
    with tempfile.TemporaryDirectory(prefix="suitegen-batch-") as tmp:
        tried: dict[str, list[str]] = {}
        built = _build(session, todo, config, Path(tmp), tried) if len(todo) > 1 else {}
        left = "the only item of its batch to build" if len(todo) == 1 else "no batch build attributed it"
        for case in todo:
            if case.key not in built:
                records.append(_alone(session, case, config, left, tried.get(case.key, [])))
                continue
            result, how, program = built[case.key]
            prep = preps[case.key]
            execution = None
            if prep.expectation.expect is Expect.RUNTIME and result.outcome.accepted and program and session.gpus:
                execution = run_program(program[0], program[0].parent, session.options.exec_timeout,
                                        session.gpus.take(), args=(str(program[1]),))
            judgement = verdict(prep, case, result, session.oracle.deviations, execution=execution,
                                execution_skipped=session.execution_skipped)
            trusted = (Verdict.PASS,) if execution else TRUSTED_FROM_BATCH
            if judgement.verdict not in trusted:
                records.append(_alone(session, case, config, f"the batch said {judgement.verdict.value}",
                                      [how["id"]]))
                continue
            records.append(Record(case=case, config=config, judgement=judgement, result=result, started=started,
                                  execution=execution, observed=_observed(session, prep, case, config), batch=how))
    return records


def _alone(session: Session, case: Case, config: Config, why: str, tried: Sequence[str]) -> Record:
    return replace(run_one(session, case, config), batch={"how": "alone", "why": why, "tried": list(tried)})


def _build(session: Session, cases: Sequence[Case], config: Config, root: Path,
           tried: dict[str, list[str]], peeling: bool = False) -> dict[str, tuple]:
    """Return case key -> (its result, how it was obtained, (program, member) or None) for the members a
    batch attributes with certainty; ``tried`` collects, per member left over, the batches it was in.

    Members left unattributed are built again together while that makes progress, in halves after a
    build that attributed nobody; while a phase peels them one per build, and after a batch that
    crashes or times out, they are left to be built alone.
    """
    how = {"how": "batch", "id": digest([c.key for c in cases], config.key, length=12), "size": len(cases)}
    folder = root / how["id"]
    folder.mkdir()
    program = cases[0].variant.mode is not Mode.COMPILE
    runs = program and session.gpus is not None  # the program must exist: a cached result has none
    result = batch.compile_batch(cases, config, folder, timeout=session.options.timeout,
                                 cached=not runs and not session.options.no_cache)
    out, rest = {}, []
    for index, (case, part) in enumerate(zip(cases, batch.split(result, len(cases)))):
        if part is None:
            rest.append(case)
            tried.setdefault(case.key, []).append(how["id"])
        else:
            out[case.key] = (part, how, (folder / "batch.out", index) if runs else None)
    if result.outcome.infrastructure or len(rest) < 2:
        return out
    # The front end (cudafe++, and cicc's) reports every member's errors, so the rest are built again
    # together; a phase that stops at its first error peels one member per build, so after two such
    # builds the rest are built alone; a build that attributed nobody (an error outside every member)
    # is halved.
    peeled = len(cases) - len(rest)
    one = peeled == 1 and result.outcome is Outcome.REJECTED and result.phase is not Phase.CUDAFE
    if one and peeling:
        return out
    if peeled:
        out.update(_build(session, rest, config, root, tried, peeling=one))
    elif len(rest) >= 4:
        middle = len(rest) // 2
        out.update(_build(session, rest[:middle], config, root, tried))
        out.update(_build(session, rest[middle:], config, root, tried))
    return out


def safe_run_unit(session: Session, unit: Unit) -> list[Record] | None:
    """Run one unit; a harness exception makes its items UNRESOLVED with the traceback, never FAIL.

    Returns None when the run is stopping: items cut short say nothing and are not recorded.
    """
    try:
        return run_unit(session, unit)
    except procs.Stopped:
        return None
    except Exception:
        if procs.stopping():
            return None
        tb = traceback.format_exc(limit=5)
        return [Record(case=c, config=unit.config, result=None, started=now(),
                       judgement=Judgement(verdict=Verdict.UNRESOLVED, reason=f"harness error: {tb}"))
                for c in unit.cases]
