"""Module-check items (the math rules) share a module: one build for several rules, each check on its own kernel."""
from dataclasses import replace

import pytest

from suitegen.qualification import check_units
from suitegen.model import Alone, Batched, Config, Std

from conftest import needs_nvcc

RULES = ["math-functions/sinf", "math-functions/cosf", "math-functions/tanf"]


@pytest.fixture(scope="module")
def session():
    from suitegen.qualification import session as engine
    from suitegen.qualification import unit_kinds  # noqa: F401 - every unit kind registered
    from suitegen.engine.options import RunOptions
    return engine.open_session(RunOptions(rules=RULES, no_exec=True))


def defaults(session):
    return [c for c in session.cases if c.variant.name == "run-default"]


def test_only_device_code_with_a_check_shares(session):
    sinf = defaults(session)[0]
    assert check_units.shares(sinf)
    assert not check_units.shares(replace(sinf, files={"main.cu": "#include <cmath>\n" + sinf.files["main.cu"]}))
    assert not check_units.shares(replace(sinf, variant=replace(sinf.variant, check=None)))
    text = check_units.shared_source(defaults(session), ["sg_math"] * 3)
    assert text.count("#define sg_math sg_math_") == 3 and '#line 1 "sg_b2/main.cu"' in text


@needs_nvcc
@pytest.mark.nvcc
def test_a_shared_module_judges_as_builds_alone_do_and_a_member_that_breaks_it_goes_alone(session):
    from suitegen.qualification.item import run_all, units
    cfg = Config(toolchain=session.toolchains[0], std=Std.CXX17, arch="sm_90")
    cases = defaults(session)
    (unit,) = units([(c, cfg) for c in cases])
    assert unit.kind == "module-check" and len(unit.cases) == 3
    shared = {r.rule: r for r in run_all(session, unit)}
    assert all(isinstance(r.batch, Batched) and r.batch.id.startswith("checks-") for r in shared.values())
    alone = {r.rule: r for u in units([(c, cfg) for c in cases], batching=False) for r in run_all(session, u)}
    assert {k: r.verdict for k, r in shared.items()} == {k: r.verdict for k, r in alone.items()}
    broken = replace(cases[1], files={"main.cu": cases[1].files["main.cu"] + "\nnot C++;\n"})
    (unit,) = units([(c, cfg) for c in (cases[0], broken, cases[2])])
    recs = {r.rule: r for r in run_all(session, unit)}
    assert all(isinstance(r.batch, Alone) for r in recs.values()), "no member judged from a build that failed"
    assert recs[broken.rule.id].verdict.value == "FAIL" and "rejected" in recs[broken.rule.id].reason
    assert recs[cases[0].rule.id].verdict == shared[cases[0].rule.id].verdict


def test_a_profiles_checks_table_reaches_each_check_but_one_a_run_deviation_covers(session):
    from dataclasses import replace as with_

    from suitegen.qualification.facts import make_env
    cfg = Config(toolchain=session.toolchains[0], std=Std.CXX17, arch="sm_90")
    sinf = defaults(session)[0]
    env = make_env(cfg, sinf, ())
    assert session.check(sinf, env).spec.samples == 1 << 16, "the rule's own"
    fewer = with_(session, checks=(("samples", 64),))
    assert fewer.check(sinf, env).spec.samples == 64
    # nvcc 13.0's __cosf misses its bound on inputs a small sample may not hold: the rule's own sample, there only
    cosf = next(c for c in fewer.oracle.deviations if c.rule == "math-intrinsics/cosf")
    assert cosf.run == "failed"
    from suitegen.qualification.session import open_session
    from suitegen.engine.options import RunOptions
    other = with_(open_session(RunOptions(rules=["math-intrinsics/cosf"], no_exec=True)), checks=(("samples", 64),))
    (case,) = [c for c in other.cases if c.variant.name == "run-default"]
    assert other.check(case, make_env(cfg, case, ())).spec.samples == 1 << 16
    later = make_env(replace(cfg, toolchain=replace(cfg.toolchain, version=(13, 5, 37))), case, ())
    assert other.check(case, later).spec.samples == 64, "where no deviation is recorded, the profile's"


def test_the_quick_and_default_profiles_check_fewer_inputs_than_nightly():
    from suitegen.engine import matrix
    profiles = matrix.load_profiles()
    samples = {name: dict(p.checks).get("samples", 1 << 16) for name, p in profiles.items()}
    assert samples["quick"] < samples["default"] < samples["nightly"] == 1 << 16
