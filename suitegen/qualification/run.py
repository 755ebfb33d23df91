"""``suitegen run``: the matrix on the scheduler's threads, results appended as they come, resumable, stoppable.

Ctrl-C, SIGTERM and SIGHUP stop a run the same way: every child's process group is killed, what
finished is kept and summarised, and the exit status is 128 + the signal (130, 143, 129).
"""
from __future__ import annotations

import json
import os
import shlex
import signal
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path

from suitegen import __version__, procs, resources
from suitegen.engine import options
from suitegen.qualification import unit_kinds  # noqa: F401 - unit_kinds registers every unit kind
from suitegen.qualification.item import builds_programs, kind_of, safe_run_unit, several_targets, twin_units, units
from suitegen.engine.progress import Estimate, Progress
from suitegen.engine.scheduler import Scheduler
from suitegen.engine.stopping import StopRun, handled, held, ignore_stops, invocation
from suitegen.qualification.session import Session, configs_for, item_name, now, open_session, plan
from suitegen.model import SCHEMA, UsageError, digest
from suitegen.report.outputs import Reports
from suitegen.report.run_folder import (CASES, META, RESULTS, ResultsFile, RunLock, case_entry, find_run, new_run_id,
                                        read_cases, write_json)
from suitegen.report.summary import table

CHECKPOINT_SECONDS = "SUITEGEN_CHECKPOINT_SECONDS"  # how often a running run rewrites its reports (default 60)
PAGE = "index.html"  # the run's page, which the last line of every run names


@dataclass(frozen=True, kw_only=True, slots=True)
class RunSpec:
    """Everything a run is asked: the options every front-end shares (``options.RunOptions``) and the run's
    own. Saved whole in run.json (``spec``); ``--resume`` restores what it does not give again."""

    options: options.RunOptions = field(default_factory=options.RunOptions)
    out: str | None = None
    resume: str | None = None
    jobs: int = 0  # parallel units (0: the CPU count)
    quiet: bool = False
    corpus: str | None = None
    baseline: str | None = None
    shard: str | None = None
    list: bool = False
    RESTORED = ("corpus", "baseline", "shard")  # the run's own options a resumed run keeps
    SELECTING = ("corpus", "shard")  # those of them that choose what it judges: a resume may not change them

    @classmethod
    def from_namespace(cls, args) -> "RunSpec":
        return cls(options=options.from_namespace(args), out=args.out, resume=args.resume, jobs=args.jobs or 0,
                   quiet=bool(args.quiet), corpus=args.corpus, baseline=args.baseline, shard=args.shard,
                   list=bool(args.list))

    def to_json(self) -> dict:
        return {"options": options.to_json(self.options), **{k: getattr(self, k) for k in self.RESTORED}}

    def resumed(self, saved: dict) -> "RunSpec":
        """Return this spec with what it does not give taken from a run.json's (``args``: before specs)."""
        if "spec" in saved:
            spec = saved["spec"]
            old, own = options.from_json(spec.get("options", {})), spec
        else:
            own = saved.get("args", {})
            old = options.from_json({k: v for k, v in own.items() if v is not None})
        kept = {k: own.get(k) for k in self.RESTORED if getattr(self, k) is None and own.get(k) is not None}
        differ = options.conflicts({**options.selection(self.options), **{k: getattr(self, k) for k in self.SELECTING}},
                                   {**asdict(old), **{k: own.get(k) for k in self.SELECTING}})
        if differ:
            raise UsageError(f"--resume {self.resume}: a resumed run judges what it started with, and "
                             f"{'; '.join(differ)} would change that: leave them out, or start another run")
        return replace(self, options=options.given(self.options, old), **kept)


def _run_folder(spec: RunSpec) -> tuple[Path, str]:
    if spec.resume:
        folder = find_run(spec.resume)
        return folder, folder.name
    if spec.out:
        return Path(spec.out), Path(spec.out).name
    run_id = new_run_id()
    return resources.REPORTS / run_id, run_id


def _corpus_cases(spec: RunSpec):
    """Return the cases of --corpus and the matrix it was generated for (None, None without one)."""
    if not spec.corpus:
        return None, None
    from suitegen.cases.corpus import MANIFEST, read_corpus, read_corpus_profile
    from suitegen.qualification.session import select_rules
    opts = spec.options
    manifest = Path(spec.corpus) / MANIFEST
    if not manifest.exists():
        raise UsageError(f"--corpus {spec.corpus}: no {MANIFEST} there (make one with suitegen generate)")
    cases = read_corpus(manifest)
    chosen = {r.id for r in select_rules(list({c.rule.id: c.rule for c in cases}.values()), opts.rules)}
    return [c for c in cases if c.rule.id in chosen], read_corpus_profile(manifest)


def _open(spec: RunSpec):
    """Return (session, matrix profile, configs) for the run's options, a corpus's cases and matrix included."""
    cases, base = _corpus_cases(spec)
    prof = options.resolve_profile(spec.options, base)
    configs_for([], prof, check=False)  # a misspelt -std or arch is a usage error before anything is drawn or built
    session = open_session(spec.options, cases=cases, corpus=prof.generated, checks=prof.checks)
    return session, prof, configs_for(session.toolchains, prof)


def list_items(spec: RunSpec) -> int:
    """Print the items a run with these options would judge, one per line, and exit."""
    session, _, configs = _open(spec)
    several = len(session.toolchains) > 1
    items = plan(session.cases, configs)
    if spec.shard:  # the shard's items, as its run forms them
        items = [(c, u.config) for u in shard(units(items, batching=session.options.batch != "off",
                                                    deviations=session.oracle.deviations), spec.shard)
                 for c in u.cases]
    for case, cfg in items:
        print(item_name(case, cfg, several))
    return 0


def run_command(args) -> int:
    """``suitegen run``: the command line's options as a RunSpec."""
    return run(RunSpec.from_namespace(args))


def run(spec: RunSpec) -> int:
    """Run (or, with ``spec.resume``, continue) one run; return its exit status."""
    if spec.list:
        return list_items(spec)
    folder, run_id = _run_folder(spec)
    with handled(_raise_stop):
        try:
            with RunLock(folder, "suitegen run"):
                if spec.resume:
                    spec = spec.resumed(json.loads((folder / META).read_text()))
                elif (folder / RESULTS).exists():
                    raise UsageError(f"--out {folder} already holds a run: continue it with --resume {folder}, "
                                     "or choose another folder")
                checkpoint_every()
                if spec.baseline:
                    _read_baseline(spec.baseline)
                return _run_locked(spec, folder, run_id)
        except StopRun as stop:  # before any item ran (probing the toolchains, say) or while writing reports
            ignore_stops()  # a second signal must not cut the clean-up short
            procs.stop_all()
            print(f"suitegen: stopped by {signal.Signals(stop.signum).name}", file=sys.stderr)
            return 128 + stop.signum


def _run_locked(spec: RunSpec, folder: Path, run_id: str) -> int:
    session, prof, configs = _open(spec)
    results = ResultsFile(folder)
    done = results.done_keys()
    # Units come from the whole plan, so a shard and a resumed run keep the same batches.
    work = shard(units(plan(session.cases, configs), batching=session.options.batch != "off",
                       deviations=session.oracle.deviations), spec.shard)
    every = [(c, u.config) for u in work for c in u.cases]
    work = [replace(u, cases=kept) for u in work
            if (kept := tuple(c for c in u.cases if (c.key, u.config.key) not in done))]
    items = [(c, u.config) for u in work for c in u.cases]
    jobs = spec.jobs or os.cpu_count() or 1
    before = json.loads((folder / META).read_text()) if spec.resume else {}
    meta = _meta(spec, session, run_id, jobs)
    leg = {"started": meta["started"], "finished": None, "wall_seconds": None, "items": 0, "stopped_by": None}
    legs = [*_legs(before), leg]
    meta.update(started=legs[0]["started"], legs=legs, planned=len(every))
    write_json(folder / META, meta)
    _write_cases(folder, session)
    _announce(session, prof, configs, every, done, jobs, folder)
    start = time.monotonic()
    estimate = Estimate(jobs=jobs, costs=before.get("unit_costs"))
    stopped, finished = None, 0
    resume = f"{invocation()} run --resume {shlex.quote(str(folder))}"
    checkpoint = Checkpoint(folder, session.oracle.sections, dict(meta, resume_command=resume))
    triaged = False
    try:
        stopped, finished = _execute(session, work, len(items), results, jobs, quiet=spec.quiet, estimate=estimate,
                                     checkpoint=checkpoint)
        if stopped is None:
            triaged = _triage(session, results, folder, run_id, jobs)
    except StopRun as stop:  # during the triage: every record is in, and a later triage takes it up again
        procs.stop_all()
        stopped = stop.signum
    finally:
        session.close()
    wall = time.monotonic() - start
    stopped_by = signal.Signals(stopped).name if stopped else None
    leg.update(finished=now(), wall_seconds=round(wall, 2), items=finished, stopped_by=stopped_by)
    meta.update(finished=leg["finished"], wall_seconds=round(sum(g["wall_seconds"] or 0 for g in legs), 2),
                interrupted=stopped is not None, stopped_by=stopped_by, items_this_run=finished,
                items_per_second=round(finished / wall, 2) if wall else None, unit_costs=estimate.costs(),
                resume_command=resume if stopped else None)
    write_json(folder / META, meta)
    # A stop may come between a record's write and its report, and triage changes records and reproducers: then the
    # reports are made from the file.
    reports = Reports(folder, session.oracle.sections, meta) if stopped or triaged else checkpoint.reports
    summary = reports.publish(meta)
    print(table(summary))
    print(f"\n{summary['results']} results in {folder}; this run: {finished} items in {wall:.1f}s "
          f"({meta['items_per_second']} /s)" + (f"; {len(legs)} legs: {meta['wall_seconds']:.1f}s in all"
                                                if len(legs) > 1 else ""))
    regressions = _against_baseline(spec.baseline, folder) if spec.baseline else 0
    if stopped is not None:
        print(f"suitegen: stopped by {stopped_by}; {summary['results']} results kept. "
              f"Continue with: {meta['resume_command']}", file=sys.stderr)
    print(f"page: {folder / PAGE}")
    if stopped is not None:
        return 128 + stopped
    return 1 if summary["failed"] or regressions else 0


def _triage(session: Session, results: ResultsFile, folder: Path, run_id: str, jobs: int) -> bool:
    """Triage the run's wrong generated programs within ``--reduce-budget`` (``run_findings``); append the XFAIL
    records of those a known finding explains. Return whether any program was triaged."""
    from suitegen.qualification import run_findings
    from suitegen.campaigns import triage
    opts = session.options
    records = results.read()
    if not opts.reduce_budget or not any(run_findings.triaged(r) for r in records):
        return False
    db = Path(opts.findings) if opts.findings else triage.DATABASE
    say = partial(print, file=sys.stderr)
    results.append_all(run_findings.triage_run(records, session.toolchains, session.fatbin, db, folder, run_id,
                                               opts.reduce_budget, jobs, say))
    return True


def _legs(before: dict) -> list[dict]:
    """Return the legs (start, wall time, items) of a run folder's earlier runs, from its run.json."""
    if not before:
        return []
    if "legs" in before:
        return list(before["legs"])
    # a run.json from before legs were kept: its one leg
    return [{"started": before.get("started"), "finished": before.get("finished"),
             "wall_seconds": before.get("wall_seconds"), "items": before.get("items_this_run"),
             "stopped_by": before.get("stopped_by")}]


def shard(work: list, spec: str | None) -> list:
    """Return the units of shard K of N (``spec`` 'K/N'): a stable split by content, batches kept whole."""
    if not spec:
        return work
    try:
        k, n = (int(x) for x in spec.split("/"))
        assert 1 <= k <= n
    except (ValueError, AssertionError):
        raise UsageError(f"--shard {spec!r}: expected K/N with 1 <= K <= N, e.g. 2/4") from None
    # By content and the config's words, not the toolchain's fingerprint: hosts with their own installs agree.
    return [u for u in work
            if int(digest([c.key for c in u.cases], u.config.toolchain.label, u.config.id), 16) % n == k - 1]


def _meta(spec: RunSpec, session: Session, run_id: str, jobs: int) -> dict:
    return {
        "run_id": run_id, "suitegen": __version__, "started": now(), "schema": SCHEMA,  # its records'
        "oracle": {"root": str(session.oracle.root), "content_hash": session.oracle.content_hash},
        "toolchains": [{"label": t.label, "nvcc": t.nvcc, "version": t.version_str,
                        "fingerprint": t.fingerprint, "host_compiler": t.host_compiler,
                        "host_version": t.host_version} for t in session.toolchains],
        "gpu": {"available": session.gpu.available, "reason": session.gpu.reason,
                "devices": list(session.gpu.devices)},
        "execution": session.execution_skipped or "runtime cases executed",
        "allow_xpass": bool(spec.options.allow_xpass),
        "shard": spec.shard,
        "spec": spec.to_json(),
        "jobs": jobs,
    }


def _write_cases(folder: Path, session: Session) -> None:
    """Append the cases the run folder does not hold yet to its cases file, in one write."""
    known = set(read_cases(folder))
    entries = {}
    for case in session.cases:
        if case.key not in known:
            entries.setdefault(case.key, case_entry(case))
    ResultsFile(folder, CASES).append_all(list(entries.values()))


def _announce(session: Session, prof, configs, every, done, jobs: int, folder: Path) -> None:
    for t in session.toolchains:
        print(f"suitegen: {t.label} {t.version_str} at {t.nvcc} (host {t.host_version}; fingerprint "
              f"{t.fingerprint})", file=sys.stderr)
    print(f"suitegen: profile {prof.name}: {len(session.cases)} cases x {len(configs)} configs: "
          f"{len(every)} results; {len(done)} already done; -j {jobs}; run folder {folder}", file=sys.stderr)
    if session.execution_skipped:
        print(f"suitegen: execution skipped: {session.execution_skipped}. Runtime cases are compiled and "
              f"their compile judged; their verdict is UNSUPPORTED, never PASS.", file=sys.stderr)
    else:
        print(f"suitegen: executing runtime cases on {'; '.join(session.gpu.devices)} "
              f"(GPUs {','.join(session.gpus.ids)})", file=sys.stderr)


def _read_baseline(path: str) -> list:
    """Return the entries of a baseline file (checked before a run starts); UsageError where there is none."""
    from suitegen.report import diff
    if not Path(path).is_file():
        raise UsageError(f"--baseline {path}: no such file (suitegen baseline save RUN writes one)")
    return diff.read_baseline(Path(path))


def _against_baseline(path: str, folder: Path) -> int:
    """Compare the run with a baseline file, write diff-baseline.{md,json}, return the regression count."""
    from suitegen.report import diff
    from suitegen.report.run_folder import read_records
    d = diff.compare(_read_baseline(path), read_records(folder / RESULTS))
    (folder / "diff-baseline.md").write_text(diff.as_markdown(d, Path(path).name, folder.name))
    (folder / "diff-baseline.json").write_text(diff.as_json(d, Path(path).name, folder.name))
    print(diff.as_table(d, Path(path).name, folder.name))
    return len(d.regressions)


def _raise_stop(signum, frame) -> None:
    raise StopRun(signum)


def unit_kind(unit) -> str:
    """Return what a unit's cost is estimated by: batch or single, the toolchain's kind, the build mode (or the name of
    a kind that takes items of its own, such as a module of generated programs)."""
    shape = "batch" if len(unit.cases) > 1 else "single"
    kind = kind_of(unit)
    return f"{shape} {unit.config.toolchain.kind.value} {kind.name if kind.takes else unit.cases[0].variant.mode.value}"


def _timed(estimate: Estimate, session: Session, unit):
    """Run a unit (``safe_run_unit``), telling the estimate when it began and ended, and planning the single
    builds it leaves before the scheduler can start them. The estimate knows a unit by its identity (``id``):
    the unit lives while it is planned, in the run's list or the scheduler's queue."""
    estimate.begin(id(unit))
    done = None
    try:
        done = safe_run_unit(session, unit)
        for single in done.leftovers if done else ():
            estimate.plan(id(single), unit_kind(single), 1)
        return done
    finally:
        estimate.end(id(unit), finished=done is not None)


def _leftovers_first(unit) -> int:
    """The scheduler's order: single builds that batches left (they say why) before the next planned unit, so a
    started batch is finished first; planned units keep their order (``units``: longest first). A several-target
    config's leftovers come last: most are rejections its first target's config builds meanwhile, which it then
    takes (``sources.sibling``)."""
    return (2 if several_targets(unit.config) else 0) if unit.why else 1


class Checkpoint:
    """Keeps a run's reports as its records come, and writes them now and then while it runs (at most every
    ``every`` seconds, and never for more than a tenth of the time), so a run killed outright still leaves a
    page and a summary."""

    def __init__(self, folder: Path, sections, meta: dict, every: float | None = None):
        every = checkpoint_every() if every is None else every
        self.reports = Reports(folder, sections, meta)
        self.meta, self.every = meta, every
        self.last, self.cost = time.monotonic(), 0.0

    def __call__(self) -> None:
        if time.monotonic() - self.last < max(self.every, 10 * self.cost):
            return
        start = time.monotonic()
        self.reports.publish(dict(self.meta, running=now()))
        self.last = time.monotonic()
        self.cost = self.last - start


def checkpoint_every() -> float:
    """Return the seconds between a running run's report rewrites (``SUITEGEN_CHECKPOINT_SECONDS``, default 60);
    UsageError for a value that is not a number of seconds, 0 or more."""
    text = os.environ.get(CHECKPOINT_SECONDS, "60")
    try:
        every = float(text)
    except ValueError:
        every = -1.0
    if not every >= 0:
        raise UsageError(f"{CHECKPOINT_SECONDS}={text!r}: expected a number of seconds, 0 or more")
    return every


def _execute(session: Session, work, total: int, results: ResultsFile, jobs: int, quiet: bool,
             estimate: Estimate | None = None, checkpoint=None) -> tuple[int | None, int]:
    """Run units on ``jobs`` threads of a ``Scheduler``, appending each record as its unit finishes (and calling
    ``checkpoint`` after each); return the stop signal (if any) and how many items finished."""
    estimate = estimate or Estimate(jobs=jobs)
    progress = Progress(total, enabled=not quiet, estimate=estimate)
    work = [*twin_units(session, work), *work]  # first: the diagnose items among the rest take their twins there
    for unit in work:
        estimate.plan(id(unit), unit_kind(unit), len(unit.cases))
    procs.reset()
    procs.limit_cores(jobs)
    # At most ``jobs`` units that build programs at once: however many of them wait in the GPU's queue, the
    # other units keep threads enough to work every core.
    scheduler = Scheduler(partial(_timed, estimate, session), jobs=jobs + gpu_waiters(session, jobs),
                          key=_leftovers_first, lane=_lane, lanes={PROGRAMS: jobs})
    scheduler.add(*work)
    recorded: set = set()
    latest = None  # the unit whose records were being appended when a stop came: kept whole

    def record(finished) -> None:
        # None: cut short by the stop, so nothing of it is an outcome. Never append one item twice.
        fresh = {r.key: r for r in (finished.result.records if finished.result else ()) if r.key not in recorded}
        with held():  # written, marked and counted together: a stop between them would append them again
            results.append_all(list(fresh.values()))
            recorded.update(fresh)
            for rec in fresh.values():
                progress.update(rec.verdict.value)
            if checkpoint is not None:
                checkpoint.reports.add(fresh.values())

    stopped = None
    try:
        for latest in scheduler:
            record(latest)
            if checkpoint is not None:
                checkpoint()
    except StopRun as stop:
        stopped = stop.signum
        ignore_stops()  # a second signal must not cut the clean-up and the reports short
        procs.stop_all()
        scheduler.stop()  # queued units are dropped; running ones end as their children die
        procs.stop_all()  # anything a worker started while the first sweep ran
        for finished in ([latest] if latest else []) + list(scheduler):
            record(finished)
    finally:
        scheduler.stop()
        procs.limit_cores(None)
        progress.close()
    return stopped, progress.done


PROGRAMS = "programs"  # the scheduler's lane of the units that build programs


def _lane(unit) -> str | None:
    return PROGRAMS if builds_programs(unit) else None


def gpu_waiters(session: Session, jobs: int) -> int:
    """Return how many unit threads a run adds to its ``jobs`` (the children that may work the cores at once)
    for units that wait on GPU programs meanwhile, where programs run on a GPU here: twice as many. The driver
    starts one program's CUDA context at a time (about 0.19 s each on an H200, 16 started at once or not:
    ``benchmarks/program_start.py``), so units wait there in a queue that holds no core."""
    return 0 if session.execution_skipped else 2 * jobs
