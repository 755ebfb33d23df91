"""A single build expected to be rejected by the device front end runs only up to it first (nvcc -ptx), on real nvcc."""
import json

import pytest

from suitegen.frontends.cli import main

from conftest import needs_nvcc, write_demo_oracle


def rule(name: str, statement: str, diagnostic: str) -> str:
    """Return a demo rule whose one variant (the call template's program) the front end must reject."""
    return f'''
[[rule]]
id = "{name}"
statement = "{statement}"
template = "demo/call.cu.j2"
phase = "front-end"
diagnostic = "{diagnostic}"

  [[rule.variant]]
  name = "neg"
  expect = "reject"
'''


RULES = ('section = "demo"\n'
         + rule("host-call", "A __global__ function may not call a __host__ function.", "calling a __host__ function")
         + rule("host-call-misworded",
                "The same program, expecting words nvcc does not print (so its verdict is FAIL).", "no such words"))
TEMPLATE = '''\
int h() { return 1; }
__global__ void k(int *p) { *p = h(); {{ CHECK }}
}
'''


@needs_nvcc
@pytest.mark.nvcc
def test_a_front_end_rejection_is_built_only_up_to_cicc_and_a_fail_comes_from_the_full_build(tmp_path, capsys):
    orc, tpl = write_demo_oracle(tmp_path, RULES, {"call.cu.j2": TEMPLATE})
    out = tmp_path / "run"
    main(["run", "--oracle", str(orc), "--templates", str(tpl), "--std", "c++17", "--arch", "sm_90",
          "--batch", "off", "--no-exec", "--out", str(out), "-q"])
    err = capsys.readouterr().err
    assert (out / "results.jsonl").exists(), err
    records = {r["rule"]: r for r in map(json.loads, (out / "results.jsonl").open())}
    passed, failed = records["demo/host-call"], records["demo/host-call-misworded"]
    assert passed["verdict"] == "PASS" and passed["observed"]["phase"] == "cicc"
    assert "-ptx" in passed["observed"]["commands"][0], "judged from the short build"
    assert failed["verdict"] == "FAIL" and failed["observed"]["phase"] == "cicc"
    command = failed["observed"]["commands"][0]
    assert "-ptx" not in command and "-c" in command, "a FAIL's evidence is the full command"


@needs_nvcc
@pytest.mark.nvcc
@pytest.mark.parametrize("std", ["c++11", "c++20"])
def test_the_short_build_of_sm_xx_runs_the_same_stages_as_compute_xx(tmp_path, std):
    """Why configs sm_90 and compute_90 may share one short build: nvcc -ptx runs the same commands for both."""
    import re
    import shutil
    import subprocess

    from suitegen.compilers.nvcc import virtual_arch

    (tmp_path / "main.cu").write_text("__global__ void k(int *p) { *p = __CUDA_ARCH__; }\n")

    def stages(arch: str) -> list[str]:
        done = subprocess.run([shutil.which("nvcc"), "--dryrun", f"-std={std}", arch, "-ptx", "main.cu", "-o", "main.ptx"],
                              cwd=tmp_path, capture_output=True, text=True, check=True)
        return [re.sub(r"tmpxft_\w+?_\d+", "TMP", line) for line in (done.stdout + done.stderr).splitlines()]

    real, virtual = stages("-arch=sm_90"), stages(virtual_arch("-arch=sm_90"))
    assert virtual_arch("-arch=sm_90") == "-arch=compute_90" and virtual_arch("-std=c++17") == "-std=c++17"
    assert any("cicc" in line for line in real)
    assert real == virtual


@needs_nvcc
@pytest.mark.nvcc
@pytest.mark.parametrize("arch", ["sm_90", "sm_80+sm_90"])
def test_a_short_build_runs_the_full_build_s_front_end_stages_and_stands_only_where_its_first_cicc_failed(
        tmp_path, arch):
    """nvcc --dryrun shows the short command's device preprocessor and cicc commands to be the full build's, target
    by target; with two targets, a rejection by the second target's cicc is no short verdict (in the full build
    the first target's ptxas ran before it)."""
    import subprocess

    from suitegen.compilers import backends, nvcc_stages
    from suitegen.qualification.session import probe_toolchains
    from suitegen.model import Config, Mode, Std

    (toolchain,) = probe_toolchains()
    config = Config(toolchain=toolchain, std=Std("c++17"), arch=arch)
    nvcc = backends.of(toolchain.kind)
    short = nvcc.front_end_command(config, Mode.COMPILE, (), ["main.cu"])
    full = nvcc.build_command(config, Mode.COMPILE, (), ["main.cu"], "main.o")
    assert short is not None and "-c" not in short and ("-ptx" in short or "-fatbin" in short)
    if "+" in arch:  # the targets in the full build's order would be compiled in the other order
        unordered = [*full[:full.index("-c")], "-fatbin", "main.cu", "-o", "main.fatbin"]
        assert not nvcc_stages.same_front_end(toolchain, full, unordered)
    for bad, first in ((90, "+" not in arch), (80, True)):
        source = f"#if __CUDA_ARCH__ == {bad}0\n__device__ int f() {{ return undeclared_name(); }}\n#endif\n"
        (tmp_path / "main.cu").write_text(source)
        done = subprocess.run(short, cwd=tmp_path, capture_output=True, text=True)
        if bad == 80 and "+" not in arch:
            assert done.returncode == 0  # sm_90 alone never sees it
            continue
        assert done.returncode != 0 and "undeclared_name" in done.stdout + done.stderr
        assert nvcc_stages.failed_at_first_front_end(done.stdout + done.stderr) is first


BATCH_RULES = RULES + rule("host-call-again", "The same rule once more, so that two members of the batch pass.",
                           "calling a __host__ function")


@needs_nvcc
@pytest.mark.nvcc
def test_a_batch_of_front_end_rejections_is_built_only_up_to_cicc_first_with_the_verdicts_of_single_builds(
        tmp_path, capsys):
    orc, tpl = write_demo_oracle(tmp_path, BATCH_RULES, {"call.cu.j2": TEMPLATE})
    runs = {}
    for batching in ("on", "off"):
        out = tmp_path / f"run-{batching}"
        main(["run", "--oracle", str(orc), "--templates", str(tpl), "--std", "c++17", "--arch", "sm_90",
              "--batch", batching, "--no-exec", "--no-cache", "--out", str(out), "-q"])
        assert (out / "results.jsonl").exists(), capsys.readouterr().err
        runs[batching] = {r["rule"]: r for r in map(json.loads, (out / "results.jsonl").open())}
    assert {k: r["verdict"] for k, r in runs["on"].items()} == {k: r["verdict"] for k, r in runs["off"].items()} == {
        "demo/host-call": "PASS", "demo/host-call-again": "PASS", "demo/host-call-misworded": "FAIL"}
    for rule in ("demo/host-call", "demo/host-call-again"):
        record = runs["on"][rule]
        command = record["observed"]["commands"][0]
        assert record["batch"]["how"] == "batch" and "-ptx" in command and "batch.cu" in command, record
    failed = runs["on"]["demo/host-call-misworded"]
    command = failed["observed"]["commands"][0]
    assert failed["batch"]["how"] == "alone" and "-ptx" not in command and "main.cu" in command, \
        "a FAIL's evidence is its own full command"
