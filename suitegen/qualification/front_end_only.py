"""The build of an item only up to its device front end (``compile.front_end_build``), tried first for an item
expected to be rejected there: it decides only with a verdict in ``SHORT_VERDICTS``; with any other the item is
built whole, so every FAIL's evidence and reproducer is the full command."""
from __future__ import annotations

from pathlib import Path

from suitegen.compilers.compile import FRONT_END, front_end_build
from suitegen.judge.behaviour import AfterBuild
from suitegen.judge.expectations import Preparation
from suitegen.model import Case, CompileResult, Config, Expect, PHASE_GROUPS, Verdict
from suitegen.qualification.builds import ItemBuild

# The verdicts a build only up to the device front end may give, alone or batched; any other is the whole build's.
SHORT_VERDICTS = (Verdict.PASS, Verdict.XFAIL)


def tried(prep: Preparation) -> bool:
    """Whether an item is built first only up to its device front end: only its build is judged, and it is
    expected to be rejected there: by the guide, unless a recorded deviation says otherwise, or by a recorded
    deviation that saw the toolchain reject it there (``Preparation.seen``)."""
    exp, seen = prep.expectation, prep.seen
    if prep.final is not None or prep.after is not AfterBuild.NOTHING or exp is None:
        return False
    if seen:
        return not seen[0].observed.accepted and seen[0].phase in PHASE_GROUPS["front-end"]
    return exp.expect is Expect.REJECT and FRONT_END in PHASE_GROUPS.get(exp.phase or "", ())


def build(options, case: Case, config: Config, prep: Preparation, folder: Path) -> CompileResult | None:
    """The build up to the device front end; None where it got past it (or has no short command)."""
    return front_end_build(case, config, folder, timeout=options.timeout, cached=not options.no_cache)


WAY = ItemBuild(tried=tried, build=build, decides=SHORT_VERDICTS)
