"""Summaries of a run: counts per section and verdict, as JSON and as a terminal table."""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Iterable, Mapping

from suitegen.judge import behaviour
from suitegen.model import Record, Verdict

VERDICTS = [v.value for v in Verdict]
COLUMNS = [("PASS", "pass"), ("FAIL", "fail"), ("XFAIL", "known dev"), ("XPASS", "xpass"),
           ("UNSUPPORTED", "unsupported"), ("UNRESOLVED", "unresolved")]


def summarize(records: Iterable[Record], meta: dict | None = None) -> dict:
    """Return the summary.json content for a list of result records."""
    total: Counter = Counter()
    sections: dict[str, Counter] = defaultdict(Counter)
    toolchains: dict[str, Counter] = defaultdict(Counter)
    rules, cases, configs = set(), set(), set()
    by_section: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        by_section[r.section].append(r)
        v = r.verdict.value
        total[v] += 1
        sections[r.section][v] += 1
        toolchains[f"{r.config.toolchain} ({r.config.fingerprint})"][v] += 1
        rules.add(r.rule)
        cases.add(r.case_key)
        configs.add(r.config_key)
    return {
        **(meta or {}),
        "results": sum(total.values()),
        "rules": len(rules),
        "cases": len(cases),
        "configs": len(configs),
        "counts": {v: total.get(v, 0) for v in VERDICTS},
        "sections": {s: {v: c.get(v, 0) for v in VERDICTS} for s, c in sorted(sections.items())},
        "toolchain_counts": {t: {v: c.get(v, 0) for v in VERDICTS} for t, c in sorted(toolchains.items())},
        "failed": any(Verdict(v).fails(bool((meta or {}).get("allow_xpass"))) for v in total),
        "behaviour": behaviour.tally(r for group in by_section.values() for r in group),
        "behaviour_by_section": {s: behaviour.tally(group) for s, group in sorted(by_section.items())},
    }


def table(summary: dict) -> str:
    """Return a plain-text table: one row per section, one column per verdict."""
    head = ["section"] + [label for _, label in COLUMNS]
    rows = [[s] + [str(c[v]) for v, _ in COLUMNS] for s, c in summary["sections"].items()]
    rows.append(["total"] + [str(summary["counts"][v]) for v, _ in COLUMNS])
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    fmt = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
    rule = "-" * len(fmt(head))
    lines = [fmt(head), rule, *map(fmt, rows[:-1]), rule, fmt(rows[-1])]
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
    """Return the per-section summary as a markdown table (for a CI comment or log), after how the run went."""
    w = when(summary)
    intro = ([f"**{w['partial']}**", ""] if w["partial"] else []) + [w["total"], ""]
    intro += [*(f"- {line}" for line in w["legs"]), ""] if w["legs"] else []
    head = "| section | " + " | ".join(label for _, label in COLUMNS) + " |"
    rule = "|---|" + "---:|" * len(COLUMNS)
    rows = [f"| {s} | " + " | ".join(str(c[v]) for v, _ in COLUMNS) + " |" for s, c in summary["sections"].items()]
    total = "| **total** | " + " | ".join(f"**{summary['counts'][v]}**" for v, _ in COLUMNS) + " |"
    lines = [*intro, head, rule, *rows, total]
    return "\n".join(lines + ([f"\n{behaviour.sentence(summary['behaviour'])}."] if "behaviour" in summary else [])) + "\n"
