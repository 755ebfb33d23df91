"""An exact model of the C++ arithmetic the generated programs use.

Integers of 8, 16, 32 and 64 bits, signed and unsigned, with integral promotion and the usual
arithmetic conversions; ``float`` and ``double`` with IEEE round-to-nearest-even after every
operation; ``bool``. Values are Python ints (already in range) and floats (a ``float`` value is a
double that is exactly representable in binary32). Anything the standard leaves undefined raises
``UB``: the generator rewrites the node, and the reducer rejects the candidate.
"""
from __future__ import annotations

import math
import struct
import operator


class UB(Exception):
    """The operation has undefined behaviour (or a result the model refuses: inf, NaN)."""


class CType:
    """An arithmetic type: its C++ spelling, width and signedness. One object per type: equality is identity."""

    __slots__ = ("name", "bits", "signed", "floating", "integral", "is_bool", "lo", "hi", "rank")

    def __init__(self, *, name: str, bits: int, signed: bool, floating: bool = False):
        self.name, self.bits, self.signed, self.floating = name, bits, signed, floating
        self.integral = not floating
        self.is_bool = name == "bool"
        self.lo = -(1 << (bits - 1)) if signed else 0
        self.hi = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
        self.rank = 0 if self.is_bool else bits  # the integer conversion rank (bool lowest)

    def __repr__(self) -> str:
        return self.name

    def __reduce__(self):  # unpickled as the same object, so identity comparisons keep working
        return (by_name, (self.name,))

    def __str__(self) -> str:
        return self.name


BOOL = CType(name="bool", bits=1, signed=False)
I8 = CType(name="signed char", bits=8, signed=True)
U8 = CType(name="unsigned char", bits=8, signed=False)
I16 = CType(name="short", bits=16, signed=True)
U16 = CType(name="unsigned short", bits=16, signed=False)
I32 = CType(name="int", bits=32, signed=True)
U32 = CType(name="unsigned", bits=32, signed=False)
I64 = CType(name="long long", bits=64, signed=True)
U64 = CType(name="unsigned long long", bits=64, signed=False)
F32 = CType(name="float", bits=32, signed=True, floating=True)
F64 = CType(name="double", bits=64, signed=True, floating=True)

INTEGERS = (I8, U8, I16, U16, I32, U32, I64, U64)
FLOATS = (F32, F64)
ALL = (BOOL, *INTEGERS, *FLOATS)
BY_NAME = {t.name: t for t in ALL}
UNSIGNED_OF = {I8: U8, I16: U16, I32: U32, I64: U64}


def by_name(name: str) -> CType:
    """Return the type spelled ``name``."""
    return BY_NAME[name]


def wrap(t: CType, v: int) -> int:
    """Return ``v`` reduced modulo 2**bits into ``t``'s range (the C++20 integral conversion)."""
    if t.is_bool:
        return int(v != 0)
    v &= (1 << t.bits) - 1
    return v - (1 << t.bits) if t.signed and v > t.hi else v


def f32(x: float) -> float:
    """Round a double to the nearest binary32 value; overflow to infinity is UB for the model."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        raise UB("float overflow") from None


def _int_to_float(v: int, t: CType) -> float:
    """Convert an integer exactly rounded (to nearest, ties to even) into ``t``."""
    mant = 24 if t is F32 else 53
    a = abs(v)
    if a.bit_length() > mant:  # round to ``mant`` significant bits by hand: no double rounding
        shift = a.bit_length() - mant
        q, r = divmod(a, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        a = q << shift
    out = float(a)  # exact now
    out = -out if v < 0 else out
    return f32(out) if t is F32 else out


def convert(v, src: CType, dst: CType):
    """Return ``v`` of type ``src`` converted to ``dst``; raises UB for a float out of the integer's range."""
    if src is dst and not dst.is_bool:  # a value is in its type's range already
        return v
    if dst.is_bool:
        return int(v != 0)
    if dst.floating:
        if src.floating:
            return f32(v) if dst is F32 else float(v)
        return _int_to_float(int(v), dst)
    if src.floating:
        if math.isnan(v) or math.isinf(v):
            raise UB("NaN or infinity to integer")
        t = math.trunc(v)
        if not dst.lo <= t <= dst.hi:
            raise UB(f"{v!r} does not fit {dst}")
        return t
    return wrap(dst, int(v))


def promote(t: CType) -> CType:
    """Return the type an operand of ``t`` is promoted to (integral promotion: everything below int is int)."""
    if t.floating or t.rank >= 32:
        return t
    return I32


def common(a: CType, b: CType) -> CType:
    """Return the usual arithmetic conversions' common type of two operand types."""
    return _COMMON[a, b]


def _common(a: CType, b: CType) -> CType:
    if F64 in (a, b):
        return F64
    if F32 in (a, b):
        return F32
    a, b = promote(a), promote(b)
    if a == b:
        return a
    if a.signed == b.signed:
        return a if a.rank > b.rank else b
    s, u = (a, b) if a.signed else (b, a)
    if u.rank >= s.rank:
        return u
    if s.bits > u.bits:  # the signed type can hold every value of the unsigned one
        return s
    return UNSIGNED_OF[s]


_COMMON = {(a, b): _common(a, b) for a in ALL for b in ALL}


def _finite(t: CType, x: float) -> float:
    x = f32(x) if t is F32 else x
    if math.isnan(x) or math.isinf(x):
        raise UB("float result is not finite")
    return x


ARITH = ("+", "-", "*", "/", "%")
BITS = ("&", "|", "^")
SHIFTS = ("<<", ">>")
COMPARE = ("==", "!=", "<", "<=", ">", ">=")
LOGIC = ("&&", "||")
BINARY = ARITH + BITS + SHIFTS + COMPARE + LOGIC


def result_type(op: str, a: CType, b: CType) -> CType:
    """Return the type of ``a op b``; raises TypeError where C++ has no such operation for the types."""
    if op in LOGIC or op in COMPARE:
        return BOOL
    if op in SHIFTS:
        if a.floating or b.floating:
            raise TypeError(f"{op} on floating operands")
        return promote(a)
    if op in BITS or op == "%":
        if a.floating or b.floating:
            raise TypeError(f"{op} on floating operands")
    return common(a, b)


def binary(op: str, ta: CType, a, tb: CType, b):
    """Return the value of ``a op b`` (operands of types ``ta``, ``tb``); raises UB where C++ would."""
    if op == "&&":
        return int(bool(a) and bool(b))
    if op == "||":
        return int(bool(a) or bool(b))
    if op in SHIFTS:
        t = promote(ta)
        x, n = convert(a, ta, t), int(b)
        if n < 0 or n >= t.bits:
            raise UB(f"shift by {n} of a {t.bits}-bit value")
        if op == ">>":
            return x >> n  # arithmetic for negatives: implementation-defined before C++20, what g++ and nvcc do
        if t.signed and (x < 0 or (x << n) > t.hi):
            raise UB("signed left shift out of range")  # the strict C++11 rule, valid in every dialect
        return wrap(t, x << n)
    t = common(ta, tb)
    x, y = convert(a, ta, t), convert(b, tb, t)
    if op in COMPARE:
        return int({"==": x == y, "!=": x != y, "<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op])
    if t.floating:
        if op in _FLOAT:
            return _float_arith(op, t, x, y)
        raise TypeError(f"{op} on floating operands")
    if op in ("/", "%"):
        return _divide(op, t, x, y)
    r = {"+": x + y, "-": x - y, "*": x * y, "&": x & y, "|": x | y, "^": x ^ y}[op]
    if t.signed and not t.lo <= r <= t.hi:
        raise UB(f"signed overflow in {op}")
    return wrap(t, r)


def _divide(op: str, t: CType, x: int, y: int) -> int:
    """Return ``x / y`` or ``x % y`` of integers of type ``t`` (truncating); raises UB where C++ would."""
    if y == 0:
        raise UB("division by zero")
    q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)  # truncating division
    if t.signed and not t.lo <= q <= t.hi:
        raise UB("division overflow")
    return q if op == "/" else x - q * y


def _float_arith(op: str, t: CType, x: float, y: float) -> float:
    """Return ``x op y`` (``+ - * /``) of values of floating type ``t``, rounded to it; raises UB for a division by
    zero or a result that is not finite."""
    if op == "/" and y == 0:
        raise UB("float division by zero")
    return _finite(t, _FLOAT[op](x, y))


UNARY = ("-", "~", "!")


def unary_type(op: str, t: CType) -> CType:
    """Return the type of ``op x``."""
    if op == "!":
        return BOOL
    if op == "~" and t.floating:
        raise TypeError("~ on a floating operand")
    return promote(t)


def unary(op: str, t: CType, x):
    """Return the value of ``op x``; raises UB where C++ would."""
    if op == "!":
        return int(not x)
    p = promote(t)
    return _promoted_unary(op, p, convert(x, t, p))


def _promoted_unary(op: str, p: CType, v):
    """Return ``op v`` (``-`` or ``~``) of a value already promoted to ``p``; raises UB where C++ would."""
    if op == "~":
        return wrap(p, ~v)
    if p.floating:
        return -v
    if p.signed and -v > p.hi:
        raise UB("negating the minimum")
    return wrap(p, -v)


def bits_of(t: CType, v) -> int:
    """Return the 64-bit pattern a program stores for a value: ints zero-extended from their own width
    after conversion to the unsigned type of that width, floats as their IEEE encoding."""
    if t is F32:
        return struct.unpack("<I", struct.pack("<f", v))[0]
    if t is F64:
        return struct.unpack("<Q", struct.pack("<d", v))[0]
    return int(v) & ((1 << t.bits) - 1)


def literal(t: CType, v) -> str:
    """Return a C++ expression of type ``t`` with exactly value ``v``."""
    if t.is_bool:
        return "true" if v else "false"
    if t is F64:
        text = repr(float(v))
        return f"({text})" if text.startswith("-") else text
    if t is F32:
        text = f"{v:.9g}"
        if "e" not in text and "." not in text and "n" not in text:
            text += ".0"
        text += "f"
        return f"({text})" if text.startswith("-") else text
    suffix = {I32: "", U32: "u", I64: "ll", U64: "ull"}
    if t in suffix:
        if t.signed and v == t.lo:
            return f"({t.lo + 1}{suffix[t]} - 1{suffix[t]})"
        return f"({v}{suffix[t]})" if v < 0 else f"{v}{suffix[t]}"
    return f"(({t.name}){v})"


_ADD = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
        "&": lambda x, y: x & y, "|": lambda x, y: x | y, "^": lambda x, y: x ^ y}


def convert_lanes(xs: list, src: CType, dst: CType, mask: list) -> list:
    """Return ``convert`` applied to every active lane (None elsewhere)."""
    if src is dst:
        return xs
    if dst.integral and src.integral and not dst.is_bool:
        if src.bits < dst.bits and (dst.signed or not src.signed):
            return xs  # widening that keeps every value
        m, top, full = (1 << dst.bits) - 1, dst.hi, 1 << dst.bits
        if dst.signed:
            return [((x & m) - full if (x & m) > top else x & m) if k else None for x, k in zip(xs, mask)]
        return [x & m if k else None for x, k in zip(xs, mask)]
    if dst.floating and src.integral and not src.is_bool:
        return [_int_to_float(x, dst) if k else None for x, k in zip(xs, mask)]
    return [convert(x, src, dst) if k else None for x, k in zip(xs, mask)]


def binary_lanes(op: str, ta: CType, xs: list, tb: CType, ys: list, mask: list) -> list:
    """Return ``binary`` for every active lane at once (None elsewhere); raises UB if any lane is undefined."""
    if op in _ADD and ta.integral and tb.integral:
        t = common(ta, tb)
        xs, ys = convert_lanes(xs, ta, t, mask), convert_lanes(ys, tb, t, mask)
        f = _ADD[op]
        rs = [f(x, y) if k else None for x, y, k in zip(xs, ys, mask)]
        if t.signed:
            lo, hi = t.lo, t.hi
            for r in rs:
                if r is not None and not lo <= r <= hi:
                    raise UB(f"signed overflow in {op}")
            return rs
        m = (1 << t.bits) - 1
        return [r & m if r is not None else None for r in rs]
    if op in _CMP:
        t = common(ta, tb)
        xs, ys = convert_lanes(xs, ta, t, mask), convert_lanes(ys, tb, t, mask)
        f = _CMP[op]
        return [int(f(x, y)) if k else None for x, y, k in zip(xs, ys, mask)]
    if op in SHIFTS and ta.integral and tb.integral:
        t = promote(ta)
        xs = convert_lanes(xs, ta, t, mask)
        out = []
        for x, n, k in zip(xs, ys, mask):
            if not k:
                out.append(None)
                continue
            if n < 0 or n >= t.bits:
                raise UB(f"shift by {n} of a {t.bits}-bit value")
            if op == ">>":
                out.append(x >> n)
            else:
                r = x << n
                if t.signed and (x < 0 or r > t.hi):
                    raise UB("signed left shift out of range")
                out.append(r & ((1 << t.bits) - 1))
        return out
    arith = (_divide if op in ("/", "%") and ta.integral and tb.integral
             else _float_arith if op in _FLOAT and (ta.floating or tb.floating) else None)
    if arith is not None:  # the common type's operation, lane by lane
        t = common(ta, tb)
        xs, ys = convert_lanes(xs, ta, t, mask), convert_lanes(ys, tb, t, mask)
        return [arith(op, t, x, y) if k else None for x, y, k in zip(xs, ys, mask)]
    return [binary(op, ta, x, tb, y) if k else None for x, y, k in zip(xs, ys, mask)]


_FLOAT = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}
_CMP = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def unary_lanes(op: str, t: CType, xs: list, mask: list) -> list:
    """Return ``unary`` for every active lane at once (None elsewhere); raises UB if any lane is undefined."""
    if op == "!":
        return [int(not x) if k else None for x, k in zip(xs, mask)]
    p = promote(t)
    return [_promoted_unary(op, p, v) if k else None for v, k in zip(convert_lanes(xs, t, p, mask), mask)]
