"""The judge's last step, after the build and the run: ``verdict`` compares what the toolchain (and the GPU) did
with what the item's preparation (``judge.expectations.prepare``, before the build) expects, and with the recorded
deviations.

The judge calls nothing in the compilers, execute or the engine: what it needs from them (the condition
environment, what the compiler and this machine say of an item: ``expectations.Given``) is gathered by
``qualification.facts``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import PurePath
from typing import Iterable

from suitegen.judge import deviations as devs
from suitegen.judge.expectations import Preparation
from suitegen.model import (FROZEN, PHASE_GROUPS, Case, CompileResult, Deviation, Diagnostic, ExecResult, ExecStatus,
                            Expect, Expectation, Judgement, Outcome, Std, Verdict, fixed_words, member_of)
from suitegen.oracle import fields


@dataclass(**FROZEN)
class Twin:
    """A valid program built for a negative item's diagnostic to differ from: the same program in a dialect where
    it is valid (``std``), or its rule's valid variant that builds it but for one param (``variant``), in the
    item's own config (``program_twin``)."""

    std: Std
    result: CompileResult
    variant: str = ""  # the valid variant's name, where the twin is another program of the rule

    @property
    def where(self) -> str:
        """Return where the twin was built, as a reason says it."""
        if self.variant:
            return f"for {self.variant}, its valid twin (the same program but for one param)"
        return f"under {self.std.value}, where the program is valid"


def matches(diag: Diagnostic, exp: Expectation, case: Case, severities: tuple[str, ...], by_message: bool = True) -> bool:
    """Return whether a diagnostic is the one the expectation asks for (``by_message``: its message matches the
    expectation's; else, for a compiler worded otherwise than nvcc, by severity, phase and line alone)."""
    if diag.severity not in severities or (by_message and not fields.search(exp.diagnostic or "", diag.message, re.I)):
        return False
    if exp.phase is not None and diag.phase not in PHASE_GROUPS[exp.phase]:
        return False
    if exp.check_line and case.violation_line is not None and diag.line is not None:
        # a batch member's diagnostic that nvcc placed in another member's region (``batch.split``) is at no line of
        # the case's own file
        return (member_of(diag.file) is None and PurePath(diag.file or "").name == case.main_file
                and diag.line == case.violation_line)
    return True


def _first(diags, severities=("error", "fatal")) -> str:
    for d in diags:
        if d.severity in severities:
            where = f"{d.file}({d.line}): " if d.file else ""
            return f"[{d.phase.value}] {where}{d.message}"
    return "no diagnostic"


def _said(diag: Diagnostic) -> tuple:
    return diag.severity, diag.number, fixed_words(diag.message)


def _given_anyway(wanted: str, matched: list[Diagnostic], twin: Twin | None,
                  severities: tuple[str, ...]) -> tuple[Verdict, str] | None:
    """Return the verdict where a negative item's matching diagnostics tell nothing: its valid twin's build ended in
    no verdict (UNRESOLVED), or got each of them too, names aside (FAIL); None where they tell the item from its
    twin, or it has none."""
    if twin is None:
        return None
    if twin.result.outcome.infrastructure:
        return Verdict.UNRESOLVED, wanted + f"but its build {twin.where}, {twin.result.outcome.value}"
    also = {_said(d) for d in twin.result.diagnostics}
    if all(_said(d) in also for d in matched):
        return Verdict.FAIL, wanted + f"but {_first(matched, severities)} is also given {twin.where}"
    return None


def _diagnosed(exp: Expectation, case: Case, result: CompileResult, twin: Twin | None,
               by_message: bool) -> tuple[Verdict, str]:
    """Return the verdict on a diagnose expectation: a matching diagnostic (an error where the build was rejected,
    else a warning) that the same program does not also get in a dialect where it is valid."""
    out = result.outcome
    severities = ("error", "fatal") if not out.accepted else ("warning",)
    where = f" at {case.main_file}:{case.violation_line}" if exp.check_line and case.violation_line else ""
    wanted = f"expected a diagnostic ({exp.phase}: /{exp.diagnostic}/{where}), "
    matched = [d for d in result.diagnostics if matches(d, exp, case, severities, by_message)]
    if not matched:
        got = _first(result.diagnostics, severities)
        return Verdict.FAIL, wanted + (f"rejected for another reason: {got}" if not out.accepted
                                       else f"accepted with {got}")
    if case.variant.valid_in is not None and twin is None:
        return Verdict.UNRESOLVED, wanted + "but no build in a dialect where the program is valid to tell it from"
    told = _given_anyway(wanted, matched, twin, severities)
    if told is not None:
        return told
    kind = "rejected" if not out.accepted else "with a warning"
    return Verdict.PASS, f"diagnosed as expected ({kind}" + (f"; not given {twin.where})" if twin is not None else ")")


def compare(exp: Expectation, case: Case, result: CompileResult, twin: Twin | None = None,
            by_message: bool = True) -> tuple[Verdict, str]:
    """Return (PASS or FAIL or UNRESOLVED, reason) for a compile result against an expectation (``twin``: for a
    negative expectation, a valid program its diagnostic must not also get; ``by_message``: see ``matches``)."""
    out = result.outcome
    if out.infrastructure:
        phase = result.phase.value if result.phase else "nvcc"
        return Verdict.UNRESOLVED, f"{out.value} in {phase}: {_first(result.diagnostics)}"
    where = f" at {case.main_file}:{case.violation_line}" if exp.check_line and case.violation_line else ""
    if exp.expect in (Expect.ACCEPT, Expect.RUNTIME):
        if out.accepted:
            return Verdict.PASS, "accepted as expected"
        return Verdict.FAIL, f"expected acceptance, rejected in {result.phase.value}: {_first(result.diagnostics)}"
    if exp.expect is Expect.REJECT:
        if out.accepted:
            warn = _first(result.diagnostics, ("warning",))
            return Verdict.FAIL, f"expected rejection ({exp.phase}: /{exp.diagnostic}/{where}), accepted" + (
                f" with warning {warn}" if out is Outcome.ACCEPTED_WITH_WARNINGS else "")
        matched = [d for d in result.diagnostics if matches(d, exp, case, ("error", "fatal"), by_message)]
        if not matched:
            return Verdict.FAIL, (f"rejected, but not for this rule (expected {exp.phase}: /{exp.diagnostic}/"
                                  f"{where}): {_first(result.diagnostics)}")
        told = _given_anyway(f"rejected ({exp.phase}: /{exp.diagnostic}/{where}), ", matched, twin, ("error", "fatal"))
        return told or (Verdict.PASS, "rejected as expected" + (f" (not given {twin.where})" if twin else ""))
    if exp.expect is Expect.DIAGNOSE:
        return _diagnosed(exp, case, result, twin, by_message)
    if not out.accepted:  # WARN
        return Verdict.FAIL, f"expected a warning, rejected: {_first(result.diagnostics)}"
    if any(matches(d, exp, case, ("warning",), by_message) for d in result.diagnostics):
        return Verdict.PASS, "warned as expected"
    return Verdict.FAIL, f"expected warning /{exp.diagnostic}/{where}, got: {_first(result.diagnostics, ('warning',))}"


def judge_execution(execution: ExecResult | None, skipped: str | None) -> tuple[Verdict, str]:
    """Return the verdict of a runtime case that compiled, from its run (or why it did not run)."""
    if execution is None:
        return Verdict.UNSUPPORTED, f"compiled; not run: {skipped or 'execution disabled'}"
    where = f" on {execution.gpu}" if execution.gpu else ""
    if execution.status is ExecStatus.PASSED:
        return Verdict.PASS, f"ran{where} and its checks passed" + (f": {execution.detail}" if execution.detail else "")
    if execution.status is ExecStatus.TIMED_OUT:
        return Verdict.UNRESOLVED, f"timed out{where}: {execution.detail}"
    return Verdict.FAIL, f"{execution.status.value}{where}: {execution.detail}"


def execution_verdict(exp: Expectation, case: Case, execution: ExecResult | None,
                      skipped: str | None) -> tuple[Verdict, str] | None:
    """The second step, after a compile verdict of PASS: the run judged on its own (a runtime case's program, a
    value check, a module's load), before any deviation; None where nothing was to run."""
    if exp.expect is Expect.RUNTIME or (execution is not None and case.variant.value is not None):
        return judge_execution(execution, skipped)
    if execution is None:
        return None
    where = execution.gpu or "the GPU"
    if execution.status is ExecStatus.PASSED:
        return Verdict.PASS, f"its module loaded on {where}"
    loaded = Verdict.UNRESOLVED if execution.status is ExecStatus.TIMED_OUT else Verdict.FAIL
    return loaded, f"its module did not load on {where}: {execution.status.value}: {execution.detail}"


def _stale(dev: Deviation, exp: Expectation, why: str) -> Judgement:
    return Judgement(verdict=Verdict.XPASS, reason=f"known deviation no longer shows ({dev.seen}): {why}",
                     expected=exp, deviation=dev)


def _runtime_verdict(prep: Preparation, case: Case, deviations, execution, ran: tuple[Verdict, str]) -> Judgement:
    """The run's verdict with the run deviations laid over it (a recorded wrong result is XFAIL; one that no
    longer shows is XPASS)."""
    exp = prep.expectation
    verdict, why = ran
    runs = [d for d in devs.covering(case, prep.env, deviations, exp) if d.run] if execution else []
    if verdict is Verdict.FAIL:
        shown = [d for d in runs if devs.shows_in_run(d, execution)]
        if shown:
            return Judgement(verdict=Verdict.XFAIL, reason=f"known deviation: {why}", expected=exp,
                             deviation=shown[0], execution=verdict)
    elif verdict is Verdict.PASS and runs:
        return replace(_stale(runs[0], exp, why), execution=verdict)
    return Judgement(verdict=verdict, reason=why, expected=exp, execution=verdict if execution else None)


def verdict(prep: Preparation, case: Case, result: CompileResult | None, deviations: Iterable[Deviation] = (),
            execution: ExecResult | None = None, execution_skipped: str | None = None,
            twin: Twin | None = None) -> Judgement:
    """Return the verdict for one prepared item from its build (and, for a runtime case, its run).

    ``execution_skipped`` says why a runtime case that compiled did not run; ``twin``: for a negative case, a valid
    program its diagnostic must not also get (``Twin``).
    """
    if prep.final is not None:
        return prep.final
    if execution is not None and execution.status is ExecStatus.NOT_RUN:
        # nothing this GPU can run: judged on the build alone, and the reason says so
        judged = verdict(prep, case, result, deviations, None, execution_skipped, twin)
        return replace(judged, reason=f"{judged.reason}; its GPU check {execution.detail} ({execution.gpu})")
    exp = prep.expectation
    if result is None:
        return Judgement(verdict=Verdict.UNRESOLVED, reason="not compiled", expected=exp)
    if prep.refusal is not None and any(prep.refusal[0] in d.message for d in result.diagnostics):
        return Judgement(verdict=Verdict.UNSUPPORTED, reason=prep.refusal[1])
    # 1. the compile verdict; 2. (where it passed) the run's own verdict; 3. the deviations laid over them
    verdict_, why = compare(exp, case, result, twin, prep.by_message)
    ran = execution_verdict(exp, case, execution, execution_skipped) if verdict_ is Verdict.PASS else None
    if verdict_ is Verdict.PASS and exp.expect is Expect.RUNTIME:
        return _runtime_verdict(prep, case, deviations, execution, ran)
    # a crash is UNRESOLVED unless a deviation records it (a known internal error): then XFAIL
    known = verdict_ in (Verdict.PASS, Verdict.FAIL) or result.outcome is Outcome.CRASHED
    covering = [d for d in devs.covering(case, prep.env, deviations, exp) if not d.run] if known else []
    if verdict_ is Verdict.PASS and covering:
        return _stale(covering[0], exp, why)
    valued = execution is not None and case.variant.value is not None
    if verdict_ is Verdict.PASS and valued:
        run = _runtime_verdict(prep, case, deviations, execution, ran)
        return replace(run, reason=f"{why}; value check: {run.reason}")
    if ran is not None and ran[0] is not Verdict.PASS:  # a load-only run: a module that compiled must load
        return Judgement(verdict=ran[0], expected=exp, reason=f"{why}, but {ran[1]}", execution=ran[0])
    loaded = ran[0] if ran is not None else None
    if not covering:
        return Judgement(verdict=verdict_, reason=why, expected=exp, execution=loaded)
    showing = [d for d in covering if devs.shows_in_build(d, result)]
    if showing and valued and execution.status is not ExecStatus.PASSED:
        # a known compile deviation (a warning not given, say) does not excuse a wrong value
        return Judgement(verdict=Verdict.FAIL, expected=exp, reason=f"known deviation: {why}; but its value "
                         f"check: {execution.status.value}: {execution.detail}")
    if showing:
        return Judgement(verdict=Verdict.XFAIL, reason=f"known deviation: {why}", expected=exp, deviation=showing[0],
                         execution=loaded)
    dev = covering[0]
    return Judgement(verdict=verdict_, expected=exp, execution=loaded,
                     reason=why + f" (differs from the recorded deviation: {dev.observed.value}: {dev.diagnostic})")
