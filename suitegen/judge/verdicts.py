"""A pure function from expectation, outcome and config to a verdict."""
from __future__ import annotations

import fnmatch
import re
from pathlib import PurePath
from typing import Iterable

from suitegen.oracle.conditions import Env, flag_features
from suitegen.oracle.definitions import PREDICATES, SELECTORS
from suitegen.model import (Case, CompileResult, ExecResult, ExecStatus, Config, Deviation, Diagnostic, Expect, Expectation,
                    Judgement, Mode, Outcome, PHASE_GROUPS, Verdict)


def make_env(config: Config, case: Case, features: Iterable[str]) -> Env:
    """Return the condition environment for one case under one config on this machine."""
    rdc = ("-rdc=true",) if case.variant.mode is Mode.RDC_LINK else ()
    feats = set(features) | flag_features((*config.flags, *case.variant.flags, *rdc))
    return Env(std=config.std, arch=config.arch, nvcc=config.toolchain.version, features=frozenset(feats))


def unsupported_reason(case: Case, env: Env) -> str | None:
    """Return why the config does not meet the rule's conditions, or None if it does."""
    for cond in (case.rule.requires, case.variant.requires):
        if cond is not None and not cond(env):
            return f"requires {cond.text}"
    return None


def expectation_for(case: Case, env: Env) -> Expectation:
    """Return the expectation for a case under an env, asking the predicate if the variant has one."""
    variant = case.variant
    if variant.predicate is None:
        return variant.expectation
    expect = PREDICATES[variant.predicate](variant.params, env)
    if expect is Expect.REJECT:
        return variant.expectation
    return Expectation(expect=expect)


def matches(diag: Diagnostic, exp: Expectation, case: Case, severities: tuple[str, ...]) -> bool:
    """Return whether a diagnostic is the one the expectation asks for."""
    if diag.severity not in severities or not re.search(exp.diagnostic or "", diag.message, re.I):
        return False
    if exp.phase is not None and diag.phase not in PHASE_GROUPS[exp.phase]:
        return False
    if exp.check_line and case.violation_line is not None and diag.line is not None:
        return PurePath(diag.file or "").name == case.main_file and diag.line == case.violation_line
    return True


def _first(diags, severities=("error", "fatal")) -> str:
    for d in diags:
        if d.severity in severities:
            where = f"{d.file}({d.line}): " if d.file else ""
            return f"[{d.phase.value}] {where}{d.message}"
    return "no diagnostic"


def compare(exp: Expectation, case: Case, result: CompileResult) -> tuple[Verdict, str]:
    """Return (PASS or FAIL or UNRESOLVED, reason) for a compile result against an expectation."""
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
        if any(matches(d, exp, case, ("error", "fatal")) for d in result.diagnostics):
            return Verdict.PASS, "rejected as expected"
        return Verdict.FAIL, (f"rejected, but not for this rule (expected {exp.phase}: /{exp.diagnostic}/"
                              f"{where}): {_first(result.diagnostics)}")
    # WARN
    if not out.accepted:
        return Verdict.FAIL, f"expected a warning, rejected: {_first(result.diagnostics)}"
    if any(matches(d, exp, case, ("warning",)) for d in result.diagnostics):
        return Verdict.PASS, "warned as expected"
    return Verdict.FAIL, f"expected warning /{exp.diagnostic}/{where}, got: {_first(result.diagnostics, ('warning',))}"


def _subset(want, have) -> bool:
    if isinstance(want, dict):
        return isinstance(have, dict) and all(k in have and _subset(v, have[k]) for k, v in want.items())
    return want == have


def _disagrees(dev: Deviation, exp: Expectation) -> bool:
    """Whether the deviation's observed outcome contradicts this expectation (else it says nothing here)."""
    if dev.run:
        return exp.expect is Expect.RUNTIME
    if exp.expect in (Expect.ACCEPT, Expect.RUNTIME):
        return not dev.observed.accepted
    if exp.expect is Expect.WARN:
        return dev.observed is not Outcome.ACCEPTED_WITH_WARNINGS
    return True  # a rejection expected: accepting it, or rejecting it for another reason, both disagree


DERIVED = re.compile(r"\.(gen|composed)-[0-9a-f]+$")


def _names(case: Case) -> tuple[str, ...]:
    """The variant's name, and for a drawn or composed variant also the name of the variant it came from."""
    base = DERIVED.sub("", case.variant.name)
    return (case.variant.name, base) if base != case.variant.name else (case.variant.name,)


def find_deviations(case: Case, env: Env, deviations: Iterable[Deviation], exp: Expectation) -> list[Deviation]:
    """Return the recorded deviations that cover this case under this env and contradict its expectation."""
    names = _names(case)
    return [dev for dev in deviations
            if dev.rule == case.rule.id and any(fnmatch.fnmatchcase(n, g) for n in names for g in dev.variants)
            and _subset(dev.params, case.variant.params) and dev.when(env) and _disagrees(dev, exp)
            and (not dev.select or SELECTORS[dev.select](case.variant.params))]


def _deviation_shows(dev: Deviation, result: CompileResult) -> bool:
    if dev.observed is Outcome.ACCEPTED:
        # "nvcc accepts it": warnings about something else (another fragment, say) do not change that.
        return result.outcome.accepted
    if result.outcome is not dev.observed:
        return False
    if not dev.match:
        return True
    return any(re.search(dev.match, d.message) for d in result.diagnostics)


def judge_execution(execution: ExecResult | None, skipped: str | None) -> tuple[Verdict, str]:
    """Return the verdict of a runtime case that compiled, from its run (or why it did not run)."""
    if execution is None:
        return Verdict.UNSUPPORTED, f"compiled; not run: {skipped or 'execution disabled'}"
    where = f" on {execution.gpu}" if execution.gpu else ""
    if execution.status is ExecStatus.PASSED:
        return Verdict.PASS, f"ran{where} and its checks passed"
    if execution.status is ExecStatus.TIMED_OUT:
        return Verdict.UNRESOLVED, f"timed out{where}: {execution.detail}"
    return Verdict.FAIL, f"{execution.status.value}{where}: {execution.detail}"


def judge(case: Case, config: Config, env: Env, result: CompileResult | None,
          deviations: Iterable[Deviation] = (), execution_skipped: str | None = None,
          execution: ExecResult | None = None) -> Judgement:
    """Return the verdict for one case under one config.

    ``result`` is None only when the case was not compiled because it is unsupported here.
    ``execution`` is the run of a runtime case; ``execution_skipped`` says why there was none.
    """
    reason = unsupported_reason(case, env)
    if reason is not None:
        return Judgement(verdict=Verdict.UNSUPPORTED, reason=reason)
    exp = expectation_for(case, env)
    if result is None:
        return Judgement(verdict=Verdict.UNRESOLVED, reason="not compiled", expected=exp)
    verdict, why = compare(exp, case, result)
    if verdict is Verdict.PASS and exp.expect is Expect.RUNTIME:
        verdict, why = judge_execution(execution, execution_skipped)
        runs = [d for d in find_deviations(case, env, deviations, exp) if d.run] if execution else []
        if verdict is Verdict.FAIL:
            shown = [d for d in runs if d.run == execution.status.value
                     and (not d.match or re.search(d.match, execution.detail + execution.output))]
            if shown:
                return Judgement(verdict=Verdict.XFAIL, reason=f"known deviation: {why}", expected=exp,
                                 deviation=shown[0])
        elif verdict is Verdict.PASS and runs:
            return Judgement(verdict=Verdict.XPASS, reason=f"known deviation no longer shows ({runs[0].seen}): "
                             f"{why}", expected=exp, deviation=runs[0])
        return Judgement(verdict=verdict, reason=why, expected=exp)
    devs = find_deviations(case, env, deviations, exp) if verdict in (Verdict.PASS, Verdict.FAIL) else []
    if devs:
        dev = devs[0]
        if verdict is Verdict.PASS:
            return Judgement(verdict=Verdict.XPASS, reason=f"known deviation no longer shows ({dev.seen}): "
                             f"{why}", expected=exp, deviation=dev)
        showing = [d for d in devs if _deviation_shows(d, result)]
        if showing:
            return Judgement(verdict=Verdict.XFAIL, reason=f"known deviation: {why}", expected=exp,
                             deviation=showing[0])
        why += f" (differs from the recorded deviation: {dev.observed.value}: {dev.diagnostic})"
    return Judgement(verdict=verdict, reason=why, expected=exp)
