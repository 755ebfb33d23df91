"""The feature-matrix page: one self-contained HTML file from a jinja2 template (page.html.j2) with
autoescaping, so nothing that came from a case, a diagnostic or a program's output is markup."""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Mapping, Sequence

import jinja2

from suitegen.judge.behaviour import sentence
from suitegen.model import Verdict
from suitegen.report.repro import obtained
from suitegen.report.summary import when

VERDICT_ORDER = [v.value for v in Verdict]
ENV = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent), autoescape=True,
                         undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def _config_label(r: dict) -> tuple:
    cfg = r["config"]
    return (cfg["toolchain"], cfg["fingerprint"], cfg["std"], cfg["arch"], " ".join(cfg["flags"]))


def _column_title(col: tuple, several: bool) -> str:
    toolchain, fp, std, arch, flags = col
    parts = ([f"{toolchain} ({fp[:8]})"] if several else []) + [std, arch] + ([flags] if flags else [])
    return " ".join(parts)


def _sources(case: Mapping | None, anchor: str) -> dict:
    """Return a case's files, shared by all of its cells."""
    if not case:
        return {"anchor": anchor, "missing": True, "flags": "", "files": []}
    return {"anchor": anchor, "missing": False, "flags": " ".join(case.get("flags", [])),
            "files": list(case["files"].items())}


def _detail(r: dict, anchor: str) -> dict:
    """Return what one cell's detail panel shows."""
    obs = r.get("observed") or {}
    seen = r.get("observed_config")
    sides = None
    if seen:
        sides = (seen["error"] or f"host __cplusplus {seen['host_cplusplus']}, device {seen['device_cplusplus']}, "
                 f"__CUDA_ARCH__ {seen['cuda_arch']}, module {seen['targets']}, macros {seen['macros']}") \
            + "".join(f"\n{w}" for w in seen["warnings"])
    return {
        "anchor": anchor, "case_id": r["case_id"], "verdict": r["verdict"], "reason": r["reason"],
        "config_id": r["config_id"], "toolchain": r["config"]["toolchain"],
        "version": r["config"]["nvcc_version"], "fingerprint": r["config"]["fingerprint"],
        "expected": json.dumps(r["expected"]), "observed": obs or None, "obtained": obtained(r),
        "commands": "\n".join(" ".join(c) for c in obs.get("commands", [])),
        "diagnostics": "\n".join(f"{d['severity']}: {d.get('file') or ''}({d.get('line') or ''}) [{d['phase']}] "
                                 f"{d['message']}" for d in obs.get("diagnostics", [])),
        "execution": r.get("execution"), "behaviour": r.get("behaviour"), "seen": sides,
        "deviation": json.dumps(r["deviation"], indent=1) if r.get("deviation") else None,
    }


def _differences(rows, columns) -> list[dict]:
    """Return the (case, setting) pairs whose verdict differs between toolchains."""
    by_setting = defaultdict(list)
    for i, c in enumerate(columns):
        by_setting[c[2:]].append(i)  # same std, arch, flags on different toolchains
    out = []
    for (section, case_id), cells in sorted(rows.items()):
        for setting, idxs in by_setting.items():
            got = [(columns[i][0], cells[i]["verdict"]) for i in idxs if i in cells]
            if len({v for _, v in got}) > 1:
                out.append({"case": case_id, "setting": " ".join(setting), "got": got})
    return out


def render(records: Sequence[dict], summary: Mapping, cases: Mapping[str, Mapping],
           sections: Mapping[str, str]) -> str:
    """Return the page for one run: summary, differences between toolchains, then the matrix."""
    several = len({r["config"]["fingerprint"] for r in records}) > 1
    columns = sorted({_config_label(r) for r in records})
    col_index = {c: i for i, c in enumerate(columns)}
    rows: dict[tuple, dict] = defaultdict(dict)
    for r in records:
        rows[(r["section"], r["case_id"])][col_index[_config_label(r)]] = r
    order = {k: i for i, k in enumerate(sections)}
    matrix, sources, details = [], [], []
    for (section, case_id) in sorted(rows, key=lambda k: (order.get(k[0], 1e9), k[0], k[1])):
        if not matrix or matrix[-1]["key"] != section:
            tally = Counter(r["verdict"] for (s, _), cells in rows.items() if s == section for r in cells.values())
            matrix.append({"key": section, "title": sections.get(section, ""), "rows": [],
                           "counts": ", ".join(f"{v} {tally[v]}" for v in VERDICT_ORDER if tally[v])})
        cells = rows[(section, case_id)]
        first = next(iter(cells.values()))
        case = cases.get(first["case_key"])
        src = f"s{len(sources)}"
        sources.append(_sources(case, src))
        row = {"id": case_id, "statement": (case or {}).get("statement", ""), "src": src,
               "verdicts": " ".join(sorted({r["verdict"] for r in cells.values()})), "cells": []}
        for i in range(len(columns)):
            r = cells.get(i)
            if r is None:
                row["cells"].append(None)
                continue
            anchor = f"d{len(details)}"
            details.append(_detail(r, anchor))
            row["cells"].append({"anchor": anchor, "verdict": r["verdict"], "reason": r["reason"][:300]})
        matrix[-1]["rows"].append(row)
    gpu = summary.get("gpu") or {}
    return ENV.get_template("page.html.j2").render(
        run_id=summary.get("run_id", ""), verdicts=VERDICT_ORDER, counts=summary.get("counts", {}),
        results=summary.get("results", 0), n_cases=summary.get("cases", 0), n_configs=summary.get("configs", 0),
        when=when(summary),
        gpu="; ".join(gpu.get("devices") or []) or f"none ({gpu.get('reason', '')})",
        execution=summary.get("execution", ""),
        behaviour=sentence(summary["behaviour"]) if "behaviour" in summary else "",
        toolchains=[{"label": t["label"], "version": t["version"], "nvcc": t["nvcc"], "host_version": t["host_version"],
                     "fingerprint": t["fingerprint"]} for t in summary.get("toolchains", [])],
        several=several, differences=_differences(rows, columns) if several else [],
        section_keys=sorted({s for s, _ in rows}, key=lambda s: (order.get(s, 1e9), s)),
        column_titles=[_column_title(c, several) for c in columns], matrix=matrix, sources=sources,
        details=details)
