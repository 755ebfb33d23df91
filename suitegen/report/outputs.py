"""Writes a run folder's outputs from its records: summary, markdown, JUnit, the page, reproducers."""
from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path
from typing import Mapping

from suitegen.report import page as html_report

from suitegen.report import junit_xml as junit
from suitegen.model import Case
from suitegen.report.summary import COLUMNS, summarize
from suitegen.report.run_folder import CASES, META, SUMMARY, read_records, write_json


def case_entry(case: Case) -> dict:
    """Return what a report needs of a case: its sources and what it tests."""
    return {"key": case.key, "id": case.id, "rule": case.rule.id, "section": case.rule.section,
            "statement": case.rule.statement, "variant": case.variant.name, "files": dict(case.files),
            "flags": list(case.variant.flags),
            "violation_line": case.violation_line}


def read_cases(folder: Path) -> dict[str, dict]:
    return {c["key"]: c for c in read_records(folder / CASES)}


def markdown(summary: Mapping) -> str:
    """Return the per-section summary as a markdown table (for a CI comment or log)."""
    head = "| section | " + " | ".join(label for _, label in COLUMNS) + " |"
    rule = "|---|" + "---:|" * len(COLUMNS)
    rows = [f"| {s} | " + " | ".join(str(c[v]) for v, _ in COLUMNS) + " |" for s, c in summary["sections"].items()]
    total = "| **total** | " + " | ".join(f"**{summary['counts'][v]}**" for v, _ in COLUMNS) + " |"
    return "\n".join([head, rule, *rows, total]) + "\n"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")[:120]


def write_repro(folder: Path, record: dict, case: Mapping | None) -> Path | None:
    """Write repro/<case>/ for a FAIL or UNRESOLVED: sources, run.sh with the exact commands, expected vs observed."""
    if case is None:
        return None
    target = folder / "repro" / _slug(f"{record['case_id']}-{record['config_id']}")
    target.mkdir(parents=True, exist_ok=True)
    for name, text in case["files"].items():
        (target / name).write_text(text)
    commands = (record.get("observed") or {}).get("commands") or []
    lines = ["#!/bin/sh", f"# {record['case_id']} under {record['config_id']}: {record['verdict']}",
             f"# {record['reason'][:300]}".replace("\n", " "), 'cd "$(dirname "$0")"']
    lines += [" ".join(shlex.quote(a) for a in c) for c in commands]
    if record.get("execution"):
        lines.append("./main.out")
    (target / "run.sh").write_text("\n".join(lines) + "\n")
    (target / "run.sh").chmod(0o755)
    obs = record.get("observed") or {}
    text = [f"rule: {record['rule']}", f"statement: {case.get('statement', '')}",
            f"verdict: {record['verdict']}: {record['reason']}", "",
            f"expected: {json.dumps(record['expected'], indent=1)}", "",
            f"observed: {obs.get('outcome')} in phase {obs.get('phase')}, exit {obs.get('exit_code')}"]
    text += [f"  {d['severity']}: {d.get('file') or ''}({d.get('line') or ''}) {d['message']}"
             for d in obs.get("diagnostics", [])]
    if record.get("execution"):
        text.append(f"execution: {json.dumps(record['execution'], indent=1)}")
    (target / "expected-vs-observed.txt").write_text("\n".join(text) + "\n")
    return target


def publish(folder: Path, sections: Mapping[str, str], meta: Mapping | None = None) -> dict:
    """(Re)write summary.json, summary.md, junit.xml, index.html and repro/ from the folder's records."""
    folder = Path(folder)
    records = list(read_records(folder / "results.jsonl"))
    if meta is None and (folder / META).exists():
        meta = json.loads((folder / META).read_text())
    summary = summarize(records, dict(meta or {}))
    write_json(folder / SUMMARY, summary)
    (folder / "summary.md").write_text(markdown(summary))
    junit.write(records, folder / "junit.xml")
    cases = read_cases(folder)
    (folder / "index.html").write_text(html_report.render(records, summary, cases, sections))
    shutil.rmtree(folder / "repro", ignore_errors=True)
    for r in records:
        if r["verdict"] in ("FAIL", "UNRESOLVED"):
            write_repro(folder, r, cases.get(r["case_key"]))
    return summary
