"""clang as the third compiler: its output read into phases, its scope, and real clang++-22 judging cases."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from suitegen.compilers import backends, clang
from suitegen.model import Compiler, Outcome, Phase

from conftest import REPO

CLANG = shutil.which("clang++-22")
needs_clang = pytest.mark.skipif(CLANG is None, reason="needs clang++-22 (Debian's clang-22; .ci/run installs it)")
DEVICE = ' "/usr/lib/llvm-22/bin/clang" -cc1 -triple nvptx64-nvidia-cuda -S -o /tmp/a.s -x cuda main.cu\n'
PTXAS = ' "/usr/local/cuda/bin/ptxas" -m64 -O3 --gpu-name sm_90 --output-file /tmp/a.o /tmp/a.s\n'


def test_a_front_end_error_has_its_file_line_and_phase():
    text = DEVICE + "main.cu:2:18: error: no matching function for call to 'g'\n1 error generated.\n"
    r = clang.classify(["clang++"], 1, text, 0.1)
    assert r.outcome is Outcome.REJECTED and r.phase is Phase.CLANG
    (d,) = r.diagnostics
    assert (d.file, d.line, d.severity) == ("main.cu", 2, "error")


def test_a_stage_after_the_front_end_is_that_stage():
    text = DEVICE + PTXAS + "ptxas fatal   : Unresolved extern function '_Znwm'\n" \
        "clang++: error: ptxas command failed with exit code 255 (use -v to see invocation)\n"
    r = clang.classify(["clang++"], 1, text, 0.1)
    assert r.outcome is Outcome.REJECTED and r.phase is Phase.PTXAS
    assert [d.phase for d in r.diagnostics] == [Phase.PTXAS, Phase.PTXAS], "the driver's closing line goes to ptxas"


def test_the_driver_refusing_its_command_line_is_no_verdict_and_a_crash_is_a_crash():
    r = clang.classify(["clang++"], 1, "clang++: error: unsupported option '--frobnicate'\n", 0.1)
    assert r.outcome is Outcome.TOOLCHAIN_ERROR and r.phase is Phase.CLANG_DRIVER
    crash = DEVICE + "PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/\nStack dump:\n"
    assert clang.classify(["clang++"], 1, crash, 0.1).outcome is Outcome.CRASHED
    backend = DEVICE + "fatal error: error in backend: Cannot select: intrinsic\n"
    assert clang.classify(["clang++"], 1, backend, 0.1).phase is Phase.LLVM


def test_the_backend_is_chosen_by_the_path_and_translates_nvcc_flags():
    assert backends.owning("/usr/bin/clang++-22").kind is Compiler.CLANG
    assert backends.owning("/usr/local/cuda/bin/nvcc").kind is Compiler.NVCC
    assert backends.owning("/x/libnvrtc.so.13").kind is Compiler.NVRTC
    assert clang.translate(["-rdc=true", "-fmad=false", "--extended-lambda"]) == ["-fgpu-rdc", "-ffp-contract=off"]
    assert clang.inputs(["a.cu", "b.o", "c.cu"]) == ["-x", "cuda", "a.cu", "-x", "none", "b.o", "-x", "cuda", "c.cu"]


def cli(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "suitegen", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout)


def records(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


@needs_clang
def test_clang_judges_cases_by_outcome_phase_and_line(tmp_path):
    out = tmp_path / "run"
    done = cli("run", "--nvcc", CLANG, "--rules", "rtti/typeid-host-only", "--rules", "managed/no-const-type",
               "--std", "c++17", "--arch", "sm_90,compute_90", "--no-exec", "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    recs = records(out)
    assert {r["config"]["compiler"] for r in recs} == {"clang"}
    by = {(r["case_id"], r["config"]["arch"]): r for r in recs}
    assert not [r for r in recs if r["verdict"] in ("FAIL", "UNRESOLVED", "XPASS")]
    ptx = [r for r in recs if r["config"]["arch"] == "compute_90"]
    assert ptx and all(r["verdict"] == "UNSUPPORTED" and "PTX-only" in r["reason"] for r in ptx)
    passed = [r for (_, arch), r in by.items() if arch == "sm_90" and r["verdict"] == "PASS"
              and r["expected"]["expect"] == "reject"]
    assert passed, "some rejection is clang's too"
    for r in passed:  # by its line and phase: clang's words are not nvcc's
        errors = [d for d in r["observed"]["diagnostics"] if d["severity"] == "error"]
        assert any(d["line"] == r["expected"]["line"] and d["phase"] in ("clang", "llvm") for d in errors)
    known = [r for r in recs if r["rule"] == "managed/no-const-type" and r["config"]["arch"] == "sm_90"]
    xfail = [r for r in known if r["verdict"] == "XFAIL"]
    assert xfail and all("deviations/clang-22/" in r["deviation"]["file"] for r in xfail), "clang's own deviations"


def test_the_linker_reporting_its_mode_is_no_error():
    link = ' "/usr/bin/ld" --hash-style=gnu -m elf_x86_64 -o main.out main.o\n'
    r = clang.classify(["clang++"], 0, link + "/usr/bin/ld: mode elf_x86_64\n", 0.1)
    assert r.outcome is Outcome.ACCEPTED and not r.diagnostics
    bad = clang.classify(["clang++"], 1, link + "/usr/bin/ld: main.o: undefined reference to `f()'\n"
                         "clang++: error: linker command failed with exit code 1 (use -v to see invocation)\n", 0.1)
    assert bad.outcome is Outcome.REJECTED and bad.phase is Phase.LINK
