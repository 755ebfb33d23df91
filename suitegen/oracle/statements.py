"""Traceability: the normative statements of the source documents, each mapped to the rules that test it
or to the reason nothing here can.

Layout: ``oracle/statements/<section-key>.toml``::

    section = "device-memory-space"

    [[statement]]
    id = "no-class-member"         # unique in its section; the full id is "<section>/<id>"
    seed = "000"                    # the seed document (file-name prefix) it comes from, or
    source = "..."                  # a later source: the guide's edition and part (the math appendix of 13.0)
    where = "I.4.3.1"               # the section number as the seed numbers it
    kind = "must-not"               # must | must-not | may | undefined | note
    text = "..."                    # the statement, paraphrased in our words
    rules = ["device-memory-space/no-data-member"]   # rule ids that test it
    untested = ""                   # or why no rule can test it here (then rules may be empty; beside rules: the
                                    # part of it they cannot test)
    when = ""                       # optional: the condition under which it applies (e.g. "windows")
    example = "error"               # optional: the seed's example marks this line a (compile-time) error
    no_negative = ""                # with example: why no negative variant tests it, "<kind>: why" (NO_NEGATIVE)

``suitegen rules --trace`` lists the statements with neither rules nor a reason, and the example errors that no
rule with a negative variant tests and no explicit reason excuses; the goal is none.
"""
from __future__ import annotations

import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

from suitegen.model import FROZEN, UsageError, section_family
from suitegen.oracle import fields

STATEMENT_KEYS = fields.keys("statement")
KINDS = fields.STATEMENT_KINDS
# The only reasons a line the seed's example marks "error" may go without a rule that has a negative variant.
NO_NEGATIVE = {
    "no-diagnostic-required": "the guide says the compiler does not guarantee a diagnostic (I.4.2.1, __CUDA_ARCH__)",
    "removed": "the construct was removed in a later release (its statement is conditioned on the release)",
    "run-time": "the error happens when the program runs, not when it compiles",
}


class StatementError(UsageError):
    """A malformed statements file; the message names the file and the statement."""


@dataclass(**FROZEN)
class Statement:
    """One normative statement of a source document, and what tests it."""

    id: str  # "<section>/<id>"
    section: str
    seed: str
    where: str
    kind: str
    text: str
    rules: tuple[str, ...]
    untested: str = ""
    source: str = ""  # a later source than the seeds (then seed is "")
    when: str = ""
    source_file: str = ""
    example: str = ""  # "error": the seed's example marks this line an error
    no_negative: str = ""  # why no negative variant tests that example line: "<a NO_NEGATIVE kind>: why"
    negative: bool = False  # one of its rules has a negative variant (reject or diagnose, or a predicate's)

    @property
    def traced(self) -> bool:
        """Whether it has rules or a reason and, for an example error, a negative variant or an explicit reason."""
        return bool(self.rules or self.untested) and (self.example != "error" or self.negative
                                                      or bool(self.no_negative))


def negative_rules(rules) -> set[str]:
    """Return the ids of the rules with a negative variant: one expected to be rejected or diagnosed, or a
    predicate's (which says reject where the guide's definition does)."""
    return {r.id for r in rules
            if any(v.predicate or v.expectation.expect.value in ("reject", "diagnose") for v in r.variants)}


def load_statements(root: Path, sections: Mapping[str, str], rule_ids: Iterable[str],
                    negatives: Iterable[str] = ()) -> list[Statement]:
    """Load ``root/statements/*.toml``; every rule named must exist and every id be unique (``negatives``: the
    rules with a negative variant, see ``negative_rules``)."""
    known, negatives = set(rule_ids), set(negatives)
    out: list[Statement] = []
    seen: set[str] = set()
    for path in sorted((root / "statements").glob("*.toml")):
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise StatementError(f"{path}: not valid TOML: {exc}") from None
        section = data.get("section")
        if section != path.stem or section not in sections:
            raise StatementError(f"{path}: section must be the file name and a key of sections.toml, got {section!r}")
        for raw in data.get("statement", []):
            sid = f"{section}/{raw.get('id')}"
            where = f"{path}: statement {raw.get('id')!r}"
            extra = set(raw) - STATEMENT_KEYS
            if extra:
                raise StatementError(f"{where}: unknown keys {sorted(extra)}")
            if not raw.get("id") or not raw.get("text") or bool(raw.get("seed")) == bool(raw.get("source")):
                raise StatementError(f"{where}: id, text and one of seed and source are required")
            if raw.get("kind", "must") not in KINDS:
                raise StatementError(f"{where}: kind must be one of {', '.join(KINDS)}")
            if sid in seen:
                raise StatementError(f"{where}: duplicate id {sid!r}")
            seen.add(sid)
            rules = tuple(raw.get("rules", []))
            unknown = [r for r in rules if r not in known]
            if unknown:
                raise StatementError(f"{where}: no such rule {unknown[0]!r}")
            example, no_negative = raw.get("example", ""), raw.get("no_negative", "")
            if example not in ("", "error"):
                raise StatementError(f"{where}: example is \"error\" (the seed's example marks the line) or absent")
            if no_negative and (not example or no_negative.split(":", 1)[0] not in NO_NEGATIVE):
                raise StatementError(f"{where}: no_negative is for an example error, as \"<kind>: why\" with a kind "
                                     f"from {', '.join(NO_NEGATIVE)}")
            if no_negative.startswith("removed:") and not raw.get("when"):
                raise StatementError(f"{where}: a construct removed in a later release is conditioned on the release "
                                     "(when = \"nvcc<X.Y\")")
            out.append(Statement(id=sid, section=section, seed=str(raw.get("seed", "")), source=raw.get("source", ""),
                                 where=str(raw.get("where", "")),
                                 kind=raw.get("kind", "must"), text=raw["text"], rules=rules,
                                 untested=raw.get("untested", ""), when=raw.get("when", ""), source_file=str(path),
                                 example=example, no_negative=no_negative,
                                 negative=any(r in negatives for r in rules)))
    return out


def trace_table(statements: list[Statement], rule_ids: Iterable[str], later: Iterable[str] = ()) -> str:
    """Return the traceability report: counts per section, the untraced statements, and the rules that
    no statement names (``later``: rules whose statement comes from a later edition than the seeds)."""
    lines = []
    by_section: dict[str, list[Statement]] = {}
    for s in statements:
        by_section.setdefault(s.section, []).append(s)
    def row(label: str, part: list[Statement]) -> str:
        return (f"{label:32} {len(part):10}  {sum(bool(s.rules) for s in part):10}  "
                f"{sum(bool(s.untested) and not s.rules for s in part):11}  {sum(not s.traced for s in part):8}")

    lines.append(f"{'section':32} statements  with rules  with reason  untraced")
    later_sections = {s.section for s in statements if s.source}
    for section, group in sorted(by_section.items(), key=lambda kv: (kv[0] in later_sections, kv[0])):
        if section == min(later_sections, default=None):  # the first of them
            lines.append("-- from later sources than the seeds (the guide's current edition):")
        lines.append(row(section, group))
    untraced = [s for s in statements if not s.traced]
    lines += [row("seeds", [s for s in statements if not s.source]),
              row("later sources", [s for s in statements if s.source]), row("total", statements)]
    examples = [s for s in statements if s.example == "error"]
    excused = [s for s in examples if s.no_negative and not s.negative]
    lines.append(f"\nexample lines marked error: {len(examples)}; tested by a rule with a negative variant: "
                 f"{sum(s.negative for s in examples)}; without one, for an explicit reason: {len(excused)}")
    lines += [f"  {s.id} ({s.seed} {s.where}): {s.no_negative}" for s in excused]
    if untraced:
        lines.append("\nstatements with no rule and no reason, or example errors no negative variant tests:")
        lines += [f"  {s.id} ({s.seed or s.source} {s.where}): {s.text}" + (
            " [example error: no rule with a negative variant]" if s.rules or s.untested else "") for s in untraced]
    apart = Counter(_family(r) for r in rule_ids if _family(r) != "guide")
    for family, what in FAMILIES.items():
        lines.append(f"\n{what}: {apart[family]} rules (no guide statement; counted apart)")
    later = set(later)
    if later:
        lines.append(f"\nrules from later editions than the seeds (their edition says which): {len(later)}")
    lost = orphans(statements, rule_ids, later)
    lines.append(f"\nrules from the seeds that no statement names: {len(lost)}" + "".join(f"\n  {r}" for r in lost))
    return "\n".join(lines)


# What the families of rules other than the guide's are (``model.section_family``), as the trace and the reports
# name them.
FAMILIES = {"findings": "fuzz findings: compiler bugs suitegen fuzz found, kept as cases",
            "generated": "generated programs: the corpus suitegen generates, with known results"}


def _family(rule_id: str) -> str:
    return section_family(rule_id.split("/", 1)[0])


def orphans(statements: Iterable[Statement], rule_ids: Iterable[str], later: Iterable[str] = ()) -> list[str]:
    """Return the guide's rules from the seeds that no statement names (``later``: rules whose statement comes from
    a later edition than the seeds), sorted; the goal is none."""
    named = {r for s in statements for r in s.rules}
    return sorted(r for r in set(rule_ids) - named - set(later) if _family(r) == "guide")
