"""Expression trees for host/device agreement: rendered to C++ and evaluated in Python (the oracle).

A tree is "a", "b", a number, ["sqrt", x] (floating kinds) or [op, left, right]. Kinds:

- ``unsigned``: C++'s 32-bit unsigned arithmetic exactly (modulo 2^32). Shift counts are taken modulo
  32 and divisors forced odd, so no tree has undefined behaviour.
- ``int``: 32-bit signed arithmetic as C++20 defines it: ``+ - *`` are done in unsigned and converted
  back (modular from C++20), ``>>`` of a negative value is arithmetic and ``<<`` modular (both from
  C++20), ``/ %`` truncate towards zero with a positive odd divisor. Only for ``-std=c++20`` and later.
- ``float`` and ``double``: IEEE-754 binary32 / binary64 with round-to-nearest, subnormals kept, ``/``
  and ``sqrt`` correctly rounded: nvcc's documented defaults without ``--use_fast_math`` (``--ftz=false
  --prec-div=true --prec-sqrt=true``). ``--fmad=true``, also a default, lets the device contract a
  product feeding an addition or subtraction into one fused multiply-add, so a check built with the
  default flags uses only trees where no ``*`` is an operand of ``+`` or ``-`` (``contractible``);
  other trees build with ``-fmad=false``.

binary32 results are computed in binary64 and rounded once: for + - * / and sqrt this double
rounding is exact (53 >= 2 * 24 + 2), so Python gives the correctly rounded float.
"""
from __future__ import annotations

import math
import struct

MASK = 0xFFFFFFFF
FLOATS = ("float", "double")
INT_DIVISOR = 0x7FFF  # ``/`` and ``%`` of int trees divide by ``(b & 0x7fff) | 1``: positive and odd


def to_c(tree, kind: str) -> str:
    """Return the C++ expression of a tree (or a literal of ``kind``)."""
    if isinstance(tree, str):
        return tree
    if isinstance(tree, (int, float)) and not isinstance(tree, bool):
        return _literal(tree, kind)
    if tree[0] == "sqrt":
        return f"{'sqrtf' if kind == 'float' else 'sqrt'}({to_c(tree[1], kind)})"
    op, left, right = tree
    lhs, rhs = to_c(left, kind), to_c(right, kind)
    if kind == "unsigned" and op in ("<<", ">>"):
        rhs = f"({rhs} & 31u)"
    elif kind == "unsigned" and op in ("/", "%"):
        rhs = f"({rhs} | 1u)"
    elif kind == "int" and op in ("<<", ">>"):
        rhs = f"({rhs} & 31)"
    elif kind == "int" and op in ("/", "%"):
        rhs = f"(({rhs} & {INT_DIVISOR}) | 1)"
    elif kind == "int" and op in ("+", "-", "*"):
        return f"(int)((unsigned)({lhs}) {op} (unsigned)({rhs}))"
    return f"({lhs} {op} {rhs})"


def _literal(x, kind: str) -> str:
    if kind == "unsigned":
        return f"{int(x)}u"
    if kind == "int":
        return f"({int(x)})" if int(x) != -2**31 else "(-2147483647 - 1)"
    value = f32(float(x)) if kind == "float" else float(x)
    text = repr(value)  # the shortest text that reads back as this value (a binary32 value: as that float)
    if text in ("inf", "-inf", "nan"):
        raise ValueError(f"no literal for {text}")
    text = text if any(c in text for c in ".e") else text + ".0"
    return f"({text}f)" if kind == "float" else f"({text})"


def evaluate(tree, kind: str, a, b):
    """Return the tree's value for inputs a, b with the semantics of ``kind`` (see the module's docstring)."""
    if isinstance(tree, str):
        return _constant(a if tree == "a" else b, kind)
    if isinstance(tree, (int, float)) and not isinstance(tree, bool):
        return _constant(tree, kind)
    if tree[0] == "sqrt":
        x = evaluate(tree[1], kind, a, b)
        r = math.nan if x < 0 or math.isnan(x) else math.sqrt(x)
        return f32(r) if kind == "float" else r
    op, left, right = tree
    x, y = evaluate(left, kind, a, b), evaluate(right, kind, a, b)
    if kind == "unsigned":
        return _uint(op, x, y)
    if kind == "int":
        return _int(op, x, y)
    r = _ieee(op, x, y)
    return f32(r) if kind == "float" else r


def _constant(x, kind: str):
    if kind == "unsigned":
        return int(x) & MASK
    if kind == "int":
        return int(x)
    return f32(float(x)) if kind == "float" else float(x)


def _uint(op: str, x: int, y: int) -> int:
    if op in ("<<", ">>"):
        y &= 31
        return (x << y) & MASK if op == "<<" else x >> y
    if op in ("/", "%"):
        y |= 1
        return x // y if op == "/" else x % y
    return {"+": x + y, "-": x - y, "*": x * y, "&": x & y, "|": x | y, "^": x ^ y}[op] & MASK


def _int(op: str, x: int, y: int) -> int:
    if op in ("<<", ">>"):
        y &= 31
        return signed32(x << y) if op == "<<" else x >> y  # Python's >> of a negative int is arithmetic
    if op in ("/", "%"):
        d = (y & INT_DIVISOR) | 1
        q = abs(x) // d * (1 if x >= 0 else -1)  # truncation towards zero
        return q if op == "/" else x - q * d
    return signed32({"+": x + y, "-": x - y, "*": x * y, "&": x & y, "|": x | y, "^": x ^ y}[op])


def signed32(x: int) -> int:
    """Return x modulo 2^32 as a two's complement 32-bit value."""
    x &= MASK
    return x - 2**32 if x >= 2**31 else x


def _ieee(op: str, x: float, y: float) -> float:
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


def f32(x: float) -> float:
    """Round a double to the nearest binary32 value (ties to even, subnormals kept, overflow to infinity)."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:  # the cast rounded a finite value to infinity
        return math.copysign(math.inf, x)


def contractible(tree) -> bool:
    """Whether a product is an operand of an addition or subtraction (which ``--fmad=true`` may fuse)."""
    if not isinstance(tree, list):
        return False
    if tree[0] in ("+", "-") and any(isinstance(t, list) and t[0] == "*" for t in tree[1:]):
        return True
    return any(contractible(t) for t in tree[1:])


def same(x, y) -> bool:
    """Bitwise equality for floating values (NaNs of any payload count as equal), plain equality otherwise."""
    if isinstance(x, float) or isinstance(y, float):
        if math.isnan(x) and math.isnan(y):
            return True
        return struct.pack("<d", x) == struct.pack("<d", y)
    return x == y
