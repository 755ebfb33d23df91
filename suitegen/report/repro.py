"""repro/<case>-<config>/ for every failing item: its sources, run.sh with the exact commands, expected vs observed."""
from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Mapping


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")[:120]


def obtained(record: Mapping) -> str:
    """Say how a record's verdict was obtained: from a batch build, or from the item's own command."""
    how = record.get("batch") or {}
    if how.get("how") == "batch":
        return f"from batch {how['id']} ({how['size']} members); its members' diagnostics split by region"
    if not record.get("observed"):
        return "nothing was built"
    why = f" ({how['why']})" if how.get("why") else ""
    return f"from this item's own single-case command{why}, the one its reproducer runs"


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
            f"verdict: {record['verdict']}: {record['reason']}", f"obtained: {obtained(record)}", "",
            f"expected: {json.dumps(record['expected'], indent=1)}", "",
            f"observed: {obs.get('outcome')} in phase {obs.get('phase')}, exit {obs.get('exit_code')}"]
    text += [f"  {d['severity']}: {d.get('file') or ''}({d.get('line') or ''}) {d['message']}"
             for d in obs.get("diagnostics", [])]
    if record.get("execution"):
        text.append(f"execution: {json.dumps(record['execution'], indent=1)}")
    (target / "expected-vs-observed.txt").write_text("\n".join(text) + "\n")
    return target
