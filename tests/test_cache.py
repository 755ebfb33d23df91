"""The build cache: what its key covers, what it refuses to keep, and a warm rerun that builds nothing."""
import json
import subprocess
import sys
from dataclasses import replace

from suitegen.compilers import cache
from suitegen.compilers.toolchain import identity
from suitegen.model import CompileResult, Outcome, Phase, Toolchain

from conftest import REPO, WRITES_OUTPUT

TC = Toolchain(nvcc="/x/nvcc", version=(13, 0, 88), version_text="", host_compiler="g++", host_version="g++ 12",
               fingerprint="f00")
ARGV = ["/x/nvcc", "-v", "-std=c++17", "-c", "main.cu", "-o", "main.o"]
FILES = {"main.cu": "__device__ int f() { return 1; }\n"}
OK = CompileResult(outcome=Outcome.ACCEPTED, phase=None, exit_code=0, diagnostics=(), commands=(tuple(ARGV),),
                   output="", duration=1.5)


def test_the_key_covers_toolchain_command_sources_and_environment(monkeypatch):
    k = cache.key(TC, ARGV, FILES)
    assert cache.key(TC, ARGV, dict(FILES)) == k
    assert cache.key(replace(TC, fingerprint="f01"), ARGV, FILES) != k, "another toolchain never hits"
    assert cache.key(TC, [*ARGV, "-G"], FILES) != k
    assert cache.key(TC, ARGV, {"main.cu": FILES["main.cu"] + " "}) != k
    monkeypatch.setenv("NVCC_APPEND_FLAGS", "-DX")
    assert cache.key(TC, ARGV, FILES) != k


def test_entries_read_back_whole_or_not_at_all():
    k = cache.key(TC, ARGV, {"main.cu": "int only_here;"})
    assert cache.get(k) is None
    cache.put(k, OK, artifact="main.o: object")
    hit = cache.get(k)
    assert hit.cached and replace(hit, cached=False) == OK
    path = next((cache.cache_root() / "builds").rglob(f"{k}.json"))
    path.write_text(path.read_text()[:40])  # truncated
    assert cache.get(k) is None
    crashed = replace(OK, outcome=Outcome.CRASHED, phase=Phase.CICC)
    k2 = cache.key(TC, ARGV, {"main.cu": "int crashed;"})
    cache.put(k2, crashed)
    assert cache.get(k2) is None, "a crash or timeout may not repeat: never kept"


COUNTING = '''
case " $* " in *" --dryrun "*|*" --version "*) exit 0;; esac
if [ -e main.cu ] || [ -e batch.cu ]; then echo build >> "BUILDS"; fi  # a case's build, not a probe
''' + WRITES_OUTPUT + "exit 0\n"


def test_a_warm_rerun_builds_nothing(fake_nvcc, mini_oracle, tmp_path):
    builds = tmp_path / "builds"
    builds.touch()
    nvcc = fake_nvcc(COUNTING.replace("BUILDS", str(builds)))
    base = [sys.executable, "-m", "suitegen", "run", "--nvcc", str(nvcc), "--oracle", str(mini_oracle[0]),
            "--templates", str(mini_oracle[1]), "--std", "c++14,c++17", "--arch", "sm_90", "-q"]

    def run(name, *extra):
        before = len(builds.read_text().split())
        subprocess.run(base + ["--out", str(tmp_path / name), *extra], cwd=REPO, capture_output=True, timeout=300)
        recs = [json.loads(line) for line in (tmp_path / name / "results.jsonl").read_text().splitlines()]
        return len(builds.read_text().split()) - before, recs

    cold, first = run("cold")
    warm, second = run("warm")
    assert cold > 0 and warm == 0
    assert all(r["observed"]["cached"] for r in second)
    verdicts = lambda recs: {(r["case_key"], r["config_key"]): r["verdict"] for r in recs}
    assert verdicts(first) == verdicts(second)
    again, third = run("nocache", "--no-cache")
    assert again == cold and not any(r["observed"]["cached"] for r in third)


def test_the_fingerprint_covers_the_library_folders_a_link_searches(tmp_path):
    """A toolkit whose library folder appears (toolchain add's lib64 link) gets another fingerprint, so the
    build cache does not serve it the link failures of before."""
    nvcc = tmp_path / "bin" / "nvcc"
    nvcc.parent.mkdir()
    nvcc.write_text(f'#!/bin/sh\necho \'#$ LIBRARIES=  "-L{tmp_path}/lib64"\'\n')
    nvcc.chmod(0o755)
    before = identity(nvcc, "g++")["libraries"]
    (tmp_path / "lib64").mkdir()
    (tmp_path / "lib64" / "libcudadevrt.a").write_bytes(b"!<arch>\n")
    assert identity(nvcc, "g++")["libraries"] != before
