"""Units of module-check items: several rules' device modules built as one, each rule's check on its own kernel.

A fatbin variant whose check hook launches one kernel (``check.kernel``: the math rules' ``sg_math``) and whose one
file is device code without preprocessor lines can share a module. Up to ``SIZE`` such items of one config and
flags are built as one: each member in a namespace of its own after ``#line 1 "sg_bN/main.cu"``, its kernel's
name defined to ``NAME_N`` around it (an ``extern "C"`` kernel keeps its name in a namespace). Each member's check
then launches its own kernel in the GPU workers (``checks.Renamed``), one after another. A member is judged from the
unit only where the verdict is one a batch may give (PASS where it ran; else ``batch_units.TRUSTED_FROM_BATCH``); the
others, and every member where the shared module did not build, are built alone, so every FAIL's evidence and
reproducer is the case's own command. A run that records or replays a build store builds each alone.
"""
from __future__ import annotations

import re
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from suitegen import procs
from suitegen.compilers import backends, batch, cache
from suitegen.compilers.compile import compile_case
from suitegen.qualification.facts import behaviour
from suitegen.qualification.batch_units import TRUSTED_FROM_BATCH, batch_id
from suitegen.qualification.item import ALONE, Done, Unit, settled, unit_kind
from suitegen.qualification.session import Session, now
from suitegen.execute.checks import Renamed
from suitegen.judge.behaviour import AfterBuild
from suitegen.judge.verdicts import verdict
from suitegen.model import Batched, Case, Mode, Record, Verdict, member_file, member_name

# Members of one module: its build's fixed cost shared, and units enough that a run's threads share the checks (16
# left the math rules alone on an H200 at 18 units for 16 threads, their last two checked one after another).
SIZE = 4
PREPROCESSOR = re.compile(r"^\s*#", re.M)


def shares(case: Case) -> bool:
    """Whether a case's module can be built with others': a fatbin whose check launches one ``extern "C"`` kernel,
    from one file of device code without preprocessor lines (``item.units`` takes only those expected to build)."""
    variant = case.variant
    text = case.files[case.main_file] if len(case.files) == 1 else ""
    return (variant.mode is Mode.FATBIN and variant.check is not None and 'extern "C"' in text
            and not PREPROCESSOR.search(text))


def shared_source(cases: Sequence[Case], kernels: Sequence[str]) -> str:
    """Return the one translation unit of the members: each in its namespace, its kernel renamed ``NAME_N``."""
    lines = []
    for index, (case, kernel) in enumerate(zip(cases, kernels)):
        lines += [f"#define {kernel} {kernel}_{index}", f"namespace {member_name(index)} {{",
                  f'#line 1 "{member_file(index, case.main_file)}"', case.files[case.main_file], "}",
                  f"#undef {kernel}"]
    return "\n".join(lines) + "\n"


def _alone_units(cases: Sequence[Case], unit: Unit, why: str, tried: str = "") -> tuple[Unit, ...]:
    """Units that build each case alone, saying why (and the shared build they were tried in)."""
    return tuple(replace(unit, kind=ALONE, cases=(c,), why=why, tried=(*unit.tried, *filter(None, (tried,))))
                 for c in cases)


@unit_kind("module-check", takes=shares, size=SIZE)
def run_check_unit(session: Session, unit: Unit) -> Done:
    """Judge a unit of module-check items from one shared build, each check run on its own kernel."""
    config, started = unit.config, now()
    if cache.store() is not None:
        return Done(records=[], leftovers=_alone_units(unit.cases, unit, "a build store records and replays "
                                                                         "each module check's own build"))
    preps, records, todo = settled(session, unit.cases, config, started)
    if not todo:
        return Done(records=records)
    checks = [session.check(c, preps[c.key]) for c in todo]
    kernels = [check.kernel for check in checks]
    first = todo[0]
    shared = replace(first, files={first.main_file: shared_source(todo, kernels)}, violation_line=None)
    source_id = Batched(id="checks-" + batch_id(todo, config), size=len(todo))
    left = []
    with tempfile.TemporaryDirectory(prefix="suitegen-checks-") as tmp:
        folder = Path(tmp)
        result = compile_case(shared, config, folder, timeout=session.options.timeout)
        if not result.outcome.accepted:
            return Done(records=records, leftovers=_alone_units(
                todo, unit, f"the module it shared with {len(todo) - 1} others did not build", source_id.id))
        product = backends.output_path(shared, config, folder)
        parts = batch.split(result, len(todo))  # each member's own diagnostics, from its #line region
        for index, (case, check) in enumerate(zip(todo, checks)):
            prep, own = preps[case.key], parts[index]
            if own is None:  # a diagnostic its region does not settle: its own build says
                left.append(case)
                continue
            try:
                execution = (session.fatbin.run(product, Renamed(check, f"{kernels[index]}_{index}"))
                             if prep.after is AfterBuild.MODULE_CHECK else None)
            except procs.Stopped:
                raise
            except Exception:  # a harness error of this member's check: its own unit says so, for it alone
                left.append(case)
                continue
            judgement = verdict(prep, case, own, session.oracle.deviations, execution=execution,
                                execution_skipped=session.execution_skipped)
            if judgement.verdict not in ((Verdict.PASS,) if execution else TRUSTED_FROM_BATCH):
                left.append(case)
                continue
            records.append(behaviour(Record.of(case=case, config=config, judgement=judgement, result=own,
                                               started=started, execution=execution, batch=source_id,
                                               observed_config=prep.observed), case))
    return Done(records=records, leftovers=_alone_units(
        left, unit, "its check in the module it shared gave a verdict a shared build does not give", source_id.id))
