"""One item's route through the code, traced: prepare (the judge, given its facts), build (the compilers), judge,
record, with no call from a stage back into a later one (the judge calls nothing in the engine, the compilers or
execute; only the scheduler's loop and the hook registry call up). docs/running.md describes this route."""
import sys

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
    return engine.open_session(RunOptions(rules=["restrict", "math-functions/sinf", "math-functions/cosf"],
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
            crossings, ("judge/verdicts.py", "prepare"), ("compilers/compile.py", "compile_case"),
            ("judge/verdicts.py", "verdict"), ("judge/behaviour.py", "with_behaviour"))
        assert prepare < build < judge < behaviour, crossings
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
