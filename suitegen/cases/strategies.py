"""Hypothesis strategies for the holes of oracle variants. Pure: no I/O.

Each strategy puts its simplest alternative first, so shrinking moves towards it.
A rule variant names strategies for its holes (``strategies = { cls = "class_specs" }``); each is
registered with ``@hooks.strategy`` under its function name.
"""
from __future__ import annotations

from typing import Sequence

from suitegen import hooks
from suitegen.cases import expressions
from suitegen.oracle.definitions import CTOR_KINDS, DTOR_KINDS


class _Strategies:
    """hypothesis's strategies, imported when the first strategy is made: a run that draws nothing does not import
    hypothesis (a quarter of a second of every command's start)."""

    def __getattr__(self, name: str):
        from hypothesis import strategies
        return getattr(strategies, name)


st = _Strategies()


@hooks.strategy
def memory_spaces() -> st.SearchStrategy[str]:
    """Variable memory spaces, spelled as template params; shrinks towards device."""
    return st.sampled_from(("device", "constant", "managed", "shared"))


@hooks.strategy
def static_local_spaces() -> st.SearchStrategy[str]:
    """Memory spaces of a function-scope static, "implicit" (no specifier) first."""
    return st.sampled_from(("implicit", "device", "constant", "managed", "shared"))


@hooks.strategy
def class_specs(max_depth: int = 2) -> st.SearchStrategy[dict]:
    """Class shapes as the guide's "empty constructor/destructor" definitions see them.

    Drawn as plain dicts (the form oracle params take). Shrinks towards the trivial class {}: every
    property's simplest value comes first and bases/members are absent by default.
    """
    def shape(children: st.SearchStrategy) -> st.SearchStrategy[dict]:
        return st.fixed_dictionaries({}, optional={
            "ctor": st.sampled_from(CTOR_KINDS),
            "dtor": st.sampled_from(DTOR_KINDS),
            "virtual": st.booleans(),
            "virtual_base": st.booleans(),
            "nsdmi": st.booleans(),
            "base": children,
            "member": children,
        })

    return st.recursive(st.just({}), shape, max_leaves=max_depth * 2)


@hooks.strategy
def parameter_block_sizes() -> st.SearchStrategy[list[int]]:
    """Byte sizes of one to three by-value kernel parameters; shrinks towards [1]."""
    return st.lists(st.integers(1, 40000), min_size=1, max_size=3)


# --- host/device agreement: expression trees as JSON-able nested lists ----------------------------
INT_OPS = ("+", "-", "*", "&", "|", "^", "<<", ">>", "/", "%")
FLOAT_OPS = ("+", "-", "*", "/")
# binary32 values around the subnormal range: inputs and results that a flush-to-zero device would change
SUBNORMALS = (1e-45, -1e-45, 1.1754942e-38, 5.877472e-39, 1.1754944e-38, 3e-39)


def _trees(leaves: st.SearchStrategy, ops: Sequence[str], max_leaves: int, sqrt: bool) -> st.SearchStrategy:
    def grow(kids):
        nodes = st.tuples(st.sampled_from(ops), kids, kids).map(list)
        return nodes | st.tuples(st.just("sqrt"), kids).map(list) if sqrt else nodes
    return st.recursive(leaves, grow, max_leaves=max_leaves)


@hooks.strategy
def uint_expressions(max_leaves: int = 8) -> st.SearchStrategy:
    """Expression trees over unsigned a, b and constants; shrinks towards the variable a."""
    return _trees(st.sampled_from(("a", "b")) | st.integers(0, 2**32 - 1), INT_OPS, max_leaves, sqrt=False)


@hooks.strategy
def int_expressions(max_leaves: int = 8) -> st.SearchStrategy:
    """Expression trees over int a, b and constants (C++20 semantics); shrinks towards the variable a."""
    return _trees(st.sampled_from(("a", "b")) | st.integers(-2**31, 2**31 - 1), INT_OPS, max_leaves, sqrt=False)


@hooks.strategy
def double_expressions(max_leaves: int = 6) -> st.SearchStrategy:
    """Expression trees over double a, b, finite constants and sqrt; shrinks towards the variable a."""
    leaves = st.sampled_from(("a", "b")) | st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
    return _trees(leaves, FLOAT_OPS, max_leaves, sqrt=True)


@hooks.strategy
def double_expressions_uncontracted(max_leaves: int = 6) -> st.SearchStrategy:
    """Double trees in which no product feeds an addition: the same under --fmad=true (the default)."""
    return double_expressions(max_leaves).filter(lambda t: not expressions.contractible(t))


@hooks.strategy
def float_expressions(max_leaves: int = 6) -> st.SearchStrategy:
    """Expression trees over float a, b, binary32 constants (subnormals too) and sqrt."""
    leaves = st.sampled_from(("a", "b")) | st.floats(-1e6, 1e6, width=32) | st.sampled_from(SUBNORMALS)
    return _trees(leaves, FLOAT_OPS, max_leaves, sqrt=True)


@hooks.strategy
def float_expressions_uncontracted(max_leaves: int = 6) -> st.SearchStrategy:
    """Float trees in which no product feeds an addition: the same under --fmad=true (the default)."""
    return float_expressions(max_leaves).filter(lambda t: not expressions.contractible(t))


@hooks.strategy
def uint_input_pairs() -> st.SearchStrategy:
    """Lists of (a, b) unsigned inputs; shrinks towards [[0, 0]]."""
    u32 = st.integers(0, 2**32 - 1)
    return st.lists(st.tuples(u32, u32).map(list), min_size=1, max_size=16)


@hooks.strategy
def int_input_pairs() -> st.SearchStrategy:
    """Lists of (a, b) int inputs; shrinks towards [[0, 0]]."""
    i32 = st.integers(-2**31, 2**31 - 1)
    return st.lists(st.tuples(i32, i32).map(list), min_size=1, max_size=16)


@hooks.strategy
def float_input_pairs() -> st.SearchStrategy:
    """Lists of (a, b) finite binary32 inputs, subnormals among them; shrinks towards [[0.0, 0.0]]."""
    f = st.floats(-1e9, 1e9, width=32) | st.sampled_from(SUBNORMALS)
    return st.lists(st.tuples(f, f).map(list), min_size=1, max_size=16)


@hooks.strategy
def double_input_pairs() -> st.SearchStrategy:
    """Lists of (a, b) finite double inputs; shrinks towards [[0.0, 0.0]]."""
    f = st.floats(-1e9, 1e9, allow_nan=False, allow_infinity=False)
    return st.lists(st.tuples(f, f).map(list), min_size=1, max_size=16)
