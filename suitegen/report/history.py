"""A support table across toolchains, in the style of cppreference's compiler-support tables: rows are
sections and their rules, columns are toolchain versions, each cell says how the rule fared there.

Built from run records (one run over several toolchains, or several runs), as one self-contained page
(history.html.j2, autoescaped) and as markdown for release notes. Changes between neighbouring versions
come first.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import jinja2

from suitegen.model import Record, Std, Verdict

ENV = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent), autoescape=True,
                         undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
FAILING = (Verdict.FAIL.value, Verdict.XPASS.value, Verdict.UNRESOLVED.value)
EVIDENCE = 12  # records shown per cell (failures and deviations first)
MARK = {"pass": "yes", "fail": "FAIL", "deviation": "deviation", "mixed": "partial", "unsupported": "n/a",
        "none": ""}


def status(counts: Mapping[str, int]) -> str:
    """Return a cell's status from its verdict counts: fail, deviation (known, every judged item), mixed
    (some items pass, some deviate), pass, unsupported (nothing judged) or none (no items)."""
    if not counts:
        return "none"
    if any(counts.get(v) for v in FAILING):
        return "fail"
    passed, deviated = counts.get(Verdict.PASS.value, 0), counts.get(Verdict.XFAIL.value, 0)
    if passed and deviated:
        return "mixed"
    if deviated:
        return "deviation"
    return "pass" if passed else "unsupported"


@dataclass
class Cell:
    """One rule (or section) on one toolchain: verdict counts and the records behind them."""

    counts: Counter = field(default_factory=Counter)
    records: list = field(default_factory=list)

    @property
    def status(self) -> str:
        return status(self.counts)

    def summary(self) -> str:
        return ", ".join(f"{v} {self.counts[v]}" for v in (x.value for x in Verdict) if self.counts.get(v))


@dataclass
class Row:
    """A section (``rule`` None) or a rule, with one cell per column."""

    section: str
    rule: str | None
    cells: list[Cell]


@dataclass
class Table:
    """The support table: columns (toolchain label, version), rows by section, and the changes."""

    columns: list[tuple[str, str]]
    rows: list[Row]
    # per column: -std level -> None (honoured with the column's host compiler) or why not; see dialects()
    dialects: list[dict[str, str | None]] = field(default_factory=list)

    def pairs(self) -> list[tuple[int, int]]:
        """Return the column pairs compared: neighbouring versions of one compiler (nvcc, NVRTC), and each
        NVRTC column against nvcc of the same release (two front ends of one toolkit)."""
        nvrtc = [is_nvrtc(c) for c in self.columns]
        out = [(i - 1, i) for i in range(1, len(self.columns)) if nvrtc[i - 1] == nvrtc[i]]
        for b, (_, version) in enumerate(self.columns):
            same = [a for a, (_, v) in enumerate(self.columns) if not nvrtc[a] and v == version]
            if nvrtc[b] and same:
                out.append((same[-1], b))
        return out

    def changes(self) -> list[tuple[Row, int, int]]:
        """Return (rule row, column, compared column) where a rule's status differs between a pair."""
        return [(row, a, b) for row in self.rows if row.rule for a, b in self.pairs()
                if row.cells[a].status != row.cells[b].status]


def is_nvrtc(column: tuple[str, str]) -> bool:
    return column[0].startswith("nvrtc")


def _version(text: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in text.replace("-", ".").split("."))


def build(records: Iterable[Record], sections: Sequence[str] = ()) -> Table:
    """Return the table of a set of records (each toolchain one column, oldest version first)."""
    cols: dict[tuple[str, str], None] = {}
    cells: dict[tuple[str, str | None], dict[tuple[str, str], Cell]] = defaultdict(lambda: defaultdict(Cell))
    for r in records:
        col = (r.config.toolchain, r.config.nvcc_version)
        cols[col] = None
        for key in ((r.section, None), (r.section, r.rule)):
            cell = cells[key][col]
            cell.counts[r.verdict.value] += 1
            if key[1] is not None:
                cell.records.append(r)
    columns = sorted(cols, key=lambda c: (is_nvrtc(c), _version(c[1]), c[0]))  # nvcc's, then NVRTC's
    order = {s: i for i, s in enumerate(sections)}
    rows = [Row(section=s, rule=rule, cells=[cells[(s, rule)][c] for c in columns])
            for s, rule in sorted(cells, key=lambda k: (order.get(k[0], len(order)), k[0], k[1] or ""))]
    return Table(columns=columns, rows=rows)


def dialects(table: Table, records: Iterable[Record], honoured) -> None:
    """Fill in which -std levels each column's toolchain honours with its host compiler: ``honoured(nvcc
    path)`` returns {std: None or why not} (``observe.honoured_stds``, cached per fingerprint); NVRTC columns
    have no host compiler and stay empty."""
    paths = {}
    for r in records:
        paths.setdefault((r.config.toolchain, r.config.nvcc_version), r.config)
    table.dialects = [{} if not paths[col].host_compiler else
                      {std: why for std, why in honoured(paths[col].nvcc).items()} for col in table.columns]


def dialect_rows(table: Table) -> list[tuple[str, list[str]]]:
    """Return (std, one cell per column): "yes (host)" where honoured, "no: why" where not."""
    order = [s.value for s in Std]
    stds = sorted({s for d in table.dialects for s in d}, key=lambda s: (order.index(s) if s in order else len(order), s))
    return [(s, [("yes" if d[s] is None else f"no: {d[s]}") if s in d else "" for d in table.dialects])
            for s in stds]


def _evidence(cell: Cell) -> list[dict]:
    """Return what a cell's panel shows: its records, failures and deviations first."""
    rank = {v: i for i, v in enumerate((*FAILING, Verdict.XFAIL.value, Verdict.PASS.value))}
    out = []
    for r in sorted(cell.records, key=lambda r: (rank.get(r.verdict.value, 9), r.case_id, r.config_id))[:EVIDENCE]:
        obs = r.observed
        diags = obs.diagnostics[:4] if obs else ()
        out.append({"case": r.case_id, "config": r.config_id, "verdict": r.verdict.value, "reason": r.reason,
                    "command": " ".join(obs.commands[0]) if obs and obs.commands else "",
                    "diagnostics": "\n".join(f"{d.severity}: {d.message}" for d in diags)})
    return out


def render_page(table: Table, title: str = "suitegen support history") -> str:
    """Return the self-contained HTML page of a table."""
    rows = [{"section": row.section, "rule": row.rule,
             "cells": [{"status": c.status, "mark": MARK[c.status], "summary": c.summary(),
                        "evidence": _evidence(c) if row.rule else []} for c in row.cells]} for row in table.rows]
    changes = [{"rule": row.rule, "from": table.columns[a], "to": table.columns[b],
                "before": row.cells[a].status, "after": row.cells[b].status,
                "evidence": _evidence(row.cells[b])} for row, a, b in table.changes()]
    return ENV.get_template("history.html.j2").render(title=title, columns=table.columns, rows=rows, changes=changes,
                                                      dialects=dialect_rows(table))


def render_markdown(table: Table) -> str:
    """Return the table as markdown (sections and rules; changes between neighbouring versions first)."""
    head = ["| rule | " + " | ".join(f"{label} {version}" for label, version in table.columns) + " |",
            "|---|" + "---|" * len(table.columns)]
    changes = [f"- `{row.rule}`: {' '.join(table.columns[a])} {row.cells[a].status} -> "
               f"{' '.join(table.columns[b])} {row.cells[b].status}" for row, a, b in table.changes()]
    lines = ["## Changes between neighbouring versions (and NVRTC against nvcc of its release)", "", *(changes or ["None."]), ""]
    dialect = dialect_rows(table)
    if dialect:
        lines += ["## -std levels honoured (with each toolchain's host compiler)", "", head[0].replace("rule", "-std"),
                  head[1], *(f"| {std} | " + " | ".join(cells) + " |" for std, cells in dialect), ""]
    lines += ["## Support", "", *head]
    for row in table.rows:
        name = f"**{row.section}**" if row.rule is None else f"`{row.rule.split('/', 1)[1]}`"
        lines.append(f"| {name} | " + " | ".join(
            f"{MARK[c.status]} ({c.summary()})" if c.counts else "" for c in row.cells) + " |")
    return "\n".join(lines) + "\n"
