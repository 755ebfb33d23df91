"""Hypothesis strategies for the building blocks the guide's rules talk about. Pure: no I/O.

Each strategy puts its simplest alternative first, so shrinking moves towards it.
A rule variant names strategies for its holes (``strategies = { cls = "class_specs" }``).
"""
from __future__ import annotations

from typing import Callable

from hypothesis import strategies as st

from suitegen.oracle.definitions import CTOR_KINDS, DTOR_KINDS

SCALARS = ("int", "unsigned", "char", "short", "long long", "unsigned long long", "float", "double", "bool")
EXTENDED_SCALARS = ("long double", "__int128")
VECTORS = ("int2", "int4", "float2", "float4", "double2", "uchar4", "short2", "uint3", "longlong2")


def scalar_types() -> st.SearchStrategy[str]:
    """Arithmetic types every device compiler must handle; shrinks towards int."""
    return st.sampled_from(SCALARS)


def extended_scalar_types() -> st.SearchStrategy[str]:
    """Host-compiler or restricted types a rule may name (long double, __int128)."""
    return st.sampled_from(EXTENDED_SCALARS)


def vector_types() -> st.SearchStrategy[str]:
    """Built-in vector types; shrinks towards int2."""
    return st.sampled_from(VECTORS)


def value_types() -> st.SearchStrategy[str]:
    """Scalars or vector types, scalars first."""
    return st.one_of(scalar_types(), vector_types())


def execution_spaces() -> st.SearchStrategy[str]:
    """Function execution spaces; shrinks towards __host__."""
    return st.sampled_from(("__host__", "__device__", "__host__ __device__", "__global__"))


def device_execution_spaces() -> st.SearchStrategy[str]:
    """Spaces whose functions run on the device (spelled as template params: device, global)."""
    return st.sampled_from(("device", "global"))


def memory_spaces() -> st.SearchStrategy[str]:
    """Variable memory spaces, spelled as template params; shrinks towards device."""
    return st.sampled_from(("device", "constant", "managed", "shared"))


def namespace_scope_memory_spaces() -> st.SearchStrategy[str]:
    """Memory spaces a namespace-scope variable may carry."""
    return st.sampled_from(("device", "constant", "managed"))


def static_local_spaces() -> st.SearchStrategy[str]:
    """Memory spaces of a function-scope static, "implicit" (no specifier) first."""
    return st.sampled_from(("implicit", "device", "constant", "managed", "shared"))


def declaration_contexts() -> st.SearchStrategy[str]:
    """Where a declaration sits: namespace scopes, class scope, function scopes, templates, lambdas."""
    return st.sampled_from(("namespace", "nested-namespace", "inline-namespace", "class", "host-function",
                            "device-function", "global-function", "hd-function", "static-local",
                            "function-template", "class-template", "lambda", "extended-lambda"))


def stds() -> st.SearchStrategy[str]:
    return st.sampled_from(("c++17", "c++11", "c++14", "c++20"))


def archs() -> st.SearchStrategy[str]:
    return st.sampled_from(("sm_90", "sm_80"))


def flag_sets() -> st.SearchStrategy[tuple[str, ...]]:
    return st.sampled_from(((), ("--extended-lambda",), ("--expt-relaxed-constexpr",), ("-rdc=true",)))


def configs() -> st.SearchStrategy[tuple[str, str, tuple[str, ...]]]:
    """(-std, arch, flags) triples; shrinks towards c++17, sm_90, no flags."""
    return st.tuples(stds(), archs(), flag_sets())


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


STRATEGIES: dict[str, Callable[[], st.SearchStrategy]] = {
    "scalar_types": scalar_types, "extended_scalar_types": extended_scalar_types,
    "vector_types": vector_types, "value_types": value_types,
    "execution_spaces": execution_spaces, "device_execution_spaces": device_execution_spaces,
    "memory_spaces": memory_spaces, "namespace_scope_memory_spaces": namespace_scope_memory_spaces,
    "static_local_spaces": static_local_spaces,
    "declaration_contexts": declaration_contexts, "class_specs": class_specs,
}


# --- host/device agreement: expression trees as JSON-able nested lists ----------------------------
INT_OPS = ("+", "-", "*", "&", "|", "^", "<<", ">>", "/", "%")
FLOAT_OPS = ("+", "-", "*", "/")


def uint_expressions(max_leaves: int = 8) -> st.SearchStrategy:
    """Expression trees over unsigned a, b and constants; shrinks towards the variable a."""
    leaves = st.sampled_from(("a", "b")) | st.integers(0, 2**32 - 1)
    return st.recursive(leaves, lambda kids: st.tuples(st.sampled_from(INT_OPS), kids, kids).map(list),
                        max_leaves=max_leaves)


def double_expressions(max_leaves: int = 6) -> st.SearchStrategy:
    """Expression trees over double a, b and finite constants; shrinks towards the variable a."""
    leaves = st.sampled_from(("a", "b")) | st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
    return st.recursive(leaves, lambda kids: st.tuples(st.sampled_from(FLOAT_OPS), kids, kids).map(list),
                        max_leaves=max_leaves)


def uint_input_pairs() -> st.SearchStrategy:
    """Lists of (a, b) unsigned inputs; shrinks towards [[0, 0]]."""
    u32 = st.integers(0, 2**32 - 1)
    return st.lists(st.tuples(u32, u32).map(list), min_size=1, max_size=16)


def double_input_pairs() -> st.SearchStrategy:
    """Lists of (a, b) finite double inputs; shrinks towards [[0.0, 0.0]]."""
    f = st.floats(-1e9, 1e9, allow_nan=False, allow_infinity=False)
    return st.lists(st.tuples(f, f).map(list), min_size=1, max_size=16)


def parameter_block_sizes() -> st.SearchStrategy[list[int]]:
    """Byte sizes of one to three by-value kernel parameters; shrinks towards [1]."""
    return st.lists(st.integers(1, 40000), min_size=1, max_size=3)


STRATEGIES.update(parameter_block_sizes=parameter_block_sizes, uint_expressions=uint_expressions, double_expressions=double_expressions,
                  uint_input_pairs=uint_input_pairs, double_input_pairs=double_input_pairs)
