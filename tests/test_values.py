"""Value checks: a valid variant's ``value`` is what its program stores in out[0], on the device (its value
kernel, one thread) or, for a host-only case, on the host (its ``use`` linked with a driver).

The host side runs here with the real nvcc (no GPU needed) and a planted arithmetic fault must make it
FAIL; the device side's plumbing runs with a fake GPU worker (tests/test_gpu.py runs it on a real GPU).
"""
import dataclasses
import shutil
import subprocess
import sys

import pytest

from suitegen.engine import session as engine
from suitegen.engine.item import run_batch, run_one
from suitegen.engine.options import RunOptions, resolve_profile
from suitegen.execute.fatbin import FatbinRunner, value_kernels
from suitegen.execute.gpus import GpuPool
from suitegen.model import ExecStatus, Verdict
from suitegen.oracle.loader import OracleError, load

from conftest import needs_nvcc, write_demo_oracle

RULES = '''
section = "demo"

[[rule]]
id = "products"
statement = "Multiplication of ints computes their product."
template = "demo/product.cu.j2"

  [[rule.variant]]
  name = "{side}-{n}"
  expect = "accept"
  matrix = { side = ["host"], n = [1, 2, 3] }
  value = 42
  {extra}
'''
TEMPLATE = '''\
{% if side == "device" %}__global__ void sg_kernel{% else %}void use{% endif %}(int *out) {
  int a = 6 + {{ n }} - {{ n }};
  *out = a * 7;  // 6 * 7 = 42
}
'''
# The real nvcc behind a wrapper that turns every multiplication in the source into an addition.
PLANTED = '#!/bin/sh\nfor a in "$@"; do case "$a" in *.cu) sed -i "s| \\* | + |g" "$a";; esac; done\nexec {nvcc} "$@"\n'
FAKE_WORKER = '''
import json, sys
for line in sys.stdin:
    req = json.loads(line)
    open(sys.argv[1], "a").write(json.dumps(req) + "\\n")
    out = None if sys.argv[2] == "none" else [int(sys.argv[2])]
    print(json.dumps({"ok": True, "out": out}), flush=True)
'''


def _oracle(tmp_path, extra="", side="host"):
    return write_demo_oracle(tmp_path, RULES.replace('side = ["host"]', f'side = ["{side}"]').replace("{extra}", extra),
                             {"product.cu.j2": TEMPLATE})


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
        text = text.replace("value = 42", "value = 0")
    elif why == "expect reject":
        text = text.replace('expect = "accept"', 'expect = "reject"\n  diagnostic = "x"')
    (orc / "demo.toml").write_text(text)
    if why is None:
        assert {v.value for r in load(orc).rules for v in r.variants} == {42}
        return
    with pytest.raises(OracleError) as err:
        load(orc)
    assert "demo.toml" in str(err.value) and "value" in str(err.value)


def _session(tmp_path, orc, tpl, nvcc=(), answer="42"):
    base = engine.open_session(RunOptions(oracle=str(orc), templates=str(tpl), nvcc=nvcc, no_cache=True))
    worker = tmp_path / "worker.py"
    worker.write_text(FAKE_WORKER)
    log = tmp_path / "requests.log"
    gpus = GpuPool("0", ("NVIDIA H100 80GB HBM3, 9.0, 550.54.15",))
    runner = FatbinRunner(gpus, timeout=20, command=(sys.executable, str(worker), str(log), answer))
    (cfg,) = engine.configs_for(base.toolchains, resolve_profile(RunOptions(std=("c++17",), arch=("sm_90",),
                                                                            profile="quick")))
    return dataclasses.replace(base, gpus=gpus, fatbin=runner, execution_skipped=None), cfg, log


@needs_nvcc
@pytest.mark.nvcc
def test_host_values_run_on_the_host_alone_and_batched(tmp_path):
    session, cfg, _ = _session(tmp_path, *_oracle(tmp_path))
    try:
        alone = run_one(session, session.cases[0], cfg)
        batched = run_batch(session, session.cases, cfg)
    finally:
        session.close()
    for rec in [alone, *batched]:
        assert rec.judgement.verdict is Verdict.PASS, rec.judgement.reason
        assert rec.execution.status is ExecStatus.PASSED and rec.execution.detail == "out[0] == 42"
        assert rec.behaviour["check"] == "semantic" and rec.behaviour["ran"]
    assert all(r.batch["how"] == "batch" for r in batched)


@needs_nvcc
@pytest.mark.nvcc
def test_a_planted_arithmetic_fault_fails_the_host_value_check(tmp_path):
    nvcc = tmp_path / "nvcc"
    nvcc.write_text(PLANTED.format(nvcc=shutil.which("nvcc")))
    nvcc.chmod(0o755)
    session, cfg, _ = _session(tmp_path, *_oracle(tmp_path), nvcc=(str(nvcc),))
    try:
        recs = run_batch(session, session.cases, cfg)
    finally:
        session.close()
    assert len(recs) == 3
    for rec in recs:
        assert rec.judgement.verdict is Verdict.FAIL, rec.judgement.reason
        assert "expected 42, the host stored 13" in rec.judgement.reason  # 6 + 7
        assert rec.batch["how"] == "alone", "a FAIL's evidence is its single build"


@needs_nvcc
@pytest.mark.nvcc
@pytest.mark.parametrize("answer, verdict, says", [("42", Verdict.PASS, "out[0] == 42"),
                                                   ("41", Verdict.FAIL, "expected 42, the device stored 41"),
                                                   ("none", Verdict.FAIL, "no value kernel")])
def test_device_values_launch_the_members_value_kernel(tmp_path, answer, verdict, says):
    session, cfg, log = _session(tmp_path, *_oracle(tmp_path, side="device"), answer=answer)
    try:
        recs = run_batch(session, session.cases, cfg)
    finally:
        session.close()
    assert all(r.judgement.verdict is verdict and says in r.judgement.reason for r in recs), \
        [r.judgement.reason for r in recs]
    kernels = [line for line in log.read_text().splitlines()]
    if verdict is Verdict.PASS:
        assert len(kernels) == 3 and all(r.batch["how"] == "batch" for r in recs)
        assert '"_ZN5sg_b09sg_kernelEPi"' in kernels[0] and '"_ZN5sg_b29sg_kernelEPi"' in kernels[2]


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
        recs = run_batch(session, session.cases, cfg)
    finally:
        session.close()
    assert all(r.judgement.verdict is Verdict.PASS and r.behaviour["ran"] for r in recs), \
        [r.judgement.reason for r in recs]
    assert "nvcc -dlink" in recs[0].behaviour["what"]
    assert len(log.read_text().splitlines()) == 3
