"""What the judge is given: an item's condition environment and what its compiler and this machine say of it.

The judge (``judge.verdicts``) is pure: it reads the rule, this module's ``Env`` and ``Given``, the build and the
run, and calls nothing in the compilers, execute or the engine. This module asks them: the config's flags and
targets, whether the GPU runs the config's SASS or JIT-compiles its PTX (``execute.images``), whether the
compiler can judge the item (``Backend.out_of_scope``), what a build under the config did and whether the toolchain
honoured the config (``Session.observed`` and ``Session.unhonoured``, asked only for an item whose conditions hold),
and, after a run, what the driver loaded. The preparation also holds the recorded deviations that cover the item, so
the route reads the observation and those deviations from it and does not ask for them again; and, for a negative
item, the valid twin its verdict compares with (``twin_plan``: which program, under which config, the toolchain
honouring that config), so the route builds it without probing again.
"""
from __future__ import annotations

import functools
from dataclasses import replace
from typing import Iterable

from suitegen.cases.render import Renderer
from suitegen.compilers import backends
from suitegen.execute.images import GPU_CC, compute_capability, loaded_code
from suitegen.judge.behaviour import with_behaviour
from suitegen.judge.expectations import NEGATIVE, Given, Preparation, dialect_twin, prepare, program_twin, valid_dialects
from suitegen.model import Case, Compiler, Config, ExecStatus, Record, Rule, Variant
from suitegen.oracle.conditions import Env, Features, flag_features, unmet


def make_env(config: Config, case: Case, features: Iterable[str]) -> Env:
    """Return the condition environment for one case under one config on this machine."""
    features = features if isinstance(features, Features) else Features(features)
    more = flag_features((*config.flags, *case.variant.flags, *case.mode_flags))
    if all(target.startswith("compute_") for target in config.arch.split("+")):
        more.add("ptx-only")
    if case.rule.judged_as:
        more.add("in-context")
    cc = next((tuple(int(x) for x in f.removeprefix(GPU_CC).split(".")) for f in features if f.startswith(GPU_CC)),
              None)  # the GPU's compute capability is known at once, never probed
    if cc is not None and not loaded_code(config.arch.split("+"), cc).startswith("SASS"):
        more.add("driver-jit")
    tc = config.toolchain
    clang = tc.kind is Compiler.CLANG
    return Env(std=config.std, arch=config.arch, nvcc=tc.cuda_version if clang else tc.version,
               features=features | more, compiler=tc.kind, clang=tc.version if clang else ())


def unsupported_here(case: Case, config: Config, env: Env) -> str | None:
    """Return why an item is not judged under a config: the rule's conditions, or the case is outside what
    the compiler can judge (NVRTC's device code only, say); None if it is judged."""
    return unmet(case, env) or backends.of(env.compiler).out_of_scope(case, config)


def given(session, case: Case, config: Config, env: Env) -> Given:
    """Return what the compiler and this machine say of an item (``Session.observed`` probes the config, so it
    is asked only where the item is judged at all)."""
    backend = backends.of(config.toolchain.kind)
    scope = backend.out_of_scope(case, config)
    judged = scope is None and unmet(case, env) is None
    observed = session.observed(config, case) if judged else None
    return Given(out_of_scope=scope, unhonoured=session.unhonoured(config, case, observed) if judged else None,
                 observed=observed,
                 by_message=backend.same_messages, refusal=backend.refusal, gpu=session.gpus is not None,
                 host_code=config.toolchain.kind is not Compiler.NVRTC)


def prepared(session, case: Case, config: Config) -> Preparation:
    """Return the judge's preparation of one item of a run (``expectations.prepare``), with what it is given and the
    recorded deviations that cover it (``Preparation.observed``, ``Preparation.seen``: the route reads them there)."""
    env = make_env(config, case, session.features.get(config.toolchain.fingerprint, frozenset()))
    prep = prepare(case, config, env, given(session, case, config, env), session.oracle.deviations)
    if prep.final is not None or prep.expectation is None or prep.expectation.expect not in NEGATIVE:
        return prep
    return replace(prep, twin=twin_plan(session, case, config, env, probe=True))


def twin_plan(session, case: Case, config: Config, env: Env, probe: bool) -> tuple[Case, Config] | None:
    """Return (program, config) of a negative case's valid twin (``verdicts.Twin``): its own program in the nearest
    dialect where it is valid (``probe``: that the toolchain honours; else the nearest, as a plan), else its rule's
    valid variant but for one param in its own config (``verdicts.program_twin``); None if it has neither."""
    if dialect_twin(case) is not None:
        for std in valid_dialects(case, env):
            other = replace(config, std=std)
            if not probe or session.unhonoured(other, case) is None:
                return case, other
        return None
    variant = program_twin(case, env)
    if variant is None:
        return None
    program = _case_of(session.options.templates, case.rule, variant)
    return (program, config) if unsupported_here(program, config, env) is None else None


_cases: dict[tuple[int, str], Case] = {}  # (id of a rule, variant name) -> its case, which holds that rule


def _case_of(templates, rule: Rule, variant: Variant) -> Case:
    """Return the case of a rule's variant, rendered once per rule (a valid twin of many negative items)."""
    held = _cases.get((id(rule), variant.name))
    if held is None or held.rule is not rule:
        held = _cases[(id(rule), variant.name)] = _renderer(templates).render(rule, variant)
    return held


@functools.lru_cache(maxsize=8)
def _renderer(templates) -> Renderer:
    return Renderer(templates)


def behaviour(record: Record, case: Case) -> Record:
    """Return the record with its ``behaviour`` (``judge.behaviour.with_behaviour``), naming what the driver loaded
    from the observed build's targets where the run did not say."""
    run = record.execution
    loaded = None
    if run is not None and run.status is not ExecStatus.NOT_RUN and not run.loaded \
            and record.observed_config is not None:
        loaded = loaded_code(record.observed_config.targets, compute_capability(run.gpu or ""))
    return with_behaviour(record, case, loaded)
