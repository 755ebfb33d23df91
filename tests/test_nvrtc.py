"""NVRTC as a toolchain: the real library (nvidia-cuda-nvrtc from the package index) judges the oracle's
device-side cases; host-side ones are UNSUPPORTED with a reason; deviations are per compiler."""
import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from suitegen.compilers import compile as build
from suitegen.compilers import nvrtc, registry
from suitegen.compilers.toolchain import ToolchainError, probe
from suitegen.qualification import session as engine
from suitegen.qualification.item import run_one
from suitegen.engine.options import RunOptions
from suitegen.execute.gpus import detect_gpu
from suitegen.execute.images import module_targets
from suitegen.model import Compiler, Config, Mode, Outcome, Phase, Std, Verdict
from suitegen.oracle import loader

RELEASE = "13.0.88"
# outside the per-test cache, so a machine downloads the wheel (about 90 MB) once
INSTALL = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "suitegen-tests" / f"nvrtc-{RELEASE}"


def toolkit_nvrtc() -> str | None:
    """The NVRTC of the toolkit whose nvcc is on PATH, where it has one (a full install, as on the GPU machine)."""
    nvcc = shutil.which("nvcc")
    if not nvcc:
        return None
    top = Path(nvcc).resolve().parent.parent
    found = sorted([*top.glob("lib64/libnvrtc.so.*[0-9]"), *top.glob("targets/*/lib/libnvrtc.so.*[0-9]")])
    return str(found[0]) if found else None


@pytest.fixture(scope="session")
def nvrtc_lib() -> str:
    """The real NVRTC library: $SUITEGEN_TEST_NVRTC, the toolkit's own, or nvidia-cuda-nvrtc==13.0.88
    installed once by pip (this machine's trimmed toolkit has none)."""
    given = os.environ.get("SUITEGEN_TEST_NVRTC") or toolkit_nvrtc()
    if given:
        return given
    found = sorted(INSTALL.glob("nvidia/*/lib/libnvrtc.so.*[0-9]"))
    if not found:
        done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                               "--no-deps", "--target", str(INSTALL), f"{registry.NVRTC_PACKAGE}=={RELEASE}"],
                              capture_output=True, text=True)
        found = sorted(INSTALL.glob("nvidia/*/lib/libnvrtc.so.*[0-9]"))
        if done.returncode != 0 or not found:
            pytest.skip(f"needs {registry.NVRTC_PACKAGE}=={RELEASE} from the package index: {done.stderr[-300:]}")
    return str(found[0])


@pytest.fixture(scope="module")
def session(nvrtc_lib):
    opts = RunOptions(nvcc=(nvrtc_lib,), rules=("long-double/*", "device-memory-space/*", "managed/*",
                                                "execution-space-specifiers/*"), no_exec=True)
    return engine.open_session(opts)


def _config(session, arch="sm_90"):
    (tc,) = session.toolchains
    return Config(toolchain=tc, std=Std.parse("c++17"), arch=arch)


def _case(session, rule, variant):
    return next(c for c in session.cases if c.rule.id == rule and c.variant.name == variant)


def test_the_probe_names_the_release_and_kind(session, nvrtc_lib):
    (tc,) = session.toolchains
    assert tc.kind is Compiler.NVRTC and tc.version[:2] == (13, 0) and tc.label == "nvrtc-13.0"
    assert probe(nvrtc_lib).fingerprint == tc.fingerprint
    assert "nvrtc" in session.features[tc.fingerprint] and "host-gcc" not in session.features[tc.fingerprint]


def test_device_side_cases_are_judged_by_nvrtc(session):
    cfg = _config(session)
    valid = run_one(session, _case(session, "long-double/not-in-device-code", "pos-host-local"), cfg)
    assert valid.verdict is Verdict.UNSUPPORTED and "host code" in valid.reason, \
        "a case with a host function is out of NVRTC's scope, and NVRTC says so"
    rejected = next(r for r in (run_one(session, c, cfg) for c in session.cases
                                if c.rule.id == "execution-space-specifiers/device-callable-from-device-only"
                                and c.variant.expectation.expect.value == "reject")
                    if r.observed is not None and r.observed.outcome is Outcome.REJECTED)
    assert rejected.observed.phase is Phase.NVRTC
    assert rejected.observed.commands[0][1:3] == ("-m", "suitegen.compilers.nvrtc")
    accepted = [run_one(session, c, cfg) for c in session.cases if c.rule.id.startswith("device-memory-space/")
                and c.variant.expectation.expect.value == "accept"][:6]
    assert any(r.verdict is Verdict.PASS and r.observed.outcome.accepted for r in accepted)


def test_host_side_cases_are_unsupported_with_a_reason(session):
    cfg = _config(session)
    linked = next(c for c in session.cases if c.variant.mode is not Mode.COMPILE and c.variant.mode is not Mode.FATBIN)
    rec = run_one(session, linked, cfg)
    assert rec.verdict is Verdict.UNSUPPORTED and rec.observed is None
    assert "NVRTC compiles device code only" in rec.reason
    multi = run_one(session, session.cases[0], _config(session, "sm_80+sm_90"))
    assert multi.verdict is Verdict.UNSUPPORTED and "one target" in multi.reason


def test_nvrtc_writes_a_cubin_or_ptx_module_for_its_target(nvrtc_lib, tmp_path):
    (tmp_path / "k.cu").write_text("__global__ void sg_kernel(int *out) { *out = 42; }\n")
    for arch, name, want in (("sm_90", "k.cubin", ["sm_90"]), ("compute_90", "k.ptx", ["compute_90"])):
        argv = nvrtc.command(nvrtc_lib, "c++17", arch, (), "k.cu", name)
        result = build.run_build(argv, tmp_path, 120, nvrtc.BACKEND)
        assert result.outcome is Outcome.ACCEPTED, result.output
        assert module_targets((tmp_path / name).read_bytes()) == want
    assert b"_Z9sg_kernelPi" in (tmp_path / "k.ptx").read_bytes()


def test_a_library_that_fails_is_a_toolchain_error_not_a_verdict(tmp_path):
    fake = tmp_path / "libnvrtc.so.13"
    fake.write_bytes(b"not a library")
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n")
    result = build.run_build(nvrtc.command(str(fake), "c++17", "sm_90", (), "k.cu", "k.cubin"), tmp_path, 60, nvrtc.BACKEND)
    assert result.outcome is Outcome.TOOLCHAIN_ERROR and "cannot load" in result.output
    with pytest.raises(ToolchainError, match="cannot load the NVRTC library"):
        probe(str(fake))


def test_deviations_belong_to_one_compiler(tmp_path, session):
    root = tmp_path / "oracle"
    (root / "deviations" / "x").mkdir(parents=True)
    rule = "long-double/not-in-device-code"
    for compiler in ("nvcc", "nvrtc"):
        (root / "deviations" / "x" / f"{compiler}.toml").write_text(
            f'compiler = "{compiler}"\nwhen = "nvcc==13.0"\n[[deviation]]\nrule = "{rule}"\n'
            f'variants = ["neg-device-local"]\nobserved = "accepted"\ndiagnostic = "none"\nseen = "2026-11-23"\n')
    devs = loader.load_deviations(root / "deviations" / "x" / "nvrtc.toml", {rule: "x"})
    devs += loader.load_deviations(root / "deviations" / "x" / "nvcc.toml", {rule: "x"})
    case = _case(session, rule, "neg-device-local")
    (nv,) = session.toolchains
    from suitegen.qualification.facts import make_env
    from suitegen.judge.deviations import covering
    env_rtc = make_env(_config(session), case, session.features[nv.fingerprint])
    env_cc = dataclasses.replace(env_rtc, features=env_rtc.features - {"nvrtc"}, compiler=Compiler.NVCC)
    env_clang = dataclasses.replace(env_cc, compiler=Compiler.CLANG)
    assert [d.compiler for d in devs] == [Compiler.NVRTC, Compiler.NVCC]
    exp = case.variant.expectation
    assert covering(case, env_rtc, devs, exp) == devs[:1] and covering(case, env_cc, devs, exp) == devs[1:]
    assert covering(case, env_clang, devs, exp) == [], "neither covers a third compiler's items"
    (root / "deviations" / "x" / "bad.toml").write_text('compiler = "gcc"\nwhen = "nvcc==13.0"\n')
    with pytest.raises(loader.OracleError, match="compiler is one of"):
        loader.load_deviations(root / "deviations" / "x" / "bad.toml", {})


def test_registry_installs_nvrtc_with_pip(tmp_path, monkeypatch, nvrtc_lib):
    monkeypatch.setenv("SUITEGEN_CACHE", str(tmp_path / "cache"))
    calls = []

    def fake_pip(argv, **kw):  # stands in for pip: lays out the wheel's files (the real library, linked)
        assert f"{registry.NVRTC_PACKAGE}==13.0.88" in argv
        lib = tmp_path / "cache" / "toolchains" / "nvrtc-13.0.88" / "nvidia" / "cu13" / "lib"
        lib.mkdir(parents=True)
        for f in Path(nvrtc_lib).parent.glob("libnvrtc*"):
            (lib / f.name).symlink_to(f)
        calls.append(argv)
        return subprocess.CompletedProcess(argv, 0, "", "")

    entry = registry.add_nvrtc("13.0.88", runner=fake_pip)
    assert entry["name"] == "nvrtc-13.0.88" and entry["kind"] == "nvrtc" and len(calls) == 1
    assert registry.resolve("nvrtc-13.0.88") == entry["nvcc"]
    assert registry.add_nvrtc("13.0.88", runner=fake_pip)["fingerprint"] == entry["fingerprint"] and len(calls) == 1
    failing = lambda argv, **kw: subprocess.CompletedProcess(argv, 1, "", "ERROR: No matching distribution")
    with pytest.raises(ToolchainError, match="pip could not install nvidia-cuda-nvrtc==13.9.99"):
        registry.add_nvrtc("13.9.99", runner=failing)


GPU = detect_gpu()


@pytest.mark.gpu
@pytest.mark.skipif(not GPU.available, reason=f"needs a CUDA GPU ({GPU.reason})")
@pytest.mark.parametrize("planted", [False, True])
def test_nvrtc_modules_run_their_value_checks_on_the_gpu(nvrtc_lib, planted):
    """NVRTC's cubin runs its value kernel through cupy; a source edit that turns * into + must FAIL."""
    opts = RunOptions(nvcc=(nvrtc_lib,), rules=("vector-types/*", "cxx11-features/*"))
    gpu_session = engine.open_session(opts)
    cfg = _config(gpu_session)
    valued = [c for c in gpu_session.cases if c.variant.value is not None and " * " in next(iter(c.files.values()))]
    if planted:
        valued = [dataclasses.replace(c, files={k: v.replace(" * ", " + ") for k, v in c.files.items()})
                  for c in valued]
    try:
        recs = [run_one(gpu_session, c, cfg) for c in valued[:12]]
    finally:
        gpu_session.close()
    ran = [r for r in recs if r.execution is not None]
    assert ran, [r.reason for r in recs]
    assert all(r.behaviour.loaded == "SASS sm_90" for r in ran)
    if planted:
        assert any(r.verdict is Verdict.FAIL and "expected" in r.reason for r in ran)
    else:
        assert all(r.verdict is Verdict.PASS and r.behaviour.ran for r in ran), \
            [r.reason for r in ran if r.verdict is not Verdict.PASS]


def test_nvrtc_lists_the_targets_it_compiles_for(session):
    from suitegen.compilers import archs
    (tc,) = session.toolchains
    assert {"sm_90", "compute_90"} <= archs.known(tc)
    assert archs.unknown("sm_5", archs.known(tc)) == ["sm_5"] and archs.unknown("sm_90a", archs.known(tc)) == []
