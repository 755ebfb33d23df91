"""Load-only: a valid compile-only item's device module is loaded on the GPU (every kernel resolved).

The module is the object's .nv_fatbin section, byte for byte what ``nvcc -fatbin`` writes (the form the
fatbin runner already loads), built by the real nvcc here; the GPU worker is a fake that checks the
image's magic and counts its loads, so the engine's side runs without a GPU.
"""
import dataclasses
import json
import subprocess
import sys

import pytest

from suitegen.compilers import cache
from suitegen.compilers.compile import MODULE, compile_case
from suitegen.qualification import session as engine
from suitegen.qualification.item import run_one
from suitegen.engine.options import RunOptions
from suitegen.execute.fatbin import FatbinRunner
from suitegen.execute.gpus import GpuPool
from suitegen.execute.images import module_targets
from suitegen.judge.behaviour import tally
from suitegen.model import Batched, ExecStatus, Verdict

from conftest import batch_of, needs_nvcc, plain_config

pytestmark = [needs_nvcc, pytest.mark.nvcc]
RULE = "device-memory-space/no-automatic-in-device-function"

FAKE_LOADER = '''
import json, sys
for line in sys.stdin:
    req = json.loads(line)
    data = open(req["load"], "rb").read()
    open(sys.argv[1], "a").write(req["load"] + "\\n")
    ok = data[:4] == b"\\x50\\xed\\x55\\xba" and sys.argv[2] == "ok"
    print(json.dumps({"ok": ok, "out": [], "error": "CUDA_ERROR_NO_BINARY_FOR_GPU (planted)"}), flush=True)
'''


@pytest.fixture(scope="module")
def base():
    return engine.open_session(RunOptions(rules=(RULE,)))


def _with_gpu(base, tmp_path, answer="ok"):
    worker = tmp_path / "loader.py"
    worker.write_text(FAKE_LOADER)
    log = tmp_path / "loads.log"
    gpus = GpuPool("0", ("NVIDIA H100 80GB HBM3, 9.0, 550.54.15",))
    runner = FatbinRunner(gpus, timeout=20, command=(sys.executable, str(worker), str(log), answer))
    return dataclasses.replace(base, gpus=gpus, fatbin=runner, execution_skipped=None), log


def _config(base):
    return plain_config(base.toolchains, RunOptions(std=("c++17",), arch=("sm_80",), profile="quick"))


def _positives(base):
    """The rule's valid cases, as load-only ones (their value checks are tests/test_values.py's business)."""
    return [dataclasses.replace(c, variant=dataclasses.replace(c.variant, value=None))
            for c in base.cases if c.variant.name.startswith("pos-static")]


def test_the_module_is_the_objects_fatbin_and_the_cache_keeps_it(base, tmp_path):
    case, cfg = _positives(base)[0], _config(base)
    (tmp_path / "a").mkdir()
    compile_case(case, cfg, tmp_path / "a", cached=True, image=True)
    image = (tmp_path / "a" / MODULE).read_bytes()
    assert image.startswith(cache.FATBIN_MAGIC)
    fat = tmp_path / "main.fatbin"
    (tmp_path / "main.cu").write_text(case.files["main.cu"])
    subprocess.run([cfg.toolchain.nvcc, f"-std={cfg.std.value}", "-arch=sm_80", "-fatbin", "main.cu", "-o",
                    str(fat)], cwd=tmp_path, check=True, capture_output=True)
    assert image == fat.read_bytes(), "byte for byte what nvcc -fatbin writes"
    (tmp_path / "b").mkdir()
    hit = compile_case(case, cfg, tmp_path / "b", cached=True, image=True)
    assert hit.cached and (tmp_path / "b" / MODULE).read_bytes() == image, "a cache hit brings its module"


def test_a_valid_item_is_loaded_and_says_what_the_driver_runs(base, tmp_path):
    session, log = _with_gpu(base, tmp_path)
    try:
        rec = run_one(session, _positives(base)[0], _config(base))
    finally:
        session.close()
    assert rec.verdict is Verdict.PASS and rec.execution.status is ExecStatus.PASSED
    assert rec.behaviour.check == "load-only" and rec.behaviour.ran
    assert rec.behaviour.loaded.startswith("PTX compute_80, JIT-compiled"), "sm_80 on a 9.0 GPU"
    assert len(log.read_text().splitlines()) == 1


def test_a_module_that_does_not_load_fails_its_item(base, tmp_path):
    session, _ = _with_gpu(base, tmp_path, answer="refuse")
    try:
        rec = run_one(session, _positives(base)[0], _config(base))
    finally:
        session.close()
    assert rec.verdict is Verdict.FAIL and "did not load" in rec.reason
    assert "NO_BINARY_FOR_GPU" in rec.reason


def test_a_batch_loads_its_module_once_for_all_members(base, tmp_path):
    session, log = _with_gpu(base, tmp_path)
    cases = _positives(base)
    try:
        recs = batch_of(session, cases, _config(base))
    finally:
        session.close()
    assert len(cases) >= 3 and all(isinstance(r.batch, Batched) for r in recs)
    assert all(r.execution.status is ExecStatus.PASSED and r.behaviour.ran for r in recs)
    assert len(log.read_text().splitlines()) == 1, "one load per batch module"
    assert json.loads(json.dumps(recs[0].to_json()))["behaviour"]["check"] == "load-only"


def _rdc(case):
    return dataclasses.replace(case, variant=dataclasses.replace(case.variant, flags=(*case.variant.flags,
                                                                                      "-rdc=true")))


def test_module_targets_reads_what_a_real_fatbin_holds(base, tmp_path):
    cfg = _config(base)
    (tmp_path / "main.cu").write_text("__global__ void k(int *o) { *o = 1; }\n")
    out = {}
    for name, arch in (("one", ["-arch=sm_80"]), ("two", ["-gencode", "arch=compute_80,code=sm_80", "-gencode",
                                                          "arch=compute_90,code=[sm_90,compute_90]"])):
        subprocess.run([cfg.toolchain.nvcc, *arch, "-fatbin", "main.cu", "-o", f"{name}.fatbin"], cwd=tmp_path,
                       check=True, capture_output=True)
        out[name] = module_targets((tmp_path / f"{name}.fatbin").read_bytes())
    assert out == {"one": ["sm_80", "compute_80"], "two": ["sm_80", "sm_90", "compute_90"]}
    assert module_targets(b"not a fatbin at all") is None


def test_a_relocatable_objects_module_keeps_the_kernels_host_code_does_not_launch(base, tmp_path):
    # nvlink drops kernels the host code does not reference unless told to ignore that record: a value
    # kernel, which only the driver launches, would be missing from the module
    case = dataclasses.replace(_positives(base)[0])
    text = case.files["main.cu"] + "\n__global__ void sg_unlaunched(int *o) { *o = 3; }\n" \
        "__global__ void sg_launched(int *o) { *o = 4; }\nvoid go(int *o) { sg_launched<<<1, 1>>>(o); }\n"
    case = _rdc(dataclasses.replace(case, files={"main.cu": text}))
    cfg = _config(base)
    result = compile_case(case, cfg, tmp_path, image=True)
    assert result.outcome.accepted
    image = (tmp_path / MODULE).read_bytes()
    assert b"_Z11sg_launchedPi" in image and b".text._Z13sg_unlaunchedPi" in image


def test_a_module_the_gpu_cannot_run_is_not_run_and_says_why(base, tmp_path):
    # an -rdc=true object for sm_80: its device-linked module holds sm_80 SASS only, which a 9.0 GPU cannot run
    session, log = _with_gpu(base, tmp_path)
    try:
        rec = run_one(session, _rdc(_positives(base)[0]), _config(base))
    finally:
        session.close()
    assert rec.execution.status is ExecStatus.NOT_RUN and not log.exists(), "nothing sent to the GPU"
    assert rec.verdict is Verdict.PASS and "holds sm_80, nothing GPU 0" in rec.reason
    assert rec.behaviour.ran is False and "sm_80" in rec.behaviour.not_run
    assert tally([rec])["load-only not run"] == 1
