"""The run page: one self-contained HTML file that stays usable at the nightly profile's size.

It opens with a compact matrix: a row per section (and per flag set or toolchain where those differ), a
column per -std and arch, each cell the section's verdict counts there, failures first. A section's rules,
their cases and each result's details are drilled into on demand: they travel as gzip-compressed JSON, one
block per section, decoded in the page only when the section is opened, and drawn with ``textContent``, so
nothing that came from a case, a diagnostic or a program's output becomes markup. The frame is a jinja2
template (page.html.j2) with autoescaping.
"""
from __future__ import annotations

import base64
import gzip
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Mapping, Sequence

import jinja2

from suitegen.execute.checks import accuracy
from suitegen.judge.behaviour import sentence
from suitegen.model import GENERATED_SECTION, Record, Verdict, plain, section_family
from suitegen.report.repro import obtained
from suitegen.report.summary import GUIDE, family_title, when

VERDICT_ORDER = [v.value for v in Verdict]
WORST_FIRST = ["FAIL", "UNRESOLVED", "XPASS", "XFAIL", "PASS", "UNSUPPORTED"]  # a cell takes its worst verdict's colour
SHORT = {"PASS": "P", "FAIL": "F", "XFAIL": "X", "XPASS": "XP", "UNSUPPORTED": "U", "UNRESOLVED": "R"}
ENV = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent), autoescape=True,
                         undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def _column(r: Record) -> tuple[str, str]:
    return r.config.std, r.config.arch


def _group(r: Record, several: bool) -> tuple[str, str]:
    """Return what, besides the section, a row of the matrix stands for: flags, and the toolchain if several."""
    cfg = r.config
    return (" ".join(cfg.flags), f"{cfg.toolchain} {cfg.nvcc_version} ({cfg.fingerprint[:8]})" if several else "")


def _sources(case: Mapping | None, left_out: str = "") -> dict:
    """Return a case's files, shared by all of its results (``left_out``: why they are not on the page)."""
    if left_out:
        return {"left_out": left_out}
    if not case:
        return {"missing": True}
    return {"flags": " ".join(case.get("flags", [])), "files": list(case["files"].items())}


# A generated program that passed everywhere is not worth its bytes on the page (thousands of them in a nightly):
# its source stays in cases.jsonl, and the same seed and index draw it again.
PASSED_GENERATED = "source left out: a generated program that passed everywhere (it is in cases.jsonl)"


def _detail(r: Record) -> dict:
    """Return what one result's detail panel shows (empty fields left out)."""
    obs, seen, ex, b, cfg = r.observed, r.observed_config, r.execution, r.behaviour, r.config
    out = {"verdict": r.verdict.value, "reason": r.reason, "config": f"{r.config_id} on {cfg.toolchain} "
           f"{cfg.nvcc_version} (fingerprint {cfg.fingerprint})",
           "expected": json.dumps(plain(r.expected), sort_keys=True)}
    if obs:
        where = f" in {obs.phase.value}" if obs.phase else ""
        out["observed"] = f"{obs.outcome.value}{where}, exit {obs.exit_code}; verdict obtained {obtained(r)}"
        out["command"] = "\n".join(" ".join(c) for c in obs.commands)
        out["diagnostics"] = "\n".join(f"{d.severity}: {d.file or ''}({d.line or ''}) [{d.phase.value}] {d.message}"
                                       for d in obs.diagnostics) or "(none)"
    if ex:
        out["execution"] = f"on {ex.gpu}: {ex.status.value}: {ex.detail}\n{ex.output}"
    if b:
        out["behaviour"] = (f"{b.check} ({b.what}): {'ran' if b.ran else 'did not run'}"
                            + (f"; the driver loaded {b.loaded}" if b.loaded else ""))
    if seen:
        out["seen"] = (seen.error or f"host __cplusplus {seen.host_cplusplus}, device {list(seen.device_cplusplus)}, "
                       f"__CUDA_ARCH__ {list(seen.cuda_arch)}, module {list(seen.targets)}, "
                       f"macros {list(seen.macros)}") + "".join(f"\n{w}" for w in seen.warnings)
    if r.deviation:
        out["deviation"] = json.dumps(r.deviation.to_json(), indent=1, sort_keys=True)
    return out


def _differences(records: Sequence[Record]) -> list[dict]:
    """Return the (case, setting) pairs whose verdict differs between toolchains."""
    got = defaultdict(list)
    for r in records:
        cfg = r.config
        got[(r.case_id, " ".join([cfg.std, cfg.arch, *cfg.flags]))].append(
            (f"{cfg.toolchain} {cfg.nvcc_version}", r.verdict.value))
    return [{"case": case, "setting": setting, "got": sorted(v)} for (case, setting), v in sorted(got.items())
            if len({verdict for _, verdict in v}) > 1]


def _accuracy(records: Sequence[Record]) -> list[dict]:
    """Return a row per math check that ran (``checks.accuracy``): the largest error found beside the documented
    bound, nearest to the bound (or furthest past it) first."""
    rows = []
    for r in records:
        found = accuracy(r.execution.detail) if r.execution is not None else None
        if found is None:
            continue
        ratios = [found["errors"][k] / b if b else (0.0 if found["errors"][k] == 0 else float("inf"))
                  for k, b in found["bounds"].items() if k in found["errors"]]
        ratio = max(ratios, default=-1.0)  # -1: a bound it could not read, last
        share = "past the bound" if ratio > 1 else f"{ratio:.0%}" if ratio >= 0 else "-"
        rows.append({"case": r.case_id, "config": " ".join((r.config_id, *r.config.flags)), "found": found["found"],
                     "bound": found["bound"], "share": share,
                     "inputs": f"{found['checked']:,} of {found['inputs']:,}", "verdict": r.verdict.value,
                     "ratio": ratio})
    return sorted(rows, key=lambda row: (-row["ratio"], row["case"], row["config"]))


def _cell(tally: Counter) -> dict | None:
    if not tally:
        return None
    worst = next(v for v in WORST_FIRST if tally[v])
    return {"worst": worst, "text": " ".join(f"{SHORT[v]}{tally[v]}" for v in WORST_FIRST if tally[v]),
            "title": ", ".join(f"{v} {tally[v]}" for v in VERDICT_ORDER if tally[v])}


def _pack(data) -> str:
    """Return ``data`` as base64 of gzip-compressed JSON: what the page decodes when a section opens."""
    raw = json.dumps(data, separators=(",", ":")).encode()
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode()


def unpack(text: str):
    """Return what ``_pack`` packed (tests and tools read a page's section data with it)."""
    return json.loads(gzip.decompress(base64.b64decode(text)))


def render(records: Sequence[Record], summary: Mapping, cases: Mapping[str, Mapping],
           sections: Mapping[str, str]) -> str:
    """Return the page for one run: summary, differences between toolchains, the section matrix of the guide's
    sections and one of each other family's (``model.section_family``) apart, and per section the compressed data
    of its rules, cases and results."""
    several = len({r.config.fingerprint for r in records}) > 1
    columns = sorted({_column(r) for r in records})
    col = {c: i for i, c in enumerate(columns)}
    by_section: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        by_section[r.section].append(r)
    order = {k: i for i, k in enumerate(sections)}
    rows, blocks = [], []
    for section, recs in by_section.items():
        groups = sorted({_group(r, several) for r in recs})
        gi = {g: i for i, g in enumerate(groups)}
        tallies = [[Counter() for _ in columns] for _ in groups]
        data = {"columns": len(columns), "rules": {}, "sources": {}, "groups": len(groups)}
        for r in recs:
            g, c = gi[_group(r, several)], col[_column(r)]
            tallies[g][c][r.verdict.value] += 1
            rule = data["rules"].setdefault(r.rule, {"statement": "", "cases": {}})
            case = cases.get(r.case_key)
            if case and not rule["statement"]:
                rule["statement"] = case.get("statement", "")
            entry = rule["cases"].setdefault(r.case_id, {"src": r.case_key, "results": []})
            entry["results"].append([g, c, _detail(r)])
            if r.case_key not in data["sources"] or (r.verdict is not Verdict.PASS
                                                      and "left_out" in data["sources"][r.case_key]):
                passed = section == GENERATED_SECTION and r.verdict is Verdict.PASS
                data["sources"][r.case_key] = _sources(case, PASSED_GENERATED if passed else "")
        block = len(blocks)
        blocks.append({"id": f"data-{block}", "data": _pack(data)})
        for g, (flags, toolchain) in enumerate(groups):
            total = sum(tallies[g], Counter())
            bad = sum(total[v] for v in ("FAIL", "UNRESOLVED", "XPASS"))
            rows.append({"section": section, "title": sections.get(section, ""), "flags": flags,
                         "toolchain": toolchain, "block": block, "group": g, "bad": bad,
                         "rules": len({r.rule for r in recs if gi[_group(r, several)] == g}),
                         "total": _cell(total), "cells": [_cell(t) for t in tallies[g]]})
    rows.sort(key=lambda x: (x["bad"] == 0, order.get(x["section"], 1e9), x["section"], x["flags"], x["toolchain"]))
    families = [{"family": f, "title": family_title(f), "counts": part.get("counts", {}),
                 "rows": [row for row in rows if section_family(row["section"]) == f]}
                for f, part in summary.get("families", {}).items()]
    return ENV.get_template("page.html.j2").render(
        run_id=summary.get("run_id", ""), verdicts=VERDICT_ORDER, counts=summary.get("counts", {}),
        results=summary.get("results", 0), n_cases=summary.get("cases", 0), n_configs=summary.get("configs", 0),
        when=when(summary), short=SHORT, gpu=_gpu(summary), execution=summary.get("execution", ""),
        behaviour=sentence(summary["behaviour"]) if "behaviour" in summary else "",
        toolchains=[{"label": t["label"], "version": t["version"], "nvcc": t["nvcc"], "host_version": t["host_version"],
                     "fingerprint": t["fingerprint"]} for t in summary.get("toolchains", [])],
        several=several, differences=_differences(records) if several else [],
        column_titles=[f"{std} {arch}" for std, arch in columns],
        rows=[row for row in rows if section_family(row["section"]) == GUIDE], families=families, blocks=blocks,
        accuracy=_accuracy(records))


def _gpu(summary: Mapping) -> str:
    """Return the run's GPUs as the page says them: their names, or "none" and why (unless the execution line,
    printed beside it, already says why)."""
    gpu = summary.get("gpu") or {}
    reason = gpu.get("reason", "")
    if gpu.get("devices"):
        return "; ".join(gpu["devices"])
    return "none" if not reason or reason in summary.get("execution", "") else f"none ({reason})"
