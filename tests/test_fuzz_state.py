"""A campaign's state and the findings database lose nothing: concurrent filing, a damaged database, a damaged
or stale campaign state, stops (no process, no scratch folder left), cached modules checked before they serve."""
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import needs_nvcc
from test_fuzz import HOST_ONLY, fuzz_cli, needs_gxx
from test_stop import alive, wait_for
from suitegen.compilers import modules
from suitegen.compilers.toolchain import probe
from suitegen.campaigns import file_pass, fuzz, triage
from suitegen.report.run_folder import ResultsFile

FILER = """
import sys, time
from pathlib import Path
from suitegen.campaigns import triage
db, who = Path(sys.argv[1]), sys.argv[2]
(db.parent / f"ready-{who}").touch()
while len(list(db.parent.glob("ready-*"))) < 2:  # both start filing together
    time.sleep(0.01)
for k in range(150):
    triage.file_findings(db, [{"kind": "crash", "stage": who, "failing": [who], "shape": f"s{k}"}], who)
"""
FINDING = {"kind": "crash", "stage": "compiler crash (default)", "failing": ["default"], "shape": "add:int"}


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "programs.jsonl").read_text().splitlines()]


def test_two_campaigns_filing_at_once_keep_every_finding(tmp_path):
    """Two processes filing into one database at the same time: every finding of both is kept, no temp file left."""
    db = tmp_path / "findings.json"
    filers = [subprocess.Popen([sys.executable, "-c", FILER, str(db), who], stderr=subprocess.PIPE, text=True)
              for who in ("a", "b")]
    for p in filers:
        assert p.wait(timeout=300) == 0, p.stderr.read()
    entries = json.loads(db.read_text())["findings"].values()
    assert len(entries) == 300 and all(e["hits"] == 1 for e in entries)
    assert sorted({e["campaigns"][0] for e in entries}) == ["a", "b"]
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob("findings.json?*.tmp"))


@pytest.mark.parametrize("text", ['{"findings": {"0123abcd4567": {"first": {"kind": "cra', "5", "[]",
                                  '{"findings": []}', '{"findings": {"x": {"first": {}, "hits": "1"}}}', ""])
def test_a_damaged_database_is_kept_aside_and_reported_never_overwritten(tmp_path, text):
    db = tmp_path / "findings.json"
    db.write_text(text)
    said = []
    filed = triage.file_findings(db, [FINDING], "c", say=said.append)
    assert [f["known"] for f in filed] == [False]
    assert list(json.loads(db.read_text())["findings"]) == [filed[0]["bucket"]]
    (aside,) = tmp_path.glob("findings.json.damaged-*")
    assert aside.read_text() == text, "the damaged database is kept as it was"
    assert len(said) == 1 and str(aside) in said[0] and "damaged" in said[0], said
    triage.file_findings(db, [FINDING], "d", say=said.append)
    assert len(said) == 1 and json.loads(db.read_text())["findings"][filed[0]["bucket"]]["hits"] == 2


@needs_gxx
def test_a_campaign_over_a_damaged_database_says_so_at_once_and_still_writes_its_page(tmp_path):
    """A planted host-compiler fault (``^`` built as ``|``) over a database that is not one: the user hears it
    before the campaign runs, the database is kept aside, and the page and reproducers are written."""
    wrapper = tmp_path / "g++"
    wrapper.write_text('#!/bin/sh\nfor a in "$@"; do case "$a" in *.cpp) sed -i "s/ \\^ / | /g" "$a";; esac; done\n'
                       f'exec {shutil.which("g++")} "$@"\n')
    wrapper.chmod(0o755)
    (tmp_path / "findings.json").write_text("5")
    out = tmp_path / "c"
    done = fuzz_cli("--seed", "p1", "--max-programs", "8", "--out", str(out), *HOST_ONLY, "--no-reduce",
                    env=dict(os.environ, CXX=str(wrapper)))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    (aside,) = tmp_path.glob("findings.json.damaged-*")
    assert aside.read_text() == "5"
    said = [line for line in done.stdout.splitlines() if "is damaged (" in line]
    assert len(said) == 1 and done.stdout.index(said[0]) < done.stdout.index("fuzz: 8 generated")
    found = [f for f in json.loads((out / "findings.json").read_text()) if f["kind"] == "wrong-code"]
    assert found and (out / "index.html").exists()
    assert all((out / "repro" / f["bucket"] / "repro.cpp").exists() for f in found)
    assert len(json.loads((tmp_path / "findings.json").read_text())["findings"]) >= 1


@needs_gxx
def test_a_truncated_state_is_rebuilt_from_the_records_and_no_scratch_folder_is_left(tmp_path):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch))
    out = tmp_path / "c"
    assert fuzz_cli("--seed", "t", "--max-programs", "8", "--out", str(out), *HOST_ONLY, env=env).returncode == 0
    state = out / "campaign.json"
    state.write_text(state.read_text()[:40])
    done = fuzz_cli("--seed", "t", "--max-programs", "16", "--out", str(out), *HOST_ONLY, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{state} is unreadable" in done.stdout and "rebuilt from" in done.stdout
    assert [r["index"] for r in records(out)] == list(range(16))
    saved = json.loads(state.read_text())
    assert saved["next_file"] == 2 and saved["tally"]["generated"] == 16 and saved["tally"]["host_checked"] == 16
    assert not list(scratch.glob("sg-fuzz-*")), "a clean campaign leaves no scratch folder"


@needs_gxx
def test_a_stop_between_records_and_state_leaves_one_record_per_program(tmp_path):
    """Records appended, the state not yet saved, and half a line from a write cut short: the resumed campaign
    takes what is done from the records, drops the half line, and checks each program once."""
    out = tmp_path / "c"
    assert fuzz_cli("--seed", "h", "--max-programs", "8", "--out", str(out), *HOST_ONLY).returncode == 0
    before = (out / "campaign.json").read_text()
    assert fuzz_cli("--seed", "h", "--max-programs", "16", "--out", str(out), *HOST_ONLY).returncode == 0
    (out / "campaign.json").write_text(before)  # the state as the stop left it: file 1 not saved
    with open(out / "programs.jsonl", "a") as fh:
        fh.write('{"index": 16, "seed": "h", "pol')
    done = fuzz_cli("--seed", "h", "--max-programs", "24", "--out", str(out), *HOST_ONLY)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [r["index"] for r in records(out)] == list(range(24))
    assert json.loads((out / "campaign.json").read_text())["tally"]["generated"] == 24


@needs_gxx
@pytest.mark.parametrize("field, value, words", [
    ("next_file", -3, "next_file"), ("next_file", "2", "next_file"), ("per_file", 0, "per_file"),
    ("seed", 5, "seed"), ("tally", {"generated": "many"}, "tally.generated"), ("suspects", {}, "suspects"),
    ("builds", "default", "builds"), ("tally", None, "tally")])
def test_a_state_field_of_the_wrong_type_or_range_is_a_usage_error(tmp_path, field, value, words):
    out = tmp_path / "c"
    assert fuzz_cli("--seed", "s", "--max-programs", "8", "--out", str(out), *HOST_ONLY).returncode == 0
    state = json.loads((out / "campaign.json").read_text())
    state[field] = value
    (out / "campaign.json").write_text(json.dumps(state))
    done = fuzz_cli("--seed", "s", "--max-programs", "16", "--out", str(out), *HOST_ONLY)
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = done.stderr.splitlines()
    assert str(out / "campaign.json") in line and f"'{words}'" in line, line
    assert len(records(out)) == 8, "nothing was checked"


def generator_workers(pid: int) -> list[int]:
    """Return the campaign's forked children (its program generators: the same command line)."""
    me = Path(f"/proc/{pid}/cmdline").read_bytes()
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            if ppid == pid and (stat.parent / "cmdline").read_bytes() == me:
                found.append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


def start_campaign(tmp_path: Path, seed: str) -> tuple[subprocess.Popen, Path, Path]:
    scratch, out = tmp_path / "tmp", tmp_path / "c"
    scratch.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "suitegen", "fuzz", "--seed", seed, "--out", str(out), *HOST_ONLY,
                             "--budget", "300s"], env=dict(os.environ, TMPDIR=str(scratch)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: (out / "programs.jsonl").exists() and generator_workers(proc.pid), proc=proc)
    return proc, out, scratch


@needs_gxx
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_campaign_leaves_no_process_and_no_scratch_and_says_how_to_go_on(tmp_path, sig):
    proc, out, scratch = start_campaign(tmp_path, "stop")
    workers = generator_workers(proc.pid)
    second = fuzz_cli("--seed", "stop", "--out", str(out), *HOST_ONLY)
    assert second.returncode == 2 and "in use by a live run" in second.stderr, "a campaign folder has one live campaign"
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 128 + sig, stdout + stderr
    (line,) = [line for line in stderr.splitlines() if "stopped" in line]
    assert f"stopped by {sig.name}" in line and f"fuzz --seed stop --out {out}" in line, line
    assert "Traceback" not in stderr
    assert (out / "index.html").exists()
    assert json.loads((out / "campaign.json").read_text())["tally"]["generated"] == len(records(out)) > 0, \
        "the state counts the programs recorded, not the files the stop left in flight"
    assert not any(alive(p) for p in workers), "the generator workers end with the campaign"
    assert not list(scratch.glob("sg-fuzz-*")), "a stopped campaign removes its scratch folder"
    indexes = [r["index"] for r in records(out)]
    assert indexes == list(range(len(indexes))), "whole files, in order, each program once"


@needs_gxx
def test_the_generator_workers_do_not_outlive_a_killed_campaign(tmp_path):
    proc, _, _ = start_campaign(tmp_path, "kill")
    workers = generator_workers(proc.pid)
    proc.kill()
    proc.communicate(timeout=60)
    wait_for(lambda: not any(alive(p) for p in workers), timeout=60)


@needs_nvcc
def test_swapped_cached_modules_are_rebuilt_not_served(tmp_path, monkeypatch):
    """Two files' cached modules swapped (then their entries too): neither is served for the other's file; each
    is rebuilt, and the rebuilt module is served again."""
    from suitegen.synth import emit, populate
    monkeypatch.setenv("SUITEGEN_CACHE", str(tmp_path / "cache"))
    tc = probe(shutil.which("nvcc"))
    build = fuzz.BUILDS["default"]
    sources = [emit.source([populate.generate("swap", i)]) for i in range(2)]

    def build_all(tag: str) -> list:
        return [modules.build_module(tc, build, s, tmp_path / f"{tag}{i}") for i, s in enumerate(sources)]
    first = build_all("a")
    assert all(b.ok and not b.cached for b in first)
    right = [b.module.read_bytes() for b in first]
    assert right[0] != right[1]
    for suffix in (".cubin", ".json"):
        blobs = sorted((tmp_path / "cache" / "builds").rglob(f"*{suffix}"))
        assert len(blobs) == 2
        data = [p.read_bytes() for p in blobs]
        blobs[0].write_bytes(data[1])
        blobs[1].write_bytes(data[0])
        again = build_all(f"b{suffix}")
        assert not any(b.cached for b in again), f"a swapped {suffix} was served"
        assert [b.module.read_bytes() for b in again] == right
        assert all(b.cached for b in build_all(f"c{suffix}")), "the rebuilt module is served again"


@pytest.mark.slow
@needs_nvcc
def test_a_campaign_against_a_toolchain_that_refuses_every_build_ends_within_its_budget(tmp_path):
    """Every build is refused (after a pause): splitting files to find whose program it was would take a build per
    program, so the campaign stops splitting at its budget and leaves a file not yet checked for the next leg. It
    ends within a tenth of its budget (and a little for starting and writing its page), keeps one record per
    program checked, and reports the refusals as one finding per build, not one per program."""
    import time
    fake = tmp_path / "bin" / "nvcc"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\ncase "$1" in --version) exec {shutil.which("nvcc")} --version;; esac\n'
                    'sleep 0.3; echo "fuzz.cu(7): error: refused here" >&2; exit 1\n')
    fake.chmod(0o755)
    out = tmp_path / "c"
    # a file of 4 costs 7 refused builds per build config and a host check: several fit the budget on a busy machine
    args = ("--seed", "refused", "--nvcc", str(fake), "--no-gpu", "--builds", "default,ptxas-O0", "--per-file", "4",
            "-j", "2", "--no-reduce", "--out", str(out))
    start = time.monotonic()
    done = fuzz_cli(*args, "--budget", "20s")
    wall = time.monotonic() - start
    assert done.returncode == 1, done.stdout + done.stderr
    state = json.loads((out / "campaign.json").read_text())
    assert state["tally"]["seconds"] <= 20 * 1.1 and wall < 20 * 1.1 + 10, (state["tally"], wall)
    checked = [r["index"] for r in records(out)]
    assert checked and len(checked) == len(set(checked)) == state["tally"]["generated"]
    found = json.loads((out / "findings.json").read_text())
    refusals = [f for f in found if f["kind"] == "build"]
    assert sorted(f["build"] for f in refusals) == ["default", "ptxas-O0"], refusals
    assert all(f["count"] == len(checked) for f in refusals)
    again = fuzz_cli(*args, "--budget", "3s")  # the next leg starts where the first left off
    assert [r["index"] for r in records(out)][:len(checked)] == checked
    assert len({r["index"] for r in records(out)}) == len(records(out)), again.stdout + again.stderr


@needs_gxx
@needs_nvcc
def test_a_resumed_campaign_keeps_its_budget_and_takes_its_triage_up_where_it_stopped(tmp_path, monkeypatch):
    """The budget holds across legs (a campaign stopped after most of it checks only what is left), and a triage
    that a stop cut short goes on from ``investigated.jsonl``: a suspect investigated in an earlier leg is not
    investigated again, each finding is there once, and a finding whose file pass a stop cut short has the pass
    again, from the finding as it stands."""
    out = tmp_path / "c"
    assert fuzz_cli("--seed", "h", "--max-programs", "8", "--out", str(out), *HOST_ONLY).returncode == 0
    state = json.loads((out / "campaign.json").read_text())
    state["tally"]["seconds"] = 500.0  # as if it had run 500 s of a 120 s budget: nothing is left to check
    (out / "campaign.json").write_text(json.dumps(state))
    tc = probe(shutil.which("nvcc"))
    campaign = fuzz.Campaign(tc, fuzz.Options(seed="h", budget=120.0, out=out, builds=(), max_programs=64, jobs=2,
                                                  per_file=8))
    suspects = [{"kind": "wrong", "index": i, "bad": ["host-O0" if i == 9 else "host-O2"]} for i in (3, 5, 7, 9)]
    ResultsFile(out, fuzz.INVESTIGATED).append(
        {"kind": "flaky", "index": 3, "suspect": fuzz.suspect_key(suspects[0])})  # the earlier leg's finding
    cut_short = {"kind": "wrong-code", "index": 7, "suspect": "wrong 7", "stage": "ptxas optimiser", "lines": 30,
                 "failing": ["default"], "reproducer": "int main() {}\n" * 30, "file_pass": "stopped"}
    ResultsFile(out, fuzz.INVESTIGATED).append(cut_short)  # a stop cut its file pass short: the pass goes on
    ResultsFile(out, fuzz.INVESTIGATED).append(dict(cut_short, index=9, suspect="wrong 9"))  # where it applies
    for stray in ([1, 2], "x", {"suspect": ["wrong 5"]}, {"suspect": "wrong 5"},
                  {"suspect": "wrong 5", "kind": "error"},
                  {"suspect": "wrong 5", "kind": "wrong-code"}):  # a wrong-code line without its stage: a stray
        ResultsFile(out, fuzz.INVESTIGATED).append(stray)  # none of them a finding of suspect 5: it is investigated
    try:
        campaign.run()
        assert campaign.tally.generated == 8, "the budget was spent in an earlier leg"
        campaign.suspects = suspects  # (a host campaign of a right compiler has none of its own)
        asked, cut = [], []
        monkeypatch.setattr(triage, "investigate", lambda c, s, deadline, program=None, later=0:
                            asked.append(s["index"]) or {"kind": "not-reproduced", "index": s["index"]})
        monkeypatch.setattr(file_pass, "refined", lambda c, f, deadline: (cut.append(f) or dict(f, lines=12))
                            if f["kind"] == "wrong-code" else f)  # as the pass: wrong code alone is cut
        monkeypatch.setattr(file_pass, "applies", lambda c, f, deadline: f["index"] == 7)  # 9: no GPU, say
        found = campaign.investigate()
    finally:
        campaign.close()
    assert asked == [5] and sorted(f["index"] for f in found) == [3, 5, 7, 9]
    assert next(f for f in found if f["index"] == 9)["file_pass"] == "stopped"  # no pass made: the mark stays
    assert [f.get("file_pass") for f in cut] == [None] and cut[0]["lines"] == 30  # from the finding, not the program
    assert next(f for f in found if f["index"] == 7)["lines"] == 12
    lines = [json.loads(line) for line in (out / fuzz.INVESTIGATED).read_text().splitlines()]
    assert [line["suspect"] for line in lines if isinstance(line, dict) and line.get("kind") == "not-reproduced"] == [
        "wrong 5"]
    assert [line.get("lines") for line in lines if isinstance(line, dict) and line.get("suspect") == "wrong 7"] == [
        30, 12]  # the later line supersedes: a third leg takes the cut finding up as it stands
    again = fuzz.Campaign(tc, campaign.opts)
    try:
        again.load_state()
        assert again.investigated["wrong 7"]["lines"] == 12 and "file_pass" not in again.investigated["wrong 7"]
        assert again.investigated["wrong 9"]["file_pass"] == "stopped"
    finally:
        again.close()


@needs_gxx
def test_programs_investigated_without_a_campaign_say_so_and_leave_a_state_a_campaign_takes_up(tmp_path):
    """``--programs`` investigates chosen programs of a seed: its page says which (not "0 programs checked"), its
    state file keeps them for a later ``--releases``, and a campaign in that folder then starts from program 0."""
    out = tmp_path / "p"
    done = fuzz_cli("--seed", "h", "--programs", "3,5", "--out", str(out), *HOST_ONLY)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Programs 3, 5 of the seed confirmed and reduced" in (out / "findings.md").read_text()
    assert json.loads((out / "campaign.json").read_text())["programs"] == [3, 5]
    assert {f["kind"] for f in json.loads((out / "findings.json").read_text())} == {"not-reproduced"}
    assert fuzz_cli("--seed", "h", "--max-programs", "8", "--out", str(out), *HOST_ONLY).returncode == 0
    assert [r["index"] for r in records(out)] == list(range(8))
    assert "8 programs" in (out / "findings.md").read_text()


def test_a_suspect_s_share_of_the_reduce_budget_takes_up_what_those_before_it_left():
    """Seven suspects, four side by side, 400 s: the first four have 4/7 of what is left each when they begin; a later
    one has its share of what is left then (time a quick one did not use goes on), and the last four all of it."""
    from suitegen.campaigns.fuzz import share
    assert share(400, 4, 7) == pytest.approx(400 * 4 / 7)
    assert share(300, 4, 3) == 300 and share(120, 4, 1) == 120  # the last ones: all that is left
    assert share(390, 4, 5) == pytest.approx(390 * 4 / 5) and share(390, 4, 5) > share(400, 4, 7)  # time goes on
    assert share(-5, 4, 2) == 0 and share(100, 1, 10) == 10
