"""No verdict without evidence: an acceptance needs its output, and no cache record is trusted blindly."""
import json
import subprocess
import sys
import uuid

import pytest

from suitegen.compilers import artifacts, cache, features
from suitegen.compilers.compile import cached_build
from suitegen.model import CompileResult, Config, Outcome, Std, Toolchain

from conftest import REPO, WRITES_OUTPUT, minimal_elf, write_demo_oracle

DEVICE = {"main.cu": "__global__ void k(int *p) { *p = 1; }\n"}
HOST = {"main.cu": "int f(int x) { return x * 2; }\n"}
OBJECT = ["nvcc", "-c", "main.cu", "-o", "main.o"]


@pytest.mark.parametrize("argv, data, files, missing", [
    (OBJECT, None, DEVICE, "it left no main.o"),
    (OBJECT, b"", DEVICE, "main.o is not an ELF object"),
    (OBJECT, b"\x7fELF", DEVICE, "main.o is not an ELF object"),
    (OBJECT, minimal_elf(2, sections=(".nv_fatbin",)), DEVICE, "main.o is not an ELF object"),
    (OBJECT, minimal_elf(1, sections=(".text",)), DEVICE, "main.o holds no device module"),
    (OBJECT, minimal_elf(1, sections=(".text",)), HOST, None),
    (OBJECT, minimal_elf(1, sections=(".nv_fatbin",)), DEVICE, None),
    (OBJECT, minimal_elf(1, sections=("__nv_relfatbin",)), DEVICE, None),  # -rdc=true -c
    (["nvcc", "-fatbin", "main.cu", "-o", "main.fatbin"], b"\x7fELF" + bytes(60), DEVICE, "not a fatbin image"),
    (["nvcc", "-fatbin", "main.cu", "-o", "main.fatbin"], b"\x50\xed\x55\xba" + bytes(60), DEVICE, None),
    (["nvcc", "main.cu", "-o", "main.out"], minimal_elf(1), DEVICE, "main.out is not an ELF executable"),
    (["nvcc", "main.cu", "-o", "main.out"], minimal_elf(3), DEVICE, None),
    # NVRTC's outputs: a cubin for sm_XX, PTX for compute_XX
    (["python", "-m", "suitegen.compilers.nvrtc", "lib", "main.cu", "-o", "main.cubin"], minimal_elf(2), DEVICE,
     "main.cubin is not a cubin"),
    (["python", "-m", "suitegen.compilers.nvrtc", "lib", "main.cu", "-o", "main.cubin"], minimal_elf(2, machine=190),
     DEVICE, None),
    (["python", "-m", "suitegen.compilers.nvrtc", "lib", "main.cu", "-o", "main.ptx"], b"// nothing\n", DEVICE,
     "main.ptx is not PTX"),
    (["python", "-m", "suitegen.compilers.nvrtc", "lib", "main.cu", "-o", "main.ptx"],
     b"//\n.version 9.0\n.target sm_90\n.address_size 64\n", DEVICE, None),
])
def test_an_acceptance_needs_its_output_of_its_format(tmp_path, argv, data, files, missing):
    if data is not None:
        (tmp_path / argv[-1]).write_bytes(data)
        (tmp_path / argv[-1]).chmod(0o755)
    found = artifacts.problem(argv, tmp_path, files)
    assert (found is None) if missing is None else (missing in found)


def test_a_program_must_be_executable(tmp_path):
    (tmp_path / "main.out").write_bytes(minimal_elf(2))
    (tmp_path / "main.out").chmod(0o644)
    assert artifacts.problem(["nvcc", "main.cu", "-o", "main.out"], tmp_path, DEVICE) == "main.out is not executable"


def tc(fingerprint=None) -> Toolchain:
    return Toolchain(nvcc="nvcc", version=(13, 0, 88), version_text="", host_compiler="g++", host_version="g++",
                     fingerprint=fingerprint or uuid.uuid4().hex[:16])


def script(tmp_path, body: str):
    path = tmp_path / f"nvcc-{uuid.uuid4().hex[:6]}"
    path.write_text("#!/bin/bash\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize("out", ["main.o", "main.cubin", "main.ptx", "main.out"])
def test_a_silent_build_is_a_toolchain_error_saying_what_is_missing_and_is_not_cached(tmp_path, out):
    config = Config(toolchain=tc(), std=Std.CXX17, arch="sm_90")
    argv = [script(tmp_path, "exit 0"), *(["-c"] if out == "main.o" else []), "main.cu", "-o", out]
    for attempt in ("cold", "again"):
        folder = tmp_path / attempt
        folder.mkdir()
        got = cached_build(config, argv, DEVICE, folder, 30, cached=True)
        assert got.outcome is Outcome.TOOLCHAIN_ERROR and not got.cached
        assert got.diagnostics[0].message == f"exit status 0, but no evidence of acceptance: it left no {out}"


def test_a_cached_acceptance_records_that_its_output_was_checked(tmp_path):
    config = Config(toolchain=tc(), std=Std.CXX17, arch="sm_90")
    argv = [script(tmp_path, WRITES_OUTPUT + "exit 0"), "-c", "main.cu", "-o", "main.o"]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert cached_build(config, argv, DEVICE, tmp_path / "a", 30, cached=True).outcome is Outcome.ACCEPTED
    k = cache.key(config.toolchain, argv, DEVICE)
    entry = json.loads(cache._path(k).read_text())
    assert entry["artifact"] == "main.o: object with its device module"
    assert cached_build(config, argv, DEVICE, tmp_path / "b", 30, cached=True).cached
    # an acceptance stored without that record (by hand, or by an older suitegen) is not served
    cache._path(k).write_text(json.dumps({**entry, "artifact": None}))
    assert cache.get(k) is None


ARGV = ["/x/nvcc", "-v", "-c", "main.cu", "-o", "main.o"]
OK = CompileResult(outcome=Outcome.ACCEPTED, phase=None, exit_code=0, diagnostics=(), commands=(tuple(ARGV),),
                   output="", duration=1.0)


@pytest.mark.parametrize("text", ["5", "[1, 2]", "null", '"x"', "SHAPE"])
def test_a_build_entry_of_another_shape_is_a_miss(text):
    k = cache.key(tc(), ARGV, {"main.cu": uuid.uuid4().hex})
    cache.put(k, OK, artifact="main.o: object")
    assert cache.get(k) is not None
    path = cache._path(k)
    whole = json.loads(path.read_text())
    path.write_text(json.dumps({**whole, "result": {**whole["result"], "diagnostics": 5}}) if text == "SHAPE"
                    else text)
    assert cache.get(k) is None and cache.get_image(k) is None


def test_swapped_module_entries_are_refused():
    """Each module is served only where its bytes are those its own entry recorded."""
    one, two = (cache.key(tc(), ARGV, {"main.cu": uuid.uuid4().hex}) for _ in range(2))
    images = {one: b"\x50\xed\x55\xba" + b"1" * 20, two: b"\x50\xed\x55\xba" + b"2" * 20}
    for k, image in images.items():
        cache.put(k, OK, artifact="main.o: object", image=image)
        assert cache.get_image(k) == image
    a, b = (cache._path(k).with_suffix(".fatbin") for k in (one, two))
    a.write_bytes(images[two])
    b.write_bytes(images[one])
    assert cache.get_image(one) is None and cache.get_image(two) is None
    assert cache.get(one) is not None, "the result itself is still good: only the module is built again"


@pytest.mark.parametrize("text", ["5", "[]", '["has-int128"]', '{"fingerprint": "other"}', "NOT_A_PROBE",
                                  "OTHER_SOURCE"])
def test_a_bad_feature_entry_is_probed_again(fake_nvcc, text):
    from suitegen.compilers import toolchain
    t = toolchain.probe(str(fake_nvcc(WRITES_OUTPUT + "exit 0")))
    found = features.detected_features(t)
    assert "has-int128" in found
    path = features._cache_file(t)
    entry = json.loads(path.read_text())
    if text == "NOT_A_PROBE":
        text = json.dumps({**entry, "answers": {"no-such-probe": {"probe": "", "present": True}}})
    elif text == "OTHER_SOURCE":  # the answer of an older probe of the same name
        text = json.dumps({**entry, "answers": {**entry["answers"], "has-int128": {"probe": "old", "present": False}}})
    path.write_text(text)
    assert features.detected_features(t) == found
    assert json.loads(path.read_text()) == entry, "rebuilt"


def test_feature_answers_written_by_another_process_are_kept(fake_nvcc):
    """Two processes (xdist workers) that probe different features of one toolchain each add their answers to
    the cached entry: the second writer does not drop the first's."""
    from suitegen.compilers import toolchain
    t = toolchain.probe(str(fake_nvcc(WRITES_OUTPUT + "exit 0")))
    assert features.probed_features(t, ["has-int128"]) == {"has-int128"}  # the first process
    refs = features._probes()
    features._write_cache(features._cache_file(t), t, {"has-nvfunctional": False}, refs)  # the second, which read none
    assert features._read_cache(features._cache_file(t), t) == {"has-int128": True, "has-nvfunctional": False}


# A toolchain that answers the version, the dry run and the config probes, and exits 0 on every case build
# without writing anything.
SILENT = '''
case " $* " in *" --dryrun "*|*" --version "*) exit 0;; esac
exit 0
'''


def test_a_toolchain_that_compiles_nothing_gets_no_pass(fake_nvcc, tmp_path):
    """Not from a batch (its missing object accepts no member), nor alone: every case is UNRESOLVED, saying
    what is missing (an exit status 0 without an object is no acceptance, so not a FAIL of a reject case either)."""
    orc, tpl = write_demo_oracle(tmp_path, '''
        section = "demo"

        [[rule]]
        id = "no-long-double"
        statement = "long double may not be used in device code."
        template = "demo/ld.cu.j2"
        phase = "front-end"
        diagnostic = "long double"

          [[rule.variant]]
          name = "pos-{type}"
          expect = "accept"
          matrix = { type = ["double", "float", "int", "short"] }

          [[rule.variant]]
          name = "neg"
          expect = "reject"
          params = { type = "long double" }
        ''', {"ld.cu.j2": "__device__ void f(double *out) {\n  {{ type }} v = 1; {{ CHECK }}\n  *out = v;\n}\n"})
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "suitegen", "run", "--nvcc", str(fake_nvcc(SILENT)), "--oracle",
                           str(orc), "--templates", str(tpl), "--std", "c++17", "--arch", "sm_90", "--out", str(out),
                           "-q"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    recs = {r["variant"]: r for r in map(json.loads, (out / "results.jsonl").open())}
    assert len(recs) == 5 and not any(r["verdict"] == "PASS" for r in recs.values())
    for name in ("pos-double", "pos-float", "pos-int", "pos-short", "neg"):
        r = recs[name]
        assert r["verdict"] == "UNRESOLVED" and r["observed"]["outcome"] == "toolchain-error"
        assert "no evidence of acceptance: it left no main.o" in r["reason"]
    for name in ("pos-double", "pos-float", "pos-int", "pos-short"):
        assert recs[name]["batch"]["how"] == "alone" and recs[name]["batch"]["tried"], "their batch accepted none"


# Answers --list-gpu-code and --list-gpu-arch as nvcc 13.0 does, counting the questions.
LISTS = '''
case "$1" in
  --list-gpu-code) echo list >> "COUNT"; printf 'sm_75\\nsm_80\\nsm_90\\nsm_100\\n'; exit 0;;
  --list-gpu-arch) printf 'compute_75\\ncompute_80\\ncompute_90\\ncompute_100\\n'; exit 0;;
esac
'''


@pytest.mark.parametrize("arch, bad", [
    ("sm_90", []), ("sm_90a", []), ("sm_100f", []), ("compute_90", []), ("compute_90a", []), ("sm_80+sm_90", []),
    ("sm_5", ["sm_5"]), ("sm_89", ["sm_89"]), ("compute_89", ["compute_89"]), ("sm_80+sm_91", ["sm_91"]),
    ("gfx90a", ["gfx90a"]), ("sm_90x", ["sm_90x"]),
])
def test_an_arch_is_checked_against_the_toolchains_lists(arch, bad):
    from suitegen.compilers import archs
    listed = frozenset({"sm_75", "sm_80", "sm_90", "sm_100", "compute_75", "compute_80", "compute_90", "compute_100"})
    assert archs.unknown(arch, listed) == bad


def test_an_unknown_arch_is_a_usage_error_before_planning(fake_nvcc, mini_oracle, tmp_path, capsys):
    from suitegen.compilers import archs, toolchain
    from suitegen.frontends.cli import main
    count = tmp_path / "count"
    count.touch()
    nvcc = fake_nvcc(LISTS.replace("COUNT", str(count)) + WRITES_OUTPUT + "exit 0")
    base = ["run", "--nvcc", str(nvcc), "--oracle", str(mini_oracle[0]), "--templates", str(mini_oracle[1]),
            "--std", "c++17", "-q"]
    assert main([*base, "--arch", "sm_5", "--out", str(tmp_path / "bad")]) == 2
    assert "--arch sm_5: nvcc-13.0 (" in capsys.readouterr().err
    assert not (tmp_path / "bad" / "results.jsonl").exists(), "nothing planned, nothing built"
    assert main([*base, "--arch", "sm_80+sm_90,sm_90a,compute_90", "--list"]) == 0
    assert len(capsys.readouterr().out.split()) == 9
    assert count.read_text().split() == ["list"], "asked once per fingerprint (cached)"
    t = toolchain.probe(str(nvcc))
    archs._cache_file(t).write_text("5")  # a bad entry is asked again
    assert "sm_90" in archs.known(t) and count.read_text().split() == ["list", "list"]
    # a toolchain that lists nothing is not checked here (its config probe still is)
    silent = toolchain.probe(str(fake_nvcc(WRITES_OUTPUT + "exit 0")))
    archs.check([silent], ["sm_5"])


def test_the_plugin_refuses_an_unknown_arch(pytester, fake_nvcc, mini_oracle, tmp_path):
    count = tmp_path / "count"
    nvcc = fake_nvcc(LISTS.replace("COUNT", str(count)) + WRITES_OUTPUT + "exit 0")
    result = pytester.runpytest_subprocess("--suitegen", str(mini_oracle[0]), "--suitegen-templates",
                                           str(mini_oracle[1]), "--suitegen-nvcc", str(nvcc), "--suitegen-arch",
                                           "sm_5", "--co", "-q", "-p", "no:cacheprovider")
    assert result.ret not in (0, 5) and "does not know sm_5" in result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize("text", ["5", '{"nvcc-13.5.37": 5}', '{"nvcc-13.5.37": {"nvcc": 1}}'])
def test_a_registry_of_another_shape_is_one_clear_error(text, capsys, monkeypatch, tmp_path):
    from suitegen.compilers import registry
    from suitegen.frontends.cli import main
    monkeypatch.setenv("SUITEGEN_CACHE", str(tmp_path))
    registry.cache_dir().mkdir(parents=True)
    (registry.cache_dir() / "registry.json").write_text(text)
    assert main(["run", "--nvcc", "nvcc-13.5.37", "--list", "--rules", "rtti"]) == 2
    assert "toolchain registry of another shape" in capsys.readouterr().err
