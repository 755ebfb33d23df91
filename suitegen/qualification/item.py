"""Items: prepare, build, run on the GPU, judge. One (case, config) alone, or many of one config batched."""
from __future__ import annotations

import tempfile
import traceback
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

from suitegen import procs
from suitegen.compilers import backends, batch
from suitegen.compilers.compile import DLINK_LOG, MODULE, compile_case
from suitegen.engine.scheduler import Scheduler
from suitegen.qualification.session import Session, item_name, now
from suitegen.execute import host_values
from suitegen.execute.deferred import Deferred, not_run
from suitegen.execute.programs import run_program
from suitegen.qualification import front_end_only, whole_build
from suitegen.qualification.facts import behaviour, make_env, prepared, twin_plan
from suitegen.judge.behaviour import AfterBuild
from suitegen.judge.deviations import covering
from suitegen.judge.expectations import NEGATIVE, Preparation, expectation_for
from suitegen.judge.verdicts import Twin, verdict
from suitegen.model import (Alone, Case, CompileResult, Config, Deviation, ExecResult, ExecStatus, Expect, Judgement, Mode,
                            PHASE_GROUPS, Phase, Record, Verdict)

BATCH_SIZE = 512  # members of one build expected to be accepted: its cost is mostly nvcc's fixed part (256
# against 128, measured: a nightly on the H100 2,707 -> 2,614 core-s; quick here 64 -> 61; 512 against 256, with the
# members ordered by their headers: quick's batch builds here 29.3 -> 28.6 child-s; the same verdicts)
REJECT_BATCH_SIZE = 64  # expected to be rejected: 1-3 errors each (measured), near cudafe++'s limit of 100


@dataclass(frozen=True, kw_only=True, slots=True)
class Unit:
    """Work for one thread: one item, or the batchable items of one config that share a translation unit, run by
    the runner of its kind (``UNIT_KINDS``).

    A single item a batch left to be built alone says why, and which batches it was in."""

    config: Config
    cases: tuple[Case, ...]
    why: str = ""
    tried: tuple[str, ...] = ()
    wider: Config | None = None  # a config of the run for more targets whose build may stand for this batch's
    kind: str = ""  # its kind's name; "" (or one not registered): the cases' own way, by size (``kind_of``)

    def __str__(self) -> str:
        """The unit as an error names it: its first items, and how many more it holds."""
        names = ", ".join(item_name(c, self.config, True) for c in self.cases[:2])
        return names + (f" and {len(self.cases) - 2} more" if len(self.cases) > 2 else "")

    @property
    def twins(self) -> bool:
        """Whether it is a batch of negative items' valid twins (``twin_units``): it judges nothing."""
        return self.kind == TWINS


# Phases whose rejections batch: cudafe++ and cicc report every member's errors; nvlink and ptxas name
# each member's symbols; the host compiler's errors sit in a member's region, or on cudafe++'s stub followed
# by notes there (``batch.split``). The host linker's warnings often name no member: those are built alone.
BATCHED_REJECTIONS = ("front-end", "device-link", "device-back-end", "host-compiler")
DIAGNOSE = "diagnose"  # the side of items that must be diagnosed (by an error or a warning) and have a twin
# The side of a PTX-only program's members that run: the driver JIT-links the whole program's device code at its
# first CUDA call, so a member that only needs to build, whose device code does not link at run time, would fail
# every member that runs (measured: a compute_90 rdc-link batch whose runtime members all passed alone and together,
# but not beside such a member). With SASS, nvlink links it all at build time, so such a member fails the build.
RUNS = "runs"


def expected_side(case: Case, config: Config, deviations: Sequence[Deviation] = ()) -> tuple | None:
    """Return which way a build is expected to go: () accepted, (RUNS,) accepted and run (a PTX-only program),
    (phase,) rejected there, (DIAGNOSE,) rejected or warned; None: build it alone.

    The guide's expectation, or where a recorded deviation covers the item, what the toolchain was seen
    to do (seen rejected: where the deviation says). Batches are formed per side, so one member's rejection
    does not stop its neighbours' later phases. Only a hint: it ignores detected features, so every host
    forms the same batches.
    """
    env = make_env(config, case, ())
    exp = expectation_for(case, env)
    seen = covering(case, env, deviations, exp)
    if seen:
        return () if seen[0].observed.accepted else _batched_group(seen[0].phase)
    if exp.expect is Expect.DIAGNOSE and case.variant.valid_in is not None:
        return (DIAGNOSE,)  # rejected or warned: together, each judged with its twin (``twin_units``)
    if exp.expect is Expect.RUNTIME and case.variant.mode in (Mode.LINK, Mode.RDC_LINK) and ptx_only(config):
        return (RUNS,)
    if exp.expect is not Expect.REJECT:
        return ()
    return (exp.phase,) if exp.phase in BATCHED_REJECTIONS else None


def _batched_group(phase: Phase | None) -> tuple | None:
    """Return the side of items rejected by ``phase``: its group among ``BATCHED_REJECTIONS``, else None."""
    return next(((g,) for g in BATCHED_REJECTIONS if phase in PHASE_GROUPS[g]), None)


@dataclass(frozen=True, kw_only=True, slots=True)
class UnitKind:
    """A kind of unit and its runner (in the manner of lit's test formats): the items it takes, and how.

    The cases' own way is four kinds of this module, which take no items of their own (``takes`` None): a batch
    (``run_batch``), one item (``run_single``), one item a unit left to be built alone (``run_alone``) and a batch of
    twins (``run_twins``). A kind of ``size`` None takes the batches the cases' own way forms whose every item it
    ``takes`` (generated programs: ``qualification.module_units``); one with a ``size`` forms its own units of up to
    ``size`` items of one config and flags from the items it takes, which would otherwise go alone
    (``qualification.check_units``). What a runner cannot judge with certainty it leaves, as units of the cases' own
    way."""

    name: str
    run: Callable  # (session, unit) -> Done
    takes: Callable[[Case], bool] | None = None
    size: int | None = None
    processes: bool = True  # the programs its units build run as processes of their own (False: in the GPU worker)


# Every kind, by name, each registered by its module (``unit_kind``); ``qualification.unit_kinds`` imports them all.
UNIT_KINDS: dict[str, UnitKind] = {}
BATCH, SINGLE, ALONE, TWINS = "batch", "single", "alone", "twins"  # the kinds of the cases' own way


def unit_kind(name: str, takes: Callable[[Case], bool] | None = None, size: int | None = None,
              processes: bool = True):
    """Register a runner for units of kind ``name`` (a decorator)."""
    def register(run):
        UNIT_KINDS[name] = UnitKind(name=name, takes=takes, run=run, size=size, processes=processes)
        return run
    return register


def kind_of(unit: Unit) -> UnitKind:
    """Return the kind that runs a unit: the one it names, else (it names none, or one whose module was not imported)
    the cases' own way: ``single`` for one item, ``batch`` for several (``batch_units``: every kind is registered once
    ``unit_kinds`` is imported, as the run and the plugin do before they form units)."""
    return UNIT_KINDS.get(unit.kind) or UNIT_KINDS[SINGLE if len(unit.cases) == 1 else BATCH]


def _own_kind(case: Case) -> UnitKind | None:
    """Return the kind that forms its own units of this case, or None."""
    return next((k for k in UNIT_KINDS.values() if k.size and k.takes(case)), None)


def _batch_kind(cases: Sequence[Case]) -> str:
    """Return the kind of a batch the cases' own way forms: one that takes each of its cases, else "" (theirs)."""
    return next((k.name for k in UNIT_KINDS.values() if k.takes and not k.size and all(map(k.takes, cases))), "")


def units(items: Sequence[tuple[Case, Config]], batching: bool = True, size: int = BATCH_SIZE,
          deviations: Sequence[Deviation] = ()) -> list[Unit]:
    """Return the items as units: batchable items grouped by config, flags, includes and expected side;
    the rest alone."""
    groups: dict[tuple, list[Case]] = {}
    configs: dict[tuple, Config] = {}
    out: list[Unit] = []
    own: dict[tuple, list[Case]] = {}
    for case, config in items:
        kind = _own_kind(case) if batching else None
        if kind is not None and expected_side(case, config, deviations) == ():  # expected to build: it may share
            key = (kind.name, config.key, case.variant.flags)
            own.setdefault(key, []).append(case)
            configs[key] = config
            continue
        batched = batching and backends.of(config.toolchain.kind).batches and batch.batchable(case)
        side = expected_side(case, config, deviations) if batched else None
        if side is not None:
            key = (*batch.group_key(case, config), side)
            groups.setdefault(key, []).append(case)
            configs[key] = config
        else:
            out.append(Unit(config=config, cases=(case,)))
    batches = []
    every = list(dict.fromkeys(config for _, config in items))
    for key, cases in groups.items():
        accept = key[-1] in ((), (RUNS,))  # the expected side ends the group key
        limit = min(size if accept else min(size, REJECT_BATCH_SIZE), *(c.variant.batch_limit or size for c in cases))
        if accept:  # members that include the same system headers side by side: each batch pays for its own
            cases.sort(key=batch.headers)  # (stable; rejected members stay in plan order: ``_stops_the_build``)
        wide = wider(configs[key], every) if key[-1] == () and key[1] is Mode.COMPILE else None
        for start in range(0, len(cases), limit):
            chunk = tuple(cases[start:start + limit])
            batches.append((accept, Unit(config=configs[key], cases=chunk, wider=wide, kind=_batch_kind(chunk))))
    for key, cases in own.items():
        size = UNIT_KINDS[key[0]].size
        batches += [(True, Unit(config=configs[key], cases=tuple(cases[i:i + size]), kind=key[0]))
                    for i in range(0, len(cases), size)]
    # Longest first, so no long unit is left for the end of a run. Units that build programs come first:
    # their runs queue for the GPU (which starts one process's CUDA context at a time) while later units
    # build (not a kind whose programs run in the GPU worker, such as generated modules). Then reject batches (their members may be built again, some alone, one after another), the
    # others by size, then single items. A PTX-only config's units come after the others of their kind, so
    # its rejected builds are mostly there to take from its SASS sibling's (``sources.sibling``); so do
    # a several-target config's reject batches and single items (from its first target's), and the batches whose
    # build for more targets may stand for theirs (``sources.wider``).
    batches.sort(key=lambda b: (b[0], ptx_only(b[1].config) or b[1].wider is not None
                                or not b[0] and several_targets(b[1].config), -len(b[1].cases)))
    out.sort(key=lambda unit: ptx_only(unit.config) or several_targets(unit.config))
    return sorted([unit for _, unit in batches] + out, key=lambda unit: not builds_programs(unit))  # stable


def wider(config: Config, configs: Sequence[Config]) -> Config | None:
    """Return the first of ``configs`` that builds for one real target's config (``sm_80``) and more (``sm_80+sm_90``),
    but for that the same: its accepted compile-only batches may stand for this config's (``sources.wider``)."""
    if several_targets(config) or ptx_only(config):
        return None
    # Which sections each leaves out does not matter here: a batch holds the cases of both.
    return next((c for c in configs if config.arch in c.arch.split("+") and several_targets(c)
                 and replace(c, arch=config.arch, excluded=config.excluded) == config), None)


def several_targets(config: Config) -> bool:
    """Whether a config builds for several targets (``sm_80+sm_90``)."""
    return "+" in config.arch


def ptx_only(config: Config) -> bool:
    """Whether a config builds PTX only (``compute_90``, ``compute_80+compute_90``)."""
    return all(target.startswith("compute_") for target in config.arch.split("+"))


def builds_programs(unit: Unit) -> bool:
    """Whether a unit builds programs that run as processes of their own (on a GPU, whose driver starts one process's
    context at a time); not a kind whose programs run in the GPU worker (``UnitKind.processes``)."""
    return unit.cases[0].variant.mode in (Mode.LINK, Mode.RDC_LINK) and kind_of(unit).processes


@dataclass(frozen=True, kw_only=True, slots=True)
class Done:
    """What running a unit gave: the records it judged, and the items it leaves to be built alone (as units of
    their own, which ``scheduler.Scheduler`` queues)."""

    records: list[Record]
    leftovers: tuple[Unit, ...] = ()


def run_unit(session: Session, unit: Unit) -> Done:
    """Judge the items of a unit by its kind's runner; a batch leaves the items it could not judge with certainty to
    its caller."""
    return kind_of(unit).run(session, unit)


def run_all(session: Session, unit: Unit) -> list[Record]:
    """Judge every item of a unit here (the pytest plugin's way): first the batches of its negative members' valid
    twins, planned as a run plans them (``twin_units``), then the unit, then its leftovers one after another."""
    inline = Scheduler(lambda u: run_unit(session, u))
    for twins in twin_units(session, [unit]):
        inline.add(twins)
    inline.add(unit)
    return [r for done in inline for r in done.result.records]


def settled(session: Session, cases: Sequence[Case], config: Config,
            started: str) -> tuple[dict[str, Preparation], list[Record], list[Case]]:
    """Prepare each item of a unit: its preparations by case key, the records (with their ``behaviour``) of the items
    the judge settles before any build (UNSUPPORTED, an unhonoured config), and the cases left to build."""
    preps = {c.key: prepared(session, c, config) for c in cases}
    records = [behaviour(Record.of(case=c, config=config, judgement=preps[c.key].final, result=None, started=started,
                                   observed_config=preps[c.key].observed), c)
               for c in cases if preps[c.key].final is not None]
    return preps, records, [c for c in cases if preps[c.key].final is None]


@dataclass(frozen=True, kw_only=True, slots=True)
class Built:
    """One item's accepted build, as what runs after it sees it: its folder's device module, its product (object,
    program or module file) and, in a batch, its member index."""

    module: Path
    product: Path | None
    member: int | None = None


def run_after(session: Session, case: Case, config: Config, prep: Preparation, built: Built) -> ExecResult | None:
    """Run what the item's plan says runs after its accepted build: its ``AfterBuild``'s runner (``AFTER``)."""
    return AFTER[prep.after](session, case, config, prep, built)


def _nothing(session: Session, case: Case, config: Config, prep: Preparation, built: Built) -> None:
    """``NOTHING``: the item is judged on its build alone."""
    return None


def _load(session: Session, case: Case, config: Config, prep: Preparation, built: Built) -> ExecResult:
    """``LOAD``: load the build's device module on a GPU, every kernel resolved."""
    return no_module(built.module) or session.fatbin.load(built.module)


def _device_value(session: Session, case: Case, config: Config, prep: Preparation, built: Built) -> ExecResult:
    """``DEVICE_VALUE``: run the item's value kernel (in a batch, its member's) from the build's device module."""
    return no_module(built.module) or session.fatbin.value(built.module, built.member, case.variant.value)


def _host_value(session: Session, case: Case, config: Config, prep: Preparation, built: Built) -> ExecResult:
    """``HOST_VALUE``: link the build's object with the value driver and run the item's check on the host."""
    return host_value_checks(session, built.product, config, case.variant.flags, {case.key: built.member},
                        {case.key: case.variant.value})[case.key]


def _module_check(session: Session, case: Case, config: Config, prep: Preparation, built: Built) -> ExecResult:
    """``MODULE_CHECK``: run the item's check hook on the built module file."""
    return session.fatbin.run(built.product, session.check(case, prep))


def _program(session: Session, case: Case, config: Config, prep: Preparation, built: Built) -> ExecResult:
    """``PROGRAM``: run the built program (in a batch, its member) on a GPU."""
    args = () if built.member is None else (str(built.member),)
    return run_built(session, built.product, built.product.parent, args)


# One runner per ``AfterBuild``: (session, case, config, preparation, ``Built``) -> what ran gave (None: nothing ran).
AFTER: dict[AfterBuild, Callable[..., ExecResult | None]] = {
    AfterBuild.NOTHING: _nothing, AfterBuild.LOAD: _load, AfterBuild.DEVICE_VALUE: _device_value,
    AfterBuild.HOST_VALUE: _host_value, AfterBuild.MODULE_CHECK: _module_check, AfterBuild.PROGRAM: _program}


def run_one(session: Session, case: Case, config: Config) -> Record:
    """Judge one item alone: its record is the first that its ways of building (``BUILDS``), tried in order, decide.

    First, for an item expected to be rejected by the device front end, the build only up to it
    (``front_end_only``, which decides only with PASS or XFAIL); then the whole build (``whole_build``), which always
    decides (for an UNSUPPORTED or unhonoured config, building nothing)."""
    prep = prepared(session, case, config)
    for way in BUILDS:
        if way.tried(prep):
            record = _judge_alone(session, case, config, prep,
                                  lambda folder: way.build(session.options, case, config, prep, folder))
            if record is not None and (way.decides is None or record.verdict in way.decides):
                return record
    raise AssertionError("item.BUILDS ends with the whole build, which always decides")


# An item's ways of building, in the order ``run_one`` tries them (``builds.ItemBuild``, a module each).
BUILDS = (front_end_only.WAY, whole_build.WAY)


def _judge_alone(session: Session, case: Case, config: Config, prep: Preparation,
                 build: Callable[[Path], CompileResult | None]) -> Record | None:
    """Build one item (``build``, into a scratch folder; None: that build does not decide, nor does this) and judge it;
    nothing is built for an item the judge settled before the build."""
    started = now()
    result = execution = None
    if prep.final is None:
        with tempfile.TemporaryDirectory(prefix="suitegen-") as tmp:
            folder = Path(tmp)
            result = build(folder)
            if result is None:
                return None
            if result.outcome.accepted:
                built = Built(module=folder / MODULE, product=backends.output_path(case, config, folder))
                execution = run_after(session, case, config, prep, built)
    twin = valid_twin(session, case, config, prep) if result is not None else None
    judgement = verdict(prep, case, result, session.oracle.deviations, execution=execution,
                        execution_skipped=session.execution_skipped, twin=twin)
    return behaviour(Record.of(case=case, config=config, judgement=judgement, result=result, started=started,
                               execution=execution, observed_config=prep.observed), case)


def valid_twin(session: Session, case: Case, config: Config, prep: Preparation) -> Twin | None:
    """Build a negative item's valid twin (planned where it was prepared: ``Preparation.twin``), or take it from the
    run's twin batches (``run_twins``); None if it has none."""
    if prep.twin is None:
        return None
    program, other = prep.twin
    result = session.twins.get((program.key, other.key))  # waits where a twin batch is building it
    if result is None:
        with tempfile.TemporaryDirectory(prefix="suitegen-twin-") as tmp:
            result = compile_case(program, other, Path(tmp), timeout=session.options.timeout,
                                  cached=not session.options.no_cache)
    return Twin(std=other.std, result=result, variant="" if program is case else program.variant.name)


def twin_units(session: Session, work: Sequence[Unit]) -> list[Unit]:
    """Return batches of the valid twins that the negative items among ``work`` will need (alone or batched), one
    per twin config (batch group and expected side): a run builds them first, so those items take their twins
    from them (``run_twins``).

    Planned without probing a config: a twin of the same program is taken to be built in the nearest dialect where
    it is valid. An item whose toolchain does not honour that dialect judges with a twin of another, built alone.
    A twin that a batch already builds (or built) is left out: the pytest plugin plans each unit's before it runs."""
    pairs = []
    every = [(case, unit.config) for unit in work for case in unit.cases] if session.options.batch != "off" else []
    for case, config in every:
        if not backends.of(config.toolchain.kind).batches:
            continue
        env = make_env(config, case, session.features.get(config.toolchain.fingerprint, frozenset()))
        planned = (twin_plan(session, case, config, env, probe=False)
                   if expectation_for(case, env).expect in NEGATIVE else None)
        if planned is not None and batch.batchable(planned[0]) \
                and not session.twins.planned((planned[0].key, planned[1].key)):
            pairs.append(planned)
    return _twin_batches(session, pairs)


def _twin_batches(session: Session, pairs: Sequence[tuple[Case, Config]]) -> list[Unit]:
    """Return the twin batches of (program, twin config) pairs: one per twin config, batch group and expected side
    (a twin a recorded deviation sees rejected would leave its batch's others uncertain), of two members or more;
    the session expects their twins (``Twins.expect``)."""
    groups: dict[tuple, tuple[Config, dict[str, Case]]] = {}
    for case, other in pairs:
        side = expected_side(case, other, session.oracle.deviations)
        groups.setdefault((*batch.group_key(case, other), side), (other, {}))[1].setdefault(case.key, case)
    out = []
    for other, by_key in groups.values():
        cases = list(by_key.values())
        out += [Unit(config=other, cases=tuple(cases[start:start + BATCH_SIZE]), kind=TWINS)
                for start in range(0, len(cases), BATCH_SIZE) if len(cases) - start >= 2]
    for unit in out:
        session.twins.expect((c.key, unit.config.key) for c in unit.cases)
    return out


@unit_kind(SINGLE)
def run_single(session: Session, unit: Unit) -> Done:
    """Judge a unit's one item alone (``run_one``)."""
    return Done(records=[run_one(session, unit.cases[0], unit.config)])


@unit_kind(ALONE)
def run_alone(session: Session, unit: Unit) -> Done:
    """Judge alone the one item a unit left to be built so: its record says why, and which shared builds it was in."""
    record = run_one(session, unit.cases[0], unit.config)
    return Done(records=[replace(record, batch=Alone(why=unit.why, tried=tuple(unit.tried)))])


def run_built(session: Session, program: Path, cwd: Path, args: tuple[str, ...] = ()) -> ExecResult:
    """Run a built program (``args``: which member of a batched one) on a GPU, or defer it (``--builds-to``)."""
    if isinstance(session.fatbin, Deferred):
        return not_run(program, args)
    return run_program(program, cwd, session.options.exec_timeout, session.gpus.take(), args=args)


def no_module(module: Path) -> ExecResult | None:
    """Return a failed device check where an accepted build left no loadable device module (an object without one,
    a failed device link), else None."""
    if module.exists():
        return None
    why = module.with_name(DLINK_LOG)
    detail = "the accepted build left no loadable device module" + (
        f": its device link said: {why.read_text()[-1500:]}" if why.exists() else "")
    return ExecResult(status=ExecStatus.FAILED, exit_code=None, detail=detail, output="", duration=0.0, gpu="",
                      command=())


def host_value_checks(session: Session, obj: Path, config: Config, flags: Sequence[str], members: dict[str, int | None],
                 values: dict[str, int]) -> dict[str, ExecResult]:
    """Link one object with the value driver and run each member's check (case key -> its result)."""
    program = host_values.link(obj, config, flags, list(members.values()), session.options.timeout)
    if isinstance(program, ExecResult):
        return {key: program for key in members}
    ran = host_values.run_all(program, [values[key] for key in members], session.options.exec_timeout)
    return dict(zip(members, ran))


def safe_run_unit(session: Session, unit: Unit) -> Done | None:
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
        if unit.twins:
            return Done(records=[])  # its twins are built alone, by the items that need them
        tb = traceback.format_exc(limit=5)
        return Done(records=[Record.of(case=c, config=unit.config, result=None, started=now(),
                                       judgement=Judgement(verdict=Verdict.UNRESOLVED, reason=f"harness error: {tb}"))
                             for c in unit.cases])
