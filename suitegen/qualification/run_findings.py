"""A run's generated programs that went wrong, triaged as a campaign triages its own (``campaigns.triage``).

After a run's items are judged, each generated program that FAILs (a wrong cell) or is UNRESOLVED (the compiler
crashed on it) is taken once: a finding of the findings database (``--findings``) that already names the
program explains it at once; otherwise it is confirmed alone, reduced within the run's time box
(``--reduce-budget``), given a stage and filed, where a bucket already in the database makes it known. An
item a known finding explains gets a new record, XFAIL with the finding named (the last record of an item is its
result); every other one keeps its verdict, and its reduced reproducer is kept under ``findings/`` of the run
folder, which its ``repro/`` folder points at.
"""
from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

from suitegen import model, procs
from suitegen.compilers.modules import DeviceBuild, target_build
from suitegen.campaigns import file_pass, triage
from suitegen.model import GENERATED_RULE, DeviationRef, Outcome, Record, Toolchain, Verdict
from suitegen.report.repro import TRIAGED, folder_name
from suitegen.synth import corpus

GOOD = ("ptxas-O0", "cicc-O0", "default", "debug")  # the builds a wrong result is compared with, in blame's terms


def builds_for(record: Record) -> list[DeviceBuild]:
    """Return the builds that triage a generated item: its config's own (named as the campaign names a build
    with those flags, ``fuzz.BUILDS``, so buckets line up with campaigns'; else ``run``), then the campaign's
    others at the config's -std and arch."""
    from suitegen.campaigns.fuzz import BUILDS
    cfg = record.config
    mine = target_build("run", cfg.arch.split("+")[-1], cfg.std, (*cfg.flags, *cfg.case_flags))  # its last target
    own = "ptx-jit" if mine.output == "ptx" else next(
        (n for n, b in BUILDS.items() if b.flags == mine.flags and b.output == "cubin"), "run")
    mine = replace(mine, name=own)
    others = [DeviceBuild(name=n, flags=BUILDS[n].flags, arch=mine.arch, std=cfg.std) for n in GOOD if n != own]
    return [mine, *others]


def triaged(record: Record) -> bool:
    """Whether a record is one this stage takes: a generated program's run that FAILed, or its build crashed."""
    return GENERATED_RULE.fullmatch(record.rule) is not None and (
        record.verdict is Verdict.FAIL and record.execution is not None
        or record.verdict is Verdict.UNRESOLVED and record.observed is not None
        and record.observed.outcome is Outcome.CRASHED)


def explained(db: dict, rule: str) -> tuple[str, dict] | None:
    """Return the database's finding (bucket, entry) that names this generated program, or None."""
    return next(((k, e) for k, e in db["findings"].items() if rule in e.get("programs", ())), None)


def known_record(record: Record, bucket: str, entry: dict, db_path: Path) -> Record:
    """Return the item's record as XFAIL: a known finding of the findings database explains it."""
    first = entry["first"]
    return replace(record, verdict=Verdict.XFAIL,
                   reason=f"known finding {bucket} ({first.get('stage', first.get('kind'))}; filed by "
                          f"{', '.join(entry.get('campaigns', [])) or 'a campaign'}): {record.reason}"[:2000],
                   deviation=DeviationRef(observed=record.observed.outcome if record.observed else Outcome.ACCEPTED,
                                          diagnostic=str(first.get("stage", "")), seen=str(first.get("toolchain", "")),
                                          file=f"{db_path}#{bucket}"))


def triage_run(records: list[Record], toolchains: list[Toolchain], runner, db_path: Path, folder: Path, run_id: str,
               budget: float, jobs: int, say: Callable[[str], None]) -> list[Record]:
    """Triage a run's wrong generated programs (each program once, in record order) within ``budget`` seconds;
    return the XFAIL records of those a known finding explains. Each finding is kept in
    ``TRIAGED/<item>/finding.json`` (and its reproducer as ``reduced.cu``) and filed in the database."""
    from suitegen.campaigns.fuzz import Campaign, Options
    todo, seen = [], set()
    for r in records:
        if triaged(r) and r.rule not in seen:
            seen.add(r.rule)
            if not _kept(folder, r):
                todo.append(r)
    if not todo:
        return []
    deadline = time.monotonic() + budget
    by_label = {t.label: t for t in toolchains}
    out = []
    say(f"suitegen: triaging {len(todo)} wrong generated program(s) within {budget:.0f}s (--reduce-budget)")
    for r in todo:
        db = triage.read_findings(db_path, say)
        known = explained(db, r.rule)
        if known is not None:
            out += [known_record(x, *known, db_path) for x in records if x.rule == r.rule and triaged(x)]
            continue
        if time.monotonic() > deadline:
            _keep(folder, r, {"kind": "not-reduced", "why": "the run's --reduce-budget was spent"})
            continue
        m = GENERATED_RULE.fullmatch(r.rule)
        seed, index = m["seed"], int(m["index"])
        builds = builds_for(r)
        crash = r.verdict is Verdict.UNRESOLVED
        bench = Campaign(by_label[r.config.toolchain],
                         Options(seed=seed, budget=0, out=folder / TRIAGED, jobs=jobs, reduce_budget=budget,
                                 arch=builds[0].arch, builds=tuple(b.name for b in builds)),
                         runner=None if crash else runner, say=say, builds=builds if not crash else builds[:1])
        try:
            program = corpus.program(seed, index)
            if crash:
                commands = r.observed.commands if r.observed else ()
                finding = triage.investigate_crash(bench, {"index": index, "build": builds[0].name, "file": 0,
                                                           "log": r.reason[-2000:], "argv": list(commands[-1:])},
                                                   deadline, program=program)
            else:
                finding = file_pass.investigate(bench, {"index": index}, deadline, program=program)
        except procs.Stopped:
            raise
        except Exception as exc:  # noqa: BLE001 - one program's harness error must not lose the run's records
            finding = {"kind": "error", "error": f"{type(exc).__name__}: {exc}"}
        finally:
            bench.close()
        finding = dict(finding or {"kind": "not-reproduced"}, program_id=r.rule, item=r.case_id, config=r.config_id)
        if finding["kind"] in model.FILED:
            finding["campaign"] = f"run {run_id}"
            filed = triage.file_findings(db_path, [finding], f"run {run_id}", say=say)[0]
            entry = triage.read_findings(db_path, say)["findings"][filed["bucket"]]
            # known: filed before this run (another program of this run in the same bucket is the same new bug)
            finding.update(bucket=filed["bucket"], known=any(c != f"run {run_id}" for c in entry["campaigns"]))
            if finding["known"]:
                out += [known_record(x, filed["bucket"], entry, db_path) for x in records
                        if x.rule == r.rule and triaged(x)]
        _keep(folder, r, finding)
        say(f"suitegen: {r.case_id}: {finding['kind']}" + (f", {finding.get('lines')} lines, stage "
                                                          f"{finding.get('stage')}" if "reproducer" in finding else ""))
    return out


def _kept(folder: Path, record: Record) -> bool:
    """Whether this run folder already holds the item's triage (a resumed run's), other than one left for lack of
    budget."""
    try:
        return json.loads((folder / TRIAGED / folder_name(record) / "finding.json").read_text())["kind"] != "not-reduced"
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _keep(folder: Path, record: Record, finding: dict) -> None:
    """Write a triaged item's finding (and reduced reproducer) under ``TRIAGED/<item>/``."""
    target = folder / TRIAGED / folder_name(record)
    target.mkdir(parents=True, exist_ok=True)
    if finding.get("reproducer"):
        (target / "reduced.cu").write_text(finding["reproducer"])
    (target / "finding.json").write_text(json.dumps(finding, indent=1, sort_keys=True, default=str))
