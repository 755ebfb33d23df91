"""repro/<case>-<config>/ for every failing item: its sources, run.sh with the exact commands, expected vs observed."""
from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Mapping

from suitegen.model import Alone, Batched, Record, plain, safe_file_name


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")[:120]


def obtained(record: Record) -> str:
    """Say how a record's verdict was obtained: from a batch build, or from the item's own command."""
    how = record.batch
    if isinstance(how, Batched):
        return f"from batch {how.id} ({how.size} members); its members' diagnostics split by region"
    if not record.observed:
        return "nothing was built"
    why = f" ({how.why})" if isinstance(how, Alone) and how.why else ""
    return f"from this item's own single-case command{why}, the one its reproducer runs"


def folder_name(record: Record) -> str:
    """Return an item's reproducer folder: its case, config and toolchain in words, and its config key (which
    covers the toolchain's fingerprint), so two toolchains of one version never share a folder."""
    words = "-".join((record.case_id, record.config.toolchain, record.config_id))
    return f"{_slug(words)}-{record.config_key[:8]}"


# What XML 1.0 forbids or a terminal acts on: C0 controls but tab and newline, DEL, C1 controls (CSI, ...), lone
# surrogates and the two non-characters XML forbids
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def visible(text: str) -> str:
    """Return text that is valid in XML and inert on a terminal: each character ``UNSAFE`` matches written as
    its escape (ESC as ``\\x1b``), everything else as it is."""
    return UNSAFE.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", text)


def _comment(text: str) -> str:
    """Return text as one shell comment line: whatever it holds stays in the comment, and shows as text."""
    return "# " + re.sub(r"[\t\n]+", " ", visible(text))


TRIAGED = "findings"  # a run folder's triaged generated programs (``qualification.run_findings``), by reproducer folder


def _triaged(found: Path, target: Path) -> list[str]:
    """Return what the run's triage found of this item (its reduced reproducer copied beside the sources)."""
    try:
        finding = json.loads((found / "finding.json").read_text())
    except (OSError, ValueError):
        return []
    lines = ["", f"triage: {finding.get('kind')}" + (f", stage {finding['stage']}" if finding.get("stage") else "")
             + (f", bucket {finding['bucket']}" + (" (known)" if finding.get("known") else " (new)")
                if finding.get("bucket") else "")]
    if isinstance(finding.get("reproducer"), str):
        (target / "reduced.cu").write_text(finding["reproducer"])
        lines.append(f"reduced reproducer: reduced.cu ({finding['reproducer'].count(chr(10))} lines)")
        lines += [f"  {c}" for c in finding.get("commands", []) if isinstance(c, str)]
    if finding.get("why") or finding.get("error"):
        lines.append(f"  {finding.get('why') or finding.get('error')}")
    return lines


def write_repro(folder: Path, record: Record, case: Mapping | None) -> Path | None:
    """Write repro/<case>/ for a FAIL or UNRESOLVED: sources, run.sh with the exact commands, expected vs observed.

    Every line of run.sh is a comment or a command whose every word is quoted (shlex.quote): nothing in a
    case id, reason or argument runs. A source whose name is not a plain file name is not written (the
    loader refuses such names; a record read back from elsewhere is not trusted either).
    """
    if case is None:
        return None
    target = folder / "repro" / folder_name(record)
    target.mkdir(parents=True, exist_ok=True)
    for name, text in case["files"].items():
        if safe_file_name(name):
            (target / name).write_text(text)
    obs = record.observed
    lines = ["#!/bin/sh", _comment(f"{record.case_id} under {record.config_id}: {record.verdict.value}"),
             _comment(record.reason[:300]), 'cd "$(dirname "$0")" || exit 1']
    lines += [" ".join(shlex.quote(str(a)) for a in c) for c in (obs.commands if obs else ())]
    if record.execution:
        lines.append("./main.out")
    (target / "run.sh").write_text("\n".join(lines) + "\n")
    (target / "run.sh").chmod(0o755)
    text = [f"rule: {record.rule}", f"statement: {case.get('statement', '')}",
            f"verdict: {record.verdict.value}: {record.reason}", f"obtained: {obtained(record)}", "",
            f"expected: {json.dumps(plain(record.expected), indent=1, sort_keys=True)}", "",
            f"observed: {plain(obs and obs.outcome)} in phase {plain(obs and obs.phase)}, "
            f"exit {obs and obs.exit_code}"]
    text += [f"  {d.severity}: {d.file or ''}({d.line or ''}) {d.message}" for d in (obs.diagnostics if obs else ())]
    if record.execution:
        text.append(f"execution: {json.dumps(record.execution.to_json(), indent=1, sort_keys=True)}")
    text += _triaged(folder / TRIAGED / target.name, target)
    (target / "expected-vs-observed.txt").write_text(visible("\n".join(text) + "\n"))
    return target
