"""Compares two runs (or a run and a baseline) case by case: what regressed, what was fixed, what moved."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from suitegen.compilers.members import anonymous
from suitegen.model import Record, UsageError, Verdict, plain


def _fails(verdict: str) -> bool:
    return Verdict(verdict).is_failure


# nvcc's temporary files: under /tmp, or (since children get their scratch folder as TMPDIR) under that
TEMP_NAMES = re.compile(r"(?:/[^\s/'\"]+)*/tmpxft_[0-9a-f_]+-\d+_")


def _normalize(message: str | None) -> str | None:
    """Drop what changes from run to run from a message: nvcc's temporary file names, and which batch
    member a case was (its namespace in a mangled name, its folder in a file name)."""
    if not message:
        return message
    return anonymous(TEMP_NAMES.sub("<tmp>_", message))


SIGNATURE = ("verdict", "outcome", "phase", "number", "message", "run")


@dataclass(frozen=True, kw_only=True)
class Entry:
    """What a diff compares of one result, and what a baseline file keeps of it: where it ran (case, matrix
    point, toolchain), its rule and section, and its signature (verdict, build outcome and phase, first error or
    warning with its message normalised, run status). ``of`` takes it from a record, ``from_json`` from a
    baseline entry (``to_json``: the form baselines have always had)."""

    case_id: str
    rule: str
    section: str
    toolchain: str = ""
    fingerprint: str = ""
    nvcc_version: str = ""
    std: str
    arch: str
    flags: tuple[str, ...] = ()
    verdict: str
    outcome: str | None = None
    phase: str | None = None
    number: str | None = None
    message: str | None = None
    run: str | None = None

    @property
    def key(self) -> tuple:
        """Return what identifies a result across toolchains: the case and the matrix point, not the toolchain."""
        return self.case_id, self.std, self.arch, " ".join(self.flags)

    def signature(self) -> dict:
        """Return the comparable facts of the result."""
        return {f: getattr(self, f) for f in SIGNATURE}

    @classmethod
    def of(cls, r: Record) -> "Entry":
        obs, cfg = r.observed, r.config
        first = obs.first_diagnostic() if obs else None
        return cls(case_id=r.case_id, rule=r.rule, section=r.section, toolchain=cfg.toolchain,
                   fingerprint=cfg.fingerprint, nvcc_version=cfg.nvcc_version, std=cfg.std, arch=cfg.arch,
                   flags=cfg.flags, verdict=r.verdict.value, outcome=plain(obs and obs.outcome),
                   phase=plain(obs and obs.phase), number=first and first.number,
                   message=_normalize(first and first.message), run=plain(r.execution and r.execution.status))

    def to_json(self) -> dict:
        first = [{"severity": "error", "number": self.number, "message": self.message}] if self.message else []
        return {"case_id": self.case_id, "rule": self.rule, "section": self.section, "verdict": self.verdict,
                "config": {"toolchain": self.toolchain, "fingerprint": self.fingerprint,
                           "nvcc_version": self.nvcc_version, "std": self.std, "arch": self.arch,
                           "flags": list(self.flags)},
                "observed": {"outcome": self.outcome, "phase": self.phase, "diagnostics": first},
                "execution": {"status": self.run} if self.run else None}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Entry":
        """Read a baseline entry (one saved before baselines kept sections: its rule's section)."""
        cfg, obs = data["config"], data.get("observed") or {}
        first = (obs.get("diagnostics") or [{}])[0]
        return cls(case_id=data["case_id"], rule=data["rule"],
                   section=data.get("section") or data["rule"].split("/")[0], toolchain=cfg.get("toolchain", ""),
                   fingerprint=cfg.get("fingerprint", ""), nvcc_version=cfg.get("nvcc_version", ""), std=cfg["std"],
                   arch=cfg["arch"],
                   flags=tuple(cfg["flags"]), verdict=data["verdict"], outcome=obs.get("outcome"),
                   phase=obs.get("phase"), number=first.get("number"), message=_normalize(first.get("message")),
                   run=(data.get("execution") or {}).get("status"))


def entry(result: Record | Entry) -> Entry:
    """Return what a diff compares of a record (an entry stays itself)."""
    return result if isinstance(result, Entry) else Entry.of(result)


def read_baseline(path: Path) -> list[Entry]:
    """Return the entries of a baseline file (``suitegen baseline save`` writes one); UsageError for another file."""
    try:
        return [Entry.from_json(e) for e in json.loads(Path(path).read_text())["results"]]
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise UsageError(f"{path}: not a baseline (suitegen baseline save writes one): {exc}") from None


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


def compare(before: Iterable[Record | Entry], after: Iterable[Record | Entry]) -> Diff:
    """Return the differences from ``before`` to ``after`` (runs' records, or a baseline's entries)."""
    a_map = {e.key: e for e in map(entry, before)}
    b_map = {e.key: e for e in map(entry, after)}
    diff = Diff(compared=len(a_map.keys() & b_map.keys()))
    for k in sorted(a_map.keys() | b_map.keys()):
        old, new = a_map.get(k), b_map.get(k)
        rule = (new or old).rule
        if old is None or new is None:
            diff.changes.append(Change("new" if old is None else "vanished", k, rule,
                                       old and old.signature(), new and new.signature()))
            continue
        s_old, s_new = old.signature(), new.signature()
        who = side(old.verdict, new.verdict)
        if who is not None:
            counts = diff.sections.setdefault(old.section, dict.fromkeys(SIDES, 0))
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


def baseline_records(records: Iterable[Record | Entry]) -> list[dict]:
    """Return the entries a baseline keeps of records, as JSON."""
    return [e.to_json() for e in sorted(map(entry, records), key=lambda e: e.key)]
