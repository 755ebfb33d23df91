"""Float calls whose result the guide defines exactly: the intrinsics with a rounding mode (``__fadd_rz``,
``__dmul_ru``, ``__float2int_rd``, ``__int2float_ru``, ...: the exact result rounded in that mode) and the math
functions whose documented maximum error is 0 ulp (``sqrtf``, ``fmaf``, ``floorf``, ``fmodf``, ``remainderf``,
...). The ``rounding`` policy draws them; like every helper, each is one prelude line (device call, host
definition) and one model.

The model rounds with MPFR (gmpy2's IEEE contexts: subnormals and signed zeros as IEEE 754 has them). The host
definition sets the rounding mode around volatile operands (``fesetround``), so a host build computes what the
device does. A result that is not finite is undefined for the model, as every float result is.
"""
from __future__ import annotations

import functools
import math

from suitegen.synth.semantics import F32, F64, I32, UB, CType

MODES = {"rn": ("RoundToNearest", "FE_TONEAREST"), "rz": ("RoundToZero", "FE_TOWARDZERO"),
         "ru": ("RoundUp", "FE_UPWARD"), "rd": ("RoundDown", "FE_DOWNWARD")}
OPS = {"add": "+", "sub": "-", "mul": "*", "div": "/"}


@functools.lru_cache(maxsize=None)
def _context(t: CType, mode: str):
    import gmpy2
    ctx = gmpy2.ieee(t.bits)
    ctx.round = getattr(gmpy2, MODES[mode][0])
    return ctx


def _ieee(t: CType, mode: str, fn, *args):
    """``fn`` of MPFR values of ``args``, correctly rounded to ``t`` in ``mode``; UB where it is not finite."""
    import gmpy2
    with gmpy2.context(_context(t, mode)):
        v = float(fn(gmpy2, *(gmpy2.mpfr(a) for a in args)))
    if not math.isfinite(v):
        raise UB("float result is not finite")
    return v


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


def _table() -> dict[str, tuple]:
    """name -> (result type, argument types, model, prelude line)."""
    out = {}
    for t, p, c in ((F32, "f", "float"), (F64, "d", "double")):
        for op, sym in OPS.items():
            for mode in MODES:
                name = f"sg_{p}{op}_{mode}"
                host = _fenv(mode, c, f"a_ {sym} b_", {"a": c, "b": c})
                out[name] = (t, (t, t), functools.partial(_ieee, t, mode, lambda g, a, b, s=sym: _OP[s](a, b)),
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
            out[name] = (t, (t,) * arity, functools.partial(_ieee, t, "rn", model),
                         f"SG_HD {c} {name}({params}) {{ return {fn}{f}({args}); }}")
    return out


_OP = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": lambda a, b: a / b}
CALLS = _table()
INTRINSICS = {name: (ret, args, model) for name, (ret, args, model, _) in CALLS.items()}
PRELUDE = "".join(line + "\n" for *_, line in CALLS.values())
# the host headers their definitions need (not NVRTC's: it compiles the device side alone, which needs none)
HEADERS = "#ifndef __CUDACC_RTC__\n#include <cfenv>\n#include <cmath>\n#endif\n"
