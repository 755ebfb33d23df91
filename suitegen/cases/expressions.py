"""Expression trees for host/device agreement: rendered to C++ and evaluated in Python (the oracle).

A tree is "a", "b", a number, or [op, left, right]. Unsigned trees follow C's 32-bit unsigned
arithmetic exactly; shifts take their count modulo 32 and divisors are forced odd, so no tree has
undefined behaviour. Double trees follow IEEE-754 binary64 with round-to-nearest, which is what the
device gives when nothing is contracted into FMAs (build with -fmad=false) and fast-math is off.
"""
from __future__ import annotations

import math
import struct

MASK = 0xFFFFFFFF


def to_c(tree, kind: str) -> str:
    """Return the C++ expression of a tree; ``kind`` is "unsigned" or "double"."""
    if isinstance(tree, str):
        return tree
    if isinstance(tree, (int, float)) and not isinstance(tree, bool):
        return f"{int(tree)}u" if kind == "unsigned" else _double_literal(float(tree))
    op, left, right = tree
    lhs, rhs = to_c(left, kind), to_c(right, kind)
    if kind == "unsigned" and op in ("<<", ">>"):
        rhs = f"({rhs} & 31u)"
    elif kind == "unsigned" and op in ("/", "%"):
        rhs = f"({rhs} | 1u)"
    return f"({lhs} {op} {rhs})"


def _double_literal(x: float) -> str:
    text = repr(x)
    return text if any(c in text for c in ".en") else text + ".0"


def evaluate(tree, kind: str, a, b):
    """Return the tree's value for inputs a, b with the device's semantics."""
    if isinstance(tree, str):
        return a if tree == "a" else b
    if isinstance(tree, (int, float)) and not isinstance(tree, bool):
        return int(tree) & MASK if kind == "unsigned" else float(tree)
    op, left, right = tree
    x, y = evaluate(left, kind, a, b), evaluate(right, kind, a, b)
    return _uint(op, x, y) if kind == "unsigned" else _double(op, x, y)


def _uint(op: str, x: int, y: int) -> int:
    if op in ("<<", ">>"):
        y &= 31
        return (x << y) & MASK if op == "<<" else x >> y
    if op in ("/", "%"):
        y |= 1
        return x // y if op == "/" else x % y
    return {"+": x + y, "-": x - y, "*": x * y, "&": x & y, "|": x | y, "^": x ^ y}[op] & MASK


def _double(op: str, x: float, y: float) -> float:
    if op == "/":
        if y == 0.0:
            if x == 0.0 or math.isnan(x):
                return math.nan
            return math.copysign(math.inf, x) * math.copysign(1.0, y)
        return x / y
    try:
        return {"+": x + y, "-": x - y, "*": x * y}[op]
    except OverflowError:  # Python raises where IEEE gives infinity
        return math.copysign(math.inf, x) * (math.copysign(1.0, y) if op == "*" else 1.0)


def same(x, y) -> bool:
    """Bitwise equality for doubles (NaNs of any payload count as equal), plain equality otherwise."""
    if isinstance(x, float) or isinstance(y, float):
        if math.isnan(x) and math.isnan(y):
            return True
        return struct.pack("<d", x) == struct.pack("<d", y)
    return x == y
