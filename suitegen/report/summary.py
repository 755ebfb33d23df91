"""Summaries of a run: counts per section and verdict, as JSON and as a terminal table."""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Iterable, Mapping, Sequence

from suitegen.judge import behaviour
from suitegen.model import Record, Verdict, section_family
from suitegen.oracle.statements import FAMILIES

VERDICTS = [v.value for v in Verdict]
GUIDE = "guide"  # the family of the guide's own sections (``model.section_family``)
COLUMNS = [("PASS", "pass"), ("FAIL", "fail"), ("XFAIL", "known dev"), ("XPASS", "xpass"),
           ("UNSUPPORTED", "unsupported"), ("UNRESOLVED", "unresolved")]


def summarize(records: Iterable[Record], meta: dict | None = None) -> dict:
    """Return the summary.json content for a list of result records: the guide's totals (``counts``, ``sections``,
    per toolchain, behaviour) and, under ``families``, those of each other family (``model.section_family``: fuzz
    findings, generated programs), which the guide's leave out; ``results``, ``rules``, ``cases``, ``configs`` and
    ``failed`` are the run's, every family's."""
    records = list(records)
    by_family: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        by_family[section_family(r.section)].append(r)
    return {
        **(meta or {}),
        "results": len(records),
        "rules": len({r.rule for r in records}),
        "cases": len({r.case_key for r in records}),
        "configs": len({r.config_key for r in records}),
        **totals(by_family.get(GUIDE, [])),
        "families": {f: {"results": len(group), **totals(group)} for f, group in sorted(by_family.items()) if f != GUIDE},
        "failed": any(r.verdict.fails(bool((meta or {}).get("allow_xpass"))) for r in records),
    }


def totals(records: Sequence[Record]) -> dict:
    """Return the counts of one family's records: per verdict, per section and verdict, per toolchain and verdict,
    and what behaviour they checked (in all and per section)."""
    total: Counter = Counter()
    sections: dict[str, Counter] = defaultdict(Counter)
    toolchains: dict[str, Counter] = defaultdict(Counter)
    by_section: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        by_section[r.section].append(r)
        total[r.verdict.value] += 1
        sections[r.section][r.verdict.value] += 1
        toolchains[f"{r.config.toolchain} ({r.config.fingerprint})"][r.verdict.value] += 1
    return {
        "counts": {v: total.get(v, 0) for v in VERDICTS},
        "sections": {s: {v: c.get(v, 0) for v in VERDICTS} for s, c in sorted(sections.items())},
        "toolchain_counts": {t: {v: c.get(v, 0) for v in VERDICTS} for t, c in sorted(toolchains.items())},
        "behaviour": behaviour.tally(records),
        "behaviour_by_section": {s: behaviour.tally(group) for s, group in sorted(by_section.items())},
    }


def family_title(family: str) -> str:
    """Return how the reports head a family's counts: the guide's, or another's, said to be apart from them."""
    return "the guide" if family == GUIDE else f"{FAMILIES[family]} (not in the guide's totals)"


def _blocks(summary: Mapping) -> list[tuple[str, list[list[str]], list[str]]]:
    """Return (title, section rows, total row) per family of a summary: the guide's first (untitled), then the
    others; a row is the section and its count per ``COLUMNS``."""
    parts = [(GUIDE, summary)] + list(summary.get("families", {}).items())
    return [("" if family == GUIDE else family_title(family),
             [[s] + [str(c[v]) for v, _ in COLUMNS] for s, c in part["sections"].items()],
             ["total"] + [str(part["counts"][v]) for v, _ in COLUMNS]) for family, part in parts]


def table(summary: dict) -> str:
    """Return a plain-text table: one row per section, one column per verdict, the guide's total, then each other
    family's sections and total apart."""
    head = ["section"] + [label for _, label in COLUMNS]
    blocks = _blocks(summary)
    every = [head] + [row for _, rows, total in blocks for row in (*rows, total)]
    widths = [max(len(r[i]) for r in every) for i in range(len(head))]
    fmt = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
    rule = "-" * len(fmt(head))
    lines = [fmt(head)]
    for title, rows, total in blocks:
        lines += ([f"{title}:"] if title else []) + [rule, *map(fmt, rows), rule, fmt(total)]
    return "\n".join(lines + ([behaviour.sentence(summary["behaviour"])] if "behaviour" in summary else []))


def when(summary: Mapping) -> dict:
    """Return what a run's reports say about how it ran: ``partial`` (a sentence, or None when the run
    finished), ``total`` (its start and wall time over every leg) and ``legs`` (one line per leg, when
    a stop and resumes made several)."""
    legs = summary.get("legs") or []
    partial = None
    if summary.get("running"):
        planned = summary.get("planned")
        partial = (f"Run in progress at {summary['running']}: {summary.get('results', 0)} "
                   + (f"of {planned} planned items had results" if planned else "results")
                   + "; these reports are rewritten as it goes (if it was killed, continue with "
                   + f"{summary.get('resume_command') or 'suitegen run --resume'}).")
    elif summary.get("interrupted"):
        planned = summary.get("planned")
        partial = (f"Partial run: stopped by {summary.get('stopped_by') or 'a signal'}; {summary.get('results', 0)} "
                   + (f"of {planned} planned items have results" if planned else "results kept")
                   + (f"; continue with {summary['resume_command']}" if summary.get("resume_command") else "") + ".")
    total = f"Started {summary.get('started', '?')}, wall {summary.get('wall_seconds', '?')} s"
    if len(legs) > 1:
        total += f" in all over {len(legs)} legs (the first run and {len(legs) - 1} resume{'s' * (len(legs) > 2)})"
    lines = []
    for i, leg in enumerate(legs if len(legs) > 1 else [], 1):
        line = f"leg {i}: started {leg.get('started')}, "
        if leg.get("finished") is None:
            line += "ended without a record (the process died)"
        else:
            line += f"wall {leg.get('wall_seconds')} s, {leg.get('items')} items"
            line += f", stopped by {leg['stopped_by']}" if leg.get("stopped_by") else ", finished"
        lines.append(line)
    return {"partial": partial, "total": total + ".", "legs": lines}


def markdown(summary: Mapping) -> str:
    """Return the per-section summary as markdown tables (for a CI comment or log), after how the run went: the
    guide's, then each other family's apart."""
    w = when(summary)
    intro = ([f"**{w['partial']}**", ""] if w["partial"] else []) + [w["total"], ""]
    intro += [*(f"- {line}" for line in w["legs"]), ""] if w["legs"] else []
    head = "| section | " + " | ".join(label for _, label in COLUMNS) + " |"
    rule = "|---|" + "---:|" * len(COLUMNS)
    lines = intro
    for title, rows, total in _blocks(summary):
        lines += ([f"\n**{title}**", ""] if title else []) + [head, rule]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        lines.append("| **total** | " + " | ".join(f"**{n}**" for n in total[1:]) + " |")
    return "\n".join(lines + ([f"\n{behaviour.sentence(summary['behaviour'])}."] if "behaviour" in summary else [])) + "\n"
