"""``suitegen run``: the matrix in parallel, results appended as they come, resumable."""
from __future__ import annotations

import json
import os
import secrets
import shlex
import sys
import time
import traceback
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

from suitegen import __version__
from suitegen.engine import matrix
from suitegen.engine.session import Session, configs_for, now, open_session, parse_list, plan, run_one
from suitegen.model import Judgement, Record, Verdict
from suitegen.report.outputs import case_entry, publish, read_cases
from suitegen.report.summary import Progress, table
from suitegen.report.run_folder import CASES, META, ResultsFile, write_json

REPORTS = Path("reports")
RESUMED_OPTIONS = ("nvcc", "std", "arch", "flags", "rules", "oracle", "templates", "no_exec", "timeout",
                   "exec_timeout", "profile", "matrix", "toolchains", "baseline", "corpus")


def profile_from_args(args) -> matrix.Profile:
    """Return the matrix: the named profile (default: 'default'), with --std/--arch/--flags overriding it."""
    prof = matrix.profile(args.profile or "default", args.matrix)
    flagsets = prof.flagsets
    if args.flags:
        flagsets = tuple(matrix.FlagSet(flags=tuple(shlex.split(f))) for f in args.flags)
    return replace(prof, stds=tuple(parse_list(args.std, prof.stds)), archs=tuple(parse_list(args.arch, prof.archs)),
                   flagsets=flagsets)


def new_run_id() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(2)


def find_run(name: str) -> Path:
    """Return the folder of a run given its id (under reports/) or its path."""
    folder = Path(name)
    if not folder.is_dir():
        folder = REPORTS / name
    if not (folder / META).exists():
        raise ValueError(f"{name}: no run found ({folder / META} is missing)")
    return folder


def _run_folder(args) -> tuple[Path, str]:
    if args.resume:
        folder = find_run(args.resume)
        return folder, folder.name
    if args.out:
        if (Path(args.out) / "results.jsonl").exists():
            raise ValueError(f"--out {args.out} already holds a run: continue it with --resume {args.out}, "
                             "or choose another folder")
        return Path(args.out), Path(args.out).name
    run_id = new_run_id()
    return REPORTS / run_id, run_id


def _restore_options(args, folder: Path) -> None:
    saved = json.loads((folder / META).read_text()).get("args", {})
    for key in RESUMED_OPTIONS:
        if key in saved and getattr(args, key) in (None, [], False):
            setattr(args, key, saved[key])


def safe_run_one(session: Session, case, config) -> Record:
    """Run one item; a harness exception becomes UNRESOLVED with its traceback, never FAIL."""
    try:
        return run_one(session, case, config)
    except Exception:
        tb = traceback.format_exc(limit=5)
        return Record(case=case, config=config, result=None, started=now(),
                      judgement=Judgement(verdict=Verdict.UNRESOLVED, reason=f"harness error: {tb}"))


def run_command(args) -> int:
    folder, run_id = _run_folder(args)
    if args.resume:
        _restore_options(args, folder)
    prof = profile_from_args(args)
    cases = None
    if args.corpus:
        from suitegen.cases.corpus import MANIFEST, read_corpus, read_corpus_profile
        from suitegen.engine.session import select_rules
        manifest = Path(args.corpus) / MANIFEST
        if not manifest.exists():
            raise ValueError(f"--corpus {args.corpus}: no {MANIFEST} there (make one with suitegen generate)")
        cases = [c for c in read_corpus(manifest) if select_rules([c.rule], args.rules)]
        if not (args.profile or args.std or args.arch or args.flags):
            prof = read_corpus_profile(manifest) or prof  # the matrix the corpus was generated for
    session = open_session(args.nvcc, args.oracle, args.templates, args.rules, args.timeout, args.no_exec,
                           args.exec_timeout, toolchains_file=args.toolchains, cases=cases)
    configs = configs_for(session.toolchains, prof)
    results = ResultsFile(folder)
    done = results.done_keys()
    items = [(c, cfg) for c, cfg in plan(session.cases, configs) if (c.key, cfg.key) not in done]
    jobs = args.jobs or os.cpu_count() or 1
    meta = {
        "run_id": run_id, "suitegen": __version__, "started": now(),
        "toolchains": [{"label": t.label, "nvcc": t.nvcc, "version": t.version_str,
                        "fingerprint": t.fingerprint, "host_compiler": t.host_compiler,
                        "host_version": t.host_version} for t in session.toolchains],
        "gpu": {"available": session.gpu.available, "reason": session.gpu.reason,
                "devices": list(session.gpu.devices)},
        "execution": session.execution_skipped or "runtime cases executed",
        "args": {k: getattr(args, k) for k in RESUMED_OPTIONS},
        "jobs": jobs,
    }
    write_json(folder / META, meta)
    known = set(read_cases(folder))
    cases_file = ResultsFile(folder, CASES)
    for case in session.cases:
        if case.key not in known:
            known.add(case.key)
            cases_file.append(case_entry(case))
    for t in session.toolchains:
        print(f"suitegen: {t.label} {t.version_str} at {t.nvcc} (host {t.host_version}; fingerprint "
              f"{t.fingerprint})", file=sys.stderr)
    print(f"suitegen: profile {prof.name}: {len(session.cases)} cases x {len(configs)} configs: "
          f"{len(plan(session.cases, configs))} results; {len(done)} already done; -j {jobs}; "
          f"run folder {folder}", file=sys.stderr)
    if session.execution_skipped:
        print(f"suitegen: execution skipped: {session.execution_skipped}. Runtime cases are compiled and "
              f"their compile judged; their verdict is UNSUPPORTED, never PASS.", file=sys.stderr)
    else:
        print(f"suitegen: executing runtime cases on {'; '.join(session.gpu.devices)} "
              f"(GPUs {','.join(session.gpus.ids)})", file=sys.stderr)
    start = time.monotonic()
    try:
        interrupted = _execute(session, items, results, jobs, quiet=args.quiet)
    finally:
        if session.fatbin:
            session.fatbin.close()
    wall = time.monotonic() - start
    meta.update(finished=now(), wall_seconds=round(wall, 2), interrupted=interrupted,
                items_this_run=len(items), cases_per_second=round(len(items) / wall, 2) if wall else None)
    write_json(folder / META, meta)
    summary = publish(folder, session.oracle.sections, meta)
    records = summary["results"]
    print(table(summary))
    print(f"\n{summary['results']} results in {folder}; this run: {len(items)} items in {wall:.1f}s "
          f"({meta['cases_per_second']} /s)")
    regressions = _against_baseline(args.baseline, folder) if args.baseline else 0
    if interrupted:
        print(f"suitegen: interrupted; {records} results kept. Continue with: "
              f"suitegen run --resume {folder}", file=sys.stderr)
        return 130
    return 1 if summary["failed"] or regressions else 0


def _against_baseline(path: str, folder: Path) -> int:
    """Compare the run with a baseline file, write diff-baseline.{md,json}, return the regression count."""
    from suitegen.report import diff
    from suitegen.report.run_folder import read_records
    base = json.loads(Path(path).read_text())
    d = diff.compare(base["results"], list(read_records(folder / "results.jsonl")))
    (folder / "diff-baseline.md").write_text(diff.as_markdown(d, Path(path).name, folder.name))
    (folder / "diff-baseline.json").write_text(diff.as_json(d, Path(path).name, folder.name))
    print(diff.as_table(d, Path(path).name, folder.name))
    return len(d.regressions)


def _execute(session: Session, items, results: ResultsFile, jobs: int, quiet: bool) -> bool:
    """Run items on a thread pool, appending each record as it completes; return whether interrupted."""
    progress = Progress(len(items), enabled=not quiet)
    pool = ThreadPoolExecutor(max_workers=jobs)
    pending: set = set()
    queue = iter(items)

    def record(fut) -> None:
        progress.update(results.append(fut.result())["verdict"])

    try:
        for item in queue:
            pending.add(pool.submit(safe_run_one, session, *item))
            if len(pending) >= jobs * 2:
                break
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                record(fut)
                nxt = next(queue, None)
                if nxt is not None:
                    pending.add(pool.submit(safe_run_one, session, *nxt))
        return False
    except KeyboardInterrupt:
        # Keep what is already compiling: wait for it and record it, drop what has not started.
        pool.shutdown(wait=True, cancel_futures=True)
        for fut in pending:
            if fut.done() and not fut.cancelled():
                record(fut)
        return True
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        progress.close()
