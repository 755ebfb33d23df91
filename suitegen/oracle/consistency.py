"""The oracle checked against itself: no valid program of one rule contains what another rule forbids.

A rule may name the construct its negative side forbids as a regex over a program's source
(``construct``, comments removed, files joined). The check proves each pattern on its own rule: it
matches every variant expected to be rejected and none expected to compile. Then it searches the valid
variants (accept, warn, runtime) of every other rule: a match is a positive variant asserting what that
rule forbids, which the oracle must resolve (fix the variant, or make the tension explicit).
"""
from __future__ import annotations

import re
from typing import Iterable

from suitegen.model import Case, Expect

NEGATIVE = (Expect.REJECT, Expect.DIAGNOSE)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def source(case: Case) -> str:
    """Return a case's files joined, comments removed."""
    return "\n".join(COMMENT.sub(" ", text) for text in case.files.values())


def _fixed(case: Case) -> Expect | None:
    return None if case.variant.predicate else case.variant.expectation.expect


def unproven(cases: Iterable[Case]) -> list[str]:
    """Return, per rule with a construct, the variants that show the pattern wrong on its own rule."""
    out = []
    for case in cases:
        pattern, expect = case.rule.construct, _fixed(case)
        if not pattern or expect is None:
            continue
        found = re.search(pattern, source(case)) is not None
        if expect in NEGATIVE and not found:
            out.append(f"{case.id}: expected to be rejected, but its construct pattern does not match it")
        elif expect not in NEGATIVE and found:
            out.append(f"{case.id}: expected to compile, but its own rule's construct pattern matches it")
    return out


def conflicts(cases: Iterable[Case]) -> list[tuple[str, str]]:
    """Return (valid case id, rule id) for each valid variant containing another rule's construct."""
    cases = list(cases)
    rules = {c.rule.id: c.rule for c in cases if c.rule.construct}
    out = []
    for case in cases:
        if _fixed(case) in (None, *NEGATIVE):
            continue
        text = source(case)
        out += [(case.id, rid) for rid, rule in rules.items()
                if rid != case.rule.id and re.search(rule.construct, text)]
    return out
