"""What the judge is given: an item's condition environment and what its compiler and this machine say of it.

The judge (``judge.verdicts``) is pure: it reads the rule, this module's ``Env`` and ``Given``, the build and the
run, and calls nothing in the compilers, execute or the engine. This module asks them: the config's flags and
targets, whether the GPU runs the config's SASS or JIT-compiles its PTX (``execute.images``), whether the
compiler can judge the item (``Backend.out_of_scope``), what a build under the config did and whether the toolchain
honoured the config (``Session.observed`` and ``Session.unhonoured``, asked only for an item whose conditions hold),
and, after a run, what the driver loaded. The preparation also holds the recorded deviations that cover the item, so
the route reads the observation and those deviations from it and does not ask for them again.
"""
from __future__ import annotations

from typing import Iterable

from suitegen.compilers import backends
from suitegen.execute.images import GPU_CC, compute_capability, loaded_code
from suitegen.judge.behaviour import with_behaviour
from suitegen.judge.verdicts import Given, Preparation, prepare
from suitegen.model import Case, Compiler, Config, ExecStatus, Record
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
    return Given(out_of_scope=scope, unhonoured=session.unhonoured(config, case) if judged else None,
                 observed=session.observed(config, case) if judged else None,
                 by_message=backend.same_messages, refusal=backend.refusal, gpu=session.gpus is not None,
                 host_code=config.toolchain.kind is not Compiler.NVRTC)


def prepared(session, case: Case, config: Config) -> Preparation:
    """Return the judge's preparation of one item of a run (``verdicts.prepare``), with what it is given and the
    recorded deviations that cover it (``Preparation.observed``, ``Preparation.seen``: the route reads them there)."""
    env = make_env(config, case, session.features.get(config.toolchain.fingerprint, frozenset()))
    return prepare(case, config, env, given(session, case, config, env), session.oracle.deviations)


def behaviour(record: Record, case: Case) -> Record:
    """Return the record with its ``behaviour`` (``judge.behaviour.with_behaviour``), naming what the driver loaded
    from the observed build's targets where the run did not say."""
    run = record.execution
    loaded = None
    if run is not None and run.status is not ExecStatus.NOT_RUN and not run.loaded \
            and record.observed_config is not None:
        loaded = loaded_code(record.observed_config.targets, compute_capability(run.gpu or ""))
    return with_behaviour(record, case, loaded)
