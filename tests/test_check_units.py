"""Module-check items (the math rules) share a module: one build for several rules, each check on its own kernel."""
from dataclasses import replace

import pytest

from suitegen.qualification import check_units
from suitegen.model import Alone, Batched, Config, Std

from conftest import needs_nvcc

pytestmark = [needs_nvcc]  # the session probes the nvcc on PATH
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

    from suitegen.judge.expectations import prepare
    from suitegen.qualification.facts import make_env
    tc = replace(session.toolchains[0], version=(13, 0, 88))  # the release nvcc 13.0's deviations are recorded for
    cfg = Config(toolchain=tc, std=Std.CXX17, arch="sm_90")

    def prep(case, config=cfg):  # as ``facts.prepared`` does it: with the recorded deviations that cover the item
        return prepare(case, config, make_env(config, case, ()), deviations=session.oracle.deviations)
    sinf = defaults(session)[0]
    assert session.check(sinf, prep(sinf)).spec.samples == 1 << 16, "the rule's own"
    fewer = with_(session, checks=(("samples", 64),))
    assert fewer.check(sinf, prep(sinf)).spec.samples == 64
    # nvcc 13.0's __cosf misses its bound on inputs a small sample may not hold: the rule's own sample, there only
    cosf = next(c for c in fewer.oracle.deviations if c.rule == "math-intrinsics/cosf")
    assert cosf.run == "failed"
    from suitegen.qualification.session import open_session
    from suitegen.engine.options import RunOptions
    other = with_(open_session(RunOptions(rules=["math-intrinsics/cosf"], no_exec=True)), checks=(("samples", 64),))
    (case,) = [c for c in other.cases if c.variant.name == "run-default"]
    assert other.check(case, prep(case)).spec.samples == 1 << 16
    later = replace(cfg, toolchain=replace(tc, version=(13, 5, 37)))
    assert other.check(case, prep(case, later)).spec.samples == 64, "where no deviation is recorded, the profile's"


def test_every_profile_checks_2_16_inputs_and_nightly_more():
    """Issue 43: at least 2^16 seeded inputs per function in quick (and default, whose references it shares)."""
    from suitegen.engine import matrix
    profiles = matrix.load_profiles()
    samples = {name: dict(p.checks).get("samples", 1 << 16) for name, p in profiles.items()}
    assert samples["quick"] == samples["default"] == 1 << 16 < samples["nightly"]


@pytest.mark.nvcc
def test_each_member_runs_its_own_kernel_and_a_wrong_one_goes_alone(session):
    """On a GPU stand-in that records each launch: member i's check launches sg_math_i of the shared module; a
    member whose check fails there, or raises, is judged from its own build and run, the others from the shared
    one."""
    import dataclasses

    from suitegen.execute.gpus import GpuPool
    from suitegen.model import ExecResult, ExecStatus
    from suitegen.qualification.item import run_all, units
    launched = []

    class Fatbin:  # a stand-in for the GPU workers: it runs no kernel, it says which one it was asked for
        def run(self, module, check):
            launched.append((module.name, check.kernel))
            if check.kernel == "sg_math_2":  # a harness error in one member's judging: its own build says
                raise IndexError("tuple index out of range")
            status = ExecStatus.FAILED if check.kernel == "sg_math_1" else ExecStatus.PASSED
            return ExecResult(status=status, exit_code=0, detail=f"{check.kernel}", output="", duration=0.0,
                              gpu="stand-in", command=(str(module), check.kernel))
    gpu = dataclasses.replace(session, gpus=GpuPool("0", ()), execution_skipped=None, fatbin=Fatbin())
    cfg = Config(toolchain=session.toolchains[0], std=Std.CXX17, arch="sm_90")
    (unit,) = units([(c, cfg) for c in defaults(session)])
    recs = {r.rule: r for r in run_all(gpu, unit)}
    shared = [k for m, k in launched if m == "main.fatbin"][:3]
    assert shared == ["sg_math_0", "sg_math_1", "sg_math_2"], launched
    second = unit.cases[1].rule.id
    assert isinstance(recs[second].batch, Alone) and recs[second].verdict.value == "PASS", recs[second].reason
    assert ("main.fatbin", "sg_math") in launched[3:], "its own build, its own kernel name"
    third = unit.cases[2].rule.id  # judged from its own build, where its check (``sg_math``) did not raise
    assert isinstance(recs[third].batch, Alone) and recs[third].verdict.value == "PASS", recs[third].reason
    assert all(isinstance(r.batch, Batched) and r.verdict.value == "PASS" for k, r in recs.items()
               if k not in (second, third))


def test_a_checks_table_takes_only_what_the_check_hooks_read(tmp_path):
    from suitegen.engine import matrix
    from suitegen.model import UsageError
    for table in ('sample = 1024', 'samples = "many"', 'samples = 0'):  # a typo must not check 2^16 inputs quietly
        path = tmp_path / "m.toml"
        path.write_text(f'[profile.x]\nstd = ["c++17"]\narch = ["sm_90"]\n[profile.x.checks]\n{table}\n')
        with pytest.raises(UsageError, match="checks"):
            matrix.load_profiles(path)
