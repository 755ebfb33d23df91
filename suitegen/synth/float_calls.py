"""Float calls for generated programs, each one prelude line (device call, host definition) and one model:

- whose result the guide defines exactly (the ``rounding`` policy): the intrinsics with a rounding mode
  (``__fadd_rz``, ``__dmul_ru``, ``__float2int_rd``, ``__int2float_ru``, ...: the exact result rounded in that mode)
  and the math functions whose documented maximum error is 0 ulp (``sqrtf``, ``fmaf``, ``floorf``, ``fmodf``,
  ``remainderf``, ...). The model rounds with MPFR (gmpy2's IEEE contexts: subnormals and signed zeros as IEEE 754
  has them); the host definition sets the rounding mode around volatile operands (``fesetround``), so a host
  build computes what the device does.
- whose result the guide bounds (the ``math`` policy): ``expf``, ``sinf``, ``atanh``, ... with the maximum error
  in ulps of their rule in ``oracle/math-functions.toml``. Such a call's result is cut to a cell of ``2^GRID``
  ulps (its low ``GRID`` encoding bits cleared), and the model keeps a call only where every value within the
  bound (and at least ``SLACK`` ulps, so a host library's result too) of MPFR's correctly rounded value lies in one
  cell: the cell's value is then known, and a result that leaves it (an error of about ``2^GRID`` ulps or more)
  shows in the program's cells.

A result that is not finite is undefined for the model, as every float result is.
"""
from __future__ import annotations

import functools
import math
import operator

from suitegen.synth.semantics import F32, F64, I32, UB, CType

MODES = {"rn": ("RoundToNearest", "FE_TONEAREST"), "rz": ("RoundToZero", "FE_TOWARDZERO"),
         "ru": ("RoundUp", "FE_UPWARD"), "rd": ("RoundDown", "FE_DOWNWARD")}
OPS = {"add": ("+", operator.add), "sub": ("-", operator.sub), "mul": ("*", operator.mul),
       "div": ("/", operator.truediv)}


@functools.lru_cache(maxsize=None)
def _context(t: CType, mode: str):
    import gmpy2
    ctx = gmpy2.ieee(t.bits)
    ctx.round = getattr(gmpy2, MODES[mode][0])
    return ctx


def _ieee(t: CType, mode: str, fn, *args):
    """``fn`` of MPFR values of ``args``, correctly rounded to ``t`` in ``mode``; UB where it is not finite."""
    v = _rounded(t, mode, fn, _signed(args))
    if not math.isfinite(v):
        raise UB("float result is not finite")
    return v


def _signed(args: tuple) -> tuple:
    """A key that tells -0.0 from 0.0 (equal as floats, and so as keys)."""
    return tuple((a, math.copysign(1.0, a)) if isinstance(a, float) else (a, 0) for a in args)


@functools.lru_cache(maxsize=1 << 16)
def _rounded(t: CType, mode: str, fn, key: tuple) -> float:
    import gmpy2
    with gmpy2.context(_context(t, mode)):
        return float(fn(gmpy2, *(gmpy2.mpfr(a) for a, _ in key)))


def _to_int(v: float, how) -> int:
    n = how(v)
    if not I32.lo <= n <= I32.hi:
        raise UB("float to int out of range")
    return n


def _fenv(mode: str, result: str, expr: str, operands: dict[str, str]) -> str:
    """A host definition: ``expr`` of volatile copies of ``operands`` (name -> type) in rounding mode ``mode``, read
    after the mode is set and kept before it is restored (no comma outside parentheses: it is a macro argument)."""
    copies = "".join(f" volatile {c} {v}_ = {v};" for v, c in operands.items())
    return (f"[&] {{ int m_ = fegetround(); fesetround({MODES[mode][1]});{copies} volatile {result} r_ = {expr};"
            f" fesetround(m_); return ({result})r_; }}()")


def _table() -> tuple[dict[str, tuple], dict[str, tuple]]:
    """The intrinsics with a rounding mode and the math calls of 0 ulp: name -> (result type, argument types, model,
    prelude line)."""
    out, exact = {}, {}
    for t, p, c in ((F32, "f", "float"), (F64, "d", "double")):
        for op, (sym, fn) in OPS.items():
            for mode in MODES:
                name = f"sg_{p}{op}_{mode}"
                host = _fenv(mode, c, f"a_ {sym} b_", {"a": c, "b": c})
                out[name] = (t, (t, t), functools.partial(_ieee, t, mode, lambda g, a, b, fn=fn: fn(a, b)),
                             f"SG_HD {c} {name}({c} a, {c} b) {{ return SG_DEV(__{p}{op}_{mode}(a, b), {host}); }}")
        for mode in MODES:  # to int, and from int
            how = {"rn": round, "rz": math.trunc, "ru": math.ceil, "rd": math.floor}[mode]
            host = {"rn": "rint", "rz": "trunc", "ru": "ceil", "rd": "floor"}[mode] + ("f" if t is F32 else "")
            name = f"sg_{p}2i_{mode}"
            out[name] = (I32, (t,), functools.partial(_to_int, how=how),
                         f"SG_HD int {name}({c} a) {{ return SG_DEV(__{c}2int_{mode}(a), (int){host}(a)); }}")
            if t is F32 or mode == "rn":  # an int is exact in a double: __int2double_rn alone
                name = f"sg_i2{p}_{mode}"
                out[name] = (t, (I32,), functools.partial(_ieee, t, mode, lambda g, a: +a),
                             f"SG_HD {c} {name}(int a) {{ return SG_DEV(__int2{c}_{mode}(a), "
                             f"{_fenv(mode, c, f'({c})a_', {'a': 'int'})}); }}")
        f = "f" if t is F32 else ""
        for fn, arity, model in (("sqrt", 1, lambda g, a: g.sqrt(a)), ("fma", 3, lambda g, a, b, x: g.fma(a, b, x)),
                                 ("floor", 1, lambda g, a: g.rint_floor(a)), ("ceil", 1, lambda g, a: g.rint_ceil(a)),
                                 ("trunc", 1, lambda g, a: g.rint_trunc(a)), ("rint", 1, lambda g, a: g.rint(a)),
                                 ("fmod", 2, lambda g, a, b: g.fmod(a, b)),
                                 ("remainder", 2, lambda g, a, b: g.remainder(a, b)),
                                 ("copysign", 2, lambda g, a, b: g.copy_sign(a, b))):
            name, params, args = f"sg_{fn}{f or 'd'}", ", ".join(f"{c} {v}" for v in "abx"[:arity]), ", ".join("abx"[:arity])
            exact[name] = (t, (t,) * arity, functools.partial(_ieee, t, "rn", model),
                           f"SG_HD {c} {name}({params}) {{ return {fn}{f}({args}); }}")
    return out, exact


GRID, SLACK = 8, 8
# the math functions a host's C library has under the same names (a host build calls them)
HOST_LIBM = {"exp", "exp2", "expm1", "log", "log10", "log2", "log1p", "cbrt", "sin", "cos", "tan", "asin", "acos",
             "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc"}
# cutting a result to its cell, as the device and a host build do it
SUPPORT = ("SG_HD float sg_cellf(float v) { return SG_DEV(__uint_as_float(__float_as_uint(v) & ~255u), "
           "[&] { unsigned u; memcpy(&u, &v, 4); u &= ~255u; float r; memcpy(&r, &u, 4); return r; }()); }\n"
           "SG_HD double sg_celld(double v) { return SG_DEV(__longlong_as_double(__double_as_longlong(v) & ~255ll), "
           "[&] { unsigned long long u; memcpy(&u, &v, 8); u &= ~255ull; double r; memcpy(&r, &u, 8); return r; }()); }\n")


def _cell(spec, x: float) -> float:
    """The cell of a bounded call's result at ``x`` (``GRID``); UB where the bound's interval leaves it."""
    cell = _cells(spec, _signed((x,)))
    if isinstance(cell, str):
        raise UB(cell)
    return cell


@functools.lru_cache(maxsize=1 << 16)
def _cells(spec, key: tuple) -> float | str:
    """``_cell``'s value, or why it is undefined."""
    from suitegen.cases import math_reference as mr
    ((x, _),) = key
    if spec.checked((x,)) != "ulp":
        return "outside the bound's documented range"
    (want,) = mr.reference(spec, [[x]])[0]
    if want is None or not math.isfinite(want):
        return "float result is not finite"
    bits, half = mr.BITS[spec.type], max(int(spec.ulp), SLACK)
    top = mr.ordered(mr.LIMITS[spec.type][3], spec.type)

    def cut(o: int) -> int:  # an ordered value's encoding, its low GRID bits cleared
        magnitude = abs(o) & ~((1 << GRID) - 1)
        return (1 << (bits - 1)) | magnitude if o < 0 else magnitude
    o = mr.ordered(want, spec.type)
    if abs(o) + half > top or cut(o - half) != cut(o + half):
        return "the bound's interval crosses a cell"
    return mr.from_bits(cut(o), spec.type)


def _bounded() -> dict[str, tuple]:
    """The math functions of one float argument whose default bound the oracle gives in ulps over every input."""
    import re
    import tomllib
    from suitegen import resources
    from suitegen.cases.math_reference import Spec
    out = {}
    text = (resources.oracle_root() / "math-functions.toml").read_text()
    # each run-default variant's one-line params (the whole file parsed would cost every process 60 ms)
    for block in text.split("[[rule.variant]]")[1:]:
        found = re.search(r'^  params = (\{.*\})$', block, re.M)
        if '\n  name = "run-default"\n' not in block or not found:
            continue
        p = tomllib.loads(f"p = {found.group(1)}")["p"]
        if (p.get("ref") not in HOST_LIBM or p.get("args") != ["x"] or not p.get("ulp")
                or any(p.get(k) for k in ("outs", "abs", "range", "exclude", "yrange", "ftz"))):
            continue
        spec, t = Spec.of(p), F32 if p["type"] == "float" else F64
        c, cell = ("float", "sg_cellf") if t is F32 else ("double", "sg_celld")
        name = f"sg_b_{p['call'].split('(')[0]}"
        out[name] = (t, (t,), functools.partial(_cell, spec),
                     f"SG_HD {c} {name}({c} a0) {{ return {cell}({p['call']}); }}")
    return out


ROUNDED, EXACT = _table()
CALLS = {**ROUNDED, **EXACT}  # the rounding policy's
BOUNDED = _bounded()
LINES = {name: line for name, (*_, line) in {**CALLS, **BOUNDED}.items()}
INTRINSICS = {name: (ret, args, model) for name, (ret, args, model, _) in {**CALLS, **BOUNDED}.items()}
PRELUDE = SUPPORT + "".join(line + "\n" for line in LINES.values())
# the host headers their definitions need (not NVRTC's: it compiles the device side alone, which needs none)
HEADERS = "#ifndef __CUDACC_RTC__\n#include <cfenv>\n#include <cmath>\n#endif\n"
