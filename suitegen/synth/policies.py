"""Generation policies: weights that steer programs toward the classes of code where back ends break.

A policy is data (YARPGen's ``GenPolicy``): which types values take, which operator groups and
helpers expressions use, how many statements, loops and calls a program has, and which thread
exchanges the kernel runs. ``POLICIES["default"]`` mixes them all.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from suitegen.model import FROZEN
from suitegen.synth import float_calls
from suitegen.synth import semantics as s


@dataclass(**FROZEN)
class Policy:
    """What a program of this policy is made of (weights are relative)."""

    name: str
    types: tuple = ((s.I8, 1), (s.U8, 1), (s.I16, 1), (s.U16, 1), (s.I32, 3), (s.U32, 3), (s.I64, 2),
                    (s.U64, 2), (s.BOOL, 1), (s.F32, 1), (s.F64, 1))
    ops: tuple = (("+", 4), ("-", 3), ("*", 3), ("/", 1), ("%", 1), ("&", 2), ("|", 2), ("^", 2),
                  ("<<", 2), (">>", 2), ("==", 1), ("!=", 1), ("<", 1), ("<=", 1), (">", 1), (">=", 1),
                  ("&&", 1), ("||", 1))
    intrinsics: tuple = (("sg_min_i", 1), ("sg_max_u", 1), ("sg_min_u", 1), ("sg_max_i", 1), ("sg_min_ll", 1),
                         ("sg_max_ull", 1), ("sg_abs_i", 1), ("sg_abs_ll", 1), ("sg_funnel_l", 1),
                         ("sg_funnel_r", 1), ("sg_funnel_lc", 1), ("sg_byte_perm", 1), ("sg_umulhi", 1),
                         ("sg_mulhi", 1), ("sg_umul64hi", 1), ("sg_mul64hi", 1), ("sg_popc", 1),
                         ("sg_popcll", 1), ("sg_clz", 1), ("sg_clzll", 1), ("sg_brev", 1), ("sg_brevll", 1),
                         ("sg_ffs", 1), ("sg_rotl", 1), ("sg_sext8", 1), ("sg_sext16", 1))
    statements: tuple = (("decl", 6), ("assign", 5), ("if", 2), ("for", 2), ("switch", 1), ("array", 1),
                         ("vector", 1), ("global", 1))
    leaves: tuple = (("lit", 3), ("var", 6), ("env", 2), ("table", 1), ("elem", 1), ("field", 1))
    nodes: tuple = (("bin", 8), ("un", 1), ("cast", 3), ("cond", 1), ("intrin", 2), ("call", 1))
    special: float = 0.5  # chance a literal is a special value (0, 1, -1, min, max, bit blocks)
    body_statements: tuple = (8, 20)
    depth: int = 3  # expression depth
    block_depth: int = 2  # nested ifs and loops
    loop_counts: tuple = (0, 1, 2, 3, 4, 7, 8)
    func_styles: tuple = (("plain", 3), ("noinline", 2), ("forceinline", 1), ("template", 2), ("member", 2),
                          ("lambda", 2), ("constexpr", 1), ("recursive", 1))
    max_funcs: int = 4
    comms: tuple = (("barrier", 2), ("uniform-barrier", 1), ("block-atomic", 2), ("section", 1), ("shfl", 2),
                    ("vote", 1), ("reduce", 1))
    n_comms: tuple = (0, 3)
    atomics: tuple = (0, 2)
    blocks: tuple = (1, 2)
    threads: tuple = (32, 64)
    outputs: tuple = (4, 8)
    avoid_known_crashes: bool = True  # see populate.KNOWN_CRASHES


BASE = Policy(name="default")

POLICIES = {
    "default": BASE,
    "narrow": replace(BASE, name="narrow", types=((s.I8, 3), (s.U8, 3), (s.I16, 3), (s.U16, 3), (s.I32, 2),
                                                  (s.U32, 2), (s.BOOL, 1)),
                      nodes=(("bin", 6), ("un", 1), ("cast", 6), ("cond", 1), ("intrin", 1), ("call", 1))),
    "bitwise": replace(BASE, name="bitwise", types=((s.U8, 1), (s.U16, 1), (s.I32, 2), (s.U32, 4), (s.U64, 2)),
                       ops=(("&", 4), ("|", 4), ("^", 4), ("<<", 3), (">>", 3), ("+", 1), ("-", 1),
                            ("==", 1), ("<", 1)),
                       nodes=(("bin", 6), ("un", 2), ("cast", 2), ("cond", 1), ("intrin", 6), ("call", 1))),
    "wide": replace(BASE, name="wide", types=((s.I64, 4), (s.U64, 4), (s.U32, 2), (s.I32, 1)),
                    ops=(("+", 5), ("-", 4), ("*", 4), ("/", 1), ("%", 1), ("^", 2), ("<<", 2), (">>", 2),
                         ("<", 1), ("&", 1)),
                    intrinsics=(("sg_umul64hi", 3), ("sg_mul64hi", 3), ("sg_umulhi", 2), ("sg_mulhi", 2),
                                ("sg_max_ull", 1), ("sg_min_ll", 1), ("sg_clzll", 1), ("sg_popcll", 1))),
    "loops": replace(BASE, name="loops", statements=(("decl", 4), ("assign", 5), ("if", 1), ("for", 6),
                                                     ("switch", 1), ("array", 2)),
                     loop_counts=(0, 0, 1, 1, 2, 3, 5, 8, 16), block_depth=3),
    "atomics": replace(BASE, name="atomics", comms=(("block-atomic", 4), ("section", 2), ("reduce", 2),
                                                    ("barrier", 1)), n_comms=(2, 5), atomics=(1, 4)),
    "float": replace(BASE, name="float", types=((s.F32, 4), (s.F64, 4), (s.I32, 1), (s.U32, 1), (s.BOOL, 1)),
                     ops=(("+", 4), ("-", 4), ("*", 4), ("/", 2), ("<", 1), ("==", 1), ("!=", 1)),
                     nodes=(("bin", 8), ("un", 1), ("cast", 2), ("cond", 2), ("call", 1))),
    # the intrinsics with a rounding mode and the math functions of 0 ulp (synth/float_calls), among float arithmetic
    "rounding": replace(BASE, name="rounding", types=((s.F32, 4), (s.F64, 3), (s.I32, 2), (s.BOOL, 1)),
                        ops=(("+", 3), ("-", 3), ("*", 3), ("/", 1), ("<", 1), ("==", 1), ("!=", 1)),
                        nodes=(("bin", 4), ("un", 1), ("cast", 2), ("cond", 1), ("intrin", 8), ("call", 1)),
                        intrinsics=tuple((name, 1) for name in float_calls.CALLS)),
}
# the math functions the guide bounds in ulps (their result cut to a cell the bound stays in) and those of 0 ulp, among
# the rounding policy's float arithmetic
POLICIES["math"] = replace(POLICIES["rounding"], name="math", intrinsics=tuple(
    (name, 3) for name in float_calls.BOUNDED) + tuple((name, 1) for name in float_calls.EXACT))
# What a generated corpus draws from (synth.corpus, synth.inject.matrix): fixed, so that program N of a seed stays
# the program its deviations and two toolkits' runs name. A policy added since joins the campaigns' mix alone
# (``populate.generated`` without ``mix``: every policy).
CORPUS_MIX = ("atomics", "bitwise", "default", "float", "loops", "narrow", "wide")


def pick(rng, weighted):
    """Return one choice from ((item, weight), ...)."""
    items = [i for i, _ in weighted]
    return rng.choices(items, weights=[w for _, w in weighted])[0]
