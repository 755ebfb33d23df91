"""Toolchain discovery, fingerprints and the error paths of a missing, broken, crashing or hanging nvcc."""
import json

import pytest

from suitegen.compilers import features, toolchain
from suitegen.compilers import nvcc as nvcc_backend
from suitegen.compilers.toolchain import ToolchainError
from suitegen.frontends.cli import main
from suitegen.model import Std
from suitegen.oracle.conditions import Env

from conftest import WRITES_OUTPUT


def test_discover_prefers_option_then_cuda_home_then_path(tmp_path, fake_nvcc):
    explicit = fake_nvcc("exit 0")
    home = tmp_path / "cuda"
    (home / "bin").mkdir(parents=True)
    home_nvcc = fake_nvcc("exit 0")
    (home / "bin" / "nvcc").symlink_to(home_nvcc)
    on_path = fake_nvcc("exit 0")
    env = {"CUDA_HOME": str(home), "PATH": str(on_path.parent)}
    assert toolchain.discover([str(explicit)], env) == [str(explicit)]
    assert toolchain.discover([], env) == [str(home / "bin" / "nvcc")]
    assert toolchain.discover([], {"PATH": str(on_path.parent)}) == [str(on_path)]
    assert toolchain.discover([str(explicit.parent)], env) == [str(explicit)]  # a folder holding nvcc


def test_missing_nvcc_is_one_clear_error(tmp_path):
    with pytest.raises(ToolchainError, match="no nvcc found"):
        toolchain.discover([], {"PATH": str(tmp_path)})
    with pytest.raises(ToolchainError, match="nvcc not found: /nonexistent/nvcc"):
        toolchain.discover(["/nonexistent/nvcc"])


def test_broken_nvcc(fake_nvcc, tmp_path):
    broken = tmp_path / "nvcc"
    broken.write_text("#!/bin/bash\necho 'libnvvm.so: cannot open shared object' >&2\nexit 127\n")
    broken.chmod(0o755)
    with pytest.raises(ToolchainError, match="nvcc is broken.*exited 127.*libnvvm"):
        toolchain.probe(str(broken))
    not_nvcc = fake_nvcc("exit 0", version="hello")
    with pytest.raises(ToolchainError, match="printed no version"):
        toolchain.probe(str(not_nvcc))


def test_fingerprint_tells_wrappers_apart(fake_nvcc):
    a = toolchain.probe(str(fake_nvcc("exit 0")))
    b = toolchain.probe(str(fake_nvcc("exit 1  # another wrapper, same version text")))
    assert a.version == b.version == (13, 0, 88)
    assert a.fingerprint != b.fingerprint
    assert toolchain.probe(a.nvcc).fingerprint == a.fingerprint, "fingerprints are stable"


def run_cli(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_missing_nvcc_exits_2(tmp_path, mini_oracle, capsys):
    code, out, err = run_cli(["run", "--nvcc", str(tmp_path / "nope"), "--oracle", str(mini_oracle[0]),
                              "--templates", str(mini_oracle[1]), "--out", str(tmp_path / "r")], capsys)
    assert code == 2
    assert err.strip().startswith("suitegen: error: nvcc not found") and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def _run_with(fake, mini_oracle, tmp_path, capsys, *extra):
    out = tmp_path / "run"
    code, stdout, err = run_cli(["run", "--nvcc", str(fake), "--oracle", str(mini_oracle[0]),
                                 "--templates", str(mini_oracle[1]), "--std", "c++17", "--arch", "sm_90",
                                 "--out", str(out), "-j", "2", "-q", *extra], capsys)
    assert (out / "results.jsonl").exists(), err
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return code, records, json.loads((out / "summary.json").read_text())


def test_crashing_nvcc_is_unresolved_not_pass(fake_nvcc, mini_oracle, tmp_path, capsys):
    fake = fake_nvcc('echo "#$ cudafe++ --c++17 x"; echo "Segmentation fault (core dumped)"; '
                     'echo "# --error 0x8b --"; exit 139')
    code, records, summary = _run_with(fake, mini_oracle, tmp_path, capsys)
    assert code == 1
    assert {r["verdict"] for r in records} == {"UNRESOLVED"}
    assert all(r["observed"]["outcome"] == "crashed" for r in records)
    assert summary["counts"]["UNRESOLVED"] == 3 and summary["counts"]["PASS"] == 0


def test_hanging_nvcc_times_out(fake_nvcc, mini_oracle, tmp_path, capsys):
    # hangs on case compiles only (a --dryrun listing is bounded by nvcc_stages.LISTING_TIMEOUT)
    fake = fake_nvcc('case " $* " in *" --dryrun "*) ;; *" -v "*) sleep 30;; esac; exit 0')
    code, records, _ = _run_with(fake, mini_oracle, tmp_path, capsys, "--timeout", "1")
    assert code == 1
    assert {r["observed"]["outcome"] for r in records} == {"timed-out"}
    assert all(r["verdict"] == "UNRESOLVED" and r["duration"] < 10 for r in records)


def test_nvcc_that_exits_with_canned_diagnostic(fake_nvcc, mini_oracle, tmp_path, capsys):
    # The fake prints a front-end error on line 2 for every compile: negatives pass, the positive fails.
    fake = fake_nvcc('echo "#$ cudafe++ --c++17 x"; echo "main.cu(2): error: type long double is not '
                     'supported in device code"; echo "# --error 0x2 --"; exit 2')
    code, records, summary = _run_with(fake, mini_oracle, tmp_path, capsys)
    verdicts = {r["variant"]: r["verdict"] for r in records}
    assert verdicts == {"pos-host": "FAIL", "neg-device": "PASS", "neg-global": "PASS"}
    assert code == 1
    neg = next(r for r in records if r["variant"] == "neg-device")
    cmd = neg["observed"]["commands"][0]
    assert cmd[0] == str(fake) and "-std=c++17" in cmd and "-arch=sm_90" in cmd and "main.cu" in cmd


def test_detected_features_come_from_probes(fake_nvcc):
    ok = toolchain.probe(str(fake_nvcc(WRITES_OUTPUT + "exit 0")))
    assert {"has-nvfunctional", "has-int128", "has-float128"} <= features.machine_features(ok)
    # a toolchain that compiles nothing has none of them, and the answer is cached per fingerprint
    bad = toolchain.probe(str(fake_nvcc("exit 1")))
    feats = features.machine_features(bad)
    assert not feats & {"has-nvfunctional", "has-int128", "has-float128"}
    assert {"linux", "host-gcc"} <= feats
    assert features.detected_features(bad) == features.detected_features(bad)
    # one that exits 0 but writes no object has none either
    silent = toolchain.probe(str(fake_nvcc("exit 0  # writes nothing")))
    assert not features.machine_features(silent) & {"has-nvfunctional", "has-int128", "has-float128"}


def test_device_only_probes_build_the_device_side_alone(fake_nvcc):
    # a toolchain whose device-only builds (-ptx) fail: the probes of device code say absent, the others present
    tc = toolchain.probe(str(fake_nvcc('case " $* " in *" -ptx "*) exit 1;; esac\n' + WRITES_OUTPUT + "exit 0")))
    found = features.detected_features(tc)
    assert {"has-float128", "has-nvfunctional"} <= found and not found & {"has-int128", "has-libcudacxx"}
    argv = nvcc_backend.BACKEND.probe_command(tc, "has-int128.cu", device_only=True)
    assert argv[-4:] == ["-ptx", "has-int128.cu", "-o", "has-int128.ptx"]
    assert nvcc_backend.BACKEND.probe_command(tc, "p.cu")[-4:] == ["-c", "p.cu", "-o", "p.o"]


def test_a_run_probes_the_features_its_conditions_name_and_any_other_only_when_asked(fake_nvcc, tmp_path):
    from concurrent.futures import Future, ThreadPoolExecutor
    from suitegen.oracle.conditions import parse
    go = tmp_path / "go"  # the fake's feature probes wait for it, and say which ran
    wait = (f'case "$*" in *has-*) while [ ! -e {go} ]; do sleep 0.05; done; echo "$*" >> {tmp_path}/probed;; esac\n')
    tc = toolchain.probe(str(fake_nvcc(wait + WRITES_OUTPUT + "exit 0")))
    wanted: Future = Future()
    with ThreadPoolExecutor(max_workers=1) as probes:
        feats = features.machine_features(tc, probes, wanted)  # returns while the probes wait to run
        env = Env(std=Std.CXX17, arch="sm_90", nvcc=tc.version, features=feats | {"gpu"})
        assert parse("linux && host-gcc && gpu && !windows")(env), "known features answer at once"
        named = parse("has-int128 && has-libcudacxx")
        wanted.set_result(named.features)
        assert named.features == {"has-int128", "has-libcudacxx"}
        go.touch()
        assert named(env), "a probed one waits for its probe"
        probed = (tmp_path / "probed").read_text()
        assert "has-int128" in probed and "has-libcudacxx" in probed and "has-float128" not in probed, \
            "only the named ones are probed"
        assert "has-float128" in feats, "one nobody named is probed when asked for"
    assert "has-float128" in (tmp_path / "probed").read_text()


def test_feature_probing_stops_with_the_run_and_caches_nothing(fake_nvcc):
    from suitegen import procs
    tc = toolchain.probe(str(fake_nvcc(WRITES_OUTPUT + "exit 0")))
    procs.stop_all()
    try:
        with pytest.raises(procs.Stopped):
            features.detected_features(tc)
    finally:
        procs.reset()
    assert not features._cache_file(tc).exists()
    assert {"has-int128", "has-libcudacxx"} <= features.detected_features(tc)
    assert features._cache_file(tc).exists()


def test_fingerprint_follows_what_a_wrapper_really_runs(fake_nvcc, tmp_path):
    # nvcc on PATH may be a two-line wrapper: the fingerprint must change when the real tools change.
    real = tmp_path / "cuda" / "bin"
    real.mkdir(parents=True)
    for tool in ("cudafe++", "ptxas"):
        (real / tool).write_text("v1")
    (tmp_path / "cuda" / "nvvm" / "bin").mkdir(parents=True)
    (tmp_path / "cuda" / "nvvm" / "bin" / "cicc").write_text("v1")
    (tmp_path / "cuda" / "include").mkdir()
    (tmp_path / "cuda" / "include" / "cuda_runtime.h").write_text("// v1\n")
    wrapper = fake_nvcc(f'''
case " $* " in *" --dryrun "*)
  echo '#$ _HERE_={real}'
  echo '#$ CICC_PATH={real}/../nvvm/bin'
  echo '#$ INCLUDES="-I{tmp_path}/cuda/include"  '
  exit 0;;
esac
exit 0''')
    before = toolchain.probe(str(wrapper)).fingerprint
    assert toolchain.probe(str(wrapper)).fingerprint == before
    for changed in (real / "cudafe++", tmp_path / "cuda" / "nvvm" / "bin" / "cicc"):
        changed.write_text("v2")
        after = toolchain.probe(str(wrapper)).fingerprint
        assert after != before, changed
        before = after
    (tmp_path / "cuda" / "include" / "cuda_runtime.h").write_text("// v2, a longer header\n")
    assert toolchain.probe(str(wrapper)).fingerprint != before, "a changed header changes the identity"
