"""Traceability: the normative statements of the source documents, each mapped to the rules that test it
or to the reason nothing here can.

Layout: ``oracle/statements/<section-key>.toml``::

    section = "device-memory-space"

    [[statement]]
    id = "no-class-member"         # unique in its section; the full id is "<section>/<id>"
    seed = "000"                    # the seed document (file-name prefix) it comes from
    where = "I.4.3.1"               # the section number as the seed numbers it
    kind = "must-not"               # must | must-not | may | undefined | note
    text = "..."                    # the statement, paraphrased in our words
    rules = ["device-memory-space/no-data-member"]   # rule ids that test it
    untested = ""                   # or why no rule can test it here (then rules may be empty)
    when = ""                       # optional: the condition under which it applies (e.g. "windows")

``suitegen rules --trace`` lists the statements with neither rules nor a reason; the goal is none.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

from suitegen.model import FROZEN

STATEMENT_KEYS = {"id", "seed", "where", "kind", "text", "rules", "untested", "when"}
KINDS = ("must", "must-not", "may", "undefined", "note")


class StatementError(ValueError):
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
    when: str = ""
    source_file: str = ""

    @property
    def traced(self) -> bool:
        return bool(self.rules or self.untested)


def load_statements(root: Path, sections: Mapping[str, str], rule_ids: Iterable[str]) -> list[Statement]:
    """Load ``root/statements/*.toml``; every rule named must exist and every id be unique."""
    known = set(rule_ids)
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
            if not raw.get("id") or not raw.get("text") or not raw.get("seed"):
                raise StatementError(f"{where}: id, seed and text are required")
            if raw.get("kind", "must") not in KINDS:
                raise StatementError(f"{where}: kind must be one of {', '.join(KINDS)}")
            if sid in seen:
                raise StatementError(f"{where}: duplicate id {sid!r}")
            seen.add(sid)
            rules = tuple(raw.get("rules", []))
            unknown = [r for r in rules if r not in known]
            if unknown:
                raise StatementError(f"{where}: no such rule {unknown[0]!r}")
            out.append(Statement(id=sid, section=section, seed=str(raw["seed"]), where=str(raw.get("where", "")),
                                 kind=raw.get("kind", "must"), text=raw["text"], rules=rules,
                                 untested=raw.get("untested", ""), when=raw.get("when", ""), source_file=str(path)))
    return out


def trace_table(statements: list[Statement], rule_ids: Iterable[str], later: Iterable[str] = ()) -> str:
    """Return the traceability report: counts per section, the untraced statements, and the rules that
    no statement names (``later``: rules whose statement comes from a later edition than the seeds)."""
    lines = []
    by_section: dict[str, list[Statement]] = {}
    for s in statements:
        by_section.setdefault(s.section, []).append(s)
    lines.append(f"{'section':32} statements  with rules  with reason  untraced")
    for section, group in sorted(by_section.items()):
        lines.append(f"{section:32} {len(group):10}  {sum(bool(s.rules) for s in group):10}  "
                     f"{sum(bool(s.untested) and not s.rules for s in group):11}  "
                     f"{sum(not s.traced for s in group):8}")
    untraced = [s for s in statements if not s.traced]
    lines.append(f"{'total':32} {len(statements):10}  {sum(bool(s.rules) for s in statements):10}  "
                 f"{sum(bool(s.untested) and not s.rules for s in statements):11}  {len(untraced):8}")
    if untraced:
        lines.append("\nstatements with no rule and no reason:")
        lines += [f"  {s.id} ({s.seed} {s.where}): {s.text}" for s in untraced]
    named = {r for s in statements for r in s.rules}
    later = set(later)
    orphans = sorted(set(rule_ids) - named - later)
    if later:
        lines.append(f"\nrules from later editions than the seeds (their edition says which): {len(later)}")
    if orphans:
        lines.append(f"\nrules from the seeds that no statement names ({len(orphans)}): " + ", ".join(orphans))
    return "\n".join(lines)
