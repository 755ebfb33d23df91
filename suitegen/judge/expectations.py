"""The judge's first step, before the build: ``prepare`` says whether an item is judged at all (UNSUPPORTED: the
config does not meet the rule's conditions; UNRESOLVED: the config was not honoured), what the guide expects of it,
what runs after an accepted build, and which recorded deviations cover it. ``judge.verdicts`` takes the preparation,
with what the build and the run did, to the verdict.

Pure like the verdict: what it needs from the compilers and this machine (``Given``) is gathered by
``qualification.facts``. A negative item's valid twin is planned here too (``dialect_twin``, ``program_twin``).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable

from suitegen.judge.behaviour import AfterBuild, after_build
from suitegen.judge import deviations as devs
from suitegen.model import (FROZEN, Case, Config, Deviation, Expect, Expectation, Judgement, ObservedConfig, Std,
                            Variant, Verdict)
from suitegen.oracle.conditions import Env, unmet
from suitegen.oracle.loader import VALID_EXPECTS, twin_of


@dataclass(**FROZEN)
class Given:
    """What the judge is told before the build, beyond the rule and its condition environment: what the compiler
    and this machine say of the item (gathered by ``qualification.facts``)."""

    out_of_scope: str | None = None  # why this compiler cannot judge the item (NVRTC and a host build), or None
    unhonoured: str | None = None  # what the toolchain did instead of the config asked for, or None
    observed: ObservedConfig | None = None  # what a build under the config did (probed where the item is judged)
    by_message: bool = True  # its diagnostics are worded as the oracle's (``matches``)
    # (words, reason): a diagnostic holding the words says the compiler cannot build the item's code at all (NVRTC
    # and host code), which makes the item UNSUPPORTED for the reason
    refusal: tuple[str, str] | None = None
    gpu: bool = False  # a GPU check can run here
    host_code: bool = True  # the compiler builds host code (NVRTC does not)


@dataclass(**FROZEN)
class Preparation:
    """What the judge decided before the build: a final judgement, or the expectation to build for."""

    env: Env
    expectation: Expectation | None = None
    final: Judgement | None = None  # UNSUPPORTED or UNRESOLVED: nothing is built
    after: AfterBuild = AfterBuild.NOTHING  # what runs after an accepted build
    by_message: bool = True  # see ``Given``
    refusal: tuple[str, str] | None = None
    observed: ObservedConfig | None = None  # see ``Given``: what its record says the build config did
    # the recorded deviations that cover the item and contradict its expectation (``deviations.covering``): what the
    # toolchain was seen to do, which its route reads (which build it tries first, a module check's params)
    seen: tuple[Deviation, ...] = ()
    # a negative item's valid twin, as (program, config): planned where the item was prepared (``facts.twin_plan``)
    twin: tuple[Case, Config] | None = None


NEGATIVE = (Expect.REJECT, Expect.DIAGNOSE)  # what a valid twin's build tells from what a program gets anyway


def dialect_twin(case: Case):
    """Return the condition where a negative case's own program is valid (its twin's: ``loader.twin_of``), or None."""
    variant = case.variant
    if variant.valid_in is not None or variant.predicate is not None or variant.expectation.expect is not Expect.REJECT:
        return variant.valid_in
    twin = twin_of(variant, case.rule.variants)
    return twin.requires if twin is not None else None


def program_twin(case: Case, env: Env) -> Variant | None:
    """Return the valid variant of a negative case's rule that applies under ``env`` and builds its program but for
    one param (the same mode, flags and other params), first in the rule's order; None if it has none, or if its
    own program has a valid dialect (``dialect_twin``: that twin tells more)."""
    mine = case.variant
    if dialect_twin(case) is not None:
        return None
    for other in case.rule.variants:
        if (other.predicate is None and other.expectation.expect in VALID_EXPECTS and other.mode is mine.mode
                and other.flags == mine.flags and other.params.keys() == mine.params.keys()
                and sum(other.params[k] != mine.params[k] for k in mine.params) == 1
                and (other.requires is None or other.requires(env))):
            return other
    return None


def valid_dialects(case: Case, env: Env) -> tuple[Std, ...]:
    """Return the dialects where a negative case's program is valid (its twin's condition and the rule's hold),
    nearest to the env's first; () if it has no such twin (``dialect_twin``)."""
    valid_in = dialect_twin(case)
    if valid_in is None:
        return ()
    near = sorted((s for s in Std if s is not env.std), key=lambda s: (abs(s.rank - env.std.rank), s.rank))
    return tuple(s for s in near if valid_in(replace(env, std=s))
                 and (case.rule.requires is None or case.rule.requires(replace(env, std=s))))


def expectation_for(case: Case, env: Env) -> Expectation:
    """Return the expectation for a case under an env, asking the predicate if the variant has one."""
    variant = case.variant
    if variant.predicate is None:
        return variant.expectation
    expect = variant.predicate(variant.params, env)
    if expect is Expect.REJECT:
        return variant.expectation
    return Expectation(expect=expect)


def prepare(case: Case, config: Config, env: Env, given: Given = Given(),
            deviations: Iterable[Deviation] = ()) -> Preparation:
    """Return the judge's decision before the build: whether the item is judged (its rule's conditions under
    ``env``, then ``given``), what the guide expects, what runs after an accepted build, and which of the recorded
    ``deviations`` cover it."""
    reason = unmet(case, env) or given.out_of_scope
    if reason is not None:
        return Preparation(env=env, final=Judgement(verdict=Verdict.UNSUPPORTED, reason=reason))
    exp = expectation_for(case, env)
    if given.unhonoured is not None:
        return Preparation(env=env, observed=given.observed, final=Judgement(
            verdict=Verdict.UNRESOLVED, expected=exp, reason=f"config not honoured: {given.unhonoured}"))
    after = after_build(case, exp, config.flags, given.gpu, host_code=given.host_code)
    return Preparation(env=env, expectation=exp, after=after, by_message=given.by_message, refusal=given.refusal,
                       observed=given.observed, seen=tuple(devs.covering(case, env, deviations, exp)))
