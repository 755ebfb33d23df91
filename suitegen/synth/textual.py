"""Shrinks a reproducer's text line by line (delta debugging), after the generator's own reduction.

The generator's reducer only makes programs it can still model; this pass may leave the model behind,
so it serves findings whose test needs no model: a compiler crash stays a crash whatever the program
computes. ``ddmin`` is Zeller's algorithm over lines; the caller's ``interesting`` builds and judges.
"""
from __future__ import annotations

from typing import Callable


def ddmin(text: str, interesting: Callable[[str], bool], budget: int = 400) -> str:
    """Return the smallest text found, as lines of ``text``, that ``interesting`` still accepts."""
    lines = text.splitlines(keepends=True)
    n, tries = 2, 0
    while len(lines) >= 2 and tries < budget:
        size = max(1, len(lines) // n)
        chunks = [lines[i:i + size] for i in range(0, len(lines), size)]
        reduced = False
        for k in range(len(chunks)):  # try each complement (drop one chunk)
            rest = [line for j, c in enumerate(chunks) if j != k for line in c]
            tries += 1
            if rest and interesting("".join(rest)):
                lines, n, reduced = rest, max(n - 1, 2), True
                break
            if tries >= budget:
                break
        if not reduced:
            if n >= len(lines):
                break
            n = min(len(lines), n * 2)
    return "".join(lines)
