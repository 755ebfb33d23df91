"""``suitegen rules --coverage``: what the oracle covers per section, and what cannot run here and why."""
from __future__ import annotations

from typing import Sequence

from suitegen.compilers.features import machine_features
from suitegen.compilers.toolchain import ToolchainError
from suitegen.engine import matrix
from suitegen.qualification.facts import make_env, unsupported_here
from suitegen.qualification.session import configs_for, probe_toolchains
from suitegen.execute.gpus import detect_gpu
from suitegen.judge.behaviour import Check, planned
from suitegen.model import Case, Expect

KINDS = ("positive", "negative", "diagnose", "warn", "runtime", "decided")
CHECKS = tuple(c.value for c in Check)  # valid variants by the GPU check they get


def kind(case: Case) -> str:
    if case.variant.predicate:
        return "decided"  # a predicate from the guide's definitions decides, per drawn program
    return {Expect.ACCEPT: "positive", Expect.REJECT: "negative", Expect.DIAGNOSE: "diagnose", Expect.WARN: "warn",
            Expect.RUNTIME: "runtime"}[case.variant.expectation.expect]


def coverage(orc, cases: Sequence[Case], nvcc: Sequence[str] = (), profile: str = "default",
             matrix_file: str | None = None) -> list[dict]:
    """Return one row per section key: rule and variant counts, and rules unsupported here with reasons."""
    try:
        toolchains = probe_toolchains(nvcc)
        configs = configs_for(toolchains[:1], matrix.profile(profile, matrix_file))
        gpu = detect_gpu()
        feats = machine_features(toolchains[0]) | ({"gpu"} if gpu.available else set())
        where = f"{toolchains[0].label} {toolchains[0].version_str}, profile {profile}"
    except ToolchainError as exc:
        configs, feats, gpu, where = [], frozenset(), None, f"no toolchain ({exc})"
    rows: dict[str, dict] = {k: {"section": k, "title": t, "rules": set(), **{x: 0 for x in KINDS},
                                 **{c: 0 for c in CHECKS}, "no_check_why": {},
                                 "cases": 0, "results": 0, "unsupported": {}} for k, t in orc.sections.items()}
    for case in cases:
        row = rows[case.rule.section]
        row["rules"].add(case.rule.id)
        row[kind(case)] += 1
        row["cases"] += 1
        plan = planned(case, case.variant.expectation) if not case.variant.predicate else None
        if plan:
            row[plan[0].value] += 1
            if plan[0] is not Check.SEMANTIC:
                row["no_check_why"][plan[1]] = row["no_check_why"].get(plan[1], 0) + 1
        reasons = []
        for cfg in configs:
            if not cfg.applies(case):
                continue
            row["results"] += 1
            why = unsupported_here(case, cfg, make_env(cfg, case, feats))
            if why is None and case.variant.expectation.expect is Expect.RUNTIME and gpu and not gpu.available:
                why = "not run: no GPU"
            reasons.append(why)
        if reasons and all(reasons):  # unsupported under every config of the profile
            per_rule = row["unsupported"].setdefault(case.rule.id, {})
            for why in sorted(set(reasons)):
                per_rule[why] = per_rule.get(why, 0) + 1
    out = []
    for row in rows.values():
        row["rules"] = len(row["rules"])
        row["judged_on"] = where
        out.append(row)
    return out


def coverage_table(rows: list[dict]) -> str:
    head = ["section", "rules", *KINDS, *CHECKS, "cases", "results", "unsupported here"]
    lines = [head]
    for r in rows:
        uns = "; ".join(f"{rule.split('/', 1)[1]} (" + ", ".join(f"{n} {w}" for w, n in ws.items()) + ")"
                        for rule, ws in r["unsupported"].items())
        lines.append([r["section"], str(r["rules"]), *(str(r[k]) for k in (*KINDS, *CHECKS)), str(r["cases"]),
                      str(r["results"]), uns or "-"])
    total = ["total"] + [str(sum(r[k] for r in rows)) for k in ("rules", *KINDS, *CHECKS, "cases", "results")] + [
        f"{sum(sum(ws.values()) for r in rows for ws in r['unsupported'].values())} variants"]
    lines.append(total)
    widths = [max(len(l[i]) for l in lines) for i in range(len(head) - 1)]
    out = []
    for l in lines:
        out.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(l, widths)))
                   + "  " + l[-1])
    why: dict[str, int] = {}
    for r in rows:
        for w, n in r["no_check_why"].items():
            why[w] = why.get(w, 0) + n
    valid = sum(r[c] for r in rows for c in CHECKS)
    notes = [f"valid variants (accept, warn, runtime): {valid}; {sum(r['semantic'] for r in rows)} run a semantic "
             f"check on the GPU; without a semantic check: " + "; ".join(f"{n} {w}" for w, n in sorted(why.items()))]
    return f"judged on: {rows[0]['judged_on'] if rows else '-'}\n" + "\n".join(out + notes)
