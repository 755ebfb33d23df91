"""``suitegen fuzz`` as a user runs it: seeded host-only campaigns, resume, a planted fault reduced, bad input."""
import json
import re
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from suitegen.cases.render import Renderer
from suitegen.compilers import batch, modules
from suitegen.compilers.toolchain import probe
from suitegen import model
from suitegen.campaigns import fuzz, triage
from suitegen.model import UsageError
from conftest import minimal_elf
from test_nvrtc import nvrtc_lib  # noqa: F401 (the real NVRTC library, installed once)

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
HOST_ONLY = ["--builds", "", "--no-gpu", "--per-file", "8", "-j", "2", "--budget", "120s"]


def fuzz_cli(*args, env=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "suitegen", "fuzz", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=600)


@pytest.mark.slow
@needs_gxx
def test_a_seeded_host_campaign_is_deterministic_and_finds_nothing(tmp_path):
    """CI's campaign: the same seed gives the same programs, every one agrees with the model under g++ -O0
    with UBSan, and nothing is reported."""
    runs = []
    for k in range(2):
        out = tmp_path / f"run{k}"
        done = fuzz_cli("--seed", "ci", "--max-programs", "16", "--out", str(out), *HOST_ONLY)
        assert done.returncode == 0, done.stdout + done.stderr
        records = [json.loads(line) for line in (out / "programs.jsonl").read_text().splitlines()]
        runs.append(records)
        assert len(records) == 16
        assert all(r["host"] == {"host-O0": "ok"} for r in records), records
        assert json.loads((out / "findings.json").read_text()) == []
        assert "0 findings" in done.stdout
    assert runs[0] == runs[1]


@needs_gxx
def test_a_stopped_campaign_resumes_where_it_stopped(tmp_path):
    out = tmp_path / "c"
    assert fuzz_cli("--seed", "r", "--max-programs", "8", "--out", str(out), *HOST_ONLY).returncode == 0
    assert fuzz_cli("--seed", "r", "--max-programs", "16", "--out", str(out), *HOST_ONLY).returncode == 0
    state = json.loads((out / "campaign.json").read_text())
    assert state["next_file"] == 2 and state["tally"]["generated"] == 16
    indexes = [json.loads(line)["index"] for line in (out / "programs.jsonl").read_text().splitlines()]
    assert indexes == list(range(16))  # the second leg started at program 8, nothing twice
    other = fuzz_cli("--seed", "another", "--max-programs", "8", "--out", str(out), *HOST_ONLY)
    assert other.returncode == 2 and "seed 'r'" in other.stderr


@pytest.mark.slow
@needs_gxx
def test_a_planted_fault_is_found_confirmed_and_reduced_to_a_short_reproducer(tmp_path):
    """A host compiler that turns every ``^`` into ``|`` at -O2 only: the campaign reports it under host-O2 and no
    other build (the reduced program judged again under every build too), and the reducer shrinks a program to 10
    lines or fewer (one thread, one output) that the faulty compiler gets wrong and g++ gets right."""
    wrapper = tmp_path / "g++"
    wrapper.write_text('#!/bin/sh\ncase " $* " in *" -O2 "*) for a in "$@"; do case "$a" in *.cpp) '
                       'sed -i "s/ \\^ / | /g" "$a";; esac; done;; esac\n'
                       f'exec {shutil.which("g++")} "$@"\n')
    builds = (*HOST_ONLY, "--host-builds", "host-O0,host-O2")
    wrapper.chmod(0o755)
    out = tmp_path / "c"
    done = fuzz_cli("--seed", "p1", "--max-programs", "4", "--out", str(out), *builds,
                    env=dict(os.environ, CXX=str(wrapper)))
    assert done.returncode == 1, done.stdout + done.stderr  # new findings
    found = [f for f in json.loads((out / "findings.json").read_text()) if f["kind"] == "wrong-code"]
    assert found and all(f["failing"] == ["host-O2"] and f["reduced_still_differs"] for f in found)
    # the reduced program is judged again under every build: the fault shows under its one build, and no other
    assert all(f["reduced"] == {"failing": ["host-O2"], "passing": ["host-O0"]} for f in found), [f["reduced"] for f in found]
    # its reproducer file, built alone and run twice under each build, shows it (unlike a harness's fault, below)
    assert all(f["reproduces"] and f["standalone"]["host-O2"].startswith("WRONG") and f["standalone"]["host-O0"] == "OK"
               for f in found), [f["standalone"] for f in found]
    distinct = len({f["bucket"] for f in found})
    assert f"{distinct} distinct bugs (0 of them known)" in done.stdout, done.stdout
    assert f"fuzz: Reproducers of the {distinct} distinct bugs: median" in done.stdout, done.stdout
    table = (out / "findings.md").read_text()  # the distinct bugs as a table to publish as it is
    assert f"{distinct} distinct bugs (0 of them known)" in table and table.count("](repro/") == distinct, table
    assert all(f"| [`{f['bucket']}`](repro/{f['bucket']}/report.md) | new | host compiler |" in table for f in found)
    best = min(found, key=lambda f: f["lines"])
    assert best["lines"] <= 10, best["reproducer"]
    repro = out / "repro" / best["bucket"] / "repro.cpp"
    assert "^" in repro.read_text()
    report = (out / "repro" / best["bucket"] / "report.md").read_text()  # what a compiler engineer is handed
    assert report.startswith("# ") and "wrong result under host-O2, right under host-O0" in report, report
    assert repro.read_text().rstrip() in report and "## Reproduce" in report, report
    for cxx, verdict in ((shutil.which("g++"), "OK"), (str(wrapper), "WRONG")):
        src = tmp_path / f"r-{verdict}.cpp"
        shutil.copy(repro, src)
        subprocess.run([cxx, "-std=c++17", "-w", "-O2", str(src), "-o", str(src.with_suffix(""))], check=True)
        ran = subprocess.run([str(src.with_suffix(""))], capture_output=True, text=True)
        assert ran.stdout.split()[-2 if verdict == "WRONG" else -1] == verdict, ran.stdout
    # a second campaign that meets the same bug counts it in the database instead of reporting it anew
    again = fuzz_cli("--seed", "p1", "--max-programs", "4", "--out", str(tmp_path / "c2"), *builds,
                     env=dict(os.environ, CXX=str(wrapper)))
    assert again.returncode == 0 and "(0 new)" in again.stdout
    bugs = int(re.search(r"(\d+) distinct bugs \((\d+) of them known\)", again.stdout).group(1))
    assert re.search(rf"{bugs} distinct bugs \({bugs} of them known\)", again.stdout), again.stdout
    assert bugs == distinct, "the same bugs, now known"
    db = json.loads((tmp_path / "findings.json").read_text())["findings"]
    assert any(entry["hits"] == 2 for entry in db.values())
    # benchmarks/findings/ is written from such folders alone: each campaign's table, and the database
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import findings_index
    findings_index.main(tmp_path)
    index = (tmp_path / "README.md").read_text()
    assert "## `c/`" in index and "## `c2/`" in index and "## `findings.json` (a findings database)" in index, index
    assert all(f"[`{f['bucket']}`](c/repro/{f['bucket']}/report.md)" in index for f in found), index
    every = index.split("## Every distinct bug")[1].split("\n## ")[0]  # one row per bug across both campaigns
    assert f"({distinct})" in every and all(every.count(f"[`{k}`]") == 1 for k in {f["bucket"] for f in found})
    assert every.count("| c, c2 |") == distinct, every


@needs_gxx
def test_a_program_the_host_sanitizer_blames_is_the_generator_s_fault_not_a_finding(tmp_path):
    """A host compiler whose programs report undefined behaviour (a planted UBSan line, outside every program): the
    wrong programs are confirmed, then told apart as programs at fault themselves (the generator's defect): no
    wrong-code finding, nothing filed in the database, and the campaign says so."""
    plant = tmp_path / "plant.cpp"
    plant.write_text('#include <cstdio>\nstatic int sg_planted = std::printf("%s:1:1: runtime error: planted\\n", '
                     '__FILE__);\n')
    wrapper = tmp_path / "g++"
    wrapper.write_text(f'#!/bin/sh\nfor a in "$@"; do case "$a" in *.cpp) cat {plant} >> "$a";; esac; done\n'
                       f'exec {shutil.which("g++")} "$@"\n')
    wrapper.chmod(0o755)
    out = tmp_path / "c"
    done = fuzz_cli("--seed", "p1", "--max-programs", "2", "--out", str(out), *HOST_ONLY,
                    env=dict(os.environ, CXX=str(wrapper)))
    assert done.returncode == 0, done.stdout + done.stderr  # nothing new was filed
    found = json.loads((out / "findings.json").read_text())
    faults = [f for f in found if f["kind"] == model.PROGRAM_FAULT]
    assert faults and not [f for f in found if f["kind"] in model.FILED], found
    assert all(f["undefined"] == ["host-O0"] and "generator" in f["why"] for f in faults)
    assert "at fault themselves" in done.stdout and "0 distinct bugs" in done.stdout, done.stdout
    db = tmp_path / "findings.json"
    assert not db.exists() or not json.loads(db.read_text())["findings"]


def test_bad_options_are_usage_errors(tmp_path):
    for args, words in ((["--policy", "nope"], "known policies"), (["--builds", "default,fast"], "unknown fast"),
                        (["--budget", "soon"], "--budget")):
        done = fuzz_cli(*args, "--out", str(tmp_path / "x"), "--no-gpu")
        assert done.returncode == 2 and words in done.stderr, done.stderr
    known = tmp_path / "published"  # a campaign writing into the --known folder would count its own bugs as known
    (known / "c").mkdir(parents=True)
    (known / "c" / "findings.json").write_text("[]")
    (known / "findings.json").write_text('{"findings": {}}')
    done = fuzz_cli("--known", str(known), "--out", str(known / "new"), "--no-gpu", "--max-programs", "1")
    assert done.returncode == 2 and "lies in --known" in done.stderr and not (known / "new").exists(), done.stderr


@pytest.mark.nvcc
def test_module_builds_with_the_real_nvcc_and_a_crashing_one(tmp_path, fake_nvcc):
    """One file of generated programs builds under the default config with the real nvcc (cached the second
    time); a compiler that dies of a signal is told apart from one that rejects."""
    from suitegen.synth import emit, populate
    tc = probe(shutil.which("nvcc"))
    source = emit.source([populate.generate("mod", i) for i in range(3)])
    built = modules.build_module(tc, fuzz.BUILDS["default"], source, tmp_path / "a")
    assert built.ok and built.module.read_bytes()[:4] == b"\x7fELF", built.log
    again = modules.build_module(tc, fuzz.BUILDS["default"], source, tmp_path / "b")
    assert again.ok and again.cached
    crashing = fake_nvcc('kill -SEGV $$', probe=False)
    fake = tc.__class__(**{**{f: getattr(tc, f) for f in tc.__dataclass_fields__}, "nvcc": str(crashing)})
    died = modules.build_module(fake, fuzz.BUILDS["default"], source, tmp_path / "c", use_cache=False)
    assert not died.ok and died.crashed
    reported = fake_nvcc(f"printf '%s' \"{DIED}\" >&2; exit 139", probe=False)  # as nvcc says it, with its status
    fake = tc.__class__(**{**{f: getattr(tc, f) for f in tc.__dataclass_fields__}, "nvcc": str(reported)})
    died = modules.build_module(fake, fuzz.BUILDS["default"], source, tmp_path / "d", use_cache=False)
    assert not died.ok and died.crashed and not died.timed_out, died.log


def test_stages_are_blamed_from_the_configs():
    assert triage.blame({"default"}, {"ptxas-O0", "cicc-O0"}) == "ptxas optimiser"
    assert triage.blame({"default", "ptxas-O0"}, {"cicc-O0"}) == "NVVM optimiser"
    assert triage.blame({"cicc-O0"}, {"default", "ptxas-O0"}) == "ptxas on unoptimised PTX"
    assert triage.blame({"default", "ptxas-O0", "cicc-O0"}, set()).startswith("front end")
    assert triage.blame({"default", "host-O0"}, set()).startswith("model")
    # judged again under every build the fuzzer knows: -G hands ptxas unoptimised PTX as -Xcicc -O0 does
    every = {"default", "ptxas-O0", "cicc-O0", "debug", "maxrreg", "ptx-jit"}
    assert triage.blame({"cicc-O0", "debug"}, every - {"cicc-O0", "debug"}) == "ptxas on unoptimised PTX"
    assert triage.blame({"default", "maxrreg", "ptx-jit"}, every - {"default", "maxrreg", "ptx-jit"}) == \
        "ptxas optimiser"
    assert triage.blame({"maxrreg"}, every - {"maxrreg"}) == "register allocation under -maxrregcount"


def test_a_crashing_file_of_ones_own_is_reduced_to_the_lines_that_crash_it(tmp_path, fake_nvcc):
    """``fuzz --reduce FILE``: a program a user brings, which crashes a build (here every source holding ``^``
    crashes the fake, whatever else it holds), is cut to the line that crashes it, the same crash, and filed as a
    finding; a file no build crashes on is said to have nothing to reduce."""
    fake = fake_nvcc('for a in "$@"; do case "$a" in *.cu) grep -q "\\^" "$a" && kill -SEGV $$;; esac; done\n'
                     'echo "refused" >&2; exit 1')
    lines = [f"__device__ int f{i}(int x) {{ return x + {i}; }}" for i in range(12)]
    lines[7] = "__device__ int f7(int x) { return x ^ 7; }"
    mine = tmp_path / "mine.cu"
    mine.write_text("\n".join(lines) + "\n__global__ void k(int *o) { *o = f7(*o); }\n")
    args = ("--nvcc", str(fake), "--builds", "default,ptxas-O0", "--no-gpu", "-j", "2")
    done = fuzz_cli("--reduce", str(mine), *args, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    reduced = (tmp_path / "mine.reduced.cu").read_text()
    assert "^" in reduced and reduced.count("\n") <= 2, reduced
    assert "13 lines -> " in done.stdout and "crashes the default build" in done.stdout, done.stdout
    # its finding, filed as a campaign's crash is (in mine.finding/), which --releases can range
    crash = json.loads((tmp_path / "mine.finding" / "findings.json").read_text())
    assert [(f["kind"], f["build"], f["reproducer"]) for f in crash] == [("crash", "default", reduced)], crash
    assert crash[0]["bucket"] == triage.bucket({"kind": "crash", "stage": "compiler crash (default)",
                                                "failing": ["default"], "log": crash[0]["log"]})
    assert f"| [`{crash[0]['bucket']}`](repro/{crash[0]['bucket']}/report.md) | new | compiler crash (default) |" in (
        tmp_path / "mine.finding" / "findings.md").read_text()
    (tmp_path / "clean.cu").write_text("__global__ void k(int *o) { *o = 1; }\n")
    clean = fuzz_cli("--reduce", str(tmp_path / "clean.cu"), *args, cwd=tmp_path)
    assert clean.returncode == 1 and "nothing to reduce" in clean.stdout, clean.stdout + clean.stderr
    missing = fuzz_cli("--reduce", str(tmp_path / "none.cu"), *args, cwd=tmp_path)
    assert missing.returncode == 2 and "cannot read it" in missing.stderr, missing.stderr
    # its finding's folder may not be a campaign's (whose findings.json it would write over), nor a file
    campaign = tmp_path / "campaign"
    campaign.mkdir()
    (campaign / "campaign.json").write_text('{"seed": "opensource"}')  # "source" in a value, not a key
    (tmp_path / "clean.finding").write_text("a file\n")
    for where, says in ((("--out", str(campaign)), "holds a campaign"), ((), "clean.finding is where its finding goes")):
        refused = fuzz_cli("--reduce", str(tmp_path / "clean.cu"), *args, *where, cwd=tmp_path)
        assert refused.returncode == 2 and says in refused.stderr, refused.stderr


# A fake nvcc whose programs are host C++ built by g++: under -Xcicc -O0 it turns every `` ^ `` into `` | `` (a planted
# wrong-code fault); a module build (-cubin, -ptx) makes an empty module.
HOST_NVCC = r"""
out=""; src=""; cicc=""; prev=""
for a in "$@"; do
  case "$a" in -cubin|-ptx) : > "${@: -1}"; exit 0;; *.cu) src="$a";; esac
  [ "$prev" = "-o" ] && out="$a"; [ "$prev" = "-Xcicc" ] && [ "$a" = "-O0" ] && cicc=1; prev="$a"
done
cp "$src" /tmp/sg-host-$$.cpp; [ -n "$cicc" ] && sed -i "s/ \^ / | /g" /tmp/sg-host-$$.cpp
g++ -x c++ /tmp/sg-host-$$.cpp -o "$out"; rc=$?; rm -f /tmp/sg-host-$$.cpp; exit $rc
"""


def self_checking(lines: list[str], calls: list[str], expected: list[int]) -> str:
    """A program in the form of a ``suitegen fuzz`` reproducer: functions, cells, a table of expected values and its
    check (exit 0, ``OK``, where every cell is right)."""
    return ("#include <cstdio>\n" + "\n".join(lines) + "\n"
            + f"static const unsigned long long sg_expect[{len(calls)}] = {{{', '.join(f'{v}ull' for v in expected)}}};\n"
            + f"int main() {{ const int n = {len(calls)}; unsigned long long h[n] = {{}}; int bad = 0;\n"
            + "".join(f"  h[{i}] = {c};\n" for i, c in enumerate(calls))
            + '  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) printf("cell %d: expected %llu, '
              'got %llu\\n", i, sg_expect[i], h[i]);\n'
            + '  printf(bad ? "WRONG %d\\n" : "OK\\n", bad); return bad != 0; }\n')


@needs_gxx
def test_a_wrong_program_of_ones_own_is_reduced_through_its_own_check(tmp_path, fake_nvcc, monkeypatch):
    """``fuzz --reduce FILE`` for wrong code: the builds whose program exits 0 are the good ones, the build that gets it
    wrong (a planted fault under -Xcicc -O0) the bad; the file is cut to the lines that still tell them apart, its
    table of expected values refreshed to the good build's (it prints OK there), and a report written beside it; its
    finding is filed in a folder of its own, which ``--releases`` ranges as it ranges a campaign's."""
    fake = fake_nvcc(HOST_NVCC)
    lines = [f"int f{i}(int x) {{ return x + {i}; }}" for i in range(10)]
    lines[6] = "int f6(int x) { return x ^ 6; }"
    lines[0:0] = ["static int never(int x) {", "}"]  # no return, never called: cuts may go on (it may stay or go)
    mine = tmp_path / "mine.cu"
    mine.write_text(self_checking(lines, [f"f{i}({i + 1})" for i in range(10)],  # f6(7): 1, but 7 with the fault
                                  [(i + 1) ^ 6 if i == 6 else i + 1 + i for i in range(10)]))
    args = ("--nvcc", str(fake), "--builds", "default,ptxas-O0,cicc-O0", "--no-gpu", "-j", "2", "--reduce-budget", "120s")
    done = fuzz_cli("--reduce", str(mine), *args, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    # --builds first, then every other build the fuzzer knows: the file is judged under each
    assert "wrong under cicc-O0, right under debug, default, maxrreg, ptx-jit, ptxas-O0" in done.stdout, done.stdout
    reduced = (tmp_path / "mine.reduced.cu").read_text()
    assert " ^ " in reduced and reduced.count("\n") < mine.read_text().count("\n") - 8, reduced
    report = (tmp_path / "mine.reduced.md").read_text()
    assert "| cicc-O0 | exit 1: WRONG 1 | exit 1: WRONG 1 |" in report and "-Xcicc -O0 mine.reduced.cu" in report, report
    assert "where the debug build printed what the default build did" in report, report
    for fault, says in (("", "OK"), ("s/ \\^ / | /g", "WRONG")):  # the refreshed table: right where it is right
        src = tmp_path / f"check{len(fault)}.cpp"
        src.write_text(reduced)
        if fault:
            subprocess.run(["sed", "-i", fault, str(src)], check=True)
        subprocess.run(["g++", "-x", "c++", str(src), "-o", str(src.with_suffix(""))], check=True)
        ran = subprocess.run([str(src.with_suffix(""))], capture_output=True, text=True)
        assert ran.stdout.splitlines()[-1].split()[0] == says, (fault, ran.stdout, reduced)
    # its finding, as a campaign files one: published, and ranged over releases as a campaign's are (here, built
    # with two 'releases' for a GPU machine: --builds-to)
    folder = tmp_path / "mine.finding"
    found = json.loads((folder / "findings.json").read_text())
    assert [(f["kind"], f["failing"], f["stage"], f["source"]) for f in found] == [
        ("wrong-code", ["cicc-O0"], "ptxas on unoptimised PTX", str(mine))], found
    assert found[0]["observed"] == ["cell 6: expected 1, got 7"] and found[0]["reproducer"] == reduced
    assert f"| [`{found[0]['bucket']}`](repro/{found[0]['bucket']}/report.md) | new |" in (
        folder / "findings.md").read_text()
    from suitegen.frontends import cli
    from suitegen.history import releases as bisect
    every = bisect.bisect
    names = {"13.0.1": str(fake), "13.0.2": str(fake)}
    monkeypatch.setattr(bisect, "bisect", lambda low, high, run, out, **_: every(
        low, high, run, out, add=lambda v: {"name": names[v]}, listing=lambda lo, hi: list(names)))
    assert cli.main(["fuzz", "--releases", "13.0.1..13.0.2", "--out", str(folder), "--builds-to",
                     str(tmp_path / "kept")]) == 0
    for release in names:
        kept = json.loads((tmp_path / "kept" / release / "builds.json").read_text())
        # it has no extern "C" kernel to run as a module: it is built whole, and runs as its file does
        assert [(b["bucket"], b["build"], b["ok"], b["program"]) for b in kept] == [
            (found[0]["bucket"], "cicc-O0", True, True)], kept
        ran = subprocess.run([str(tmp_path / "kept" / release / kept[0]["module"])], capture_output=True, text=True)
        assert ran.returncode == 1 and "cell 6: expected 1, got 7" in ran.stdout, ran.stdout
    # both at once: --reduce FILE --releases ranges the finding it files (into --out)
    monkeypatch.chdir(tmp_path)
    assert "a new bug" in done.stdout and (tmp_path / "reports" / "fuzz" / "findings.json").is_file()
    assert cli.main(["fuzz", "--reduce", str(mine), *args[:-1], "5s", "--out", str(tmp_path / "again"),
                     "--releases", "13.0.1..13.0.2", "--builds-to", str(tmp_path / "kept2"),
                     "--known", str(tmp_path / "reports" / "fuzz" / "findings.json")]) == 0
    [again] = json.loads((tmp_path / "again" / "findings.json").read_text())
    assert [b["bucket"] for b in json.loads((tmp_path / "kept2" / "13.0.2" / "builds.json").read_text())] == [
        again["bucket"]]
    assert again["known"] and again["bucket"] == found[0]["bucket"], "the same file reduced again: the same bug"
    (tmp_path / "same.cu").write_text(self_checking(lines[:4], ["f1(2)"], [3]))  # no ^: every build gets it right
    same = fuzz_cli("--reduce", str(tmp_path / "same.cu"), *args, cwd=tmp_path)
    assert same.returncode == 1 and "nothing to reduce" in same.stdout and "cicc-O0: exit 0: OK" in same.stdout, same.stdout


@needs_gxx
def test_a_campaign_s_last_cut_takes_the_whole_file_kernel_and_main_too(tmp_path, fake_nvcc, monkeypatch):
    """A campaign's reproducer is cut last as a whole file (``file_pass.cut``): lines the campaign's own passes
    never touch (its check of a CUDA error, cells nothing computes wrong) go where the file still shows the planted
    fault under cicc-O0 alone; the table is refreshed, and the cut file is judged again under every build. Where the
    file no longer shows the bug (the good build wrong too), there is nothing to cut: None."""
    from suitegen.campaigns import file_pass, fuzz
    from suitegen.frontends import cli
    fake = fake_nvcc(HOST_NVCC)
    lines = ["int f0(int x) { return x + 1; }", "int f1(int x) { return x ^ 6; }", "int f2(int x) { return x * 3; }"]
    text = self_checking(lines, ["f0(1)", "f1(7)", "f2(2)", "f0(f2(1))"], [2, 1, 6, 4])
    text = text.replace("  for (int i", "  if (h[0] == 12345) return printf(\"CUDA error: none\\n\"), 2;\n  for (int i")
    args = cli.build_parser().parse_args(["fuzz", "--nvcc", str(fake), "--builds", "default,ptxas-O0,cicc-O0",
                                          "--no-gpu", "-j", "2", "--out", str(tmp_path / "c")])
    tc, opts = fuzz._campaign_options(args)
    campaign = fuzz.Campaign(tc, opts)
    cut = file_pass.cut(campaign, text, "cicc-O0", "default", time.monotonic() + 120)
    assert cut is not None and cut["reproduces"] and cut["wrong"] == ["cicc-O0"], cut
    kept = cut["reproducer"]
    assert " ^ " in kept and "CUDA error" not in kept and "f2" not in kept, kept
    assert kept.count("\n") < text.count("\n") - 3 and [o.split(": ", 1)[1] for o in cut["observed"]] == [
        "expected 1, got 7"], (kept, cut["observed"])
    assert "debug" in cut["right"] and "ptx-jit" in cut["right"], cut["right"]  # every build judged the cut file
    broken = text.replace("{2ull, 1ull", "{2ull, 7ull")  # the good build's table says 7: wrong everywhere
    assert file_pass.cut(campaign, broken, "cicc-O0", "default", time.monotonic() + 60) is None
    # a campaign's finding takes the cut file, its builds and cells (where a GPU runs it: here, a stand-in runner)
    finding = {"kind": "wrong-code", "reproduces": True, "bad": "cicc-O0", "good": "default", "reproducer": text,
               "lines": text.count("\n"), "failing": ["cicc-O0", "debug"], "passing": ["default", "host-O0"],
               "observed": ["cell 1: expected 1, got 7", "cell 3: expected 4, got 9"], "seconds": {"model": 1.0},
               "sanitizer": {"host-asan": "clean"}}
    assert file_pass.refined(campaign, finding, time.monotonic() + 120) is finding  # no GPU: nothing to cut
    assert not file_pass.follows(campaign)  # so the triage's line pass has all the time the model's reducer left
    campaign.runner = object()
    assert file_pass.follows(campaign)  # a GPU, nvcc's whole-file builds: the pass takes its part of the line pass's
    assert file_pass.refined(campaign, finding, time.monotonic() + 10) is finding  # too little time left
    monkeypatch.setattr(file_pass, "cut", lambda *_: cut)  # the cut above, not made again
    done = file_pass.refined(campaign, finding, time.monotonic() + 120)
    assert done["lines"] < finding["lines"] == done["lines_before_file"], done
    assert done["failing"] == ["cicc-O0"] and "host-O0" in done["passing"], done
    assert done["reduced"]["failing"] == ["cicc-O0"] and "cicc-O0 wrong" in " ".join(done["targets"].values()), done
    assert done["stage"] == "ptxas on unoptimised PTX" and done["observed"] == cut["observed"], done
    assert done["standalone"] == {"cicc-O0": "WRONG 1", "default": "OK"} and "file" in done["seconds"], done
    assert done["sanitizer"]["host-asan"] == "clean" and set(done["sanitizer"]) == {"host-asan", "cicc-O0", "default"}
    resumed = file_pass.refined(campaign, dict(finding, seconds={"model": 1.0, "file": 50.0}), time.monotonic() + 120)
    assert resumed["seconds"]["file"] >= 50.0, resumed["seconds"]  # a pass a stop cut short: its time counts on

    def broken_pass(*_):
        raise OSError("no space left on device")
    monkeypatch.setattr(file_pass, "cut", broken_pass)  # the pass's own error keeps the finding it was to refine
    kept = file_pass.refined(campaign, finding, time.monotonic() + 120)
    assert kept["reproducer"] == text and kept["kind"] == "wrong-code" and "no space" in kept["file_pass"], kept


def test_a_cut_of_a_reproducer_keeps_the_statements_that_zero_and_copy_its_cells():
    """No candidate of the file pass may lose the reproducer's ``cudaMemset`` of its cells or their copy back (a cell
    its kernel leaves unwritten would be read uninitialised), nor the check that says a failed launch as a CUDA error
    (it would show as wrong cells). Such a candidate is refused before anything is built."""
    from suitegen.campaigns import file_pass, own_file
    from suitegen.synth import emit, populate, reduce
    p = populate.generate("keep", 0, "wide")
    text = emit.standalone(p, reduce.expected(p))
    assert all(k in text for k in file_pass.KEPT)
    tells = own_file.Tells(None, None, None, None, None, None, time.monotonic() + 60, keep=file_pass.KEPT)
    for cut in (text.replace(" cudaMemset(d, 0, n * 8);", ""),
                text.replace("cudaMemcpy(h, d, n * 8,", "cudaMemcpy(h, d, n,"),
                "".join(line for line in text.splitlines(keepends=True) if "cudaGetLastError" not in line)):
        assert not tells.one(cut)  # refused at once: the campaign (None here) is never asked to build it


# How nvcc reports a sub-tool that died of a signal (its exit status is then 128 + the signal, not negative).
DIED = "nvcc error   : 'cicc' died due to signal 11 (Invalid memory reference)\nnvcc error   : 'cicc' core dumped\n"


def test_nvcc_s_report_of_a_dead_sub_tool_is_a_crash_and_errors_before_it_are_kept_apart():
    """A campaign's module builds run without -v, so nvcc's own words are all that says cicc crashed; a line-by-line
    reduction may not keep a candidate that reports errors the original did not (an error-recovery crash)."""
    from suitegen.compilers import diagnostics
    from suitegen.compilers.nvcc import classify
    from suitegen.model import Outcome
    assert diagnostics.parse(DIED).crash and classify(["nvcc"], 139, DIED, 1.0).outcome is Outcome.CRASHED
    assert triage.crash_signature(DIED) == "nvcc error   : 'cicc' died due to signal N (Invalid memory reference)"
    recovering = 'fuzz.cu(9): error: identifier "v4" is undefined\n' + DIED
    assert triage.crash_signature(recovering) == triage.crash_signature(DIED)
    assert triage.crash_errors(DIED) == frozenset()
    assert triage.crash_errors(recovering) == {'fuzz.cu(N): error: identifier "vN" is undefined'}
    assert not diagnostics.parse('main.cu(3): error: static assertion failed with "no"\n').crash


def test_a_crash_signature_leaves_out_numbers_and_paths():
    log = "nvcc: /tmp/x1/fuzz.cu(12): internal error: assertion failed at 0x7f3a in cicc 13.0\nmore"
    assert triage.crash_signature(log) == "nvcc: N internal error: assertion failed at N in cicc N.N"
    assert triage.crash_signature("all well\n") == ""


@pytest.mark.slow
@pytest.mark.nvcc
def test_a_compiler_crash_is_isolated_and_reduced(tmp_path, fake_nvcc):
    """An nvcc that dies of a signal on any source holding a funnel shift: the campaign splits the file until
    the crashing program is alone, reduces it, and the reproducer still crashes the fake, in a few lines. (What it
    builds otherwise is a cubin of no code: a reduction of a crash asks only whether a candidate crashes, and the
    real nvcc's build of each that does not took most of this test's time.)"""
    real = shutil.which("nvcc")
    cubin = tmp_path / "empty.cubin"
    cubin.write_bytes(minimal_elf(1, machine=190))  # EM_CUDA
    nvcc = fake_nvcc(f'if grep -q "sg_funnel_l(" "${{@: -3:1}}"; then kill -SEGV $$; fi\n'
                     f'case " $* " in *" -cubin "*) cp {cubin} "${{@: -1}}"; exit 0;; esac\nexec {real} "$@"\n',
                     probe=False)
    out = tmp_path / "c"
    done = fuzz_cli("--seed", "crash", "--policy", "bitwise", "--max-programs", "8", "--builds", "default",
                    "--nvcc", str(nvcc), "--no-gpu", "--per-file", "8", "-j", "2", "--reduce-budget", "240s",
                    "--out", str(out))
    assert done.returncode == 1, done.stdout + done.stderr
    found = [f for f in json.loads((out / "findings.json").read_text()) if f["kind"] == "crash"]
    assert found and found[0]["reduced_still_differs"], done.stdout
    text = found[0]["reproducer"]
    assert "sg_funnel_l(" in text and text.count("\n") <= 10, text


def test_nvrtc_builds_generated_programs_and_refuses_builds_it_cannot_make(tmp_path, nvrtc_lib):
    """Compile-only crash hunting with NVRTC: every file builds; a build NVRTC has no option for is a usage error."""
    out = tmp_path / "c"
    done = fuzz_cli("--nvcc", nvrtc_lib, "--builds", "default,ptxas-O0,debug", "--seed", "nvrtc", "--max-programs",
                    "8", "--per-file", "8", "-j", "2", "--no-gpu", "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    state = json.loads((out / "campaign.json").read_text())
    assert state["tally"]["built"] == 8 and state["tally"]["build_failures"] == 0
    refused = fuzz_cli("--nvcc", nvrtc_lib, "--builds", "cicc-O0", "--no-gpu", "--out", str(tmp_path / "d"))
    assert refused.returncode == 2 and "NVRTC has no option for -Xcicc -O0" in refused.stderr


@pytest.mark.nvcc
def test_a_crash_finding_is_bisected_over_releases(tmp_path, fake_nvcc):
    """engine.releases' run callback over two 'releases': one compiler crashes on the reproducer, the next one
    builds it; the boundary between them is reported."""
    from suitegen.history import releases as bisect
    crashing = fake_nvcc("kill -SEGV $$", probe=False)
    fixed = fake_nvcc(f'exec {shutil.which("nvcc")} "$@"', probe=False)
    finding = {"kind": "crash", "bucket": "b1", "build": "cicc-O0", "failing": ["cicc-O0"],
               "reproducer": '__device__ int f(int x) { return x + 1; }\n'
                             'extern "C" __global__ void k(int *o) { o[0] = f(o[1]); }\n'}
    tc = probe(shutil.which("nvcc"))
    campaign = fuzz.Campaign(tc, fuzz.Options(seed="s", budget=0, out=tmp_path), None)
    names = {"13.0.1": str(crashing), "13.0.2": str(fixed)}

    def run(name, folder):
        folder.mkdir(parents=True, exist_ok=True)
        return triage.release_records(campaign, probe(name), [finding], folder)
    versions, changes, judged = bisect.bisect("13.0.1", "13.0.2", run, tmp_path / "r",
                                              add=lambda v: {"name": names[v]}, listing=lambda lo, hi: list(names))
    assert judged == 1 and len(changes) == 1
    assert (changes[0].before, changes[0].after) == ("13.0.1", "13.0.2")
    assert changes[0].old["verdict"] == "FAIL" and changes[0].new["verdict"] == "PASS"


class HostTextTester(triage.TextTester):
    """A TextTester whose two 'device' builds are host builds: g++ for the good one, a faulty g++ for the bad
    one (the textual pass is the same; only where the cells come from differs)."""

    def __init__(self, faulty, *args):
        super().__init__(*args)
        self.faulty = faulty

    def _gpu(self, build_name, text):
        import tempfile
        from suitegen.execute import host_check
        from suitegen.synth import emit
        p = self.p
        cxx = self.faulty if build_name == "bad" else shutil.which("g++")
        body = host_check.values(emit.host_dump(p, text), Path(tempfile.mkdtemp(dir=self.c.scratch)), ("-O1",),
                                 cxx=cxx)
        if body is None:
            return None
        cells = [0] * p.cells
        for t in range(p.lanes):
            cells[t * p.width:t * p.width + p.outputs] = body[t * p.outputs:(t + 1) * p.outputs]
        return cells


class HostFaultTester(HostTextTester, triage.FaultTester):
    """A FaultTester whose good cells come from g++ (``HostTextTester``) and whose bad build is a program built alone by
    the campaign's nvcc, as ``FaultTester`` judges a run that faults."""


@needs_gxx
def test_a_run_that_faults_is_reduced_by_programs_built_alone(tmp_path, fake_nvcc):
    """A fault is judged as its reproducer runs (a program built alone, its buffers exactly as large as they must be),
    not by the campaign's workers, where a stray access may land in pooled memory: an nvcc whose programs fault
    wherever the source holds a `` ^ `` before its kernel shrinks a program to lines that still hold it; the finding keeps no cells."""
    import time
    from types import SimpleNamespace
    from concurrent.futures import ThreadPoolExecutor
    from suitegen.compilers.modules import DeviceBuild
    from suitegen.synth import emit, populate
    nvcc = fake_nvcc('out="${@: -1}"\nif sed "/^extern/,\\$d" repro.cu | grep -q " ^ "; then printf \'#!/bin/sh\\necho "CUDA error: an '
                     'illegal memory access was encountered"; exit 2\\n\' > "$out"; else printf \'#!/bin/sh\\necho OK\\n\''
                     ' > "$out"; fi\nchmod +x "$out"\n', probe=False)
    campaign = SimpleNamespace(opts=SimpleNamespace(jobs=2), scratch=tmp_path, cxx=None, pool=ThreadPoolExecutor(2),
                               tc=SimpleNamespace(nvcc=str(nvcc)), build=lambda name: DeviceBuild(name=name))
    p = next(p for p in sorted((populate.generate("text", i, "bitwise") for i in range(40)),
                               key=lambda p: emit.reducible(p).count("\n")) if " ^ " in emit.reducible(p))
    tester = HostFaultTester(shutil.which("g++"), campaign, p, "bad", "good", time.monotonic() + 12)  # a few rounds
    before = emit.reducible(p).count("\n")
    found = triage.reduce_text(tester)
    assert found["reduced_still_differs"] and found["observed"] is None, found.get("why")
    kept = found["reproducer"].split("extern \"C\"")[0]
    assert " ^ " in kept and kept.count("\n") < before, kept
    tester.deadline = time.monotonic() + 60
    assert not tester([kept.replace(" ^ ", " | ")])[0] and "does not fault (OK)" in tester.why, tester.why
    # the model's reducer judges a fault so too: each candidate built alone under the bad build
    from suitegen.synth import reduce
    other = next(q for q in (populate.generate("text", i, "bitwise") for i in range(40)) if " ^ " not in emit.alone(q)
                 .split("extern")[0])
    statuses = triage.Tester(campaign, "bad", None, alone=True)._statuses("bad", [p, other], [reduce.expected(p),
                                                                                          reduce.expected(other)])
    assert statuses[0].startswith("run-fault: CUDA error") and statuses[1] == "no fault", statuses


@pytest.mark.nvcc
def test_a_candidate_that_does_not_build_does_not_sink_its_batch(tmp_path):
    """The model's reducer builds a batch of candidates as one module: where one of them does not build, the batch is
    built again in halves, so the others are still judged (by real nvcc; only the GPU run is a stand-in)."""
    from types import SimpleNamespace
    from concurrent.futures import ThreadPoolExecutor
    from dataclasses import replace
    from suitegen.compilers.modules import DeviceBuild
    from suitegen.synth import ir, populate, reduce
    from suitegen.synth import semantics as s
    programs = [replace(populate.generate("sink", i), name=f"c{i}") for i in range(4)]
    stray = ir.Out(slot=0, value=ir.Ref(var=ir.Var(name="nowhere", type=s.U32)))
    programs[2] = replace(programs[2], body=programs[2].body + (stray,))
    ran = []
    campaign = SimpleNamespace(opts=SimpleNamespace(jobs=2, use_cache=False), scratch=tmp_path, cxx=None,
                               pool=ThreadPoolExecutor(2), tc=probe(shutil.which("nvcc")),
                               build=lambda name: DeviceBuild(name=name),
                               run_module=lambda module, progs, expected: ran.extend(p.name for p in progs) or
                               ["ok"] * len(progs))
    statuses = triage.Tester(campaign, "default", None)._statuses(
        "default", programs, [reduce.expected(p) for p in programs[:2]] + [None, reduce.expected(programs[3])])
    assert statuses == ["ok", "ok", "no-module", "ok"] and sorted(ran) == ["c0", "c1", "c3"], (statuses, ran)


@pytest.mark.slow
@needs_gxx
def test_textual_reduction_keeps_a_wrong_value_and_refuses_undefined_behaviour(tmp_path):
    """After the model's reducer, line-by-line reduction needs no model: the good build must agree with g++
    -O0 under UBSan, the bad one must differ. A compiler that turns `` ^ `` into `` | `` is shrunk to a few
    lines that still hold the ``^``, and its reproducer expects the good build's cells."""
    import time
    from types import SimpleNamespace
    from suitegen.synth import emit, populate
    wrapper = tmp_path / "g++"
    wrapper.write_text('#!/bin/sh\nfor a in "$@"; do case "$a" in *.cpp) sed -i "s/ \\^ / | /g" "$a";; esac; done\n'
                       f'exec {shutil.which("g++")} "$@"\n')
    wrapper.chmod(0o755)
    from concurrent.futures import ThreadPoolExecutor
    campaign = SimpleNamespace(opts=SimpleNamespace(jobs=2), scratch=tmp_path, cxx=None, pool=ThreadPoolExecutor(2))
    programs = sorted((populate.generate("text", i, "bitwise") for i in range(40)),
                      key=lambda p: emit.reducible(p).count("\n"))
    for p in (p for p in programs if " ^ " in emit.reducible(p)):  # the shortest that shows the fault
        tester = HostTextTester(str(wrapper), campaign, p, "bad", "good", time.monotonic() + 300)
        if tester([emit.reducible(p)])[0]:
            break
    else:
        pytest.fail("no program of 40 shows the planted fault")
    before = emit.reducible(p).count("\n")
    found = triage.reduce_text(tester)
    assert found["reduced_still_differs"] and found["observed"]
    kept = found["reproducer"].split("extern \"C\"")[0]
    assert " ^ " in kept and kept.count("\n") <= 10 < before, kept  # 46 lines to 8 (benchmarks/cvise_vs_textual.py)
    # every line kept is needed: removing any one of the body's lines loses the bug or breaks the build
    body = kept.splitlines(keepends=True)
    assert not any(tester(["".join(body[:k] + body[k + 1:]) for k in range(len(body))]))  # side by side


def test_a_confirmed_finding_becomes_an_oracle_case_counted_apart_from_the_guide(tmp_path):
    """``fuzz --save``: the rule, its template (the reproducer, reporting as runtime cases do) and its deviation
    load with the oracle; the trace lists it apart from the guide's statements."""
    from suitegen import resources
    from suitegen.campaigns import regression
    from suitegen.oracle import loader, statements
    from suitegen.synth import emit, populate, reduce
    oracle, templates = tmp_path / "oracle", tmp_path / "templates"
    shutil.copytree(resources.oracle_root(), oracle)
    shutil.copytree(resources.templates_root(), templates)
    p = populate.generate("save", 1, None)
    finding = {"kind": "wrong-code", "bad": "default", "bucket": "0123abcd4567", "index": 1, "seed": "save",
               "policy": p.policy, "stage": "ptxas optimiser", "failing": ["default"], "passing": ["ptxas-O0"],
               "toolchain": "13.0.88", "observed": ["cell 3: expected 1, got 0"],
               "reproducer": emit.standalone(p, reduce.expected(p))}
    written = regression.save(finding, oracle, templates, "nvcc>=13.0 && nvcc<=13.2", "2026-11-26")
    assert [w.name for w in written] == ["fuzz-findings.toml", "0123abcd4567.cu.j2", "0123abcd4567.toml"]
    orc = loader.load(oracle)
    rule = next(r for r in orc.rules if r.id == "fuzz-findings/0123abcd4567")
    assert [(v.flags, v.expectation.expect.value, v.mode.value) for v in rule.variants] == [(("-fmad=false",), "runtime", "link")]
    dev = next(d for d in orc.deviations if d.rule == rule.id)
    assert dev.run == "failed" and dev.match == "wrong cells"
    case = (templates / "fuzz-findings" / "0123abcd4567.cu.j2").read_text()
    assert "SUITEGEN-RESULT: PASS" in case and "sg_expect" in case
    saved = Renderer(templates).render(rule, rule.variants[0])
    assert batch.batchable(saved), "its include first and no C names: it shares a batch's build"
    with pytest.raises(ValueError, match="already a case"):
        regression.save(finding, oracle, templates, "nvcc==13.0", "2026-11-26")
    with pytest.raises(ValueError, match="GPU reproducer"):
        regression.save(dict(finding, bad="host-O0", bucket="x", reproducer="int main() {}\n"), oracle, templates,
                        "nvcc==13.0", "2026-11-26")
    found = statements.load_statements(oracle, orc.sections, [r.id for r in orc.rules],
                                       statements.negative_rules(orc.rules))
    table = statements.trace_table(found, [r.id for r in orc.rules])
    kept = sum(r.id.startswith("fuzz-findings/") for r in orc.rules)
    assert kept >= 1 and f"compiler bugs suitegen fuzz found, kept as cases: {kept} rules (no guide statement; " \
        "counted apart)" in table
    assert "fuzz-findings/0123abcd4567" not in table.split("no statement names")[-1]


def test_a_line_reduction_never_keeps_a_non_void_function_without_its_return():
    """Flowing off the end of a non-void function is undefined behaviour: the line pass's test refuses such a
    candidate before building it, while every generated program's text keeps its returns."""
    import re
    from suitegen.synth import emit, populate, textual
    programs = [populate.generate("returns", i) for i in range(20)]
    assert all(textual.missing_return(emit.reducible(p)) is None for p in programs)
    with_helper = next(p for p in programs if re.search(r"\n\s*return [^\n]*;", emit.reducible(p)))
    text = emit.reducible(with_helper)
    cut = re.sub(r"\n\s*return [^\n]*;", "\n", text, count=1)
    assert textual.missing_return(cut) is not None
    assert textual.missing_return("__device__ void f(int *o) {\n  *o = 1;\n}\n") is None
    # a template of the generator's (and of a file of one's own) is a function too (the cicc-O0 file kept one empty)
    assert textual.missing_return("template <typename T> __device__  T f20(T p18, T p19) {\n}\n") == "f20"
    tester = triage.TextTester(None, with_helper, "default", "ptxas-O0", float("inf"))
    assert not tester.one(cut) and "lost its return" in tester.why


def test_findings_of_one_symptom_share_a_bucket_whatever_their_reduced_shape():
    """Three programs of the int-to-float class (the bits 1 where 1.0f is right), reduced to different shapes,
    are one bug; the high-word class and a fault are others; wrong cells of no known class keep the shape."""
    def finding(observed, shape, failing=("default",)):
        return {"kind": "wrong-code", "stage": "ptxas optimiser", "failing": list(failing), "observed": observed,
                "shape": shape}
    as_int = [finding(["cell 1: expected 1065353216, got 1"], "a"), finding(["cell 0: expected 1065353216, got 1"], "b"),
              finding(["cell 0: expected 1073741824, got 2", "cell 3: expected 4611686018427387904, got 2"], "c")]
    assert len({triage.bucket(f) for f in as_int}) == 1
    assert triage.symptom(as_int[2]["observed"]) == "float stored as its integer value"
    high = finding(["cell 2: expected 7, got 18446744069414584327"], "a")
    fault = finding(["the run failed: CUDARuntimeError: cudaErrorIllegalAddress: an illegal memory access"], "a",
                    ("cicc-O0",))
    assert triage.symptom(high["observed"]) == "high word set"
    assert triage.symptom(fault["observed"]) == "fault:cudaErrorIllegalAddress"
    other = [finding(["cell 0: expected 5, got 6"], "a"), finding(["cell 0: expected 5, got 6"], "b")]
    assert triage.symptom(other[0]["observed"]) is None and triage.bucket(other[0]) != triage.bucket(other[1])
    assert len({triage.bucket(f) for f in (as_int[0], high, fault, other[0])}) == 4
    assert triage.bucket(finding(as_int[0]["observed"], "a", ("cicc-O0",))) != triage.bucket(as_int[0]), \
        "the builds that get it wrong are part of what a bug does"
    # judged again under every build (debug, maxrreg, ptx-jit too), a bug lands where the campaign's builds put it
    assert triage.bucket(finding(as_int[0]["observed"], "a", ("default", "maxrreg", "ptx-jit"))) == \
        triage.bucket(as_int[0])
    assert triage.bucket(finding(as_int[0]["observed"], "a", ("ptx-jit",))) != triage.bucket(as_int[0])
    # q10's programs 86 and 6288: a 16-bit value sign-extended to 64 and to 32 bits, reduced to two shapes: one bug
    narrow = [finding(["cell 0: expected 65534, got 18446744073709551614"], "a", ("cicc-O0",)),
              finding(["cell 0: expected 65486, got 4294967246"], "b", ("cicc-O0",))]
    assert {triage.symptom(f["observed"]) for f in narrow} == {"narrow value sign-extended"}
    assert triage.bucket(narrow[0]) == triage.bucket(narrow[1])
    assert triage.symptom(["cell 0: expected 32766, got 4294967294"]) is None, "0x7FFE has no sign bit to extend"


def test_a_bug_met_twice_is_published_with_its_shortest_reproducer(tmp_path):
    """Two reductions of one bug in a campaign: its folder and its row in findings.md hold the shorter reproducer,
    and the bug is new or known as its first finding was."""
    from suitegen.report import fuzz_page
    base = {"kind": "wrong-code", "bucket": "b1", "stage": "ptxas optimiser", "failing": ["default"], "passing": [],
            "observed": ["cell 0: expected 1, got 2"], "toolchain": "13.0.88", "index": 1, "seed": "s", "policy": "p",
            "original_size": 9, "size": 3}
    found = [dict(base, lines=48, reproducer="long\n" * 48, known=False),
             dict(base, lines=39, reproducer="short\n" * 39, known=True, index=2)]
    state = {"seed": "s", "toolchain": "13.0.88", "builds": ["default"], "policy": None,
             "tally": {"generated": 2, "ran": 2, "host_checked": 0, "seconds": 1.0, "wrong": 2, "build_failures": 0}}
    fuzz_page.write(tmp_path, state, found)
    assert (tmp_path / "repro" / "b1" / "repro.cu").read_text() == "short\n" * 39
    table = (tmp_path / "findings.md").read_text()
    assert "2 wrong programs, 1 distinct bugs (0 of them known)" in table and "| new | ptxas optimiser |" in table
    assert "| 39 |" in table and "| 48 |" not in table, table


def test_a_reproducer_holds_where_the_same_cells_are_wrong_whatever_their_values():
    """k11's c9c20107991f: its device form's kernel is byte for byte the file's (-Xcicc -O0, nvcc 13.0.88), yet the
    form was not kept; a wrong value that varies from run to run is the same bug where the same cells are wrong."""
    first = "cell 3: expected 0, got 1329061888\ncell 5: expected 0, got 1329061888\nWRONG 2"
    assert triage.same_wrong(first.replace("1329061888", "7"), first)
    assert not triage.same_wrong(first.replace("cell 5", "cell 6"), first)
    assert not triage.same_wrong("OK", first) and not triage.same_wrong(first.replace("WRONG 2", "WRONG 3"), first)
    fault = "CUDA error: an illegal memory access was encountered"
    assert triage.same_wrong(fault, fault) and not triage.same_wrong(fault, first)


@needs_gxx
def test_a_program_that_overruns_an_array_is_caught_by_the_host_address_sanitizer(tmp_path):
    """A faulting finding is checked on the host under ASan and UBSan (``host-asan``): a read past a global array,
    which UBSan alone does not see through a pointer, is reported, and a clean program is clean."""
    from suitegen.execute import host_check
    over = "int a[4]; int *volatile p = a;\nint main() { return p[4]; }\n"
    run = host_check.run(over, tmp_path / "over", "host-asan", host_check.HOST_BUILDS["host-asan"])
    assert run.undefined == ("AddressSanitizer: global-buffer-overflow",) and "?" in run.undefined_in, run.log
    fine = host_check.run("int a[4]; int *volatile p = a;\nint main() { return p[3]; }\n", tmp_path / "fine",
                          "host-asan", host_check.HOST_BUILDS["host-asan"])
    assert fine.ok and not fine.undefined, fine.log
    assert host_check.run(over, tmp_path / "ub", "host-O0", host_check.HOST_BUILDS["host-O0"]).ok, \
        "UBSan alone misses it: the reason for host-asan"


def test_reductions_of_one_crash_are_one_bug_and_another_database_s_bugs_count_as_known(tmp_path):
    """cicc's -O0 segfault reduced to two programs of different shapes is one bug (the line that names the crash);
    a campaign given that bug's database with ``--known`` counts it as known and leaves that database as it was; a
    ``--known`` that is missing or damaged is a usage error."""
    def crash(shape):
        return {"kind": "crash", "stage": "compiler crash (cicc-O0)", "failing": ["cicc-O0"], "shape": shape,
                "log": "Segmentation fault\n"}
    assert triage.bucket(crash("switch:f10")) == triage.bucket(crash("switch:f25"))
    assert triage.bucket(crash("a")) != triage.bucket(dict(crash("a"), log="Aborted (core dumped)\n"))
    known = tmp_path / "known.json"
    triage.file_findings(known, [crash("switch:f10")], "earlier")
    before = known.read_text()
    filed = triage.file_findings(tmp_path / "db.json", [crash("switch:f25"), dict(crash("x"), log="Aborted\n")], "now",
                                 known=known)
    assert [f["known"] for f in filed] == [True, False]
    assert known.read_text() == before
    for bad in (tmp_path / "none.json", tmp_path / "db.json.lock"):
        with pytest.raises(UsageError, match="--known"):
            triage.known_buckets(bad)
    # a folder: every database under it and every campaign's findings there, as benchmarks/findings/ holds them
    published = tmp_path / "published"
    (published / "c1").mkdir(parents=True)
    (published / "database.json").write_text(known.read_text())
    (published / "db.json").write_text("{")  # no file of those a --known folder is read for
    aborted = dict(crash("y"), log="Aborted\n")
    (published / "c1" / "findings.json").write_text(json.dumps(
        [dict(aborted, bucket=triage.bucket(aborted)), {"kind": "repeat", "bucket": None}, {"kind": "build"}]))
    (published / "c1" / "campaign.json").write_text("{}")
    assert sorted(triage.known_buckets(published)) == sorted([triage.bucket(crash("a")), triage.bucket(aborted)])
    filed = triage.file_findings(tmp_path / "db2.json", [crash("z"), aborted], "later", known=published)
    assert [f["known"] for f in filed] == [True, True]
    (published / "c1" / "campaign.json").write_text("{")  # not a file a --known folder is read for
    assert len(triage.known_buckets(published)) == 2
    (published / "c1" / "database.json").write_text("{")
    with pytest.raises(UsageError, match="database.json does not read back"):
        triage.known_buckets(published)
    (published / "empty").mkdir()
    with pytest.raises(UsageError, match="no findings database or campaign findings under it"):
        triage.known_buckets(published / "empty")


def test_a_finding_s_release_range_is_its_first_wrong_last_wrong_and_first_fixed_release():
    from suitegen.report import fuzz_page
    from suitegen.report.diff import Entry

    def runs(verdicts: str) -> list:
        versions = ["13.0.48", "13.0.88", "13.3.33", "13.4.92", "13.5.37"]
        return [(v, [Entry(case_id="fuzz/b", rule="fuzz/b", section="fuzz", std="c++17", arch="sm_90",
                           verdict={"x": "FAIL", "?": "UNRESOLVED"}.get(c, "PASS"))])
                for v, c in zip(versions, verdicts)]
    assert triage.release_range(runs("xxxx.")) == {"b": "wrong in 13.0.48 - 13.4.92; first fixed: 13.5.37"}
    assert triage.release_range(runs("xxxxx")) == {"b": "wrong in 13.0.48 - 13.5.37; first fixed: none yet"}
    assert triage.release_range(runs("..xxx")) == \
        {"b": "wrong in 13.3.33 - 13.5.37; first fixed: none yet; right before, last in 13.0.88"}
    assert triage.release_range(runs("x.x..")) == \
        {"b": "wrong in 13.0.48 - 13.3.33 (not in every release between); first fixed: 13.4.92"}
    assert triage.release_range(runs(".....")) == {"b": "right in every release that built it (13.0.48 - 13.5.37)"}
    # a release that could not build the reproducer (13.0.48's wheel builds no program) is neither right nor wrong
    assert triage.release_range(runs("?xxxx")) == {"b": "wrong in 13.0.88 - 13.5.37; first fixed: none yet; not judged "
                                                        "in 13.0.48 (the release did not build it)"}
    assert triage.release_range(runs("?....")) == {"b": "right in every release that built it (13.0.88 - 13.5.37); "
                                                        "not judged in 13.0.48 (the release did not build it)"}
    # bugs that no build and no release tells apart are said to be alike; one bucket's programs are one bug
    fixed = "wrong in 13.0.48 - 13.4.92; first fixed: 13.5.37"
    ranges = {"a": fixed, "b": fixed, "c": "wrong in 13.0.48 - 13.3.73; first fixed: 13.4.59", "d": fixed, "e": fixed}
    found = [{"bucket": k, "kind": "wrong-code", "stage": "ptxas on unoptimised PTX", "failing": ["cicc-O0"]}
             for k in "aabcd"] + [{"bucket": "e", "kind": "wrong-code", "stage": "ptxas optimiser",
                                   "failing": ["default"]}]
    assert triage.alike(found, ranges) == {"a": ["b", "d"], "b": ["a", "d"], "d": ["a", "b"]}
    assert triage.alike(found, dict(ranges, b="right in every release that built it (13.0.48 - 13.5.37)")) == {
        "a": ["d"], "d": ["a"]}
    crashes = [{"bucket": k, "kind": "crash", "stage": "compiler crash (default)", "failing": ["default"]} for k in "xy"]
    assert triage.alike(crashes, {"x": fixed, "y": fixed}) == {}  # two crashes: their own lines tell them apart
    high = ["cell 0: expected 1, got 18446744069414584321"]  # a symptom of its own (the high word set): another bug
    assert triage.alike([dict(f, observed=high) if f["bucket"] == "b" else f for f in found], ranges) == {
        "a": ["d"], "d": ["a"]}
    page = fuzz_page.reproducers([dict(f, reproducer="x\n", alike=triage.alike(found, ranges).get(f["bucket"], []))
                                  for f in found])
    assert page.endswith("3 of them alike in stage, builds and releases (perhaps fewer bugs)"), page
    assert triage.release_range(runs("?????"))["b"].startswith("no release built it; not judged in 13.0.48, 13.0.88")


def test_releases_range_one_reproducer_per_distinct_bug(tmp_path, fake_nvcc, monkeypatch):
    """Two findings of one bug are ranged once, by the bug's shortest reproducer: the builds kept for a GPU machine
    are named by bug, so two of them would share one module and one would run with the other's launch."""
    from suitegen.frontends import cli
    from suitegen.history import releases as bisect
    from suitegen.report import fuzz_page

    def finding(kernel: str, lines: int) -> dict:
        text = (f'extern "C" __global__ void {kernel}(unsigned long long *o) {{ o[0] = 1; }}\n' + "\n" * (lines - 3)
                + f"#include <cstdio>\nstatic const unsigned long long sg_expect[1] = {{1ull}};\n"
                + f"int main() {{ {kernel}<<<1, 1>>>(0); }}\n")
        return {"kind": "wrong-code", "bucket": "b0", "bad": "default", "stage": "ptxas optimiser", "index": 1,
                "failing": ["default"], "passing": ["ptxas-O0"], "reproducer": text, "lines": text.count("\n")}
    state = {"seed": "s", "toolchain": "13.0.88", "builds": ["default"], "tally": {
        "generated": 2, "ran": 2, "host_checked": 0, "seconds": 1.0, "wrong": 2, "build_failures": 0}}
    out = tmp_path / "c"
    out.mkdir()
    (out / "campaign.json").write_text(json.dumps(state))
    (out / "findings.json").write_text(json.dumps([finding("sg_k_long", 30), finding("sg_k_short", 12)]))
    assert list(fuzz_page.distinct_bugs(json.loads((out / "findings.json").read_text()))) == ["b0"]
    fake = fake_nvcc(HOST_NVCC)
    every = bisect.bisect
    monkeypatch.setattr(bisect, "bisect", lambda low, high, run, out_, **_: every(
        low, high, run, out_, add=lambda v: {"name": str(fake)}, listing=lambda lo, hi: ["13.0.1"]))
    assert cli.main(["fuzz", "--releases", "13.0.1..13.0.1", "--seed", "s", "--out", str(out), "--builds-to",
                     str(tmp_path / "kept")]) == 0
    kept = json.loads((tmp_path / "kept" / "13.0.1" / "builds.json").read_text())
    assert [(b["bucket"], b["launch"]["kernel"]) for b in kept] == [("b0", "sg_k_short")], kept


def test_a_finding_not_claimed_keeps_its_reproducer_in_findings_json_and_gets_no_folder(tmp_path):
    from suitegen.report import fuzz_page
    state = {"seed": "s", "toolchain": "13.0.88", "builds": ["default"], "tally": {
        "generated": 1, "ran": 1, "host_checked": 0, "seconds": 1.0, "wrong": 1, "build_failures": 0}}
    found = {"kind": model.HARNESS, "index": 3, "reproducer": "int x;\n", "why": "right as a file built alone"}
    page = fuzz_page.write(tmp_path, state, [found])
    assert "campaign-only" in page.read_text() and not (tmp_path / "repro").exists()
    assert json.loads((tmp_path / "findings.json").read_text()) == [found]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_a_fault_s_report_says_how_much_stack_its_kernel_needs(tmp_path):
    """ptxas's word on a kernel's stack (what a fault under -Xcicc -O0 may come from): a known cumulative size, or
    none where recursion leaves it unknown and the driver gives each thread its default stack."""
    import types
    campaign = types.SimpleNamespace(tc=probe(shutil.which("nvcc")), scratch=tmp_path)
    flat = ('extern "C" __global__ void sg_k_p1(unsigned long long *o) {\n  long long a[4] = {1, 2, 3, 4};\n'
            "  o[0] = a[threadIdx.x % 4u];\n}\n")
    deep = ("__device__ __noinline__ int f(int n) { return n ? f(n - 1) + 1 : 0; }\n"
            'extern "C" __global__ void sg_k_p2(unsigned long long *o) { o[0] = f(threadIdx.x); }\n')
    known = triage.stack_use(campaign, fuzz.BUILDS["cicc-O0"], flat)
    assert re.search(r"kernel frame [1-9]\d* bytes; Used \d+ registers.*\d+ bytes cumulative stack size", known), known
    unknown = triage.stack_use(campaign, fuzz.BUILDS["cicc-O0"], deep)
    assert "no cumulative stack size" in unknown and re.search(r"largest callee frame [1-9]", unknown), unknown


@needs_gxx
def test_the_campaign_s_layout_of_a_program_computes_on_the_host_what_its_short_layout_does(tmp_path):
    """The line pass's second layout (the whole prelude and the program in its namespace, as a campaign's file holds
    it, where a bug the short layout hides may show): its host build, the line pass's reference, gives the model's
    values, as the short layout's does."""
    from suitegen.execute import host_check
    from suitegen.synth import emit, populate, reduce
    for k, policy in enumerate(("narrow", "math", "loops")):
        p = populate.generate("layout", k, policy)
        exp = reduce.expected(p)
        want = [exp[t * p.width + j] for t in range(p.lanes) for j in range(p.outputs)]
        for whole in (False, True):
            text = emit.reducible(p, whole)
            assert ("namespace sg_" in text) == whole
            got = host_check.values(emit.host_dump(p, text, whole), tmp_path / f"{k}{whole}",
                                    host_check.HOST_BUILDS["host-O0"])
            assert got == want, (policy, whole)
        assert emit.standalone(p, exp, whole=True).endswith(emit.standalone(p, exp).split(emit.STANDALONE_INCLUDE)[-1])


@pytest.mark.slow
@needs_gxx
def test_a_fault_of_the_campaign_s_harness_is_told_apart_from_a_compiler_bug(tmp_path):
    """A host compiler that gets ``^`` wrong at -O2 only in the campaign's own check file (its ``main`` over every
    program), never in a file of one program: the campaign sees wrong programs, confirms and reduces them through that
    harness, and then builds each reproducer alone, where it is right: not a compiler bug (``campaign-only``), nothing
    filed, and the campaign says so."""
    wrapper = tmp_path / "g++"
    wrapper.write_text('#!/bin/sh\ncase " $* " in *" -O2 "*) for a in "$@"; do case "$a" in *.cpp) '
                       'grep -q "unsigned long long o\\[64\\];" "$a" && sed -i "s/ \\^ / | /g" "$a";; esac; done;; esac\n'
                       f'exec {shutil.which("g++")} "$@"\n')
    wrapper.chmod(0o755)
    out = tmp_path / "c"
    done = fuzz_cli("--seed", "p1", "--max-programs", "4", "--out", str(out), *HOST_ONLY,
                    "--host-builds", "host-O0,host-O2", env=dict(os.environ, CXX=str(wrapper)))
    assert done.returncode == 0, done.stdout + done.stderr  # nothing new was filed
    found = json.loads((out / "findings.json").read_text())
    unclaimed = [f for f in found if f["kind"] == model.HARNESS]
    assert unclaimed and not [f for f in found if f["kind"] in model.FILED], found
    assert all(f["failing"] == ["host-O2"] and f["standalone"] == {"host-O2": "OK", "host-O0": "OK"}
               for f in unclaimed), unclaimed
    assert "wrong only as the campaign runs them" in done.stdout and "0 distinct bugs" in done.stdout, done.stdout


@pytest.mark.slow
@needs_gxx
def test_a_campaign_given_releases_ranges_its_findings_as_part_of_its_triage(tmp_path, fake_nvcc, monkeypatch):
    """``fuzz --releases LOW..HIGH`` with a campaign: after it files its findings, each gets its range over the
    releases (two 'releases' here: one crashes as the campaign's nvcc does, the next builds the reproducer), in
    releases.md and in the finding itself; no second command."""
    from suitegen.frontends import cli
    from suitegen.history import releases as bisect
    real = shutil.which("nvcc")
    cubin = tmp_path / "empty.cubin"
    cubin.write_bytes(minimal_elf(1, machine=190))
    crashing = fake_nvcc(f'if grep -q "sg_funnel_l(" "${{@: -3:1}}"; then kill -SEGV $$; fi\n'
                         f'case " $* " in *" -cubin "*) cp {cubin} "${{@: -1}}"; exit 0;; esac\nexec {real} "$@"\n',
                         probe=False)
    names = {"13.0.1": str(crashing), "13.0.2": real}
    every = bisect.bisect
    monkeypatch.setattr(bisect, "bisect", lambda low, high, run, out, **_: every(
        low, high, run, out, add=lambda v: {"name": names[v]}, listing=lambda lo, hi: list(names)))
    out = tmp_path / "c"
    status = cli.main(["fuzz", "--seed", "crash", "--policy", "bitwise", "--max-programs", "8", "--builds",
                       "default", "--nvcc", str(crashing), "--no-gpu", "--per-file", "8", "-j", "2", "--no-reduce",
                       "--out", str(out), "--releases", "13.0.1..13.0.2"])
    assert status == 1  # new findings
    crash = next(f for f in json.loads((out / "findings.json").read_text()) if f["kind"] == "crash")
    assert crash.get("releases") == "wrong in 13.0.1 - 13.0.1; first fixed: 13.0.2", crash.get("releases")
    assert f"fuzz/{crash['bucket']}: wrong in 13.0.1 - 13.0.1" in (out / "releases.md").read_text()


def test_a_program_reduced_again_to_another_shape_files_under_its_first_bug(tmp_path):
    """Program 7697 of seed k11, triaged by two versions of the reducer, came out in two shapes (two buckets): the same
    program (or the same file of one's own) is the same bug, in the database and in a ``--known`` one; another
    program of that shape, or the same program under another stage, is not."""
    from suitegen.synth import populate
    program = populate.generate("k11", 7697)
    first = {"kind": "wrong-code", "stage": "NVVM optimiser", "failing": ["default"], "shape": "a", "seed": "k11",
             "policy": None, "index": 7697, "origin": triage.program_origin(program)}
    assert triage.program_origin(populate.generate("k11", 7697)) == first["origin"] != triage.program_origin(
        populate.generate("k11", 7698)), "a program's origin is its text: a later generator's draw is another"
    db, known = tmp_path / "db.json", tmp_path / "known.json"
    [filed] = triage.file_findings(db, [first], "one")
    again = triage.file_findings(db, [dict(first, shape="b"), dict(first, shape="b", origin="program 1"),
                                      dict(first, shape="c", stage="ptxas optimiser")], "two")
    assert [(f["bucket"] == filed["bucket"], f["known"]) for f in again] == [(True, True), (False, False),
                                                                            (False, False)]
    entry = json.loads(db.read_text())["findings"][filed["bucket"]]
    assert entry["hits"] == 2 and "origins" not in entry  # its own first program is not listed twice
    # a campaign run again files its programs again: counted once, and not known from itself
    [rerun] = triage.file_findings(db, [first], "one")
    assert not rerun["known"] and json.loads(db.read_text())["findings"][filed["bucket"]]["hits"] == 2
    # two reductions of one program in one call: one bug
    pair = triage.file_findings(tmp_path / "pair.json", [dict(first, shape="x"), dict(first, shape="y")], "three")
    assert pair[0]["bucket"] == pair[1]["bucket"]
    # a database whose origins are not strings is damaged, not a crash of the campaign that files into it
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps({"findings": {"k": {"first": {"origin": {}, "kind": ["x"]}, "hits": 1,
                                                      "campaigns": [], "origins": [[1]]}}}))
    with pytest.raises(UsageError, match="--known"):
        triage.known_buckets(hostile)
    said = []
    assert triage.file_findings(hostile, [first], "four", say=said.append)[0]["known"] is False and said
    own = {"kind": "wrong-code", "stage": "ptxas optimiser", "failing": ["cicc-O0"], "shape": "the file x.cu",
           "origin": "file 0123"}
    triage.file_findings(known, [own], "earlier")
    [later] = triage.file_findings(db, [dict(own, shape="the file x.reduced.cu")], "now", known=known)
    assert later["known"] and later["bucket"] == triage.bucket(own)


def test_a_campaign_says_what_its_reproducers_are_as_the_issue_counts_them():
    """The line a compiler engineer reads first: the distinct bugs' reproducers, whole files, their median and largest
    size, and how many reproduce alone twice, are clean under the sanitizers that judge the program (the fault the
    wrong build shows is the bug, not the program's) and are ranged."""
    from suitegen.report import fuzz_page

    def bug(bucket, lines, **more):
        return {"kind": "wrong-code", "bucket": bucket, "stage": "ptxas optimiser", "failing": ["default"],
                "reproducer": "x;\n" * lines, "lines": lines, "bad": "default", "reproduces": True,
                "sanitizer": {"ptxas-O0": "clean", "default": "errors: Invalid __global__ read"}, **more}
    findings = [bug("a", 12, releases="wrong in 13.0.48 - 13.3.73; first fixed: 13.4.59"), bug("b", 30),
                bug("b", 40), bug("c", 15, reproduces=False, sanitizer={"ptxas-O0": "errors: a race"}),
                bug("d", 9, sanitizer={"ptxas-O0": ""}),  # no compute-sanitizer in the toolkit: not judged clean
                {"kind": "crash", "bucket": "e", "reproducer": "y;\n" * 5, "lines": 5, "reduced_still_differs": True},
                {"kind": "flaky", "index": 3}]
    assert fuzz_page.reproducers(findings) == (
        "Reproducers of the 5 distinct bugs: median 12 lines, at most 30 (each the whole file); 4 reproduce built "
        "alone twice, 2 of the 4 that run are clean under the sanitizers, 1 are ranged over releases")
    assert fuzz_page.reproducers([{"kind": "flaky", "index": 3}]) is None
    state = {"seed": "s", "toolchain": "13.0.88", "builds": ["default"], "policy": None,
             "tally": dict(fuzz.Tally(wrong=4).__dict__)}
    assert fuzz_page.reproducers(findings) + "." in fuzz_page.header(state, findings)
