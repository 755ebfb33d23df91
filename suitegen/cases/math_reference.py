"""Correctly rounded references for the math rules, their inputs, and the error of a device result in ulps.

The guide states each math function's maximum error as the difference in ulps between the correctly rounded
result and the function's (``ulp``); some add an absolute error bound (``abs``) or restrict their bound to an
interval (``range``) or to outside one (``exclude``). References come from MPFR (gmpy2): a function MPFR has is
evaluated in an IEEE context of the function's precision (``gmpy2.ieee``: subnormals and the rounding mode
included), so its result is correctly rounded; one it lacks is computed with ``WORK_BITS`` bits and rounded once
(a double rounding that would need the exact value within 2^-WORK_BITS of a midpoint). Inputs are each
precision's special values and a seeded sample (``inputs``); the same spec gives the same inputs everywhere.
"""
from __future__ import annotations

import functools
import hashlib
import json
import math
import random
import struct
import sys
import threading
import zlib
from array import array
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from suitegen import resources
from suitegen.model import digest

WORK_BITS = 160
# Each kind of argument and result ("x": the function's floating type), and for the floating types and the ints
# its array (struct) code and numpy dtype: how the kernel reads a column.
INT_KINDS = ("int", "long", "long long")
ARRAYS = {"float": ("f", "float32"), "double": ("d", "float64"), "int": ("i", "int32"), "long": ("q", "int64"),
          "long long": ("q", "int64")}
BITS = {"float": 32, "double": 64}
LIMITS = {  # (smallest subnormal, smallest normal, epsilon, largest finite)
    "float": (2.0 ** -149, 2.0 ** -126, 2.0 ** -23, (2 - 2.0 ** -23) * 2.0 ** 127),
    "double": (5e-324, 2.0 ** -1022, 2.0 ** -52, 1.7976931348623157e308)}
ROUNDING = {"rn": "RoundToNearest", "rz": "RoundToZero", "ru": "RoundUp", "rd": "RoundDown"}
DEFAULT_SAMPLES = 1 << 16


@dataclass(frozen=True)
class Spec:
    """One math rule's variant, as its params give it (``oracle/math-*.toml``)."""

    call: str
    ref: str
    type: str  # "float" or "double"
    args: tuple[str, ...]
    outs: tuple[str, ...] = ()
    result: str = "x"
    ulp: float | None = None
    abs: float | None = None
    range: tuple[float, float] | None = None
    exclude: tuple[float, float] | None = None
    yrange: tuple[float, float] | None = None  # the bound holds for the second argument's magnitude in it
    round: str = "rn"
    ftz: bool = False  # subnormal inputs and results are flushed to zero (-ftz=true)
    lead: int | None = None  # an int the reference takes first that the call fixes (jnf(128, x): 128)
    samples: int = DEFAULT_SAMPLES

    @classmethod
    def of(cls, params: Mapping[str, Any]) -> "Spec":
        """Return the spec of a variant's params; ValueError names what is wrong."""
        if params.get("type") not in BITS:
            raise ValueError(f"math params: type must be float or double, not {params.get('type')!r}")
        if params.get("ref") not in REFERENCES:
            raise ValueError(f"math params: no reference named {params.get('ref')!r}")
        kinds = ("x", *INT_KINDS)
        args, outs = tuple(params.get("args", ())), tuple(params.get("outs", ()))
        if not args or any(a not in kinds for a in args) or any(o not in ("x", "int") for o in outs):
            raise ValueError(f"math params: args {args!r} / outs {outs!r}: kinds are {kinds}")
        if params.get("result", "x") not in (*kinds, "void") or params.get("round", "rn") not in ROUNDING:
            raise ValueError(f"math params: result {params.get('result')!r} or round {params.get('round')!r}")
        if params.get("ulp") is None and params.get("abs") is None:
            raise ValueError("math params: a bound is needed (ulp or abs)")
        pair = lambda k: tuple(float(v) for v in params[k]) if params.get(k) is not None else None  # noqa: E731
        return cls(call=str(params["call"]), ref=params["ref"], type=params["type"], args=args, outs=outs,
                   result=params.get("result", "x"), ulp=params.get("ulp"), abs=params.get("abs"),
                   range=pair("range"), exclude=pair("exclude"), yrange=pair("yrange"),
                   round=params.get("round", "rn"), ftz=bool(params.get("ftz", False)), lead=params.get("lead"),
                   samples=int(params.get("samples", DEFAULT_SAMPLES)))

    @property
    def cells(self) -> tuple[str, ...]:
        """The kinds of what the kernel stores per input: its result (unless void), then each output."""
        return ((self.result,) if self.result != "void" else ()) + self.outs

    def checked(self, row: Sequence) -> str:
        """Which bound applies to one input row: "ulp", "abs" or "" (none documented there). ``range`` and
        ``exclude`` bound the first floating argument, ``yrange`` the second's magnitude; where both bounds are
        given, ``ulp`` holds inside and ``abs`` outside; a lone bound holds inside only."""
        xs = [v for k, v in zip(self.args, row) if k == "x"]
        x = xs[0] if xs else 0.0
        inside = self.range is None or self.range[0] <= x <= self.range[1]
        if self.exclude is not None and self.exclude[0] <= x <= self.exclude[1]:
            inside = False
        if self.yrange is not None and len(xs) > 1 and not self.yrange[0] <= abs(xs[1]) <= self.yrange[1]:
            return ""
        if self.ulp is not None and self.abs is not None:
            return "ulp" if inside else "abs"
        return ("ulp" if self.ulp is not None else "abs") if inside else ""


# --- inputs ----------------------------------------------------------------------------------------------------

FLOAT_ROUNDS_TO_INF = 3.4028235677973366e38  # binary32's largest finite value plus half its ulp


def to_type(v: float, kind: str) -> float:
    """Round a Python float to the precision's nearest value (binary32 for float)."""
    if kind == "double" or not math.isfinite(v):
        return v
    if abs(v) >= FLOAT_ROUNDS_TO_INF:
        return math.copysign(math.inf, v)
    return struct.unpack("f", struct.pack("f", v))[0]


def from_bits(bits: int, kind: str) -> float:
    return struct.unpack(ARRAYS[kind][0], struct.pack("I" if kind == "float" else "Q", bits))[0]


def to_bits(v: float, kind: str) -> int:
    return struct.unpack("I" if kind == "float" else "Q", struct.pack(ARRAYS[kind][0], v))[0]


def special_values(kind: str) -> list[float]:
    """The values every function of a precision is checked at: zeros, subnormals, normals' edges, small integers
    and halves, pi's multiples, the extremes, infinities and NaN."""
    sub, tiny, eps, big = LIMITS[kind]
    base = [0.0, sub, tiny - sub, tiny, eps, 0.25, 0.5, 1 - eps / 2, 1.0, 1 + eps, 1.5, 2.0, 2.5, 3.0, 4.0, 8.0, 10.0,
            0.1, 1e-7, math.pi / 4, math.pi / 2, math.pi, 2 * math.pi, 88.7, 709.7, 1e10, 1e30, big, math.inf]
    vals = [to_type(v, kind) for v in base]
    return _unique(vals + [-v for v in vals] + [math.nan])


def _unique(vals: Sequence[float]) -> list[float]:
    seen, out = set(), []
    for v in vals:
        k = ("nan",) if v != v else (v, math.copysign(1, v))
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out


def _sample_values(kind: str, n: int, rng: random.Random, span: tuple[float, float] | None) -> list[float]:
    """``n`` values of a precision: half any bit pattern (every magnitude and sign, NaNs included), a quarter
    uniform in the documented interval (or [-8, 8]), a quarter of magnitudes 2^-20..2^20 of either sign."""
    code, width = ARRAYS[kind][0], BITS[kind]
    # one draw of n // 2 words: the same bits, in the same order, as a draw per value (whole arrays, not a value
    # at a time through struct: 2^17 inputs in a tenth of the time)
    a = array(code, rng.getrandbits(width * (n // 2)).to_bytes(width // 8 * (n // 2), "little")) if n >= 2 else []
    if sys.byteorder != "little":
        a.byteswap()
    lo, hi = span if span is not None else (-8.0, 8.0)
    big = LIMITS[kind][3]
    lo, hi = max(lo, -big), min(hi, big)
    b = [lo + (hi - lo) * rng.random() for _ in range(n // 4)]
    c = [_sign(rng) * 2.0 ** (-20 + 40 * rng.random()) for _ in range(n - n // 2 - n // 4)]
    return [*a, *array(code, b + c)]  # rounded to the precision (within its range: no overflow)


def _sign(rng: random.Random) -> float:
    """``rng.choice((-1.0, 1.0))``, drawing the same bits (``random.Random._randbelow``), without its calls."""
    r = rng.getrandbits(2)
    while r >= 2:
        r = rng.getrandbits(2)
    return 1.0 if r else -1.0


INT_SPANS = {"jn": (0, 12), "yn": (0, 12), "ldexp": (-300, 300), "scalbn": (-300, 300)}


def inputs(spec: Spec, seed: str) -> list[list]:
    """Return the argument columns (one per arg, equally long): the special values (every pair of them for two
    arguments, of half of them for more, with 0, 1, -1, inf, NaN and the least subnormal as a third and fourth;
    each with a few ints for an int argument), then ``spec.samples`` seeded ones."""
    rng = random.Random(f"{seed}/{spec.call}/{spec.type}")
    specials = special_values(spec.type)
    lo_i, hi_i = INT_SPANS.get(spec.ref, (-40, 40))
    ints = sorted({0, 1, 2, 3, -1, -2, lo_i, hi_i} & set(range(lo_i, hi_i + 1)))
    few = [v for v in specials if v in (0.0, 1.0, -1.0, math.inf) or v != v or v == LIMITS[spec.type][0]]
    many = specials if len(spec.args) < 3 else specials[::2]
    axes = [(many if k < 2 else few) if a == "x" else ints for k, a in enumerate(spec.args)]
    grid: list[tuple] = [()]
    for axis in axes:
        grid = [g + (v,) for g in grid for v in axis]
    samples = [_sample_values(spec.type, spec.samples, rng, spec.range) if a == "x" else
               [rng.randint(lo_i, hi_i) for _ in range(spec.samples)] for a in spec.args]
    return [[g[k] for g in grid] + samples[k] for k in range(len(spec.args))]


# --- references ------------------------------------------------------------------------------------------------

def _gmpy2():
    import gmpy2
    return gmpy2


def _raw(fn: Callable) -> Callable:
    """A reference on the Python floats themselves, given the precision first (MPFR keeps no sign of a NaN, and
    steps past the subnormal grid): sign, class and neighbour functions."""
    fn.raw = True
    return fn


def _exact(fn: Callable) -> Callable:
    """A reference that needs more than MPFR's correctly rounded primitives: computed with WORK_BITS bits."""
    fn.work = True
    return fn


@_exact
def _sinpi(g, x):
    if g.is_infinite(x) or g.is_nan(x):
        return g.nan()
    r = g.fmod(x, 2)  # exact
    if g.is_integer(r):
        return g.mpfr(0) if x >= 0 else -g.mpfr(0)
    if g.is_integer(2 * r):
        return g.mpfr(1) if r in (0.5, -1.5) else g.mpfr(-1)
    return g.sin(g.const_pi() * r)


@_exact
def _cospi(g, x):
    if g.is_infinite(x) or g.is_nan(x):
        return g.nan()
    r = abs(g.fmod(x, 2))
    if g.is_integer(r):
        return g.mpfr(1) if r == 0 else g.mpfr(-1)
    if g.is_integer(2 * r):
        return g.mpfr(0)
    return g.cos(g.const_pi() * r)


@_exact
def _erfcx(g, x):
    if g.is_nan(x):
        return x
    if g.is_infinite(x):
        return g.mpfr(0) if x > 0 else g.inf()
    if x > 2 ** 13:  # exp(x^2) would leave even this exponent range: the asymptotic series, within x^-10
        r = 1 / (2 * x * x)
        return (1 - r + 3 * r ** 2 - 15 * r ** 3 + 105 * r ** 4) / (x * g.sqrt(g.const_pi()))
    return g.exp(x * x) * g.erfc(x)


def _erfc_guess(t: float) -> float:
    """x >= 0 with erfc(x) = t (0 < t <= 1), to about double precision: Newton's method on log erfc, which
    converges in the tail too (asymptotically where erfc underflows)."""
    lt = math.log(t) if t > 0 else -745.0
    x = math.sqrt(max(0.0, -lt - 0.5 * math.log(max(1.0, -lt)) - 0.5 * math.log(math.pi))) if lt < -1 else 0.5
    if t < 1e-300:
        return x
    for _ in range(60):
        e = math.erfc(x)
        if e <= 0:
            break
        step = (math.log(e) - lt) / (-2 / math.sqrt(math.pi) * math.exp(-x * x) / e)
        x -= step
        if abs(step) <= 1e-16 * max(1.0, x):
            break
    return x


def _newton(g, f, df, y, x0: float):
    """Refine x0 to f(x) = y at WORK_BITS bits (Newton's method, until a step is below the precision)."""
    x = g.mpfr(x0)
    for _ in range(40):
        step = (f(x) - y) / df(x)
        x -= step
        if step == 0 or abs(step) <= abs(x) * g.mpfr(2) ** (8 - WORK_BITS):
            break
    return x


def _erfcinv_value(g, y):
    """erfc^-1(y) for 0 < y < 2, y != 1, at WORK_BITS bits: Newton's method on log erfc(x) = log t (quadratic in
    the tail too), erfc evaluated once a step, the first step at half the precision (the guess has about 53 bits)."""
    t = y if y < 1 else 2 - y  # erfc(-x) = 2 - erfc(x): solve for |x|
    x = g.mpfr(_erfc_guess(float(t)))
    for k in range(40):
        with g.context(g.get_context(), precision=WORK_BITS // 2 if k == 0 else WORK_BITS + 8):
            e = g.erfc(x)
            step = (g.log(e) - g.log(t)) * e / (-2 / g.sqrt(g.const_pi()) * g.exp(-x * x))
            x = x - step
        if step == 0 or abs(step) <= abs(x) * g.mpfr(2) ** (8 - WORK_BITS):
            break
    return x if y < 1 else -x


@_exact
def _erfinv(g, y):
    if g.is_nan(y) or abs(y) > 1:
        return g.nan()
    if abs(y) == 1:
        return g.inf() if y > 0 else -g.inf()
    if y == 0:
        return y
    if abs(y) > 0.5:  # through erfc: 1 - |y| is exact here
        x = _erfcinv_value(g, 1 - abs(y))
        return x if y > 0 else -x
    two_over_sqrt_pi = 2 / g.sqrt(g.const_pi())
    guess = float(y) * math.sqrt(math.pi) / 2
    for _ in range(60):
        step = (math.erf(guess) - float(y)) / (2 / math.sqrt(math.pi) * math.exp(-guess * guess))
        guess -= step
        if abs(step) <= 1e-17 * abs(guess):
            break
    return _newton(g, g.erf, lambda v: two_over_sqrt_pi * g.exp(-v * v), y, guess)


@_exact
def _erfcinv(g, y):
    if g.is_nan(y) or y < 0 or y > 2:
        return g.nan()
    if y == 0:
        return g.inf()
    if y == 2:
        return -g.inf()
    if y == 1:
        return g.mpfr(0)
    return _erfcinv_value(g, y)


@_exact
def _normcdf(g, x):
    return g.erfc(-x / g.sqrt(2)) / 2


@_exact
def _normcdfinv(g, y):
    return -g.sqrt(2) * _erfcinv(g, 2 * y)


def _bessel_i(g, order, x):
    """Modified Bessel function of the first kind, by its power series (every term positive)."""
    if g.is_nan(x):
        return x
    if x == 0:
        return g.mpfr(1) if order == 0 else x
    if g.is_infinite(x) or abs(x) > 800:  # beyond any double's range: e^x / sqrt(2 pi x)
        return g.inf() if order == 0 or x > 0 else -g.inf()
    half = x / 2
    term = half ** order
    total, k, q = term, 0, half * half
    while True:
        k += 1
        term = term * q / (k * (k + order))
        total += term
        if abs(term) <= abs(total) * g.mpfr(2) ** (-WORK_BITS):
            return total


@_exact
def _i0(g, x):
    return _bessel_i(g, 0, x)


@_exact
def _i1(g, x):
    return _bessel_i(g, 1, x)


@_exact
def _rcbrt(g, x):
    return 1 / g.cbrt(x)


@_exact
def _rhypot(g, x, y):
    return 1 / g.hypot(x, y)


@_exact
def _norm3d(g, a, b, c):
    if any(g.is_infinite(v) for v in (a, b, c)):
        return g.inf()
    return g.sqrt(a * a + b * b + c * c)


@_exact
def _rnorm3d(g, a, b, c):
    return 1 / _norm3d(g, a, b, c)


@_exact
def _norm4d(g, a, b, c, d):
    if any(g.is_infinite(v) for v in (a, b, c, d)):
        return g.inf()
    return g.sqrt(a * a + b * b + c * c + d * d)


@_exact
def _rnorm4d(g, a, b, c, d):
    return 1 / _norm4d(g, a, b, c, d)


def _rcp(g, x):
    return 1 / x


def _frexp(g, x):
    if x == 0 or g.is_infinite(x) or g.is_nan(x):
        return x, 0
    e, m = g.frexp(x)
    return m, e


def _modf(g, x):
    if g.is_infinite(x):
        return (g.mpfr(0) if x > 0 else -g.mpfr(0)), x
    whole = g.trunc(x)
    frac = x - whole
    if frac == 0:
        frac = g.mpfr(0) if x >= 0 else -g.mpfr(0)
    return frac, whole


def _remquo(g, x, y):
    r, q = g.remquo(x, y)
    return (r, None) if g.is_nan(r) else (r, q)


def _logb(g, x):
    if g.is_nan(x):
        return x
    if g.is_infinite(x):
        return g.inf()
    if x == 0:
        return -g.inf()
    return g.mpfr(g.frexp(x)[0] - 1)


def _ilogb(g, x):
    if x == 0 or g.is_infinite(x) or g.is_nan(x):
        return None  # FP_ILOGB0, FP_ILOGBNAN, INT_MAX: values the guide does not name
    return g.frexp(x)[0] - 1


def _round_half_away(g, x):
    return g.round_away(x)


def _lrint(g, x):
    if g.is_infinite(x) or g.is_nan(x):
        return None
    return int(g.rint(x))


def _lround(g, x):
    if g.is_infinite(x) or g.is_nan(x):
        return None
    return int(g.round_away(x))


def _fdim(g, x, y):
    if g.is_nan(x) or g.is_nan(y):
        return g.nan()
    return x - y if x > y else g.mpfr(0)


def _fminmax(pick):
    def fn(g, x, y):
        if g.is_nan(x):
            return y
        if g.is_nan(y):
            return x
        return pick(x, y)
    return fn


def _sincos(g, x):
    return g.sin(x), g.cos(x)


@_exact
def _sincospi(g, x):
    return _sinpi(g, x), _cospi(g, x)


def _ldexp(g, x, n):
    return g.mul_2exp(x, int(n))


@_raw
def _nextafter(kind: str, x: float, y: float) -> float:
    if x != x or y != y:
        return math.nan
    if x == y:
        return y
    if x == 0:
        return math.copysign(LIMITS[kind][0], y)
    return from_bits(to_bits(x, kind) + (1 if (y > x) == (x > 0) else -1), kind)  # away from zero or toward it


REFERENCES: dict[str, Callable] = {
    **{n: (lambda name: lambda g, *a: getattr(g, name)(*a))(n) for n in (
        "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
        "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "hypot", "fma", "fmod",
        "remainder", "erf", "erfc", "j0", "j1", "y0", "y1", "ceil", "floor", "trunc", "rint")},
    "pow": lambda g, x, y: g.mpfr(1) if (y == 0 or x == 1) else x ** y,
    "rsqrt": lambda g, x: (-g.inf() if g.is_signed(x) else g.inf()) if x == 0 else g.rec_sqrt(x),  # IEEE rSqrt(-0)
    "lgamma": lambda g, x: g.lgamma(x)[0] if not (g.is_integer(x) and x <= 0) else g.inf(),
    "tgamma": lambda g, x: g.gamma(x) if not (x == 0 and g.is_signed(x)) else -g.inf(),
    "jn": lambda g, n, x: g.jn(int(n), x), "yn": lambda g, n, x: g.yn(int(n), x),
    "copysign": _raw(lambda kind, x, y: math.copysign(x, y)),
    "fabs": lambda g, x: abs(x), "round": _round_half_away,
    "add": lambda g, x, y: x + y, "sub": lambda g, x, y: x - y, "mul": lambda g, x, y: x * y,
    "muladd": lambda g, x, y, z: x * y + z,  # in the target's context: the product rounded, then the sum
    "div": lambda g, x, y: x / y, "rcp": _rcp,
    "fmin": _fminmax(min), "fmax": _fminmax(max), "fdim": _fdim, "nextafter": _nextafter,
    "ldexp": _ldexp, "scalbn": _ldexp, "frexp": _frexp, "modf": _modf, "logb": _logb, "ilogb": _ilogb,
    "lrint": _lrint, "lround": _lround, "remquo": _remquo, "sincos": _sincos, "sincospi": _sincospi,
    "sinpi": _sinpi, "cospi": _cospi, "erfcx": _erfcx, "erfinv": _erfinv, "erfcinv": _erfcinv,
    "normcdf": _normcdf, "normcdfinv": _normcdfinv, "i0": _i0, "i1": _i1, "rcbrt": _rcbrt, "rhypot": _rhypot,
    "isfinite": _raw(lambda kind, x: int(math.isfinite(x))), "isinf": _raw(lambda kind, x: int(math.isinf(x))),
    "isnan": _raw(lambda kind, x: int(math.isnan(x))), "signbit": _raw(lambda kind, x: int(math.copysign(1, x) < 0)),
    "norm3d": _norm3d, "rnorm3d": _rnorm3d, "norm4d": _norm4d, "rnorm4d": _rnorm4d,
}


@functools.lru_cache(maxsize=None)
def _contexts(kind: str, rounding: str, ftz: bool = False):
    g = _gmpy2()
    target = g.ieee(BITS[kind])
    target.round = getattr(g, ROUNDING[rounding])
    if ftz:  # round with an unbounded exponent, then flush what lies below the least normal (flushed())
        target = g.context(target, subnormalize=False, emin=-(1 << 30))
    work = g.context(precision=WORK_BITS, emax=1 << 30, emin=-(1 << 30))
    return target, work


def flushed(v, kind: str):
    """A subnormal flushed to zero of its sign (-ftz=true); anything else as it is."""
    if isinstance(v, float) and v != 0 and abs(v) < LIMITS[kind][1]:
        return math.copysign(0.0, v)
    return v


def reference(spec: Spec, args: Sequence[Sequence]) -> list[tuple]:
    """Return, per input, the correctly rounded value of each cell (a float; an int for int cells; None where the
    function's value is not defined there)."""
    g = _gmpy2()
    fn = REFERENCES[spec.ref]
    target, work = _contexts(spec.type, spec.round, spec.ftz)
    cols = [[float(v) for v in a] if k == "x" else [int(v) for v in a] for k, a in zip(spec.args, args)]
    if getattr(fn, "raw", False):
        return [(fn(spec.type, *row),) for row in zip(*cols)]
    out = []
    exact = getattr(fn, "work", False)
    lead = () if spec.lead is None else (spec.lead,)
    for row in zip(*cols):
        if spec.ftz:
            row = tuple(flushed(v, spec.type) for v in row)
        with g.context(work if exact else target):
            vals = [*lead, *(g.mpfr(v) if k == "x" else v for k, v in zip(spec.args, row))]
            try:
                got = fn(g, *vals)
            except (ValueError, ZeroDivisionError, OverflowError):
                got = None
        got = got if isinstance(got, tuple) else (got,)
        with g.context(target):
            cells = tuple(None if v is None else v if isinstance(v, int) else float(+v) for v in got)
        out.append(tuple(flushed(v, spec.type) for v in cells) if spec.ftz else cells)
    return out


# --- judging ---------------------------------------------------------------------------------------------------

def ordered(v: float, kind: str) -> int:
    """Map a float to an integer in its order, adjacent floats to adjacent integers (+0 and -0 to 0)."""
    bits, sign = to_bits(v, kind), 1 << (BITS[kind] - 1)
    return -(bits - sign) if bits & sign else bits


def ulp_error(got: float, want: float, kind: str) -> float:
    """The distance of ``got`` from the correctly rounded ``want`` in ulps (0 for two NaNs or equal values; inf
    where one is NaN or infinite and the other not)."""
    if math.isnan(got) or math.isnan(want):
        return 0.0 if math.isnan(got) and math.isnan(want) else math.inf
    if math.isinf(want) or math.isinf(got):
        return 0.0 if got == want else math.inf
    return float(abs(ordered(got, kind) - ordered(want, kind)))


def hexfloat(v: float, kind: str) -> str:
    """A value's C hex-float spelling and its bits, as a bug report wants them."""
    if isinstance(v, int):
        return str(v)
    width = BITS[kind] // 4
    return f"{float(v).hex()} (0x{to_bits(v, kind):0{width}x})"


def _same_int(have: int, want: int) -> bool:
    return have == want


def _quotient_bits(have: int, want: int) -> bool:
    """remquo's quotient: the sign of x/y and at least its integral quotient's 3 low bits."""
    if abs(have) % 8 != abs(want) % 8:
        return False
    return have == 0 or want == 0 or (have < 0) == (want < 0)  # an int 0 shows no sign


def _truth(have: int, want: int) -> bool:
    return bool(have) == bool(want)


INT_CELLS = {"remquo": _quotient_bits, **{n: _truth for n in ("isfinite", "isinf", "isnan", "signbit")}}


@dataclass
class Judged:
    """What a math check found over its inputs."""

    checked: int
    worst: float  # the largest error found in ulps (where the ulp bound applies)
    worst_abs: float  # the largest absolute error (where only the abs bound applies)
    failures: list[str]  # the first few inputs outside the bound, each described
    failed: int  # how many inputs were outside it


def judge(spec: Spec, args: Sequence[Sequence], got: Sequence[Sequence], want: Sequence[tuple],
          limit: int = 5) -> Judged:
    """Compare the device's cells with the references under the spec's bounds."""
    worst = worst_abs = 0.0
    failures, checked, failed = [], 0, 0
    wheres = _wheres(spec, args, len(want))
    exact = _same_rows(got, want)
    for i, ref in enumerate(want):
        where = wheres[i]
        if not where:
            continue
        if exact[i]:  # most rows: no error to measure
            checked += 1
            continue
        row_bad = []
        for c, (kind, cell) in enumerate(zip(spec.cells, ref)):
            if cell is None:
                continue
            have = got[c][i]
            if kind != "x":  # an int result: exact, or as far as the function's documentation fixes it
                if not INT_CELLS.get(spec.ref, _same_int)(int(have), int(cell)):
                    row_bad.append(f"cell {c} {int(have)} where {cell} is right")
                continue
            have = float(have)
            if where == "ulp":
                err = ulp_error(have, cell, spec.type)
                worst = max(worst, err)
                if err > spec.ulp:
                    row_bad.append(f"{hexfloat(have, spec.type)} where the correctly rounded value is "
                                   f"{hexfloat(cell, spec.type)}: {err:g} ulp, bound {spec.ulp:g}")
            else:
                same = (math.isnan(have) and math.isnan(cell)) or have == cell
                err = 0.0 if same else math.inf if math.isnan(have) or math.isnan(cell) else abs(have - cell)
                worst_abs = max(worst_abs, err)
                if err > spec.abs:
                    row_bad.append(f"{hexfloat(have, spec.type)} where {hexfloat(cell, spec.type)} is right: "
                                   f"absolute error {err:.3g}, bound {spec.abs:g}")
        checked += 1
        failed += bool(row_bad)
        if row_bad and len(failures) < limit:
            shown = ", ".join(hexfloat(a[i], spec.type) if k == "x" else str(int(a[i]))
                              for k, a in zip(spec.args, args))
            failures.append(f"{spec.call} at ({shown}): " + "; ".join(row_bad))
    return Judged(checked=checked, worst=worst, worst_abs=worst_abs, failures=failures, failed=failed)


def _wheres(spec: Spec, args: Sequence[Sequence], n: int) -> Sequence[str]:
    """Each row's bound (``Spec.checked``): one for all where the spec bounds no interval."""
    if spec.range is None and spec.exclude is None and spec.yrange is None:
        return [spec.checked([])] * n
    return [spec.checked(row) for row in zip(*args)]


def _same_rows(got: Sequence[Sequence], want: Sequence[tuple]) -> list[bool]:
    """Whether each row's cells equal their references (two NaNs alike, a cell without one left out): an error of
    0 under every bound, found without measuring it."""
    same = [True] * len(want)
    for c, column in enumerate(got):
        for i, (have, ref) in enumerate(zip(column, want)):
            cell = ref[c]
            if cell is not None and have != cell and (have == have or cell == cell):
                same[i] = False
    return same


# --- the run's judgements: references and comparison in processes of their own ---------------------------------

SEED = "suitegen-math-1"  # the inputs' seed: the same inputs on every machine and toolkit
_pool = None
_lock = threading.Lock()
PIECE = 8192  # inputs whose references one pool task computes


def _judge_here(spec: Spec, cells: list, rows: list[tuple] | None = None) -> Judged | int:
    """Judge the cells against the cache's references, or against ``rows`` (the pieces' references, kept now);
    where the cache lacks them and no rows are given, return how many inputs need them."""
    args = _run_inputs(spec)
    want = _cached(spec, args) if rows is None else references(spec, args, rows)
    return len(args[0]) if want is None else judge(spec, args, cells, want)


@functools.lru_cache(maxsize=2)
def _run_inputs(spec: Spec) -> list[list]:
    """``inputs(spec, SEED)``, kept for a pool worker's next piece of the same spec."""
    return inputs(spec, SEED)


def _reference_here(spec: Spec, lo: int, hi: int) -> list[tuple]:
    return reference(spec, [column[lo:hi] for column in _run_inputs(spec)])


# --- the references' cache: they depend on the function, its inputs and this module's code, never on a toolchain --

def _entry(spec: Spec, args: Sequence[Sequence]) -> tuple[str, Path, int, list[str]]:
    """A spec's cache key, entry path, number of inputs and cell array codes."""
    key = digest("math-reference", _code_version(), SEED, asdict(replace(spec, ulp=None, abs=None, exclude=None,
                                                                          yrange=None)), length=32)
    path = resources.data_cache_root() / "math" / key[:2] / f"{key}.ref"
    # a float cell in its precision's array code; an int cell in 64 bits (remquo's exact quotient outgrows an int)
    return key, path, len(args[0]) if args else 0, [ARRAYS[spec.type][0] if k == "x" else "q" for k in spec.cells]


def _cached(spec: Spec, args: Sequence[Sequence]) -> list[tuple] | None:
    """The cache's references for a spec's inputs, where an entry of its key, size and digest is there; None where
    none is."""
    key, path, n, kinds = _entry(spec, args)
    try:
        head, body = path.read_bytes().split(b"\n", 1)
        if json.loads(head) == {"key": key, "n": n, "sha256": hashlib.sha256(body).hexdigest()}:
            return _decoded(zlib.decompress(body), n, kinds)
    except (OSError, ValueError, zlib.error):
        pass
    return None


def references(spec: Spec, args: Sequence[Sequence], rows: Sequence[tuple] | None = None) -> list[tuple]:
    """Return ``reference(spec, args)`` for the run's inputs (``inputs(spec, SEED)``), from the cache of what no
    toolchain changes (``resources.data_cache_root``) where it holds them: MPFR takes 1 to 20 s for a function's
    2^16 inputs, a run on a new toolkit none. An entry is served only where its key, size and digest match."""
    cached = _cached(spec, args)
    if cached is not None:
        return cached
    key, path, n, kinds = _entry(spec, args)
    width = len(spec.cells)  # a row the function left short (no value at all) has None in each cell
    out = [row + (None,) * (width - len(row)) for row in (reference(spec, args) if rows is None else rows)]
    try:
        body = zlib.compress(_encoded(out, kinds), 1)
    except (OverflowError, TypeError):  # an int beyond 64 bits (lrint of a huge value): not kept
        return out
    head = json.dumps({"key": key, "n": n, "sha256": hashlib.sha256(body).hexdigest()}).encode()
    resources.write_file(path, head + b"\n" + body)
    return out


@functools.lru_cache(maxsize=1)
def _code_version() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def _encoded(rows: Sequence[tuple], kinds: Sequence[str]) -> bytes:
    """Each cell column as a byte per row (1: no value) and then its values (0 where none)."""
    out = []
    for c, code in enumerate(kinds):
        column = [row[c] for row in rows]
        out += [bytes(v is None for v in column), array(code, [0 if v is None else v for v in column]).tobytes()]
    return b"".join(out)


def _decoded(data: bytes, n: int, kinds: Sequence[str]) -> list[tuple]:
    """``_encoded``'s rows back; ValueError where the data has another size."""
    columns, at = [], 0
    for code in kinds:
        size = array(code).itemsize * n
        if at + n + size > len(data):
            raise ValueError("a short cache entry")
        missing, values = data[at:at + n], array(code, data[at + n:at + n + size])
        columns.append([None if gone else v for gone, v in zip(missing, values)])
        at += n + size
    if at != len(data):
        raise ValueError("a long cache entry")
    return list(zip(*columns)) if columns else [() for _ in range(n)]


def _encode_here(spec: Spec) -> tuple[int, list[tuple[str, bytes]]]:
    args = _run_inputs(spec)
    arrays = [ARRAYS[spec.type if k == "x" else k] for k in spec.args]
    return len(args[0]), [(dtype, array(code, col).tobytes()) for (code, dtype), col in zip(arrays, args)]


def encoded_inputs(spec: Spec) -> tuple[int, list[tuple[str, bytes]]]:
    """Return the number of a spec's inputs and each argument's column as the kernel reads it: its numpy dtype
    and its bytes (native binary32, binary64 or integers), made in the pool."""
    return _in_pool(_encode_here, spec)


def judged(spec: Spec, cells: list) -> Judged:
    """Judge the device's cells of a spec's inputs (``inputs(spec, SEED)``) in a pool of processes: MPFR's
    evaluations and the comparison of 2^16 and more inputs hold the interpreter, so a run's threads hand them on.
    References the cache lacks are computed in pieces of ``PIECE`` inputs across the pool: one function's 2^17
    inputs take MPFR up to a minute on one core."""
    got = _in_pool(_judge_here, spec, cells)  # from the cache: one read, one trip to the pool
    if isinstance(got, int):
        pieces = [_submit(_reference_here, spec, lo, min(got, lo + PIECE)) for lo in range(0, got, PIECE)]
        got = _in_pool(_judge_here, spec, cells, [row for piece in pieces for row in piece.result()])
    return got


def _in_pool(fn, *args):
    """Run ``fn(*args)`` in the module's process pool and return what it returns."""
    return _submit(fn, *args).result()


def _submit(fn, *args):
    """Submit ``fn(*args)`` to the module's process pool (started on first use); return its future."""
    global _pool
    import concurrent.futures as cf
    import multiprocessing as mp
    import os
    with _lock:
        if _pool is None:
            import atexit
            _pool = cf.ProcessPoolExecutor(max_workers=max(1, os.cpu_count() or 1),
                                           mp_context=mp.get_context("forkserver"))
            atexit.register(_pool.shutdown, cancel_futures=True)
    return _pool.submit(fn, *args)
