"""Value checks: a valid variant's ``value`` is what its program stores in out[0], on the device (its value
kernel, one thread) or, for a host-only case, on the host (its ``use`` linked with a driver).

The host side runs here with the real nvcc (no GPU needed) and a planted arithmetic fault must make it
FAIL; the device side's plumbing runs with a fake GPU worker (tests/test_gpu.py runs it on a real GPU).
"""
import dataclasses
import json
import subprocess
import sys

import pytest

from suitegen.qualification import session as engine
from suitegen.qualification.item import run_one
from suitegen.engine.options import RunOptions
from suitegen.execute.fatbin import FatbinRunner, value_kernels
from suitegen.execute.gpus import GpuPool
from suitegen.model import Alone, Batched, ExecStatus, Verdict
from suitegen.oracle.loader import OracleError, load

from conftest import MULTIPLY_TO_ADD, batch_of, needs_nvcc, plain_config, real_nvcc_behind, write_demo_oracle

RULES = '''
section = "demo"

[[rule]]
id = "products"
statement = "Multiplication of ints computes their product."
template = "demo/product.cu.j2"
'''
VARIANT = '''
  [[rule.variant]]
  name = "{side}-{n}"
  expect = "accept"
  params = {{ side = "{side}", n = {n} }}
  value = {value}
  {extra}
'''
TEMPLATE = '''\
{% if side == "device" %}__global__ void sg_kernel{% else %}void use{% endif %}(int *out) {
  int a = 6;
  *out = a * 7 + {{ n }};  // 6 * 7 + n: each member its own value
}
'''
FAKE_WORKER = '''
import json, sys
for line in sys.stdin:
    req = json.loads(line)
    open(sys.argv[1], "a").write(json.dumps(req) + "\\n")
    fault = sys.argv[2] == "fault"  # a batch request faults at its second member, after the first stored 43
    out = None if sys.argv[2] == "none" else [43 if fault else int(sys.argv[2])]
    if "values" in req and fault:
        print(json.dumps({"ok": False, "error": "CUDADriverError: an illegal address", "out": [out]}), flush=True)
        sys.exit(2)
    print(json.dumps({"ok": True, "out": [out] * len(req["members"]) if "values" in req else out}), flush=True)
'''


def _requested(log):
    """Return the fake worker's requests, and the kernel each member's check asked for first."""
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    return requests, [k[0] for r in requests for k in (r["members"] if "values" in r else [r["kernels"]])]


def _oracle(tmp_path, extra="", side="host"):
    """Host members each store their own value (6 * 7 + n); device members all store 43, so the fake worker
    (which cannot run them) can answer for any member."""
    values = {n: 42 + n if side == "host" else 43 for n in (1, 2, 3)}
    rules = RULES + "".join(VARIANT.format(side=side, n=n, value=values[n], extra=extra) for n in values)
    text = TEMPLATE if side == "host" else TEMPLATE.replace("a * 7 + {{ n }};", "a * 7 + 1 + {{ n }} - {{ n }};")
    return write_demo_oracle(tmp_path, rules, {"product.cu.j2": text})


@pytest.mark.parametrize("extra, why", [
    ("", None),
    ("", "value = 0"),
    ("phase = 'front-end'", "expect reject"),
    ("mode = 'link'", "mode link"),
])
def test_the_loader_accepts_only_nonzero_values_of_variants_expected_to_compile(tmp_path, extra, why):
    orc, _ = _oracle(tmp_path, extra)
    text = (orc / "demo.toml").read_text()
    if why == "value = 0":
        text = text.replace("value = 43", "value = 0")
    elif why == "expect reject":
        text = text.replace('expect = "accept"', 'expect = "reject"\n  diagnostic = "x"')
    (orc / "demo.toml").write_text(text)
    if why is None:
        assert [v.value for r in load(orc).rules for v in r.variants] == [43, 44, 45]
        return
    with pytest.raises(OracleError) as err:
        load(orc)
    assert "demo.toml" in str(err.value) and "value" in str(err.value)


def _session(tmp_path, orc, tpl, nvcc=(), answer="43"):
    base = engine.open_session(RunOptions(oracle=str(orc), templates=str(tpl), nvcc=nvcc, no_cache=True))
    worker = tmp_path / "worker.py"
    worker.write_text(FAKE_WORKER)
    log = tmp_path / "requests.log"
    gpus = GpuPool("0", ("NVIDIA H100 80GB HBM3, 9.0, 550.54.15",))
    runner = FatbinRunner(gpus, timeout=20, command=(sys.executable, str(worker), str(log), answer))
    cfg = plain_config(base.toolchains, RunOptions(std=("c++17",), arch=("sm_90",), profile="quick"))
    return dataclasses.replace(base, gpus=gpus, fatbin=runner, execution_skipped=None), cfg, log


@needs_nvcc
@pytest.mark.nvcc
def test_host_values_run_on_the_host_alone_and_batched(tmp_path):
    session, cfg, _ = _session(tmp_path, *_oracle(tmp_path))
    try:
        alone = run_one(session, session.cases[0], cfg)
        batched = batch_of(session, session.cases, cfg)
    finally:
        session.close()
    cases = {c.key: c for c in session.cases}
    for rec in [alone, *batched]:
        assert rec.verdict is Verdict.PASS, rec.reason
        assert rec.execution.status is ExecStatus.PASSED
        assert rec.execution.detail == f"out[0] == {cases[rec.case_key].variant.value}", "each member its own value"
        assert rec.behaviour.check == "semantic" and rec.behaviour.ran
    assert all(isinstance(r.batch, Batched) for r in batched)


@needs_nvcc
@pytest.mark.nvcc
def test_a_planted_arithmetic_fault_fails_the_host_value_check(tmp_path):
    nvcc = real_nvcc_behind(tmp_path, MULTIPLY_TO_ADD)
    session, cfg, _ = _session(tmp_path, *_oracle(tmp_path), nvcc=(str(nvcc),))
    try:
        recs = batch_of(session, session.cases, cfg)
    finally:
        session.close()
    assert len(recs) == 3
    cases = {c.key: c for c in session.cases}
    for rec in recs:
        assert rec.verdict is Verdict.FAIL, rec.reason
        n = cases[rec.case_key].variant.params["n"]
        assert f"expected {42 + n}, the host stored {13 + n}" in rec.reason  # 6 + 7 + n
        assert isinstance(rec.batch, Alone), "a FAIL's evidence is its single build"


@needs_nvcc
@pytest.mark.nvcc
@pytest.mark.parametrize("answer, verdict, says", [("43", Verdict.PASS, "out[0] == 43"),
                                                   ("41", Verdict.FAIL, "expected 43, the device stored 41"),
                                                   ("none", Verdict.FAIL, "no value kernel")])
def test_device_values_launch_the_members_value_kernel(tmp_path, answer, verdict, says):
    session, cfg, log = _session(tmp_path, *_oracle(tmp_path, side="device"), answer=answer)
    try:
        recs = batch_of(session, session.cases, cfg)
    finally:
        session.close()
    assert all(r.verdict is verdict and says in r.reason for r in recs), \
        [r.reason for r in recs]
    requests, kernels = _requested(log)
    members = {"_ZN5sg_b09sg_kernelEPi", "_ZN5sg_b19sg_kernelEPi", "_ZN5sg_b29sg_kernelEPi"}
    assert {k for k in kernels if "sg_b" in k} == members, "each member's own kernel"
    assert "values" in requests[0] and len(requests[0]["members"]) == 3, "the batch's members in one request"
    if verdict is Verdict.PASS:
        assert len(kernels) == 3 and all(isinstance(r.batch, Batched) for r in recs)
    else:
        assert all(isinstance(r.batch, Alone) for r in recs) and kernels.count("_Z9sg_kernelPi") == 3, \
            "a FAIL is judged again alone"


@needs_nvcc
@pytest.mark.nvcc
def test_the_members_after_a_fault_in_a_shared_value_request_are_checked_alone(tmp_path):
    session, cfg, log = _session(tmp_path, *_oracle(tmp_path, side="device"), answer="fault")
    try:
        recs = batch_of(session, session.cases, cfg)
    finally:
        session.close()
    assert all(r.verdict is Verdict.PASS and isinstance(r.batch, Batched) for r in recs), [r.reason for r in recs]
    requests, kernels = _requested(log)
    assert ["values" in r for r in requests] == [True, False, False], "the first member's out kept, then alone"
    assert kernels[3:] == ["_ZN5sg_b19sg_kernelEPi", "_ZN5sg_b29sg_kernelEPi"]


@needs_nvcc
@pytest.mark.nvcc
def test_an_accepted_build_without_a_loadable_module_fails_its_check(tmp_path):
    """-rdc=true code that calls an undefined extern __device__ function compiles, but nvcc -dlink fails."""
    orc, tpl = _oracle(tmp_path, side="device")
    (tpl / "demo" / "product.cu.j2").write_text("extern __device__ int missing();\n"
                                                "__global__ void sg_kernel(int *out) { *out = missing(); }\n")
    session, cfg, log = _session(tmp_path, orc, tpl, answer="43")
    cfg = dataclasses.replace(cfg, flags=("-rdc=true",))
    try:
        rec = run_one(session, session.cases[0], cfg)
    finally:
        session.close()
    assert rec.verdict is Verdict.FAIL and "no loadable device module" in rec.reason
    assert "missing" in rec.reason, "nvcc -dlink's own words"
    assert not log.exists(), "nothing was launched"


@needs_nvcc
@pytest.mark.nvcc
def test_value_kernel_names_are_what_nvcc_emits(tmp_path):
    """The mangled names the worker looks up are the ones in a real cubin, at global scope and in a member."""
    (tmp_path / "a.cu").write_text("namespace sg_b12 {\n__global__ void sg_kernel(int *out) { *out = 1; }\n}\n"
                                   "__global__ void use(int *out) { *out = 2; }\n")
    subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "a.cu", "-o", "a.cubin"], cwd=tmp_path, check=True)
    symbols = subprocess.run(["readelf", "-sW", "a.cubin"], cwd=tmp_path, capture_output=True, text=True).stdout
    assert value_kernels(12)[0] in symbols and value_kernels(None)[1] in symbols


@needs_nvcc
@pytest.mark.nvcc
def test_relocatable_device_code_gets_its_module_from_a_device_link(tmp_path):
    """An -rdc=true object embeds no loadable module; the value check loads the one nvcc -dlink makes."""
    orc, tpl = _oracle(tmp_path, side="device")
    session, cfg, log = _session(tmp_path, orc, tpl)
    cfg = dataclasses.replace(cfg, flags=("-rdc=true",))
    try:
        recs = batch_of(session, session.cases, cfg)
    finally:
        session.close()
    assert all(r.verdict is Verdict.PASS and r.behaviour.ran for r in recs), \
        [r.reason for r in recs]
    assert "nvcc -dlink" in recs[0].behaviour.what
    assert len(_requested(log)[1]) == 3, "each member's check"
