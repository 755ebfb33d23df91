"""Observing what a build config actually did: mismatch rules, the probe against real nvcc, a fake nvcc's
error paths, and the cache and memo that keep each config to one compile."""
import json
import shutil
import threading
import uuid

import pytest

from suitegen.compilers import observe as obs
from suitegen.compilers.observe import honoured_stds, mismatch, observe
from suitegen.compilers.toolchain import cache_root, probe
from suitegen.model import ObservedConfig, Std, Toolchain

from conftest import PROBE_ANSWER, PROBE_STAGE, needs_nvcc

HONOURED = ObservedConfig(host_cplusplus=201703, device_cplusplus=(201703,), cuda_arch=(900,),
                          targets=("sm_90", "compute_90"))
TWO = ObservedConfig(host_cplusplus=202002, device_cplusplus=(202002, 202002), cuda_arch=(800, 900),
                     targets=("sm_80", "sm_90"), macros=("__CUDACC_EXTENDED_LAMBDA__",))
IGNORED = "The -std=c++23 flag is not supported with the configured host compiler. Flag will be ignored."


@pytest.mark.parametrize("observed, std, arch, flags, expected", [
    (HONOURED, Std.CXX17, "sm_90", (), None),
    (TWO, Std.CXX20, "sm_80+sm_90", ("--extended-lambda",), None),
    (ObservedConfig(host_cplusplus=201703, device_cplusplus=(201703,), cuda_arch=(900,),
                    targets=("compute_90",)), Std.CXX17, "compute_90", (), None),
    (ObservedConfig(host_cplusplus=201703, device_cplusplus=(201703,), cuda_arch=(900,), targets=("sm_90",),
                    warnings=(IGNORED,)), Std.CXX23, "sm_90", (),
     f"asked -std=c++23, host compiled as __cplusplus 201703; asked -std=c++23, device compiled as "
     f"__cplusplus 201703 (nvcc: {IGNORED})"),
    (ObservedConfig(host_cplusplus=202100, device_cplusplus=(202100,), cuda_arch=(900,), targets=("sm_90",)),
     Std.CXX23, "sm_90", (), None),  # GCC 12's working-draft value counts as c++23
    (HONOURED, Std.CXX20, "sm_90", (), "host compiled as __cplusplus 201703"),
    (ObservedConfig(host_cplusplus=201703, cuda_arch=(), targets=("sm_90",)), Std.CXX17, "sm_90", (),
     "no device compilation reported __cplusplus"),
    (ObservedConfig(device_cplusplus=(201703,), cuda_arch=(900,), targets=("sm_90",)), Std.CXX17, "sm_90", (),
     "host compilation reported no __cplusplus"),
    (ObservedConfig(host_cplusplus=202002, device_cplusplus=(202002, 201703), cuda_arch=(800, 900),
                    targets=("sm_80", "sm_90")), Std.CXX20, "sm_80+sm_90", (), "device compiled as __cplusplus 201703"),
    (HONOURED, Std.CXX17, "sm_80", (), "asked arch sm_80, device code compiled for __CUDA_ARCH__ 900 (expected 800)"),
    (ObservedConfig(host_cplusplus=202002, device_cplusplus=(202002,), cuda_arch=(900,),
                    targets=("sm_80", "sm_90")),
     Std.CXX20, "sm_80+sm_90", (), "compiled for __CUDA_ARCH__ 900 (expected 800, 900)"),
    (HONOURED, Std.CXX17, "compute_90", (), None),  # the PTX is there (and SASS besides)
    (ObservedConfig(host_cplusplus=201703, device_cplusplus=(201703,), cuda_arch=(900,), targets=("sm_90",)),
     Std.CXX17, "compute_90", (), "asked arch compute_90, the module holds sm_90 (missing compute_90)"),
    (ObservedConfig(host_cplusplus=201703, device_cplusplus=(201703,), cuda_arch=(900,), targets=("compute_90",)),
     Std.CXX17, "sm_90", (), "(missing sm_90)"),
    (HONOURED, Std.CXX17, "sm_90", ("--extended-lambda",),
     "asked --extended-lambda, but __CUDACC_EXTENDED_LAMBDA__ was not defined in every compilation"),
    (HONOURED, Std.CXX17, "sm_90", ("-rdc=true", "--expt-relaxed-constexpr"),
     "__CUDACC_RDC__, __CUDACC_RELAXED_CONSTEXPR__ were not defined"),
    (HONOURED, Std.CXX17, "sm_90", ("-lineinfo",), None),  # a flag with no macro asks for none
    (ObservedConfig(error="nvcc fatal   : Unsupported gpu architecture 'sm_99'"), Std.CXX17, "sm_99", (),
     "nvcc refused the config: nvcc fatal   : Unsupported gpu architecture 'sm_99'"),
], ids=["honoured", "two-targets", "ptx-only", "c++23-ignored", "c++23-draft-value", "wrong-host-dialect",
        "missing-device-side", "missing-host-side", "one-device-side-wrong", "wrong-arch", "target-not-compiled",
        "ptx-alongside-sass", "ptx-missing", "sass-missing", "flag-macro-missing", "two-macros-missing",
        "flag-without-macro", "error"])
def test_mismatch(observed, std, arch, flags, expected):
    got = mismatch(observed, std, arch, flags)
    if expected is None:
        assert got is None
    else:
        assert got is not None and expected in got


def test_parse_joins_literals_and_reads_fatbinary():
    output = ('#$ cicc ...\n'
              '#$ fatbinary --create="keep/p.fatbin" -64 "--image3=kind=elf,sm=80,file=keep/p.compute_80.cubin" '
              '"--image3=kind=elf,sm=90a,file=a.cubin" "--image3=kind=ptx,sm=90a,file=a.ptx" --embedded-fatbin="x"\n'
              "nvcc warning : '--device-debug (-G)' overrides '--generate-line-info (-lineinfo)'\n"
              'ptxas warning : not nvcc\'s own\n')
    probes = ["SUITEGEN-PROBE side=host cplusplus=201703L arch=none macro=__CUDACC_RDC__ end",
              "SUITEGEN-PROBE side=device cplusplus=201703L arch=900 macro=__CUDACC_RDC__ end",
              "SUITEGEN-PROBE side=device cplusplus=201703L arch=800 end"]
    got = obs.parse(output, probes)
    assert got == ObservedConfig(host_cplusplus=201703, device_cplusplus=(201703, 201703), cuda_arch=(800, 900),
                                 targets=("sm_80", "sm_90a", "compute_90a"), macros=(),
                                 warnings=("'--device-debug (-G)' overrides '--generate-line-info (-lineinfo)'",))


# --- a fake nvcc that answers like nvcc 13.5 with g++ 12: c++23 is ignored with a warning ---------------

def canned_answer(count) -> str:
    """The shared fake probe answer (conftest.PROBE_ANSWER), counting its listings in ``count`` (not the stages
    the listing runs)."""
    return PROBE_STAGE + f'echo run >> "{count}"\n' + PROBE_ANSWER


def fake_toolchain(nvcc) -> Toolchain:
    """A toolchain around a fake nvcc, with a fingerprint no other test shares (the cache is session-wide)."""
    return Toolchain(nvcc=str(nvcc), version=(13, 5, 37), version_text="fake", host_compiler="g++",
                     host_version="g++ 12", fingerprint=uuid.uuid4().hex[:16])


@pytest.fixture
def canned(fake_nvcc, tmp_path):
    """Return (toolchain, count file) for a fake nvcc printing canned probe output and counting its runs."""
    count = tmp_path / "runs"
    count.touch()
    return fake_toolchain(fake_nvcc(canned_answer(count), probe=False)), count


def runs(count) -> int:
    return len(count.read_text().splitlines())


def test_ignored_dialect_is_observed_and_reported(canned):
    tc, _ = canned
    got = observe(tc, Std.CXX23, "sm_90")
    assert got.host_cplusplus == 201703 and got.device_cplusplus == (201703,) and got.cuda_arch == (900,)
    assert got.warnings == (IGNORED,)
    assert got.targets == ("sm_90", "compute_90")
    assert mismatch(got, Std.CXX23, "sm_90").startswith("asked -std=c++23, host compiled as __cplusplus 201703")
    assert mismatch(got, Std.CXX23, "sm_90").endswith(f"(nvcc: {IGNORED})")


def test_honoured_stds(canned):
    tc, count = canned
    got = honoured_stds(tc)
    assert list(got) == list(Std)
    assert [s for s, why in got.items() if why is None] == [Std.CXX03, Std.CXX11, Std.CXX14, Std.CXX17, Std.CXX20]
    assert "Flag will be ignored" in got[Std.CXX23]
    assert runs(count) == len(Std)


def test_second_observe_uses_memo_then_disk_cache(canned):
    tc, count = canned
    first = observe(tc, Std.CXX17, "sm_90", ("--expt-relaxed-constexpr",))
    assert runs(count) == 1
    files = list((cache_root() / "configs" / tc.fingerprint).glob("*.json"))
    assert len(files) == 1
    mtime = files[0].stat().st_mtime_ns
    assert observe(tc, Std.CXX17, "sm_90", ("--expt-relaxed-constexpr",)) == first  # the memo
    obs.forget()
    assert observe(tc, Std.CXX17, "sm_90", ("--expt-relaxed-constexpr",)) == first  # the disk cache
    assert runs(count) == 1 and files[0].stat().st_mtime_ns == mtime
    observe(tc, Std.CXX17, "sm_90")  # other flags: another config
    assert runs(count) == 2


def test_corrupt_cache_costs_a_recompute(canned):
    tc, count = canned
    first = observe(tc, Std.CXX14, "sm_90")
    obs.forget()
    (path,) = (cache_root() / "configs" / tc.fingerprint).glob("*.json")
    path.write_text("{not json")
    assert observe(tc, Std.CXX14, "sm_90") == first and runs(count) == 2
    assert ObservedConfig.from_json(json.loads(path.read_text())["observed"]) == first


def test_swapped_cache_entries_are_detected_and_probed_again(canned):
    """Two configs' entries swapped on disk: each names another config, so neither is trusted; both are
    probed again and rewritten under their own names."""
    tc, count = canned
    c17, c20 = observe(tc, Std.CXX17, "sm_90"), observe(tc, Std.CXX20, "sm_90")
    assert c17.host_cplusplus == 201703 and c20.host_cplusplus == 202002 and runs(count) == 2
    folder = cache_root() / "configs" / tc.fingerprint
    p17, p20 = (folder / f"{obs.digest(std.value, 'sm_90', [])}.json" for std in (Std.CXX17, Std.CXX20))
    a, b = p17.read_bytes(), p20.read_bytes()
    p17.write_bytes(b)
    p20.write_bytes(a)
    obs.forget()
    assert observe(tc, Std.CXX17, "sm_90") == c17 and observe(tc, Std.CXX20, "sm_90") == c20
    assert runs(count) == 4, "both swapped entries were probed again"
    assert mismatch(observe(tc, Std.CXX17, "sm_90"), Std.CXX17, "sm_90") is None
    assert p17.read_bytes() == a and p20.read_bytes() == b, "and rewritten under their own names"


@pytest.mark.parametrize("entry", ["5", "[]", '{"key": null, "observed": {}}', "OLD",
                                   "WRONG_SHAPE"])
def test_a_cache_entry_of_another_shape_is_probed_again(canned, entry):
    tc, count = canned
    first = observe(tc, Std.CXX14, "sm_90")
    obs.forget()
    (path,) = (cache_root() / "configs" / tc.fingerprint).glob("*.json")
    whole = json.loads(path.read_text())
    text = {"OLD": json.dumps(whole["observed"]),  # an entry of before, which named no config
            "WRONG_SHAPE": json.dumps({**whole, "observed": {**whole["observed"], "cuda_arch": "900"}})}.get(entry, entry)
    path.write_text(text)
    assert observe(tc, Std.CXX14, "sm_90") == first and runs(count) == 2


def test_unwritable_cache_costs_only_a_recompute(canned, monkeypatch, tmp_path):
    tc, count = canned
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder should be (chmod does not stop root)")
    monkeypatch.setenv("SUITEGEN_CACHE", str(blocker))
    assert observe(tc, Std.CXX17, "sm_90").host_cplusplus == 201703
    obs.forget()
    assert observe(tc, Std.CXX17, "sm_90").host_cplusplus == 201703
    assert runs(count) == 2
    assert blocker.is_file() and list(tmp_path.glob("cache*")) == [blocker], "no temp file left behind"


def test_concurrent_threads_compile_once(fake_nvcc, tmp_path):
    count = tmp_path / "runs"
    count.touch()
    tc = fake_toolchain(fake_nvcc("sleep 0.3\n" + canned_answer(count), probe=False))
    results = []
    threads = [threading.Thread(target=lambda: results.append(observe(tc, Std.CXX20, "sm_80"))) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert runs(count) == 1
    assert len(results) == 6 and len(set(results)) == 1 and results[0].cuda_arch == (800,)


def test_failing_nvcc_gives_error_and_is_cached(fake_nvcc, tmp_path):
    count = tmp_path / "runs"
    tc = fake_toolchain(fake_nvcc(f"""echo run >> {count}
        echo '#$ _NVVM_BRANCH_=nvvm'
        echo "nvcc fatal   : Value 'c++23' is not defined for option 'std'" >&2
        exit 1""", probe=False))
    got = observe(tc, Std.CXX23, "sm_90")
    assert got == ObservedConfig(error="nvcc fatal   : Value 'c++23' is not defined for option 'std'")
    assert mismatch(got, Std.CXX23, "sm_90") == ("nvcc refused the config: "
                                                 "nvcc fatal   : Value 'c++23' is not defined for option 'std'")
    obs.forget()
    assert observe(tc, Std.CXX23, "sm_90") == got and runs(count) == 1  # a refusal is a fact: cached


def test_unstartable_nvcc_gives_error_not_cached(tmp_path):
    tc = fake_toolchain(tmp_path / "no-such-nvcc")
    got = observe(tc, Std.CXX17, "sm_90")
    assert got.error.startswith(f"cannot run {tmp_path / 'no-such-nvcc'}")
    assert mismatch(got, Std.CXX17, "sm_90").startswith("nvcc refused the config: cannot run")
    assert not (cache_root() / "configs" / tc.fingerprint).exists()


def test_timeout_gives_error_not_cached(fake_nvcc, tmp_path):
    count = tmp_path / "runs"
    tc = fake_toolchain(fake_nvcc(f"echo run >> {count}\nsleep 30", probe=False))
    assert observe(tc, Std.CXX17, "sm_90", timeout=0.5) == ObservedConfig(error="timed out")
    assert observe(tc, Std.CXX17, "sm_90", timeout=0.5).error == "timed out"
    assert runs(count) == 2, "a timeout is neither memoised nor cached"
    assert not (cache_root() / "configs" / tc.fingerprint).exists()


# --- the nvcc on PATH ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real():
    return probe(shutil.which("nvcc")) if shutil.which("nvcc") else None


@needs_nvcc
@pytest.mark.nvcc
def test_real_cxx17_sm90(real):
    got = observe(real, Std.CXX17, "sm_90")
    assert got.error == "" and got.host_cplusplus == 201703 and got.device_cplusplus == (201703,)
    assert got.cuda_arch == (900,)
    assert {"sm_90", "compute_90"} <= set(got.targets)
    assert mismatch(got, Std.CXX17, "sm_90") is None


@needs_nvcc
@pytest.mark.nvcc
def test_real_two_targets_with_extended_lambda(real):
    flags = ("--extended-lambda",)
    got = observe(real, Std.CXX20, "sm_80+sm_90", flags)
    assert got.host_cplusplus == 202002 and got.device_cplusplus == (202002, 202002)
    assert got.cuda_arch == (800, 900)
    assert {"sm_80", "sm_90"} <= set(got.targets)
    assert got.macros == ("__CUDACC_EXTENDED_LAMBDA__",)
    assert mismatch(got, Std.CXX20, "sm_80+sm_90", flags) is None
    assert "__CUDACC_RDC__" in mismatch(got, Std.CXX20, "sm_80+sm_90", (*flags, "-rdc=true"))


@needs_nvcc
@pytest.mark.nvcc
def test_real_ptx_only(real):
    got = observe(real, Std.CXX17, "compute_90")
    assert got.targets == ("compute_90",)
    assert got.cuda_arch == (900,)
    assert mismatch(got, Std.CXX17, "compute_90") is None
    assert "missing sm_90" in mismatch(got, Std.CXX17, "sm_90")


@needs_nvcc
@pytest.mark.nvcc
def test_real_cxx23_is_refused_or_observed(real):
    """nvcc 13.0 rejects -std=c++23 outright; a newer one may take it, or ignore it with a warning."""
    got = observe(real, Std.CXX23, "sm_90")
    why = mismatch(got, Std.CXX23, "sm_90")
    if got.error:
        assert why == f"nvcc refused the config: {got.error}"
        if real.version[:2] == (13, 0):
            assert "c++23" in got.error
    else:
        sides = [got.host_cplusplus, *got.device_cplusplus]
        assert None not in sides
        assert (why is None) == all(Std.CXX23.honoured_by(v) for v in sides)


def test_preprocessor_stages_are_the_listings_preprocessor_commands_with_its_variables():
    listing = ('#$ _NVVM_BRANCH_=nvvm\n#$ PATH=/c/Program Files (x86)/bin:/usr/bin\n'
               '#$ LIBRARIES=  "-L/x/stubs" "-L/x/lib"\n'
               '#$ gcc -std=c++17 -E -x c++ "p.cu" -o "keep/p.cpp4.ii"\n'
               '#$ cudafe++ --c++17 "keep/p.cpp4.ii"\n'
               '#$ "/usr/bin"/g++ -D__CUDA_ARCH__=900 -E -x c++ "p.cu" -o "keep/p.cpp1.ii"\n'
               '#$ "$CICC_PATH/cicc" -arch compute_90 "keep/p.cpp1.ii" -o "keep/p.ptx"\n'
               '#$ gcc -c -x c++ "keep/p.cudafe1.cpp" -o "p.o"\nnvcc warning : not a stage\n')
    env, stages = obs.preprocessor_stages(listing)
    assert env == {"_NVVM_BRANCH_": "nvvm", "PATH": "/c/Program Files (x86)/bin:/usr/bin",
                   "LIBRARIES": '"-L/x/stubs" "-L/x/lib"'}, "taken as they are: no shell reads them"
    assert stages == [["gcc", "-std=c++17", "-E", "-x", "c++", "p.cu", "-o", "keep/p.cpp4.ii"],
                      ["/usr/bin/g++", "-D__CUDA_ARCH__=900", "-E", "-x", "c++", "p.cu", "-o", "keep/p.cpp1.ii"]]
    assert obs.preprocessor_stages("#$ _X_=1\n#$ cicc a.ii -o a.ptx\n") == ({"_X_": "1"}, [])


def test_a_failing_preprocessor_stage_is_the_configs_refusal(fake_nvcc, tmp_path):
    """The listing is fine, but the host compiler refuses the dialect when its stage runs: a fact, cached."""
    tc = fake_toolchain(fake_nvcc(r"""
        if [ "$1" = "--sg-fail" ]; then echo "g++: error: unrecognized command-line option '-std=c++20'" >&2; exit 1; fi
        echo "#\$ \"$0\" --sg-fail -E -o keep/probe.cpp4.ii"
        exit 0""", probe=False))
    got = observe(tc, Std.CXX20, "sm_90")
    assert got == ObservedConfig(error="g++: error: unrecognized command-line option '-std=c++20'")
    assert (cache_root() / "configs" / tc.fingerprint).exists()


@needs_nvcc
@pytest.mark.nvcc
def test_a_preprocessor_stage_another_config_ran_is_not_run_again(real, monkeypatch, tmp_path):
    """-lineinfo leaves nvcc's preprocessor commands as they are: its probe lists its own stages, and writes
    the text the plain config's identical commands wrote; -rdc=true changes them, and runs its own."""
    monkeypatch.setenv("SUITEGEN_CACHE", str(tmp_path))  # nothing on disk: each config is probed
    obs.forget()
    ran = []
    run = obs.procs.run
    monkeypatch.setattr(obs.procs, "run", lambda argv, **kw: ran.append(argv) or run(argv, **kw))
    plain = observe(real, Std.CXX17, "sm_90")
    assert sum("-E" in a for a in ran) == 2
    ran.clear()
    lined = observe(real, Std.CXX17, "sm_90", ("-lineinfo",))
    assert [a for a in ran if "-E" in a] == [] and any("--dryrun" in a for a in ran)
    assert lined == plain
    rdc = observe(real, Std.CXX17, "sm_90", ("-rdc=true",))
    assert sum("-E" in a for a in ran) == 2 and rdc.macros == ("__CUDACC_RDC__",)
    monkeypatch.setenv("SUITEGEN_CACHE", str(tmp_path / "afresh"))
    obs.forget()  # probed afresh, running its own stages: the same
    ran.clear()
    assert observe(real, Std.CXX17, "sm_90", ("-lineinfo",)) == lined and sum("-E" in a for a in ran) == 2
    obs.forget()
