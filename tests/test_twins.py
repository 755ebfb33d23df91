"""A run builds the twins its diagnose items need in batches first, and the verdicts stay those of single twins."""
import json

import pytest

from suitegen import procs
from suitegen.frontends.cli import main

from conftest import needs_nvcc, plain_config, write_demo_oracle

RULE = '''
[[rule]]
id = "dynamic-exception-spec-{n}"
statement = "Under C++17 a device function may not have a dynamic exception specification naming types."
template = "demo/spec.cu.j2"

  [[rule.variant]]
  name = "neg"
  expect = "diagnose"
  requires = "std>=c++17"
  phase = "front-end"
  diagnostic = 'dynamic exception specification'

  [[rule.variant]]
  name = "pos"
  expect = "accept"
  requires = "std<c++17"
'''
TEMPLATE = "__device__ int f(int v) throw(int) { return v + 1; } {{ CHECK }}\n"


def _run(tmp_path, name, *extra):
    orc, tpl = tmp_path / "oracle", tmp_path / "templates"
    if not orc.exists():
        orc, tpl = write_demo_oracle(tmp_path, 'section = "demo"\n' + "".join(RULE.format(n=n) for n in range(3)),
                                     {"spec.cu.j2": TEMPLATE})
    out = tmp_path / name
    main(["run", "--oracle", str(orc), "--templates", str(tpl), "--std", "c++17", "--arch", "sm_90", "--no-exec",
          "--no-cache", "--out", str(out), "-q", *extra])
    return {r["case_id"]: r for r in map(json.loads, (out / "results.jsonl").open())}


@needs_nvcc
@pytest.mark.nvcc
def test_twins_are_built_in_one_batch_and_judge_as_single_twins_do(tmp_path, monkeypatch, capsys):
    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv(procs.TRACE, str(trace))
    batched = _run(tmp_path, "batched")
    children = [json.loads(line)["argv"] for line in trace.read_text().splitlines()]
    under_14 = [argv for argv in children if "-std=c++14" in argv and "probe.cu" not in argv]
    assert len(under_14) == 1 and "batch.cu" in under_14[0], "the three twins, built once together"
    trace.unlink()
    alone = _run(tmp_path, "alone", "--batch", "off")
    under_14 = [json.loads(line)["argv"] for line in trace.read_text().splitlines()
                if "-std=c++14" in line and "probe.cu" not in line]
    assert len(under_14) == 3 and not any("batch.cu" in argv for argv in under_14), "--batch off: each alone"
    assert {k: (r["verdict"], r["reason"]) for k, r in batched.items()} == \
           {k: (r["verdict"], r["reason"]) for k, r in alone.items()}
    negs = [r for r in batched.values() if r["variant"] == "neg"]
    assert len(negs) == 3 and {r["verdict"] for r in negs} == {"PASS"}, capsys.readouterr().err
    assert all("not given under c++14" in r["reason"] for r in negs)


@needs_nvcc
@pytest.mark.nvcc
def test_a_batch_whose_twins_no_run_planned_builds_them_together(tmp_path, monkeypatch):
    """The pytest plugin runs units without a run's twin batches: a batch of diagnose items builds their twins
    in one batch of its own, not one by one."""
    from suitegen.qualification.item import run_all, units
    from suitegen.engine.options import RunOptions
    from suitegen.qualification.session import open_session

    orc, tpl = write_demo_oracle(tmp_path, 'section = "demo"\n' + "".join(RULE.format(n=n) for n in range(3)),
                                 {"spec.cu.j2": TEMPLATE})
    opts = RunOptions(oracle=str(orc), templates=str(tpl), std=("c++17",), arch=("sm_90",), no_cache=True)
    session = open_session(opts)
    config = plain_config(session.toolchains, opts)
    (unit,) = [u for u in units([(c, config) for c in session.cases if c.variant.name == "neg"]) if len(u.cases) == 3]
    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv(procs.TRACE, str(trace))
    try:
        records = run_all(session, unit)
    finally:
        session.close()
    under_14 = [json.loads(line)["argv"] for line in trace.read_text().splitlines()
                if "-std=c++14" in line and "probe.cu" not in line]
    assert len(under_14) == 1 and "batch.cu" in under_14[0], "the three twins, built once together"
    assert [r.verdict.value for r in records] == ["PASS"] * 3 and all("not given under c++14" in r.reason
                                                                        for r in records)
