"""One item's route through the code, traced: prepare (the judge, given its facts), build (the compilers), judge,
record, with no call from a stage back into a later one (the judge calls nothing in the engine, the compilers or
execute; only the scheduler's loop and the hook registry call up), and none after preparation back into the config's
probe or the recorded deviations. Every unit goes through its kind's runner. docs/running.md describes this route."""
import ast
import inspect
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from suitegen.model import Config, Std

from conftest import needs_nvcc
from test_layout import BASE, STAGES

pytestmark = [needs_nvcc, pytest.mark.nvcc]
# Who may call up: the engine's own loop (the runner of each unit it is given) and the hook registry (a hook the
# oracle names: a check, a predicate).
LOOPS = ("engine/scheduler.py", "hooks.py")


def stage(filename: str) -> str | None:
    if "/suitegen/" not in filename:
        return None
    rel = filename.split("/suitegen/", 1)[1]
    module = "suitegen." + rel.removesuffix(".py").replace("/", ".")
    return "base" if module in BASE else rel.split("/")[0]


def traced(call):
    """Run ``call()`` with every Python call recorded; return its result and the calls that cross stages, as
    (caller's stage, caller's file, callee's stage, callee's file, callee's function)."""
    crossings = []

    def profile(frame, event, arg):
        back = frame.f_back
        if event != "call" or back is None:
            return
        callee, caller = stage(frame.f_code.co_filename), stage(back.f_code.co_filename)
        if callee and caller and callee != caller:
            crossings.append((caller, back.f_code.co_filename.split("/suitegen/")[1], callee,
                              frame.f_code.co_filename.split("/suitegen/")[1], frame.f_code.co_name))
    sys.setprofile(profile)
    try:
        return call(), crossings
    finally:
        sys.setprofile(None)


@pytest.fixture(scope="module")
def session():
    from suitegen.engine.options import RunOptions
    from suitegen.qualification import session as engine
    from suitegen.qualification import unit_kinds  # noqa: F401 - every unit kind registered
    return engine.open_session(RunOptions(rules=["restrict", "math-functions/sinf", "math-functions/cosf",
                                                 "lambdas/call-site", "cxx14-features/row-binary-literals"],
                                                 no_exec=True))


def upward(crossings) -> list[str]:
    """The calls from a stage into a later one (a callback), but the engine's loop's and the hook registry's."""
    order = {s: i for i, s in enumerate(STAGES)}
    return [f"{a} calls {b}.{fn}" for s, a, t, b, fn in crossings
            if order[s] < order[t] and a not in LOOPS]


def firsts(crossings, *names) -> list[int]:
    """The index of the first call of each (file, function), in order."""
    return [next(i for i, c in enumerate(crossings) if (c[3], c[4]) == name) for name in names]


def test_an_item_goes_prepare_build_judge_record_and_no_stage_calls_back(session):
    from suitegen.qualification.item import run_one
    cfg = Config(toolchain=session.toolchains[0], std=Std.CXX17, arch="sm_90")
    for case in [c for c in session.cases if c.rule.section == "restrict"][:2]:
        record, crossings = traced(lambda: run_one(session, case, cfg))
        assert record.verdict.value in ("PASS", "UNSUPPORTED"), record.reason
        assert not upward(crossings), upward(crossings)
        prepare, build, judge, behaviour = firsts(
            crossings, ("judge/expectations.py", "prepare"), ("compilers/compile.py", "compile_case"),
            ("judge/verdicts.py", "verdict"), ("judge/behaviour.py", "with_behaviour"))
        assert prepare < build < judge < behaviour, crossings
        # the judge's two steps are two modules, each entered in its own stretch of the route: no return to either
        entered = [i for i, c in enumerate(crossings) if c[3] == "judge/expectations.py"]
        assert max(entered) < build and min(i for i, c in enumerate(crossings) if c[3] == "judge/verdicts.py") > build
        judged = [c for c in crossings if c[0] == "judge"]
        assert all(c[2] in ("oracle", "base") for c in judged), judged


def test_a_unit_of_a_kind_goes_the_same_route(session):
    """Two math rules' checks in one shared module (``check_units``): no stage calls back either."""
    from suitegen.qualification.item import run_all, units
    cfg = Config(toolchain=session.toolchains[0], std=Std.CXX17, arch="sm_90")
    items = [(c, cfg) for c in session.cases
             if c.rule.section == "math-functions" and c.variant.name == "run-default"]
    (unit,) = units(items)
    assert unit.kind == "module-check"
    records, crossings = traced(lambda: run_all(session, unit))
    assert records and not upward(crossings), upward(crossings)
    assert all(c[2] in ("oracle", "base") for c in crossings if c[0] == "judge")


# What preparation asks once for the route (``facts.prepared``): the config's probe (the record's observed config) and
# the recorded deviations that cover the item (which build it tries first, a module check's params).
PREPARED = ("compilers/observe.py", "judge/deviations.py")


def entered_after_preparation(crossings) -> list[str]:
    """The calls into ``PREPARED``'s modules after the route's first build (its first call into the compilers'
    builds): preparation ends there, its twin's plan included."""
    first = min(i for i, c in enumerate(crossings) if c[3] in ("compilers/compile.py", "compilers/batch.py"))
    assert any((c[3], c[4]) == ("judge/expectations.py", "prepare") for c in crossings[:first]), "prepared before it builds"
    return [f"{c[1]} calls {c[3]}.{c[4]}" for c in crossings[first:] if c[3] in PREPARED]


def test_after_preparation_neither_the_probe_nor_the_deviations_is_entered_again(session):
    """Alone (``run_one``: two positives, and a negative built first only up to its front end) and batched
    (``run_batch``), what the route needs of the config's probe and of the recorded deviations is in the preparation."""
    from suitegen.model import Expect
    from suitegen.qualification.batch_units import run_batch
    from suitegen.qualification.item import run_one, units
    cfg = Config(toolchain=session.toolchains[0], std=Std.CXX17, arch="sm_90")
    restrict = [c for c in session.cases if c.rule.section == "restrict"]
    negative = next(c for c in session.cases if c.rule.id == "lambdas/call-site"
                    and c.variant.expectation.expect is Expect.REJECT and c.variant.expectation.phase == "front-end")
    for case in [*restrict[:2], negative]:
        record, crossings = traced(lambda: run_one(session, case, cfg))
        assert record.verdict.value in ("PASS", "UNSUPPORTED"), record.reason
        assert record.observed_config is not None, "the config's probe, from the preparation"
        assert not entered_after_preparation(crossings), entered_after_preparation(crossings)
    unit = max(units([(c, cfg) for c in restrict]), key=lambda u: len(u.cases))
    done, crossings = traced(lambda: run_batch(session, unit))
    assert len(unit.cases) > 1 and len(done.records) == len(unit.cases), done
    assert all(r.observed_config is not None for r in done.records)
    assert not entered_after_preparation(crossings), entered_after_preparation(crossings)


def test_a_negative_item_s_twin_in_another_dialect_is_planned_in_its_preparation(session):
    """A C++14 feature diagnosed under C++11 compares with its program under C++14: that config is probed where the
    item is prepared (``Preparation.twin``), not after its build."""
    from suitegen.qualification.facts import prepared
    from suitegen.qualification.item import run_one
    cfg = Config(toolchain=session.toolchains[0], std=Std.CXX11, arch="sm_90")
    case = next(c for c in session.cases if c.rule.id == "cxx14-features/row-binary-literals"
                and c.variant.expectation.expect.value == "diagnose")
    program, other = prepared(session, case, cfg).twin
    assert program is case and other.std is Std.CXX14
    record, crossings = traced(lambda: run_one(session, case, cfg))
    assert record.verdict.value in ("PASS", "XFAIL"), record.reason
    builds = [c for c in crossings if (c[3], c[4]) == ("compilers/compile.py", "compile_case")]
    assert len(builds) == 2, builds  # the item, then its twin
    assert not entered_after_preparation(crossings), entered_after_preparation(crossings)


def test_every_unit_is_run_by_its_kinds_runner_from_the_registry(session, monkeypatch):
    """The cases' own way is four kinds registered as the others are; ``run_unit`` is one lookup, and a unit that
    names no registered kind goes the cases' own way: one item alone, several in a batch."""
    from suitegen.qualification import item
    own_way = (item.BATCH, item.SINGLE, item.ALONE, item.TWINS)
    assert {*own_way, "module", "module-check"} <= set(item.UNIT_KINDS)
    assert all(item.UNIT_KINDS[k].takes is None for k in own_way)
    assert not [n for n in ast.walk(ast.parse(inspect.getsource(item.run_unit).strip()))
                if isinstance(n, (ast.If, ast.IfExp, ast.Match, ast.BoolOp))], "run_unit branches on a unit's kind"
    ran = []
    for name, kind in list(item.UNIT_KINDS.items()):
        monkeypatch.setitem(item.UNIT_KINDS, name, replace(kind, run=lambda s, u, name=name: ran.append(name)))
    cfg = Config(toolchain=session.toolchains[0], std=Std.CXX17, arch="sm_90")
    one, two = [c for c in session.cases if c.rule.section == "restrict"][:2]
    for name in item.UNIT_KINDS:
        item.run_unit(session, item.Unit(config=cfg, cases=(one, two), kind=name))
    assert ran == list(item.UNIT_KINDS)
    for unit in (item.Unit(config=cfg, cases=(one,)), item.Unit(config=cfg, cases=(one, two), kind="not-imported")):
        item.run_unit(session, unit)
    assert ran[-2:] == [item.SINGLE, item.BATCH]


def test_a_builds_result_comes_from_sources_each_a_module_tried_in_order():
    """Where a build's result comes from is a strategy per module of ``compilers/sources``, listed once in the order
    they are tried; the build loop takes the first that answers and does not branch on which it is."""
    from suitegen.compilers import compile as build
    from suitegen.compilers import sources
    modules = [s.__module__ for s in sources.SOURCES]
    assert all(s.__name__ == "answer" for s in sources.SOURCES) and len(set(modules)) == len(modules)
    here = {p.stem for p in Path(sources.__file__).parent.glob("*.py")} - {"__init__", "request"}
    assert {m.rsplit(".", 1)[1] for m in modules} == here, "every source module is listed, once"
    assert modules[-1].endswith(".here"), "the build itself, which always answers, is tried last"
    tree = ast.parse(inspect.getsource(build._build).strip())
    assert [n for n in ast.walk(tree) if isinstance(n, ast.For)] and not [
        n for n in ast.walk(tree) if isinstance(n, ast.If) and "source" not in ast.unparse(n.test)
        and "result" not in ast.unparse(n.test)], "the loop does not branch on a source"


def test_an_item_alone_is_built_by_ways_each_a_module_tried_in_order():
    """An item alone is built by ways behind one interface (``builds.ItemBuild``), a module each, listed once in the
    order ``run_one`` tries them; the last, the whole build, is tried for every item and decides with any verdict."""
    from suitegen.qualification import item
    from suitegen.qualification.builds import ItemBuild
    assert all(isinstance(way, ItemBuild) for way in item.BUILDS)
    modules = [way.build.__module__ for way in item.BUILDS]
    assert len(set(modules)) == len(modules) and "suitegen.qualification.item" not in modules
    last = item.BUILDS[-1]
    assert last.decides is None and last.tried(None) is True
