"""Summaries of a run: counts per section and verdict, as JSON and as a terminal table."""
from __future__ import annotations

import sys
import time
from collections import Counter, defaultdict
from typing import Iterable, TextIO

from suitegen.model import Verdict

VERDICTS = [v.value for v in Verdict]
COLUMNS = [("PASS", "pass"), ("FAIL", "fail"), ("XFAIL", "known dev"), ("XPASS", "xpass"),
           ("UNSUPPORTED", "unsupported"), ("UNRESOLVED", "unresolved")]


def summarize(records: Iterable[dict], meta: dict | None = None) -> dict:
    """Return the summary.json content for a list of result records."""
    total: Counter = Counter()
    sections: dict[str, Counter] = defaultdict(Counter)
    toolchains: dict[str, Counter] = defaultdict(Counter)
    rules, cases, configs = set(), set(), set()
    for r in records:
        v = r["verdict"]
        total[v] += 1
        sections[r["section"]][v] += 1
        toolchains[f'{r["config"]["toolchain"]} ({r["config"]["fingerprint"]})'][v] += 1
        rules.add(r["rule"])
        cases.add(r["case_key"])
        configs.add(r["config_key"])
    return {
        **(meta or {}),
        "results": sum(total.values()),
        "rules": len(rules),
        "cases": len(cases),
        "configs": len(configs),
        "counts": {v: total.get(v, 0) for v in VERDICTS},
        "sections": {s: {v: c.get(v, 0) for v in VERDICTS} for s, c in sorted(sections.items())},
        "toolchain_counts": {t: {v: c.get(v, 0) for v in VERDICTS} for t, c in sorted(toolchains.items())},
        "failed": total.get("FAIL", 0) + total.get("UNRESOLVED", 0) > 0,
    }


def table(summary: dict) -> str:
    """Return a plain-text table: one row per section, one column per verdict."""
    head = ["section"] + [label for _, label in COLUMNS]
    rows = [[s] + [str(c[v]) for v, _ in COLUMNS] for s, c in summary["sections"].items()]
    rows.append(["total"] + [str(summary["counts"][v]) for v, _ in COLUMNS])
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    fmt = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
    rule = "-" * len(fmt(head))
    return "\n".join([fmt(head), rule, *map(fmt, rows[:-1]), rule, fmt(rows[-1])])


class Progress:
    """A one-line progress bar on a terminal, a line every 10% otherwise."""

    def __init__(self, total: int, stream: TextIO | None = None, enabled: bool = True):
        self.total, self.enabled = total, enabled and total > 0
        self.stream = stream or sys.stderr
        self.done = 0
        self.counts: Counter = Counter()
        self.start = time.monotonic()
        self.tty = self.stream.isatty()
        self._last_decile = -1

    def update(self, verdict: str) -> None:
        self.done += 1
        self.counts[verdict] += 1
        if not self.enabled:
            return
        frac = self.done / self.total
        rate = self.done / max(time.monotonic() - self.start, 1e-6)
        tally = " ".join(f"{k}={v}" for k, v in sorted(self.counts.items()))
        if self.tty:
            bar = "#" * int(30 * frac)
            self.stream.write(f"\r[{bar:<30}] {self.done}/{self.total} {rate:.1f}/s {tally}\x1b[K")
            self.stream.flush()
        elif int(frac * 10) != self._last_decile:
            self._last_decile = int(frac * 10)
            self.stream.write(f"suitegen: {self.done}/{self.total} ({rate:.1f}/s) {tally}\n")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()
