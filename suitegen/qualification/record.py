"""Records what a toolchain was seen to do where it departs from the guide: one deviations file per section,
written from a run's FAIL records (``suitegen deviations RUN``), for a compiler or release being qualified.

Each deviation names the variant, the observed outcome (or run status) and, as its evidence, the first
error or warning the toolchain printed, with a ``match`` on that message's fixed words, so a later change of
behaviour shows as a FAIL or an XPASS. The rules stay as the guide says: nothing here edits a rule.
"""
from __future__ import annotations

import fnmatch
import json
import re
import tomllib
from collections import defaultdict
from pathlib import Path
from typing import Iterable

from suitegen.model import ExecStatus, Record, UsageError, Verdict, fixed_words
from suitegen.oracle import fields


def _s(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a TOML basic string


def evidence(record: Record) -> tuple[str, str]:
    """Return the record's evidence: its first error (else warning) as ``[phase] message``, and a regex over
    the message's fixed words (its quoted names left open)."""
    first = record.observed.first_diagnostic() if record.observed else None
    if first is None:
        return "", ""
    parts = [re.escape(p) for p in fixed_words(first.message)]
    match = ".*".join(parts) if parts else re.escape(first.message)  # a message that is all one quote
    return f"[{first.phase.value}] {first.message}", match[:200]


def deviation(record: Record, seen: str) -> dict | None:
    """Return the deviation a FAIL record shows (what the toolchain did, with its evidence), or None where it
    has no evidence to record (a rejection or crash that printed no diagnostic)."""
    execution, outcome = record.execution, record.observed.outcome
    accepted = outcome.accepted  # warnings do not change an acceptance
    said, match = evidence(record)
    if not accepted and not match:
        return None
    out = {"rule": record.rule, "variants": [record.variant], "seen": seen,
           "observed": "accepted" if accepted else outcome.value,
           **({} if accepted or record.observed.phase is None else {"phase": record.observed.phase.value}),
           "diagnostic": said or "no diagnostic", "match": "" if accepted else match}
    if execution and accepted and execution.status is not ExecStatus.PASSED:
        out.update(run=execution.status.value, diagnostic=execution.detail[:300])
    out["note"] = f"Seen under {record.config.std} {record.config.arch}: {record.reason[:400]}"
    return out


def check_phases(path: Path, held: list[dict], records: Iterable[Record]) -> None:
    """Raise UsageError naming the first deviation of ``path`` whose phase is not the stage that rejected a FAIL
    record it covers with its recorded evidence (its outcome, a diagnostic its match finds): a FAIL is judged on
    the item's own command, so that stage is the one to record."""
    for r in records:
        seen = r.observed.phase.value if r.verdict is Verdict.FAIL and r.observed and r.observed.phase else None
        for dev in held if seen else ():
            if (dev.get("rule") == r.rule and dev.get("phase") not in (None, seen)
                    and dev.get("observed") == r.observed.outcome.value and dev.get("match")
                    and any(fnmatch.fnmatchcase(r.variant, g) for g in dev.get("variants", ["*"]))
                    and any(fields.search(dev["match"], d.message) for d in r.observed.diagnostics)):
                raise UsageError(f"{path}: rule {r.rule!r} variant {r.variant!r}: phase {dev['phase']!r} is recorded, "
                                 f"but {r.config_id} saw it rejected by {seen!r}: correct the deviation's phase")


def write(records: Iterable[Record], folder: Path, compiler: str, when: str, seen: str) -> list[Path]:
    """Write one deviations file per section of the FAIL records; return the files written. A section's file that
    exists keeps what it holds and gains the variants it lacks (a GPU run adds its run deviations, say)."""
    records = list(records)
    by_section: dict[str, dict[tuple, dict]] = defaultdict(dict)
    for r in records:
        dev = deviation(r, seen) if r.verdict is Verdict.FAIL and r.observed else None
        if dev is not None:
            by_section[r.section].setdefault((r.rule, r.variant), dev)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for section, devs in sorted(by_section.items()):
        path = folder / f"{section}.toml"
        lines = [f"# Where {compiler} departs from the guide's {section} rules, as `suitegen deviations` recorded",
                 f"# it from a run ({seen}).",
                 "# The rules say what the guide says; these say what was seen instead.",
                 f"compiler = {_s(compiler)}", f"when = {_s(when)}", ""]
        if path.exists():
            held = tomllib.loads(path.read_text())
            if held.get("compiler", "nvcc") != compiler or held.get("when") != when:
                raise UsageError(f"{path} covers another compiler or range ({held.get('compiler', 'nvcc')}, "
                                 f"{held.get('when')!r}): write to another folder")
            check_phases(path, held.get("deviation", []), [r for r in records if r.section == section])
            have = {(d["rule"], v) for d in held.get("deviation", []) for v in d.get("variants", ["*"])}
            devs = {k: d for k, d in devs.items() if k not in have}
            if not devs:
                continue
            lines = [path.read_text().rstrip("\n"), ""]
        for dev in devs.values():
            lines.append("[[deviation]]")
            lines += [f"{k} = {json.dumps(v, ensure_ascii=False)}" for k, v in dev.items()]
            lines.append("")
        path.write_text("\n".join(lines))
        written.append(path)
    return written
