"""Generated programs in qualification: the corpus, its cache, its place in the matrix, built with the real nvcc."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from suitegen.engine import generated, matrix, options
from suitegen.qualification import session as engine
from suitegen.engine.options import RunOptions
from suitegen.model import CorpusSpec, Std, UsageError
from suitegen.synth import corpus, emit, populate, reduce

from conftest import REPO, needs_nvcc, real_nvcc_behind

PROGRAMS = "generated/g1.p*[0-9]"  # the corpus's programs, not its injected ones (their ids end in a context)
SMALL = ["--generated", "12", "--rules", PROGRAMS]


def cli(*args, cwd=REPO, env=None, timeout=600):
    return subprocess.run([sys.executable, "-m", "suitegen", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=timeout)


def records(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


def test_one_seed_gives_the_same_programs_in_every_process():
    """Two interpreters with different hash seeds (as two machines) draw byte-identical programs."""
    code = ("import hashlib; from suitegen.synth import corpus; "
            "print(hashlib.sha256(''.join(corpus.draw('same', i).source for i in range(4)).encode()).hexdigest())")
    digests = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True,
                              env=dict(os.environ, PYTHONHASHSEED=seed)).stdout for seed in ("1", "2")}
    assert len(digests) == 1 and len(next(iter(digests)).strip()) == 64


@pytest.mark.slow
def test_even_programs_are_drawn_for_cxx11_and_each_case_requires_its_dialect():
    drawn = [corpus.draw("dialects", i) for i in range(12)]
    assert all(d.std == "c++11" for d in drawn[::2])
    for d in drawn:
        case = corpus.case(d)
        assert case.rule.requires.text == f"std>={d.std}" and case.rule.section == corpus.SECTION
        assert case.variant.flags == ("-fmad=false",) and case.files[corpus.FILE] == d.source
    # a constexpr function with statements before its return needs C++14; drawn for C++11 it is spelled plainly
    for i in range(60):
        free, strict = populate.generate("dialects", i), populate.generate("dialects", i, std=Std.CXX11)
        if populate.dialect(free) is Std.CXX14:
            assert populate.dialect(strict) is Std.CXX11 and emit.source([strict]) != emit.source([free])
            break
    else:
        pytest.fail("no program of 60 needed C++14")


def test_float_programs_are_not_judged_under_flags_that_change_float_results():
    d = next(d for d in (corpus.draw("floats", i) for i in range(40)) if d.floating)
    case = corpus.case(d)
    assert "fast-math" in case.variant.requires.text and "ftz" in case.variant.requires.text
    integer = next(d for d in (corpus.draw("floats", i) for i in range(40)) if not d.floating)
    assert corpus.case(integer).variant.requires is None


def test_the_corpus_cache_serves_only_entries_that_check(tmp_path, monkeypatch):
    monkeypatch.setenv("SUITEGEN_CORPUS_CACHE", str(tmp_path))
    first = generated.drawn("cached", range(3), jobs=1)
    entries = sorted(tmp_path.rglob("*.json"))
    assert len(entries) == 3
    # damage one entry's source (its digest no longer matches) and swap two others' contents
    a, b, c = (json.loads(p.read_text()) for p in entries)
    a["program"]["source"] += "// changed\n"
    entries[0].write_text(json.dumps(a))
    entries[1].write_text(json.dumps(c))
    entries[2].write_text(json.dumps(b))
    again = generated.drawn("cached", range(3), jobs=1)
    assert again == first
    assert [json.loads(p.read_text())["program"]["source"] for p in entries] != [a["program"]["source"]] * 3


def test_corpus_options_and_profile_tables_are_checked(tmp_path):
    for bad_count in ("-1", "x"):
        done = cli("run", "--generated", bad_count, "--list")
        assert done.returncode == 2 and "expected a whole number, 0 or more" in done.stderr, done.stderr
    done = cli("run", "--reduce-budget", "-5", "--list")
    assert done.returncode == 2 and "expected a number of seconds, 0 or more" in done.stderr, done.stderr
    with pytest.raises(UsageError, match="--generated-seed 'a/b'"):
        options.resolve_profile(RunOptions(profile="quick", generated_seed="a/b"))
    bad = tmp_path / "m.toml"
    bad.write_text('[profile.p]\nstd = ["c++17"]\narch = ["sm_90"]\n[profile.p.generated]\nseed = "x"\ncount = "9"\n')
    with pytest.raises(UsageError, match="generated: count"):
        matrix.load_profiles(bad)
    prof = options.resolve_profile(RunOptions(profile="quick", generated=7, generated_seed="s2"))
    assert prof.generated == CorpusSpec(seed="s2", count=7, invalid=1)
    assert options.resolve_profile(RunOptions(profile="quick", generated=0)).generated is None
    assert matrix.profile("quick").generated.count >= 500 and matrix.profile("nightly").generated.count >= 4000


def test_a_corpus_outside_its_axes_gets_no_config(tmp_path):
    bad = tmp_path / "m.toml"
    bad.write_text('[profile.p]\nstd = ["c++14", "c++17"]\narch = ["sm_80", "sm_90"]\n'
                   '[[profile.p.flagset]]\nflags = ""\n'
                   '[[profile.p.flagset]]\nflags = "-G"\nsections = ["generated"]\n'
                   '[profile.p.generated]\nseed = "x"\ncount = 2\nstd = ["c++17"]\narch = ["sm_90"]\n')
    prof = matrix.load_profiles(bad)["p"]
    tc = engine.probe_toolchains()[:1] if shutil.which("nvcc") else []
    if not tc:
        pytest.skip("needs nvcc")
    configs = engine.configs_for(tc, prof, check=False)
    takes = [c.id for c in configs if c.applies_to(corpus.SECTION)]
    assert takes == ["c++17,sm_90", "c++17,sm_90,-G"]
    assert sum(c.applies_to("lambdas") for c in configs) == 4  # the guide's sections keep the whole matrix
    # The corpus's own code-generation axes build its valid programs; one that must be rejected is built as the
    # guide's negatives are, under the other flag sets only.
    from suitegen.oracle import loader
    orc = loader.load()
    valid, invalid = corpus.case(corpus.draw("x", 0)), corpus.invalid_cases("x", 1, orc)[0]
    assert [c.id for c in configs if c.applies(valid)] == takes
    assert [c.id for c in configs if c.applies(invalid)] == ["c++17,sm_90"]


@pytest.mark.slow
@needs_nvcc
def test_generated_programs_are_built_in_every_dialect_they_are_valid_in(tmp_path):
    """Without a GPU: every program compiles under c++11 (when drawn for it) and c++20, none is rejected, and
    every run is UNSUPPORTED saying why; shards split the corpus like every item."""
    out = tmp_path / "run"
    done = cli("run", "--profile", "quick", "--std", "c++11,c++20", *SMALL, "--no-exec", "--out", str(out), "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    recs = records(out)
    assert len(recs) == 24 and {r["verdict"] for r in recs} == {"UNSUPPORTED"}
    for r in recs:
        assert r["case_id"].startswith("generated/g1.p") and r["section"] == corpus.SECTION
        assert "not run" in r["reason"] or r["reason"].startswith("requires std>=c++14"), r["reason"]
    assert sum(r["reason"].startswith("requires") for r in recs) <= 3
    built = [r for r in recs if not r["reason"].startswith("requires")]  # each program's module is its compile check
    assert all(r["batch"]["how"] == "batch" and r["batch"]["id"].startswith("module-") for r in built)
    assert all("-cubin" in r["observed"]["commands"][0] for r in built)
    reference = tmp_path / "reference"  # the cases' own way, each built alone: the same verdicts
    done = cli("run", "--profile", "quick", "--std", "c++11", "--generated", "4", "--rules", PROGRAMS, "--no-exec",
               "--batch", "off", "--out", str(reference), "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    alone = {(r["case_key"], r["config_key"]): r["verdict"] for r in records(reference)}
    assert alone and all(v == next(r["verdict"] for r in recs if (r["case_key"], r["config_key"]) == k)
                         for k, v in alone.items())
    summary = json.loads((out / "summary.json").read_text())
    assert summary["failed"] == 0 and summary["families"]["generated"]["results"] == 24
    assert not summary["counts"].get("UNSUPPORTED"), "generated programs are counted apart from the guide's"
    junit = (out / "junit.xml").read_text()
    assert 'testsuite name="generated/generated"' in junit and 'name="family" value="generated"' in junit
    two_batches = ["--generated", str(corpus.BATCH + 12), "--rules", PROGRAMS]  # two units: shards split by unit
    listed = [cli("run", "--profile", "quick", *two_batches, "--list", "--shard", f"{k}/2").stdout.split()
              for k in (1, 2)]
    assert sorted(listed[0] + listed[1]) == sorted(cli("run", "--profile", "quick", *two_batches,
                                                       "--list").stdout.split())
    assert listed[0] and listed[1] and not set(listed[0]) & set(listed[1])


@needs_nvcc
def test_a_build_store_holds_one_module_per_unit_and_its_replay_builds_nothing(tmp_path):
    """``--builds-to`` records a unit's module (its runs are "compiled; not run" here), and ``--builds-from`` takes
    the module from the store (no compiler runs in a replay) and judges the programs from it."""
    store = tmp_path / "store"
    args = ("run", "--profile", "quick", "--generated", "8", "--rules", PROGRAMS, "-q")
    done = cli(*args, "--builds-to", str(store), "--out", str(tmp_path / "to"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(list(store.rglob("*.cubin"))) == 1, "one module for the unit's eight programs"
    done = cli(*args, "--builds-from", str(store), "--out", str(tmp_path / "from"))
    assert done.returncode == 0, done.stdout + done.stderr
    for folder in ("to", "from"):
        recs = records(tmp_path / folder)
        assert len(recs) == 8 and all(r["batch"]["id"].startswith("module-") for r in recs), recs[0]


@needs_nvcc
def test_a_valid_generated_program_the_compiler_rejects_fails(tmp_path):
    """A toolchain that rejects what generated programs are: FAIL, with a reproducer; diff against a run of the
    real nvcc lists the programs that flipped, and history shows them."""
    rejecting = real_nvcc_behind(tmp_path, r"s|^__device__ void body(|int oops = ; &|")  # each program's body
    out = tmp_path / "run"
    done = cli("run", "--profile", "quick", "--generated", "2", "--rules", PROGRAMS, "--no-exec",
               "--nvcc", str(rejecting), "--out", str(out), "-q")
    assert done.returncode == 1, done.stdout + done.stderr
    assert {r["verdict"] for r in records(out)} == {"FAIL"}, [r["reason"] for r in records(out)]
    assert (out / "repro").is_dir()
    real = tmp_path / "real"  # two toolkits' runs line up program by program: diff and history name the flips
    done = cli("run", "--profile", "quick", "--generated", "2", "--rules", PROGRAMS, "--no-exec", "--out", str(real),
               "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    shown = cli("diff", str(real), str(out))
    history = cli("history", str(real), str(out), "--out", str(tmp_path / "history"))
    assert history.returncode == 0, history.stdout + history.stderr
    table = (tmp_path / "history" / "history.md").read_text()  # one version: its rows merge the two toolchains'
    for program in ("g1.p0", "g1.p1"):
        assert f"generated/{program}" in shown.stdout, shown.stdout + shown.stderr
        assert f"| `{program}` | FAIL (FAIL 1, UNSUPPORTED 1) |" in table, table


@needs_nvcc
def test_a_generated_program_the_compiler_crashes_on_is_reduced_filed_and_then_known(tmp_path):
    """A toolchain that crashes on every source holding ``^``: the programs are UNRESOLVED, each is reduced within
    the run's budget to a reproducer that still crashes (in its repro/ folder), and filed in the findings database.
    A second run against that database takes them as XFAIL, a known finding, reducing
    nothing."""
    fake = tmp_path / "bin" / "nvcc"
    fake.parent.mkdir()
    # Triage's candidates build alone as fuzz.cu: those that lost the ``^`` are refused at once (not a crash), so
    # the reduction costs no real builds.
    fake.write_text('#!/bin/sh\nfor a in "$@"; do case "$a" in *.cu) grep -q "\\^" "$a" 2>/dev/null && kill -SEGV $$;; '
                    'esac; done\ncase " $* " in *" fuzz.cu "*) echo "refused" >&2; exit 1;; esac\n'
                    f'exec {shutil.which("nvcc")} "$@"\n')
    fake.chmod(0o755)
    db = tmp_path / "findings.json"
    args = ("run", "--profile", "quick", "--generated", "2", "--rules", PROGRAMS, "--no-exec", "--nvcc", str(fake),
            "--findings", str(db), "--reduce-budget", "120", "-q")
    first = cli(*args, "--out", str(tmp_path / "first"))
    assert first.returncode == 1, first.stdout + first.stderr
    recs = records(tmp_path / "first")
    assert {r["verdict"] for r in recs} == {"UNRESOLVED"} and len(recs) == 2, [r["reason"] for r in recs]
    found = [json.loads(p.read_text()) for p in sorted((tmp_path / "first" / "findings").glob("*/finding.json"))]
    assert [f["kind"] for f in found] == ["crash", "crash"] and not any(f["known"] for f in found), found
    for f in found:
        original = corpus.draw("g1", int(f["program_id"].rsplit(".p", 1)[1])).source
        assert "^" in f["reproducer"] and f["lines"] < original.count("\n") / 2, f["reproducer"]
    repro = sorted((tmp_path / "first" / "repro").glob("*/reduced.cu"))
    assert len(repro) == 2 and "triage: crash" in (repro[0].parent / "expected-vs-observed.txt").read_text()
    filed = json.loads(db.read_text())["findings"]
    assert sorted(p for f in found for p in filed[f["bucket"]]["programs"]) == sorted(r["rule"] for r in recs)
    second = cli(*args, "--out", str(tmp_path / "second"))
    assert second.returncode == 0, second.stdout + second.stderr
    again = records(tmp_path / "second")
    latest = {(r["case_key"], r["config_key"]): r for r in again}
    assert {r["verdict"] for r in latest.values()} == {"XFAIL"}, [r["reason"] for r in latest.values()]
    assert {r["reason"].split(" (")[0] for r in latest.values()} == {f"known finding {f['bucket']}" for f in found}
    assert not (tmp_path / "second" / "findings").exists(), "a known finding is not reduced again"


def test_a_generated_program_checks_itself_against_the_model_on_the_host(tmp_path):
    """The model's values are what g++ computes for the same bodies, and a planted fault in the arithmetic
    (every ``^`` made ``|``) is seen: the check that judges generated programs can fail."""
    if shutil.which("g++") is None:
        pytest.skip("needs g++")
    programs = [populate.generate("host", i, policy="bitwise") for i in range(6)]
    text = emit.host_check(programs, [reduce.expected(p) for p in programs])
    results = {}
    for name, source in (("model", text), ("fault", text.replace(" ^ ", " | "))):
        (tmp_path / f"{name}.cpp").write_text(source)
        subprocess.run(["g++", "-O0", "-w", "-o", str(tmp_path / name), str(tmp_path / f"{name}.cpp")], check=True)
        results[name] = subprocess.run([str(tmp_path / name)], capture_output=True, text=True).stdout.splitlines()[-1]
    assert results["model"] == "OK" and results["fault"].startswith("WRONG")


def test_invalid_generated_programs_stand_beside_their_handwritten_negative():
    from suitegen.oracle import loader
    from suitegen.synth import inject
    orc = loader.load()
    cases = corpus.invalid_cases("g1", 1, orc)
    assert len(cases) == len(inject.VIOLATIONS) * len(inject.CONTEXTS)
    # a run selects among their rules before injecting anything: the ids alone, in the same order
    assert corpus.invalid_ids("g1", 1, orc) == [c.rule.id for c in cases]
    assert corpus.invalid_ids("g1", 2, orc) == [c.rule.id for c in corpus.invalid_cases("g1", 2, orc)]
    for case in cases:
        hand = orc.rule(case.rule.judged_as)
        negative = next(v for v in hand.variants if v.name == case.variant.name)
        assert case.variant.expectation == negative.expectation and case.rule.section == corpus.SECTION
        assert inject.MARK in case.files[case.main_file].splitlines()[case.violation_line - 1]


@needs_nvcc
def test_invalid_generated_programs_are_judged_with_their_rules_deviations(tmp_path):
    """An injected throw is rejected at its line (PASS); an injected long double is accepted, as the
    hand-written case is, and that rule's recorded deviation covers it (XFAIL)."""
    out = tmp_path / "run"
    done = cli("run", "--profile", "quick", "--generated", "1", "--rules", "generated/*-throw-*", "--rules",
               "generated/*-long-double-*", "--no-exec", "--out", str(out), "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    verdicts = {r["case_id"].split("-", 1)[1].rsplit("[")[0]: r["verdict"] for r in records(out)}
    assert verdicts == {**{f"throw-{c}": "PASS" for c in ("template", "lambda", "member", "chain")},
                        **{f"long-double-{c}": "XFAIL" for c in ("template", "lambda", "member", "chain")}}, verdicts
