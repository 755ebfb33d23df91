"""``suitegen fuzz``: campaigns of generated programs with known results, built several ways and checked.

A campaign draws programs (``synth``), many per source file, builds each file under every build
config (``build.modules``), runs the modules on the GPU (``execute.fatbin``'s workers) and the
per-thread bodies on the host (``execute.host_check``), and compares every output with the model.
A program whose outputs differ anywhere is confirmed alone, reduced (``synth.reduce``, many
candidates per build), given a stage by the configs it fails under (``triage``), and kept in the
findings database, where a known bug is counted rather than reported again. ``programs.jsonl`` holds one
record per program, each file's in one write, and is the truth: a campaign stopped, killed or with a damaged
state resumes from its records and checks each program once (``campaign.json`` keeps the time spent and what
the page shows). A stop signal ends a campaign cleanly: its children and generator workers end, its page is
written, its scratch folder goes, and it says how to go on.
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import ctypes
import itertools
import json
import math
import multiprocessing
import os
import shlex
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Callable, Iterator

from suitegen import model, procs
from suitegen.compilers import modules, observe
from suitegen.compilers.modules import DeviceBuild
from suitegen.campaigns import file_pass, own_file, triage
from suitegen.engine.stopping import StopRun, handled, held, ignore_stops, invocation
from suitegen.engine.scheduler import Scheduler
from suitegen.execute import host_check, sanitizer
from suitegen.model import FINDINGS_SECTION, FROZEN, Toolchain, UsageError, bad_field, strings, whole
from suitegen.report.run_folder import ResultsFile, RunLock, _cut_partial_line, _lines, write_json
from suitegen.synth import emit, populate, reduce

BUILDS = {
    "default": DeviceBuild(name="default"),
    "ptxas-O0": DeviceBuild(name="ptxas-O0", flags=("-Xptxas", "-O0")),
    "cicc-O0": DeviceBuild(name="cicc-O0", flags=("-Xcicc", "-O0")),
    "debug": DeviceBuild(name="debug", flags=("-G",)),
    "maxrreg": DeviceBuild(name="maxrreg", flags=("-maxrregcount=24",)),
    "ptx-jit": DeviceBuild(name="ptx-jit", output="ptx", arch="sm_80"),
}
DEFAULT_BUILDS = ("default", "ptxas-O0", "cicc-O0")


@dataclass(**FROZEN)
class Options:
    """What a campaign does."""

    seed: str
    budget: float  # seconds of generating and checking (reduction of what it finds comes after)
    out: Path
    builds: tuple[str, ...] = DEFAULT_BUILDS
    policy: str | None = None  # None: each program draws a policy
    per_file: int = 32
    jobs: int = os.cpu_count() or 2
    host: bool = False  # also check every body on the host (always on without a GPU)
    host_builds: tuple[str, ...] = ("host-O0",)
    arch: str = "sm_90"
    reduce: bool = True
    reduce_budget: float = 300.0
    max_programs: int | None = None
    use_cache: bool = True
    known: Path | None = None  # a findings database whose bugs count as known (read, never written)


@dataclass
class Tally:
    """Counts a campaign shows while it runs and keeps in its state file."""

    generated: int = 0
    built: int = 0
    ran: int = 0
    host_checked: int = 0
    wrong: int = 0
    build_failures: int = 0
    files: int = 0
    seconds: float = 0.0


PROGRAMS = "programs.jsonl"
INVESTIGATED = "investigated.jsonl"  # each suspect's finding, as soon as it is known: a resumed triage takes it up
CHILD_TIMEOUT = 600.0  # seconds a build or host check of a file may take before it counts as a hang


class Late(Exception):
    """A file's check reached the end of the campaign's budget (``Campaign.limit``): the file is left for the next leg."""


PR_SET_PDEATHSIG = 1  # prctl(2): the signal the kernel sends a process when its parent ends


def _statuses(v) -> bool:
    return isinstance(v, dict) and all(isinstance(x, str) for x in v.values())


def _failures(v) -> bool:
    return v is None or (isinstance(v, dict) and all(
        isinstance(f, dict) and isinstance(f.get("log"), str) and strings(f.get("argv")) and f.get("kind") in
        ("crash", "build") for f in v.values()))


# What each field must be (a check, and the words that say it): of campaign.json, its tally, a program's record.
STATE_FIELDS = {
    "seed": (lambda v: isinstance(v, str), "a string"), "per_file": (whole(1), "a whole number, at least 1"),
    "next_file": (whole(0), "a whole number, at least 0"),
    "policy": (lambda v: v is None or isinstance(v, str), "a string or null"), "builds": (strings, "a list of strings"),
    "toolchain": (lambda v: isinstance(v, str), "a string"), "tally": (lambda v: isinstance(v, dict), "an object"),
    "suspects": (lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v), "a list of objects")}
TALLY_FIELDS = {f.name: (whole(0), "a whole number, at least 0") for f in fields(Tally) if f.name != "seconds"} | {
    "seconds": (lambda v: type(v) in (int, float) and 0 <= v < math.inf, "a number, at least 0")}
RECORD_FIELDS = {
    "index": (whole(0), "a whole number, at least 0"), "seed": (lambda v: isinstance(v, str), "a string"),
    "builds": (_statuses, "an object of statuses"), "host": (_statuses, "an object of statuses"),
    "failures": (_failures, "an object of build failures (kind, log, argv)")}


def check_state(path: Path, data) -> dict:
    """Return a campaign's state as read; raise UsageError naming the file and the first bad field."""
    why = bad_field(data, STATE_FIELDS) or bad_field(data["tally"], TALLY_FIELDS, "tally.")
    if why:
        raise UsageError(f"{path}: {why}; fix it, or delete the file to rebuild the state from {PROGRAMS}")
    return data


def generate_file(seed: str, indexes: list[int], policy: str | None) -> tuple[list, list]:
    """Return a campaign's programs of these indexes and their expected buffers (a generator worker's task)."""
    drawn = [populate.generated(seed, i, policy) for i in indexes]
    return [p for p, _ in drawn], [reduce.expected(p, ran) for p, ran in drawn]


def _follow(parent: int) -> None:
    """Start a generator worker: it ends with the campaign, even one killed outright (Linux: the kernel kills it
    when its parent goes), and leaves Ctrl-C and hangups, which reach the terminal's whole process group, to the
    campaign, which then ends it (with SIGTERM: ``Pool.terminate``)."""
    for s in (signal.SIGINT, signal.SIGHUP):
        signal.signal(s, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux
        pass
    if os.getppid() != parent:  # the campaign went before the line above took effect
        os._exit(0)


@dataclass(**FROZEN)
class ProgramFile:
    """One source file of a campaign's programs and their expected buffers: what a check builds and runs."""

    index: int
    programs: list
    expected: list

    def __str__(self) -> str:
        return f"file {self.index} ({len(self.programs)} programs from {self.programs[0].name})"


def launches(programs) -> list[tuple[str, int, int, int]]:
    return [emit.launch(p) for p in programs]


class Campaign:
    """One fuzz campaign: its options, toolchain, GPU runner, findings so far and state on disk."""

    def __init__(self, toolchain: Toolchain, opts: Options, runner=None, say: Callable[[str], None] | None = None,
                 builds: list[DeviceBuild] | None = None):
        """``builds``: the builds themselves, where they are not ``BUILDS``'s for ``opts.builds`` (a run's triage
        of its generated programs builds them as its config did)."""
        self.tc, self.opts, self.runner, self.say = toolchain, opts, runner, say or say_line
        self.builds = builds or [self._for_arch(BUILDS[b]) for b in opts.builds]
        self.tally = Tally()
        self.lock = threading.Lock()
        self.suspects: list[dict] = []
        self.state_path = opts.out / "campaign.json"
        self.results_path = opts.out / PROGRAMS
        self.investigated_path = opts.out / INVESTIGATED
        self.database = opts.out.parent / triage.DATABASE.name  # across campaigns (``triage.file_findings``)
        self.done: set[int] = set()  # the programs programs.jsonl holds a record of
        self.files: set[int] = set()  # and their files
        self._scratch: Path | None = None
        self.pool = cf.ThreadPoolExecutor(max_workers=max(1, opts.jobs))  # reductions' builds and runs
        self.deadline = float("inf")  # the budget's end (``run``): a failed build is split no further after it
        self.investigated: dict[str, dict] = {}  # an earlier leg's findings, by suspect (``load_state``)

    def _for_arch(self, build: DeviceBuild) -> DeviceBuild:
        return replace(build, arch=self.opts.arch) if build.output == "cubin" else build

    def build(self, name: str) -> DeviceBuild:
        """Return the device build of that name: the campaign's own, else the fuzzer's (``BUILDS``) for its arch."""
        return next((b for b in self.builds if b.name == name), None) or self._for_arch(BUILDS[name])

    def every_build(self) -> list[str]:
        """Return the names of the campaign's builds and of every other build the fuzzer knows that this toolchain
        makes (``BUILDS``): where a finding's reduced program is judged again."""
        def makes(name: str) -> bool:
            try:
                self.build(name).argv(self.tc, "fuzz.cu", "fuzz.out")
            except UsageError:
                return False
            return True
        own = [b.name for b in self.builds]
        return own + [n for n in BUILDS if n not in own and makes(n)]

    @property
    def scratch(self) -> Path:
        """Return the campaign's scratch folder, made when first asked for (``close`` removes it)."""
        with self.lock:
            if self._scratch is None:
                self._scratch = Path(tempfile.mkdtemp(prefix="sg-fuzz-"))
            return self._scratch

    def close(self) -> None:
        """End the reductions' threads and remove the scratch folder."""
        self.pool.shutdown(cancel_futures=True)
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)

    # ---- state
    def load_state(self) -> bool:
        """Take up what the campaign folder holds: what is done, the tally and the suspects from the records (the
        truth), the time spent from the state file; return whether there was anything. Raises UsageError for
        another campaign's folder, or a state field or record that is not as it must be."""
        state, records = self._read_state(), self._read_records()
        if state is None and not records:
            return False
        for r in records:
            self._account(r)
        self.tally.generated = len(records)
        self.tally.seconds = state["tally"]["seconds"] if state else 0.0
        self.investigated = {f["suspect"]: f for _, f in _lines(self.investigated_path, ("suspect",))
                             if _finding_kept(f)}
        return True

    def _read_state(self) -> dict | None:
        """Return the state file, checked; None where there is none, or it does not read back (said: the records
        rebuild it)."""
        try:
            data = json.loads(self.state_path.read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            self.say(f"fuzz: {self.state_path} is unreadable ({exc}); the state is rebuilt from {self.results_path}")
            return None
        check_state(self.state_path, data)
        if data["seed"] != self.opts.seed or data["per_file"] != self.opts.per_file:
            raise UsageError(f"{self.state_path} is a campaign with seed {data['seed']!r} and "
                             f"{data['per_file']} programs per file; use another --out")
        return data

    def _read_records(self) -> list[dict]:
        """Return the records of programs.jsonl, one per program, after cutting off a last line that a stop left
        half written; raise UsageError naming the file and line of a record of another shape or seed."""
        if not self.results_path.exists():
            return []
        with open(self.results_path, "r+b") as fh:
            _cut_partial_line(fh)
        out = []
        for number, r in _lines(self.results_path, ("index",)):
            why = bad_field(r, RECORD_FIELDS)
            if why is None and r["seed"] != self.opts.seed:
                why = f"a program of seed {r['seed']!r}, not {self.opts.seed!r}: use another --out"
            if why:
                raise UsageError(f"{self.results_path}, line {number}: {why}")
            out.append(r)
        return out

    def next_program(self) -> int:
        """Return the first program not yet checked."""
        return next(i for i in itertools.count() if i not in self.done)

    def state(self) -> dict:
        """Return what the state file holds (and the report page shows)."""
        return {"seed": self.opts.seed, "per_file": self.opts.per_file,
                "next_file": self.next_program() // self.opts.per_file,
                "policy": self.opts.policy, "builds": list(self.opts.builds), "toolchain": self.tc.version_str,
                "tally": dict(self.tally.__dict__), "suspects": self.suspects}

    def save_state(self) -> None:
        write_json(self.state_path, self.state())

    # ---- one file of programs
    def limit(self) -> float:
        """Return the timeout of a child that checks a file: what is left of the budget and its grace (a twentieth of
        it), at most ``CHILD_TIMEOUT``; raise ``Late`` where nothing is. A child the budget's end stops leaves its file
        for the next leg, so a campaign ends within a tenth of its budget whatever the toolchain does."""
        left = self.deadline + self.opts.budget / 20 - time.monotonic()
        if left <= 0:
            raise Late
        return min(CHILD_TIMEOUT, left)

    def budgeted(self, child):
        """Return what one child that checks a file gave (``child(timeout)``, its timeout the ``limit``); raise ``Late``
        where the budget's end, not a hang, stopped it."""
        timeout = self.limit()
        done = child(timeout)
        if done.timed_out and timeout < CHILD_TIMEOUT:
            raise Late
        return done

    def check_file(self, index: int, programs: list, expected: list) -> list[dict] | None:
        """Build one file of programs every way, run it, and return one record per program (with nvcc's words
        under ``failures`` for a build that made no module); None where the budget ran out first (``limit``)."""
        try:
            return self._check_file(index, programs, expected)
        except Late:
            return None

    def _check_file(self, index: int, programs: list, expected: list) -> list[dict]:
        folder = self.scratch / f"f{index}"
        source = emit.source(programs)
        records = [{"index": int(p.name[1:]), "seed": self.opts.seed, "policy": p.policy, "tags": list(p.tags),
                    "builds": {}, "host": {}} for p in programs]
        for build in self.builds:
            for r, (status, failure) in zip(records, self.build_and_run(build, programs, expected, folder, source)):
                r["builds"][build.name] = status
                if failure:
                    r.setdefault("failures", {})[build.name] = failure
        if self.opts.host or self.runner is None:
            for name in self.opts.host_builds:
                run = self.budgeted(lambda timeout: host_check.run(emit.host_check(programs, expected), folder,
                                                                   f"host-{index}", host_check.HOST_BUILDS[name],
                                                                   timeout=timeout))
                for r, p in zip(records, programs):
                    r["host"][name] = triage.host_status(run, p)
                    if r["host"][name] == "undefined":
                        r["undefined"] = list(run.undefined[:5])
                if not run.ok and not run.undefined and not run.wrong:
                    for r in records:
                        r["host"][name] = "no-build"
                        r["host_log"] = run.log[-1000:]
        return records

    def build_and_run(self, build: DeviceBuild, programs: list, expected: list, folder: Path,
                      source: str | None = None) -> list[tuple[str, dict | None]]:
        """Return each program's status under one build, with nvcc's words where it made no module for that program
        alone. A file the compiler crashes on is split in halves and built again, so one crashing program costs
        only itself."""
        source = source if source is not None else emit.source(programs)
        built = self.budgeted(lambda timeout: modules.build_module(self.tc, build, source, folder, timeout=timeout,
                                                                   use_cache=self.opts.use_cache))
        if built.ok:
            statuses = self.run_module(built.module, programs, expected) if self.runner is not None else \
                ["built"] * len(programs)
            return [(s, None) for s in statuses]
        if len(programs) == 1 or time.monotonic() > self.deadline and not built.crashed:
            # Past the budget a refused file is not split to find whose program it was (a toolchain that refuses
            # every build would cost a build per program): each program keeps the file's failure, marked so.
            failure = {"kind": "crash" if built.crashed else "build", "log": built.log[-2000:], "argv": list(built.argv),
                       **({"shared_by": len(programs)} if len(programs) > 1 else {})}
            return [("crashed" if built.crashed else "no-module", failure)] * len(programs)
        half = len(programs) // 2
        return (self.build_and_run(build, programs[:half], expected[:half], folder / "a")
                + self.build_and_run(build, programs[half:], expected[half:], folder / "b"))

    def run_module(self, module: Path, programs: list, expected: list) -> list[str]:
        """Return each program's status in one module: ok, wrong, or the fault that stopped it."""
        result, outs = self.runner.cells(module, launches(programs))
        if outs is None and len(programs) > 1:  # a fault: run each program alone to find whose it was
            return [s for p, e in zip(programs, expected) for s in self.run_module(module, [p], [e])]
        if outs is None:
            return [f"run-{result.status.value}: {result.detail}"[:300]]
        return ["ok" if got == want else "wrong" for got, want in zip(outs, expected)]

    # ---- the campaign
    def _todo(self) -> Iterator[tuple[int, list[int]]]:
        """Yield each file with programs not yet checked, in order, with those programs (none past ``max_programs``)."""
        per, limit = self.opts.per_file, self.opts.max_programs
        for f in itertools.count():
            first, end = f * per, (f + 1) * per if limit is None else min((f + 1) * per, limit)
            if first >= end:
                return
            todo = [i for i in range(first, end) if i not in self.done]
            if todo:
                yield f, todo

    def run(self) -> int:
        """Check the programs not yet checked until the budget (or ``max_programs``) is spent; return how many
        programs are checked in all. Records are appended in file order, a file's in one write."""
        o = self.opts
        if self.load_state():
            self.say(f"fuzz: resuming seed {o.seed!r}: {len(self.done)} programs checked; "
                     f"the first not checked is {self.next_program()}")
        start = time.monotonic()
        base_seconds = self.tally.seconds
        deadline = self.deadline = start + max(0.0, o.budget - base_seconds)  # the budget holds across legs
        todo = self._todo()
        taken: deque[int] = deque()  # the files taken, in order: their records are appended in this order
        done_files: dict[int, list] = {}
        gens: dict[int, multiprocessing.pool.AsyncResult] = {}
        gen_pool = multiprocessing.Pool(max(1, o.jobs // 2), initializer=_follow, initargs=(os.getpid(),))
        checks = Scheduler(lambda f: self.check_file(f.index, f.programs, f.expected), jobs=o.jobs,
                           key=lambda f: f.index)
        last = 0.0
        try:
            while True:
                while len(gens) < o.jobs and time.monotonic() < deadline and (nxt := next(todo, None)):
                    gens[nxt[0]] = gen_pool.apply_async(generate_file, (o.seed, nxt[1], o.policy))
                    taken.append(nxt[0])
                for i in sorted(gens):
                    if gens[i].ready() and len(checks) < o.jobs:
                        progs, exp = gens.pop(i).get()
                        self.tally.generated += len(progs)
                        checks.add(ProgramFile(index=i, programs=progs, expected=exp))
                if checks:
                    checked = checks.poll(timeout=1.0)
                    if checked is not None and checked.result is None:  # out of budget: for the next leg
                        taken.remove(checked.unit.index)
                        self.tally.generated -= len(checked.unit.programs)
                    elif checked is not None:
                        done_files[checked.unit.index] = checked.result
                elif gens:
                    gens[min(gens)].wait(timeout=1.0)
                while taken and taken[0] in done_files:
                    self._record(done_files.pop(taken.popleft()))
                    self.tally.seconds = base_seconds + time.monotonic() - start
                    self.save_state()
                if not checks and not gens:
                    break
                if time.monotonic() - last > 5:
                    last = time.monotonic()
                    self.say(self.progress(base_seconds + time.monotonic() - start))
                if time.monotonic() > deadline:  # files still being generated are left for the next leg
                    for i in [i for i, g in gens.items() if not g.ready()]:
                        del gens[i]
                        taken.remove(i)
        finally:
            gen_pool.terminate()
            checks.stop()  # a stop has killed the children of the checks still running: they end now
            gen_pool.join()
            self.tally.seconds = base_seconds + time.monotonic() - start
            self.tally.generated = len(self.done)  # files a stop left in flight are the next leg's, as load_state counts
            self.save_state()
        self.say(self.progress(base_seconds + time.monotonic() - start))
        return self.tally.generated

    def progress(self, elapsed: float) -> str:
        t = self.tally
        rate = t.built / elapsed if elapsed else 0.0
        return (f"fuzz: {t.generated} generated, {t.built} built x{len(self.builds)}, {t.ran} run on the GPU, "
                f"{t.host_checked} checked on the host ({rate:.1f} programs/s); {t.wrong} wrong, "
                f"{t.build_failures} build failures")

    def _record(self, records: list[dict]) -> None:
        """Append one file's records (one write: they land together or not at all) and count them."""
        with held():  # the tally (and the page a stop writes) counts exactly what the file holds
            ResultsFile(self.opts.out, PROGRAMS).append_all(records)
            for r in records:
                self._account(r)

    def _account(self, r: dict) -> None:
        """Count one program's record in the tally, and keep what went wrong in it as suspects."""
        t, per = self.tally, self.opts.per_file
        self.done.add(r["index"])
        self.files.add(r["index"] // per)
        t.built, t.files = len(self.done), len(self.files)
        t.ran += any(s in ("ok", "wrong") or s.startswith("run-") for s in r["builds"].values())
        t.host_checked += bool(r["host"])
        bad = [b for b, s in r["builds"].items() if s == "wrong" or s.startswith("run-")] + \
              [h for h, s in r["host"].items() if s in ("wrong", "undefined")]
        if bad:
            t.wrong += 1
            self.suspects.append({"kind": "wrong", "index": r["index"], "policy": r.get("policy"),
                                  "bad": bad, "builds": r["builds"], "host": r["host"]})
        for build, failure in (r.get("failures") or {}).items():
            t.build_failures += 1
            self.suspects.append({"kind": failure["kind"], "file": r["index"] // per, "index": r["index"],
                                  "build": build, "log": failure["log"], "argv": failure["argv"]})

    # ---- after the budget: what was found
    def investigate(self, per_signature: int = 3) -> list[dict]:
        """Confirm and reduce what went wrong (wrong code first, a few per signature, each signature's first before
        any second; one crash per build), each within its share of the reduce budget; file it, and return the
        findings."""
        deadline = time.monotonic() + self.opts.reduce_budget
        seen: Counter = Counter()
        chosen, findings = [], []
        refused: dict[tuple, dict] = {}
        for s in sorted(self.suspects, key=lambda s: {"wrong": 0, "crash": 1}.get(s["kind"], 2)):
            sig = (s["kind"], tuple(sorted(s["bad"])) if s["kind"] == "wrong" else s["build"])
            seen[sig] += 1
            if s["kind"] == "build":  # a valid program nvcc refused: one finding per build and first error
                key = (s["build"], triage.log_line(observe.first_error(s["log"], None)))
                if key not in refused:
                    refused[key] = dict(s, count=0, programs=[])
                    findings.append(refused[key])
                refused[key]["count"] += 1
                if len(refused[key]["programs"]) < 20:  # the first few, to build again
                    refused[key]["programs"].append(s["index"])
            elif seen[sig] <= (per_signature if s["kind"] == "wrong" else 1):
                chosen.append((seen[sig], s))
        chosen = [s for _, s in sorted(chosen, key=lambda rs: rs[0])]  # each signature's first suspect first
        width = min(4, len(chosen))
        begun = itertools.count()

        def one(numbered: tuple[int, dict]) -> dict | None:  # its share of what is left, when it begins
            with self.lock:
                waiting = len(chosen) - next(begun)
            return self._investigate_one(numbered[1], time.monotonic() + share(deadline - time.monotonic(), width,
                                                                               waiting))
        with Scheduler(one, jobs=width) as pool:
            pool.add(*enumerate(chosen))  # numbered, so findings keep the suspects' order
            findings += [f.result for f in sorted(pool, key=lambda f: f.unit[0]) if f.result is not None]
        for (kind, sig), n in seen.items():
            limit = per_signature if kind == "wrong" else 1
            if kind != "build" and n > limit:
                findings.append({"kind": "repeat", "failing": list(sig) if kind == "wrong" else [sig],
                                 "count": n - limit, "of": kind})
        filed = triage.file_findings(self.database, [f for f in findings if f["kind"] in model.FILED],
                                     f"{self.opts.seed} ({self.opts.out})", say=self.say, known=self.opts.known)
        return filed + [f for f in findings if f["kind"] not in model.FILED]

    def _investigate_one(self, s: dict, deadline: float) -> dict | None:
        """Investigate one suspect; its finding is appended to ``investigated.jsonl`` as soon as it is known,
        and a harness error becomes a finding of kind ``error`` (never a lost result); a stop is neither."""
        key = suspect_key(s)
        earlier = self.investigated.get(key)  # an earlier leg of this campaign investigated it: its finding stands,
        if earlier is not None:  # unless a stop cut its file pass short and the pass can go on here
            rest = {k: v for k, v in earlier.items() if k != "file_pass"}
            if earlier.get("file_pass") != "stopped" or not file_pass.applies(self, rest, deadline):
                return earlier  # (a pass that cannot go on leaves the mark)
        elif time.monotonic() > deadline or "index" not in s:
            return None
        try:
            if earlier is not None:  # the file pass goes on from the finding the stop left (a later line supersedes it)
                self.say(f"fuzz: cutting the reproducer of program {s['index']} as a file again (a stop cut it short)")
                found = file_pass.refined(self, rest, deadline)
            elif s["kind"] == "crash":
                self.say(f"fuzz: reducing the {s['build']} crash of program {s['index']}")
                found = triage.investigate_crash(self, s, deadline)
            else:
                self.say(f"fuzz: confirming and reducing program {s['index']} (wrong under {', '.join(s['bad'])})")
                found = file_pass.investigate(self, s, deadline)
        except procs.Stopped:
            return earlier
        except Exception as exc:  # noqa: BLE001 - one suspect's harness error must not lose the others
            import traceback
            found = dict(s, kind="error", error=f"{type(exc).__name__}: {exc}", trace=traceback.format_exc()[-3000:])
        if found is not None:
            found = dict(found, suspect=key)
            with self.lock:
                ResultsFile(self.opts.out, INVESTIGATED).append(found)
        return found


def say_line(text: str) -> None:
    """Print a line in one write: the triage's suspects, side by side, say what they do without their lines mixing."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def share(left: float, width: int, waiting: int) -> float:
    """Return the seconds of a suspect that begins with ``left`` seconds of the reduce budget left, ``waiting``
    suspects (itself among them) not yet begun, ``width`` investigated side by side: a fair share of what is left,
    so that the time a suspect before it did not use goes to those after it, and the last ``width`` have all of it."""
    return max(0.0, left) * min(1.0, width / max(1, waiting))


def _finding_kept(f) -> bool:
    """Whether a line of ``investigated.jsonl`` is a finding a resumed triage takes up (not a harness error, to try
    again, nor a stray line)."""
    return isinstance(f, dict) and isinstance(f.get("suspect"), str) and isinstance(f.get("kind"), str) and \
        f["kind"] != "error" and (f["kind"] not in model.FILED or {"stage", "failing", "reproducer"} <= f.keys())


def suspect_key(s: dict) -> str:
    """Return what names a suspect in ``investigated.jsonl``: its kind, its program, and the build of a crash."""
    return f"{s['kind']} {s.get('index')} {s.get('build') or ''}".rstrip()


def parse_budget(text: str) -> float:
    """Return seconds for a budget such as ``90``, ``90s``, ``10m`` or ``1h``."""
    text = text.strip().lower()
    scale = {"s": 1, "m": 60, "h": 3600}.get(text[-1:], None)
    try:
        return float(text[:-1]) * scale if scale else float(text)
    except ValueError:
        raise UsageError(f"--budget {text!r}: expected seconds, or a number with s, m or h") from None


def fuzz_command(args) -> int:
    """``suitegen fuzz``: run (or resume) a campaign, then confirm, reduce and file what it found. A stop signal
    (Ctrl-C, SIGTERM, SIGHUP) ends it cleanly (``_stop``), with status 128 + the signal."""
    if args.invalid:
        return invalid_command(args)
    if args.reduce:  # (with --releases: its finding's range after)
        return reduce_command(args)
    if args.releases and not (args.programs or saved_findings(_folder(args)) is None):
        return releases_command(args)  # a campaign that has ended: its findings' ranges
    if args.save:
        return save_command(args)
    try:
        with handled(_stop):
            tc, opts = _campaign_options(args)
            outside_known(opts.known, opts.out)
            with RunLock(opts.out, "suitegen fuzz"):
                runner = _gpu_runner(args.no_gpu)
                campaign = Campaign(tc, opts, runner)
                try:
                    status = _campaign(args, campaign)
                finally:
                    campaign.close()
                    if runner is not None:
                        runner.close()
            if args.releases and status < 128:  # part of its triage: each finding's range over the releases
                releases_command(args)
            return status
    except StopRun as stop:  # before the campaign began (probing the toolchain, say)
        with handled(signal.SIG_IGN):  # (the campaign's handlers are back by now) a second signal waits no clean-up
            procs.stop_all()
            print(f"fuzz: stopped by {signal.Signals(stop.signum).name}", file=sys.stderr)
        return 128 + stop.signum


def _stop(signum, frame) -> None:
    """Handle a stop signal: ignore any later one (the clean-up must not be cut short), kill every child now (from
    a thread: this one may hold the children's lock) and raise ``StopRun``."""
    ignore_stops()
    threading.Thread(target=procs.stop_all, daemon=True).start()
    raise StopRun(signum)


def _campaign_options(args) -> tuple[Toolchain, Options]:
    """Return the toolchain and the campaign's options; raise UsageError for a bad one."""
    from suitegen.compilers import archs, registry, toolchain
    from suitegen.synth.policies import POLICIES
    if args.policy and args.policy not in POLICIES:
        raise UsageError(f"--policy {args.policy!r}: known policies are {', '.join(sorted(POLICIES))}")
    builds = tuple(b for b in args.builds.split(",") if b)
    unknown = [b for b in builds if b not in BUILDS]
    if unknown:
        raise UsageError(f"--builds: unknown {', '.join(unknown)} (known: {', '.join(BUILDS)})")
    tc = toolchain.probe(registry.resolve(args.nvcc or (toolchain.discover() or ["nvcc"])[0]))
    archs.check([tc], [args.arch])  # as run --arch: a target the toolchain does not list is a usage error
    for b in builds:  # NVRTC has no option for some builds: say so before the campaign starts
        BUILDS[b].argv(tc, "fuzz.cu", "fuzz.out")
    if args.known:
        triage.known_buckets(Path(args.known))  # a missing or damaged one is a usage error before anything runs
    hosts = tuple(h for h in args.host_builds.split(",") if h)
    if any(h not in host_check.HOST_BUILDS for h in hosts) or not hosts:
        raise UsageError(f"--host-builds {args.host_builds!r}: known {', '.join(host_check.HOST_BUILDS)}")
    return tc, Options(seed=args.seed, host_builds=hosts, budget=parse_budget(args.budget), out=_folder(args),
                       builds=builds, policy=args.policy, per_file=args.per_file, jobs=args.jobs or os.cpu_count() or 2,
                       host=args.host, arch=args.arch, reduce=not args.no_reduce,
                       reduce_budget=parse_budget(args.reduce_budget), max_programs=args.max_programs,
                       known=Path(args.known) if args.known else None)


def outside_known(known: Path | None, out: Path) -> None:
    """Refuse a campaign's ``--out`` inside a ``--known`` folder: it would read its own findings as known ones."""
    if known is not None and known.is_dir() and out.resolve().is_relative_to(known.resolve()):
        raise UsageError(f"--out {out} lies in --known {known}: its own findings would count as known; write it "
                         "elsewhere and copy it there after")


def _folder(args) -> Path:
    """Return the campaign's folder: ``--out``, else ``reports/fuzz/seed-SEED``."""
    return Path(args.out or triage.DATABASE.parent / f"seed-{args.seed}")


def _gpu_runner(no_gpu: bool):
    """Return the runner of programs on the GPU (None without one, or without cupy), saying which."""
    from suitegen.execute.gpus import GpuPool, detect_gpu
    if no_gpu:
        return None
    gpu = detect_gpu()
    if not gpu.available:
        print(f"fuzz: no GPU ({gpu.reason}): programs are checked on the host against the model, "
              "and built for compiler crashes")
        return None
    try:
        import cupy  # noqa: F401
        from suitegen.execute.fatbin import FatbinRunner
    except ImportError:
        print("fuzz: a GPU is here but cupy is not importable (pip install -e '.[gpu]'): host checks only")
        return None
    print(f"fuzz: running programs on {gpu.devices[0]}")
    return FatbinRunner(GpuPool(os.environ.get("CUDA_VISIBLE_DEVICES"), gpu.devices), 120.0)


def _campaign(args, campaign: Campaign) -> int:
    """Run the campaign (or investigate ``--programs``), then file what it found and write its page; return the
    exit status. A stopped campaign writes its page too (with the findings of its last whole leg) and says how
    to go on."""
    from suitegen.report import fuzz_page
    out = campaign.opts.out
    try:
        triage.read_findings(campaign.database, say=campaign.say)  # a damaged one is kept aside now, and said
        if args.programs:  # no campaign: these programs of the seed are confirmed and reduced now
            campaign.suspects = [{"kind": "wrong", "index": i, "bad": ["named"]} for i in args.programs]
            findings = campaign.investigate(per_signature=len(args.programs))
        else:
            campaign.run()
            findings = campaign.investigate()
    except StopRun as stop:
        procs.stop_all()  # every child has ended before the page is written
        page = fuzz_page.write(out, campaign.state(), saved_findings(out) or [])
        print(f"fuzz: stopped by {signal.Signals(stop.signum).name}; {len(campaign.done)} programs checked are "
              f"kept in {campaign.results_path}; report {page}. Continue with: {resume_command(args)}", file=sys.stderr)
        return 128 + stop.signum
    state = campaign.state()
    if args.programs:  # no campaign's state: the page (and a later --releases) says which programs were investigated
        state["programs"] = list(args.programs)
        if not campaign.state_path.exists():
            write_json(campaign.state_path, state)
    page = fuzz_page.write(out, state, findings)
    new = [f for f in findings if f["kind"] in (*model.FILED, "build") and not f.get("known")]
    print(f"fuzz: {fuzz_page.headline(campaign.tally.wrong, findings)}")
    handed = fuzz_page.reproducers(findings)
    if handed:
        print(f"fuzz: {handed}")
    print(f"fuzz: {len(findings)} findings ({len(new)} new); report {page}")
    for f in findings:
        if f["kind"] == "wrong-code":
            print(f"  {'known' if f['known'] else 'NEW'} {f['stage']}: wrong under {', '.join(f['failing'])} "
                  f"(program {f['index']}, {f['lines']} lines) -> {out / 'repro' / f['bucket']}")
    return 1 if new else 0


def resume_command(args) -> str:
    """Return the command that continues a stopped campaign: this one, each of its options spelled out."""
    words = ["fuzz", "--seed", args.seed, "--out", str(_folder(args)), "--budget", args.budget, "--builds",
             args.builds, "--host-builds", args.host_builds, "--per-file", str(args.per_file), "--arch", args.arch,
             "--reduce-budget", args.reduce_budget]
    for flag, value in (("--nvcc", args.nvcc), ("--policy", args.policy), ("--max-programs", args.max_programs),
                        ("--known", args.known),
                        ("-j", args.jobs or None), ("--programs", ",".join(map(str, args.programs or ())) or None)):
        if value is not None:
            words += [flag, str(value)]
    words += [flag for flag, on in (("--no-gpu", args.no_gpu), ("--host", args.host), ("--no-reduce", args.no_reduce))
              if on]
    return f"{invocation()} {shlex.join(words)}"


def saved_findings(out: Path) -> list[dict] | None:
    """Return the findings a campaign's last whole leg wrote (``out/findings.json``), or None where there are none
    or they do not read back as a list of findings."""
    try:
        found = json.loads((out / "findings.json").read_text())
    except (OSError, ValueError):
        return None
    return found if isinstance(found, list) and all(isinstance(f, dict) for f in found) else None


def invalid_command(args) -> int:
    """``suitegen fuzz --invalid N``: violations of oracle rules injected in context, judged by the real nvcc."""
    from suitegen.compilers import registry, toolchain
    from suitegen.campaigns import invalid
    nvcc = registry.resolve(args.nvcc or (toolchain.discover() or ["nvcc"])[0])
    out = Path(args.out or triage.DATABASE.parent / f"invalid-{args.seed}")
    out.mkdir(parents=True, exist_ok=True)
    results = invalid.campaign([args.seed], per_cell=args.invalid, nvcc=nvcc, jobs=args.jobs or None)
    summary = invalid.summary(results)
    (out / "invalid.md").write_text(invalid.table(results))
    (out / "invalid.json").write_text(json.dumps(summary, indent=1, default=str))
    passed = sum(r.outcome.verdict == "PASS" for r in results)
    print(invalid.table(results))
    print(f"fuzz --invalid: {len(results)} programs, {passed} rejected at the violation's line by the rule's phase; "
          f"{len(summary['differs'])} places where nvcc's verdict in context differs from the hand-written case; "
          f"{out / 'invalid.md'}")
    return 1 if summary["differs"] else 0


def save_command(args) -> int:
    """``suitegen fuzz --save BUCKET``: keep a campaign's confirmed findings as oracle cases."""
    import datetime
    from suitegen import resources
    from suitegen.campaigns import regression
    from suitegen.oracle import loader
    out = _folder(args)
    saved = saved_findings(out)
    if saved is None:
        raise UsageError(f"--save: {out / 'findings.json'} is missing or damaged: run the campaign first")
    findings = {f.get("bucket"): f for f in saved}
    for bucket in args.save.split(","):
        if bucket not in findings:
            raise UsageError(f"--save: no finding {bucket!r} in {out / 'findings.json'} "
                             f"(there: {', '.join(sorted(b for b in findings if b))})")
        f = findings[bucket]
        if not args.when and f.get("bad") != "default":
            raise UsageError(f"--save {bucket}: it is wrong under {f.get('bad')}, not the default build the oracle "
                             "uses: say with --when where the default build is wrong (fuzz --releases finds out)")
        when = args.when or f"nvcc=={f['toolchain']}"
        written = regression.save(f, resources.oracle_root(), resources.templates_root(), when,
                                  datetime.date.today().isoformat(), args.jit_when)
        print(f"fuzz --save: {bucket} kept as rule {FINDINGS_SECTION}/{bucket}, wrong where {when}: "
              + ", ".join(str(p) for p in written))
    loader.load(resources.oracle_root())  # what was written must load
    return 0


def reduce_command(args) -> int:
    """``suitegen fuzz --reduce FILE``: reduce a source file of one's own that a build crashes on, or that some builds
    get right and others wrong, to the smallest text that shows it the same way: a crash line by line
    (``triage.shrink_crash``), a wrong program through its own check (``own_file``: a program exits 0 when it is
    right). Write the reduced file (and, for wrong code, a report) beside it, and file its finding (``_file``). Exit 0
    when it was reduced, 1 when no build crashes or the builds agree, or the program itself is at fault."""
    source = Path(args.reduce)
    try:
        text = source.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--reduce {source}: cannot read it ({exc})") from None
    folder = _finding_folder(args, source)
    tc, opts = _campaign_options(args)
    campaign = Campaign(tc, replace(opts, out=source.parent))
    deadline = time.monotonic() + opts.reduce_budget
    try:
        with handled(_stop):
            for build in campaign.builds:
                built = modules.build_module(tc, build, text, campaign.scratch / build.name, timeout=600,
                                             use_cache=False)
                if built.crashed:
                    break
            else:
                return _reduce_wrong(campaign, source, text, deadline, args, folder)
            print(f"fuzz: {source} crashes the {build.name} build ({triage.crash_signature(built.log) or 'no words'}); "
                  f"reducing it line by line within {opts.reduce_budget:.0f}s")
            small = triage.shrink_crash(campaign, build, text, deadline, log=built.log)
    except StopRun as stop:
        procs.stop_all()
        print(f"fuzz: stopped by {signal.Signals(stop.signum).name}", file=sys.stderr)
        return 128 + stop.signum
    finally:
        campaign.close()
    out = source.with_name(source.stem + ".reduced" + source.suffix)
    out.write_text(small)
    flags = " ".join(build.nvcc_flags())
    print(f"fuzz: {text.count(chr(10))} lines -> {small.count(chr(10))} lines: {out}\n"
          f"  nvcc {flags} -{build.output} {out.name}   # crashes")
    crash = {"kind": "crash", "source": str(source), "file": source.name, "lines_before": text.count("\n"),
             "build": build.name, "failing": [build.name], "passing": [], "stage": f"compiler crash ({build.name})",
             "log": built.log, "argv": list(built.argv), "lines": small.count("\n"), "reproducer": small,
             "origin": triage.file_origin(text),
             "toolchain": tc.version_str, "commands": [f"nvcc {flags} -{build.output} repro.cu -o repro.{build.output}"
                                                       "   # crashes"]}
    _file(args, folder, source, tc, [build.name], dict(crash, bucket=triage.bucket(crash)))
    return 0


def _file(args, folder: Path, source: Path, tc, builds: list[str], finding: dict) -> None:
    """File a reduced file's finding in its folder as a campaign files its own (``findings.json``, ``findings.md``,
    the page and ``repro/<bucket>/``) and, with ``--releases``, range it there."""
    from suitegen.report import fuzz_page
    folder.mkdir(parents=True, exist_ok=True)
    if finding["kind"] in model.FILED:  # filed where campaigns from here file theirs (beside --out, as theirs are)
        database = folder.parent / triage.DATABASE.name if args.out else triage.DATABASE
        [finding] = triage.file_findings(database, [finding], f"file {source.name}",
                                         known=Path(args.known) if args.known else None)
        print(f"fuzz: {'a known bug' if finding['known'] else 'a new bug'} ({finding['bucket']} in {database})")
    state = {"source": str(source), "toolchain": tc.version_str, "builds": builds, "seed": None,
             "tally": dict(Tally(wrong=1).__dict__)}
    write_json(folder / "campaign.json", state)
    fuzz_page.write(folder, state, [finding])
    print(f"fuzz: its finding: {folder}" + ("" if args.releases else " (fuzz --releases LOW..HIGH --out ranges it)"))
    if args.releases and finding["kind"] in model.FILED:
        releases_command(argparse.Namespace(**dict(vars(args), out=str(folder))))


def _finding_folder(args, source: Path) -> Path:
    """Return where ``--reduce FILE`` files its finding (``--out``, else ``FILE.finding/``), refusing a folder a
    campaign's findings live in (its ``findings.json`` would be written over) or a path that is no folder."""
    folder = Path(args.out) if args.out else source.with_name(source.stem + ".finding")
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--reduce {source}: {folder} is where its finding goes, and it is not a folder")
    try:
        own = not (folder / "campaign.json").is_file() or "source" in json.loads((folder / "campaign.json").read_text())
    except (OSError, ValueError, TypeError):
        own = False  # a state file that does not read back is no file's finding either
    if (folder / PROGRAMS).exists() or not own:
        raise UsageError(f"--reduce {source}: {folder} holds a campaign; give --out a folder of the file's own")
    return folder


def _reduce_wrong(campaign: Campaign, source: Path, text: str, deadline: float, args, folder: Path) -> int:
    """``reduce_command`` for a file no build crashes on: build and run it under every build the fuzzer knows (the
    first of them wrong is the one reduced against: default, where it is wrong there); where some are right
    and others wrong, reduce it (``own_file.reduce_wrong``) and write the reduced file, its report and its finding's
    folder (with ``--releases``, ranged)."""
    names = campaign.every_build()  # --builds first, then every other the fuzzer knows: default is tried first
    runs = own_file.behave_under(campaign, names, text, campaign.scratch / "run")
    said = "\n".join(f"  {name}: {r.said()}" for name, r in runs.items())
    if not any(r.right for r in runs.values()) or all(r.right for r in runs.values() if r.built):
        print(f"fuzz: no build crashes on {source}, and its program (which exits 0 when it is right) does not tell "
              f"the builds apart: nothing to reduce\n{said}")
        return 1
    print(f"fuzz: {source}: the builds disagree; reducing it line by line within "
          f"{max(0.0, deadline - time.monotonic()):.0f}s\n{said}")
    found = own_file.reduce_wrong(campaign, text, runs, deadline)
    if "reproducer" not in found:
        print(f"fuzz: {found['why']}; nothing is claimed\n  " + "\n  ".join(
            f"{k}: {sanitizer.said(v)}" for k, v in found["sanitizer"].items()))
        return 1
    out = source.with_name(source.stem + ".reduced" + source.suffix)
    out.write_text(found["reproducer"])
    note = out.with_suffix(".md")
    note.write_text(own_file.report(source, text, found, runs, {n: campaign.build(n) for n in names}))
    claim = found["kind"] == "wrong-code" and found["reproduces"]
    print(f"fuzz: {text.count(chr(10))} lines -> {found['reproducer'].count(chr(10))} lines: {out}; "
          + (f"wrong under {', '.join(found['wrong'])}, right under {', '.join(found['right'])}" if claim else
             found["why"] or "the reduced file no longer tells the builds apart") + f" ({note})")
    _file(args, folder, source, campaign.tc, names, own_file.finding(campaign, source, text, found))
    return 0 if claim else 1


def releases_command(args) -> int:
    """``suitegen fuzz --releases LOW..HIGH``: where each finding of a campaign appears and disappears, over
    every nvcc release in the range (installed as ``toolchain add`` does), through ``history.releases``; each finding's
    range (first wrong, last wrong, first fixed) goes into its report. ``--builds-to DIR``: build here (crashes are
    judged here) and keep the modules for a GPU machine; ``--builds-from DIR``: run the modules kept there, installing
    nothing."""
    from suitegen.compilers import registry, toolchain
    from suitegen.history import releases as bisect
    from suitegen.execute.gpus import GpuPool, detect_gpu
    from suitegen.report import fuzz_page
    low, _, high = args.releases.partition("..")
    out = _folder(args)
    saved = saved_findings(out)
    if saved is None:
        raise UsageError(f"--releases: {out / 'findings.json'} is missing or damaged: run the campaign first")
    # one finding per distinct bug, its shortest reproducer: the builds kept for a GPU machine are named by bug
    findings = [f for f in fuzz_page.distinct_bugs(saved).values() if f.get("reproducer")]
    runner, gpu = None, detect_gpu()
    if gpu.available and not args.no_gpu and not args.builds_to:
        from suitegen.execute.fatbin import FatbinRunner
        runner = FatbinRunner(GpuPool(os.environ.get("CUDA_VISIBLE_DEVICES"), gpu.devices), 120.0)
    elif any(f["kind"] == "wrong-code" for f in findings) and not args.builds_to:
        print("fuzz --releases: no GPU here: wrong-code findings are not checked (crashes are); build them here with "
              "--builds-to DIR and run them on a GPU machine with --builds-from DIR")
    tc = toolchain.probe(registry.resolve(args.nvcc or (toolchain.discover() or ["nvcc"])[0]))
    campaign = Campaign(tc, Options(seed=args.seed, budget=0, out=out, arch=args.arch), runner)
    runs: list[tuple[str, list]] = []
    kept = Path(args.builds_to or args.builds_from or out / "releases")

    def run(name: str, folder: Path) -> list:
        if args.builds_from:  # the modules a CPU machine built with this release
            builds = json.loads((kept / name / "builds.json").read_text())
            for b in builds:
                b["module"] = b["module"] and str(kept / name / b["module"])
        else:
            folder.mkdir(parents=True, exist_ok=True)
            where = Path(tempfile.mkdtemp(dir=campaign.scratch)) if args.builds_to else folder  # DIR: modules only
            builds = triage.release_builds(campaign, toolchain.probe(registry.resolve(name)), findings, where)
        if args.builds_to:
            for b in builds:
                if b["module"]:
                    kept_as = folder / f"{b['bucket']}{Path(b['module']).suffix}"
                    shutil.copy(b["module"], kept_as)
                    b["module"] = kept_as.name
            (folder / "builds.json").write_text(json.dumps(builds, indent=1))
        records = triage.release_verdicts(runner, builds)
        runs.append((folder.name, records))  # the release (its folder), whatever name it is installed under
        return records

    def listing(low_, high_) -> list[str]:  # the releases whose builds were kept, where they are run
        every = [d.name for d in kept.iterdir() if (d / "builds.json").is_file()] if kept.is_dir() else []
        return sorted((v for v in every if bisect.version_key(low_) <= bisect.version_key(v)
                       <= bisect.version_key(high_)), key=bisect.version_key)
    try:
        if args.builds_from:
            versions, changes, judged = bisect.bisect(low, high or low, run, kept, add=lambda v: {"name": v},
                                                      listing=listing)
        else:
            versions, changes, judged = bisect.bisect(low, high or low, run, kept)
    finally:
        campaign.close()
        if runner is not None:
            runner.close()
    ranges = triage.release_range(runs)
    alike = triage.alike(findings, ranges)  # one finding a bug: its shortest
    text = [f"{judged} findings over {len(versions)} releases ({', '.join(versions)}):"]
    text += [f"fuzz/{bucket}: {r}" + (f"; the same stage, builds and releases as {', '.join(alike[bucket])} (perhaps "
                                      "one bug)" if bucket in alike else "") for bucket, r in ranges.items()]
    text += [c.describe() for c in changes] or ["no finding changed between these releases"]
    (out / "releases.md").write_text("\n".join(text) + "\n")
    if not args.builds_to:  # each finding's report says its range
        for f in saved:
            if f.get("bucket") in ranges:
                f["releases"] = ranges[f["bucket"]]
                f["alike"] = alike.get(f["bucket"], [])
        fuzz_page.write(out, json.loads((out / "campaign.json").read_text()) if (out / "campaign.json").is_file()
                        else campaign.state(), saved)
    print("\n".join(text))
    return 0
