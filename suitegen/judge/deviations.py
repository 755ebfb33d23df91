"""Which recorded deviations cover a case, and whether one shows in what the toolchain did."""
from __future__ import annotations

import fnmatch
import re
from typing import Iterable

from suitegen.model import Case, CompileResult, Deviation, ExecResult, Expect, Expectation, Outcome, Phase
from suitegen.oracle import fields

DERIVED = re.compile(r"\.(gen|composed)-[0-9a-f]+$")
# Stages a rejection seen at one may have come from: a build only up to the device front end (``nvcc -ptx``) skips
# cudafe++, and its cicc reports the errors cudafe++ would stop the item's own command at.
SEEN_AS = {Phase.CICC: (Phase.CUDAFE,)}


def _names(case: Case) -> tuple[str, ...]:
    """The variant's name, and for a drawn or composed variant also the name of the variant it came from."""
    base = DERIVED.sub("", case.variant.name)
    return (case.variant.name, base) if base != case.variant.name else (case.variant.name,)


def _subset(want, have) -> bool:
    if isinstance(want, dict):
        return isinstance(have, dict) and all(k in have and _subset(v, have[k]) for k, v in want.items())
    return want == have


def _disagrees(dev: Deviation, exp: Expectation, value: bool) -> bool:
    """Whether the deviation's observed outcome contradicts this expectation (else it says nothing here);
    ``value``: the case has a value check (a run deviation can say what its run did)."""
    if dev.run:
        return exp.expect is Expect.RUNTIME or (value and exp.expect in (Expect.ACCEPT, Expect.WARN))
    if exp.expect in (Expect.ACCEPT, Expect.RUNTIME):
        return not dev.observed.accepted
    if exp.expect is Expect.WARN:
        return dev.observed is not Outcome.ACCEPTED_WITH_WARNINGS
    return True  # a rejection expected: accepting it, or rejecting it for another reason, both disagree


_by_rule: dict[int, tuple[tuple, dict[str, list[Deviation]]]] = {}  # id of an oracle's deviations -> them by rule


def _of_rule(deviations: Iterable[Deviation], rule: str) -> Iterable[Deviation]:
    """Return the deviations recorded for one rule (an oracle's tuple of them is indexed once)."""
    if not isinstance(deviations, tuple):
        return [d for d in deviations if d.rule == rule]
    held = _by_rule.get(id(deviations))
    if held is None or held[0] is not deviations:
        index: dict[str, list[Deviation]] = {}
        for dev in deviations:
            index.setdefault(dev.rule, []).append(dev)
        if len(_by_rule) >= 16:  # a process that loads many oracles (the tests) keeps only the latest
            _by_rule.clear()
        held = _by_rule[id(deviations)] = (deviations, index)
    return held[1].get(rule, ())


def covering(case: Case, env, deviations: Iterable[Deviation], exp: Expectation) -> list[Deviation]:
    """Return the recorded deviations that cover this case under this env and contradict its expectation."""
    names = _names(case)
    return [dev for dev in _of_rule(deviations, case.rule.judged_as or case.rule.id)
            if dev.compiler is env.compiler and any(fnmatch.fnmatchcase(n, g) for n in names for g in dev.variants)
            and _subset(dev.params, case.variant.params) and dev.when(env) and _disagrees(dev, exp, case.variant.value is not None)
            and (dev.select is None or dev.select(case.variant.params))]


def shows_in_build(dev: Deviation, result: CompileResult) -> bool:
    """Return whether a compile-side deviation is what the build did: its outcome (a rejection by the stage it
    names, if it names one), with a diagnostic its ``match`` finds."""
    if dev.observed is Outcome.ACCEPTED:
        # "nvcc accepts it": warnings about something else (another fragment, say) do not change that.
        return result.outcome.accepted
    if result.outcome is not dev.observed:
        return False
    if dev.observed is Outcome.REJECTED and dev.phase not in (None, result.phase, *SEEN_AS.get(result.phase, ())):
        return False  # rejected by another stage than the one recorded
    return not dev.match or any(fields.search(dev.match, d.message) for d in result.diagnostics)


def shows_in_run(dev: Deviation, execution: ExecResult) -> bool:
    """Return whether a runtime deviation is what the program's run did."""
    return dev.run == execution.status.value and (
        not dev.match or fields.search(dev.match, execution.detail + execution.output))
