"""Units of generated programs built as one device module and run in the GPU workers, as a campaign checks its own.

A unit of generated programs (each case's ``Variant.kernel``) is built the way ``suitegen fuzz`` builds a file of
programs (``compilers.modules``: one ``-cubin``, or ``-ptx`` for a PTX-only target, under the config's -std, target
and flags, kept in the build cache) and run in the GPU workers (``FatbinRunner.cells``: every kernel on its
zeroed buffer, in one request). A program whose every cell equals the model's PASSes from there, without a
host compile, a link or a process of its own. Anything else (a build that made no module, a fault, a wrong cell, a
config this build cannot stand for) is left to the cases' own way (``item``): their batch, or for a wrong cell the
case alone, so every FAIL's evidence and reproducer is the case's own command. Without a GPU the module's
build is the compile check: "compiled; not run", as a batch says it.
"""
from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

from suitegen.compilers import backends, cache, modules
from suitegen.qualification.facts import behaviour
from suitegen.qualification.item import ALONE, Done, Unit, settled, unit_kind
from suitegen.qualification.session import Session, now
from suitegen.judge.verdicts import verdict
from suitegen.model import Batched, Compiler, Config, ExecStatus, Record, Verdict, digest
from suitegen.synth import emit

def build_for(config: Config, flags: tuple[str, ...]) -> modules.DeviceBuild | None:
    """Return the module build that stands for a config (its -std, one target, its flags and the case's), or None
    where none does (a compiler other than nvcc, several targets)."""
    if config.toolchain.kind is not Compiler.NVCC or "+" in config.arch:
        return None
    return modules.target_build("run", config.arch, config.std.value, (*config.flags, *flags))


@unit_kind("module", takes=lambda case: case.variant.kernel is not None, processes=False)
def run_module_unit(session: Session, unit: Unit) -> Done:
    """Judge a unit of generated programs from one module build and one GPU request; leave the rest."""
    config, started = unit.config, now()
    own_way = replace(unit, kind="")  # the cases' own way: their batch, or one alone (``item.kind_of``)
    build = build_for(config, unit.cases[0].variant.flags)
    if build is None:
        return Done(records=[], leftovers=(own_way,))
    preps, records, todo = settled(session, unit.cases, config, started)
    if not todo:
        return Done(records=records)
    kernels = [c.variant.kernel for c in todo]
    source = emit.module_source(frozenset(h for k in kernels for h in k.helpers), [k.text for k in kernels])
    with tempfile.TemporaryDirectory(prefix="suitegen-module-") as tmp:
        # A build store records the module (``--builds-to``: its run is "compiled; not run" here) and a replay of it
        # takes it from there (``--builds-from``), so a store holds one module per unit, not a program per item.
        built = modules.build_module(config.toolchain, build, source, Path(tmp), timeout=session.options.timeout,
                                     use_cache=not session.options.no_cache or cache.store() is not None)
        if not built.ok:  # the cases' own batch says which program it was, and why
            return Done(records=records, leftovers=(replace(own_way, cases=tuple(todo)),))
        result = replace(backends.of(config.toolchain.kind).classify(list(built.argv), 0, built.log, built.seconds),
                         cached=built.cached)
        ran, outs = (None, None) if session.execution_skipped else session.fatbin.cells(
            built.module, [k.launch for k in kernels])
    if ran is not None and outs is None:  # a fault, a hang, or a module this GPU cannot run: their own batch
        return Done(records=records, leftovers=(replace(own_way, cases=tuple(todo)),))
    source_id = Batched(id="module-" + digest(list(built.argv), source, length=12), size=len(todo))
    left = []
    for k, case in enumerate(todo):
        execution = None
        if ran is not None:
            if list(outs[k]) != list(kernels[k].expected):
                left.append(case)  # a wrong cell: the case's own program, alone, says which
                continue
            execution = replace(ran, status=ExecStatus.PASSED, duration=ran.duration / len(todo), output="",
                                detail=f"every one of its {len(outs[k])} cells equals the model's (run in one request "
                                       f"with the {len(todo) - 1} other programs of its module)")
        judgement = verdict(preps[case.key], case, result, session.oracle.deviations, execution=execution,
                            execution_skipped=session.execution_skipped, twin=None)
        if judgement.verdict not in ((Verdict.PASS,) if execution else (Verdict.PASS, Verdict.UNSUPPORTED)):
            left.append(case)
            continue
        records.append(behaviour(Record.of(case=case, config=config, judgement=judgement, result=result,
                                           started=started, execution=execution, batch=source_id,
                                           observed_config=preps[case.key].observed), case))
    leftovers = tuple(replace(unit, kind=ALONE, cases=(c,), why="its module's run gave a cell other than the model's")
                      for c in left)
    return Done(records=records, leftovers=leftovers)
