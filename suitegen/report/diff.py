"""Compares two runs (or a run and a baseline) case by case: what regressed, what was fixed, what moved."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from suitegen.compilers.batch import PREFIX
from suitegen.model import Verdict


def _fails(verdict: str) -> bool:
    return Verdict(verdict).is_failure


def key(r: Mapping) -> tuple:
    """Return what identifies a result across toolchains: the case and the matrix point, not the toolchain."""
    cfg = r["config"]
    return (r["case_id"], cfg["std"], cfg["arch"], " ".join(cfg["flags"]))


# nvcc's temporary files: under /tmp, or (since children get their scratch folder as TMPDIR) under that
TEMP_NAMES = re.compile(r"(?:/[^\s/'\"]+)*/tmpxft_[0-9a-f_]+-\d+_")
MANGLED_MEMBER = re.compile(rf"(?<=_ZN)([5-7]){PREFIX}(\d+)")  # a batch member's namespace, length-prefixed
MEMBER_FOLDER = re.compile(rf"\b{PREFIX}\d+/")


def _drop_member(m: re.Match) -> str:
    """Drop ``<n>sg_bK`` from a mangled name, keeping the digits after K (the next name's length)."""
    return m.group(2)[int(m.group(1)) - len(PREFIX):]


def _normalize(message: str | None) -> str | None:
    """Drop what changes from run to run from a message: nvcc's temporary file names, and which batch
    member a case was (its namespace in a mangled name, its folder in a file name)."""
    if not message:
        return message
    return MEMBER_FOLDER.sub("", MANGLED_MEMBER.sub(_drop_member, TEMP_NAMES.sub("<tmp>_", message)))


def first_diagnostic(r: Mapping) -> dict | None:
    """Return a record's first error, else its first warning, else None."""
    diags = (r.get("observed") or {}).get("diagnostics") or []
    return next((d for d in diags if d["severity"] in ("error", "fatal")), None) or \
        next((d for d in diags if d["severity"] == "warning"), None)


def signature(r: Mapping) -> dict:
    """Return the comparable facts of one result: verdict, outcome, phase, first error, run status."""
    obs = r.get("observed") or {}
    first = first_diagnostic(r)
    ex = r.get("execution") or {}
    return {"verdict": r["verdict"], "outcome": obs.get("outcome"), "phase": obs.get("phase"),
            "number": first.get("number") if first else None,
            "message": _normalize(first["message"]) if first else None,
            "run": ex.get("status")}


@dataclass
class Change:
    """One difference between run A and run B for the same case and matrix point."""

    kind: str  # regression, fix, verdict, diagnostic, phase, runtime, new, vanished
    key: tuple
    rule: str
    before: dict | None
    after: dict | None

    def describe(self) -> str:
        b, a = self.before or {}, self.after or {}
        if self.kind in ("regression", "fix", "verdict"):
            return f"{b.get('verdict')} -> {a.get('verdict')}"
        if self.kind == "unrecorded":
            return "same behaviour; the known deviation is not recorded for this toolchain"
        if self.kind == "diagnostic":
            return f"#{b.get('number')} {b.get('message')!r} -> #{a.get('number')} {a.get('message')!r}"
        if self.kind == "phase":
            return f"{b.get('phase')} -> {a.get('phase')}"
        if self.kind == "runtime":
            return f"{b.get('run')} -> {a.get('run')}"
        return (a or b).get("verdict", "")


ORDER = ["regression", "fix", "verdict", "phase", "diagnostic", "runtime", "unrecorded", "new", "vanished"]


SIDES = ("both", "before only", "after only", "neither")  # which of the two follows the guide
UNJUDGED = ("UNSUPPORTED", "UNRESOLVED")


def side(before: str, after: str) -> str | None:
    """Return which of two verdicts on one item follows the guide (PASS), or None where either is not judged."""
    if before in UNJUDGED or after in UNJUDGED:
        return None
    a, b = before == "PASS", after == "PASS"
    return SIDES[0] if a and b else SIDES[1] if a else SIDES[2] if b else SIDES[3]


@dataclass
class Diff:
    """All changes between two result sets, regressions first; and per section, which of the two follows the
    guide on the items both judged (two compilers on one matrix, or two releases)."""

    changes: list[Change] = field(default_factory=list)
    compared: int = 0
    sections: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def regressions(self) -> list[Change]:
        return [c for c in self.changes if c.kind == "regression"]

    def counts(self) -> dict[str, int]:
        return {k: sum(c.kind == k for c in self.changes) for k in ORDER}


def compare(before: Iterable[Mapping], after: Iterable[Mapping]) -> Diff:
    """Return the differences from ``before`` to ``after``."""
    a_map = {key(r): r for r in before}
    b_map = {key(r): r for r in after}
    diff = Diff(compared=len(a_map.keys() & b_map.keys()))
    for k in sorted(a_map.keys() | b_map.keys()):
        old, new = a_map.get(k), b_map.get(k)
        rule = (new or old)["rule"]
        if old is None or new is None:
            diff.changes.append(Change("new" if old is None else "vanished", k, rule,
                                       old and signature(old), new and signature(new)))
            continue
        s_old, s_new = signature(old), signature(new)
        who = side(old["verdict"], new["verdict"])
        if who is not None:
            counts = diff.sections.setdefault(old.get("section") or rule.split("/", 1)[0], dict.fromkeys(SIDES, 0))
            counts[who] += 1
        for kind in _kinds(s_old, s_new):
            diff.changes.append(Change(kind, k, rule, s_old, s_new))
    diff.changes.sort(key=lambda c: (ORDER.index(c.kind), c.key))
    return diff


def _same_behaviour(old: dict, new: dict) -> bool:
    """Same outcome, failing phase and run status; a reworded message is reported on its own."""
    return all(old[k] == new[k] for k in ("outcome", "phase", "run"))


def _kinds(old: dict, new: dict) -> list[str]:
    kinds = []
    if old["verdict"] != new["verdict"]:
        if old["verdict"] == "XFAIL" and new["verdict"] == "FAIL" and _same_behaviour(old, new):
            # The toolchain behaves as before; only the deviation is not recorded for the new one.
            kinds.append("unrecorded")
        elif old["verdict"] == "XFAIL" and new["verdict"] == "XPASS":
            # The toolchain now does what the guide says; the deviation record is stale.
            kinds.append("fix")
        elif not _fails(old["verdict"]) and _fails(new["verdict"]):
            kinds.append("regression")
        elif _fails(old["verdict"]) and not _fails(new["verdict"]):
            kinds.append("fix")
        else:
            kinds.append("verdict")
    if old["phase"] != new["phase"]:
        kinds.append("phase")
    if (old["number"], old["message"]) != (new["number"], new["message"]):
        kinds.append("diagnostic")
    if old["run"] != new["run"]:
        kinds.append("runtime")
    return kinds


def as_json(diff: Diff, a: str, b: str) -> str:
    return json.dumps({"before": a, "after": b, "compared": diff.compared, "counts": diff.counts(),
                       "changes": [{"kind": c.kind, "case": c.key[0], "std": c.key[1], "arch": c.key[2],
                                    "flags": c.key[3], "rule": c.rule, "before": c.before, "after": c.after}
                                   for c in diff.changes]}, indent=1)


def as_markdown(diff: Diff, a: str, b: str, limit: int = 500) -> str:
    counts = ", ".join(f"{n} {k}" for k, n in diff.counts().items() if n) or "no changes"
    lines = [f"### suitegen diff: {a} -> {b}", "", f"{diff.compared} results compared: {counts}.", ""]
    if diff.changes:
        lines += ["| change | case | config | detail |", "|---|---|---|---|"]
        for c in diff.changes[:limit]:
            detail = c.describe().replace("|", "\\|")
            lines.append(f"| {c.kind} | `{c.key[0]}` | {' '.join(p for p in c.key[1:] if p)} | {detail} |")
        if len(diff.changes) > limit:
            lines.append(f"\n... and {len(diff.changes) - limit} more (see the JSON form)")
    return "\n".join(lines) + "\n"


def as_sections(diff: Diff, a: str, b: str) -> str:
    """Return a markdown table: per section, on the items both runs judged, which follows the guide (PASS)."""
    heads = ["both", f"{a} only", f"{b} only", "neither"]
    lines = [f"### Which follows the guide, per section: {a} vs {b}", "",
             "Items both runs judged (neither UNSUPPORTED nor UNRESOLVED); a known deviation (XFAIL) does not "
             "follow the guide.", "", "| section | judged by both | " + " | ".join(heads) + " |",
             "|---|" + "---:|" * (len(heads) + 1)]
    total = dict.fromkeys(SIDES, 0)
    rows = sorted(diff.sections.items(), key=lambda kv: (-(kv[1][SIDES[1]] + kv[1][SIDES[2]]), kv[0]))
    for section, counts in rows:
        lines.append(f"| {section} | {sum(counts.values())} | " + " | ".join(str(counts[s]) for s in SIDES) + " |")
        for s in SIDES:
            total[s] += counts[s]
    lines.append(f"| **total** | **{sum(total.values())}** | " + " | ".join(f"**{total[s]}**" for s in SIDES) + " |")
    return "\n".join(lines) + "\n"


def as_table(diff: Diff, a: str, b: str) -> str:
    counts = ", ".join(f"{n} {k}" for k, n in diff.counts().items() if n) or "no changes"
    lines = [f"{a} -> {b}: {diff.compared} results compared: {counts}"]
    for c in diff.changes:
        lines.append(f"  {c.kind.upper():<10} {c.key[0]} [{' '.join(p for p in c.key[1:] if p)}]  {c.describe()}")
    return "\n".join(lines)


def baseline_records(records: Iterable[Mapping]) -> list[dict]:
    """Return the part of each record a baseline keeps: enough for key() and signature()."""
    out = []
    for r in records:
        obs = r.get("observed") or {}
        sig = signature(r)
        first = [{"severity": "error", "number": sig["number"], "message": sig["message"]}] if sig["message"] else []
        out.append({"case_id": r["case_id"], "rule": r["rule"], "verdict": r["verdict"],
                    "config": {k: r["config"][k] for k in ("toolchain", "fingerprint", "nvcc_version", "std",
                                                            "arch", "flags")},
                    "observed": {"outcome": obs.get("outcome"), "phase": obs.get("phase"), "diagnostics": first},
                    "execution": {"status": sig["run"]} if sig["run"] else None})
    return sorted(out, key=lambda r: key(r))
