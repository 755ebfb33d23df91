"""The guide's definitions as predicates, so generated programs get their expectation from them.

A rule variant names a predicate instead of a fixed expectation when the answer depends on
the program's parameters (is this constructor "empty"? which space does this closure get?).
Each predicate takes the variant's params and the config's condition Env and returns an Expect.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from suitegen import hooks
from suitegen.model import FROZEN, Expect, UsageError

CTOR_KINDS = ("implicit", "defaulted", "empty", "params", "init-list", "constexpr-init-list", "body", "declared")
DTOR_KINDS = ("implicit", "defaulted", "empty", "body", "declared")
SPACES = ("__host__", "__device__", "__host__ __device__", "__global__")


@dataclass(**FROZEN)
class ClassSpec:
    """A class type described by the properties the guide's "empty" definitions look at."""

    ctor: str = "implicit"  # one of CTOR_KINDS
    dtor: str = "implicit"  # one of DTOR_KINDS
    virtual: bool = False  # has a virtual member function
    virtual_base: bool = False  # derives virtually from an (empty, trivial) base
    nsdmi: bool = False  # has a non-static data member initialiser
    base: "ClassSpec | None" = None
    member: "ClassSpec | None" = None  # a non-static data member of class type

    def __post_init__(self):
        if self.ctor not in CTOR_KINDS:
            raise UsageError(f"ctor must be one of {CTOR_KINDS}, not {self.ctor!r}")
        if self.dtor not in DTOR_KINDS:
            raise UsageError(f"dtor must be one of {DTOR_KINDS}, not {self.dtor!r}")

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> "ClassSpec":
        """Build a spec from a (possibly nested) mapping, as oracle files write it."""
        known = {"ctor", "dtor", "virtual", "virtual_base", "nsdmi", "base", "member"}
        kw = {k: v for k, v in params.items() if k != "label"}  # label only names the variant
        unknown = set(kw) - known
        if unknown:
            raise UsageError(f"unknown class property {sorted(unknown)} (known: {sorted(known)})")
        for sub in ("base", "member"):
            if kw.get(sub) is not None:
                kw[sub] = cls.from_params(kw[sub])
        return cls(**kw)

    def parts(self) -> tuple["ClassSpec", ...]:
        return tuple(p for p in (self.base, self.member) if p is not None)

    @property
    def dynamic(self) -> bool:
        """Whether the class itself has virtual functions or virtual bases."""
        return self.virtual or self.virtual_base


def trivial_default_constructor(c: ClassSpec) -> bool:
    """Return whether the default constructor is trivial in the C++ sense."""
    return (c.ctor in ("implicit", "defaulted") and not c.dynamic and not c.nsdmi
            and all(trivial_default_constructor(p) for p in c.parts()))


def trivial_destructor(c: ClassSpec) -> bool:
    """Return whether the destructor is trivial in the C++ sense."""
    return c.dtor in ("implicit", "defaulted") and all(trivial_destructor(p) for p in c.parts())


def constructor_is_empty(c: ClassSpec) -> bool:
    """Return whether the guide considers the default constructor empty.

    Trivial, or: defined, without parameters, with an empty initialiser list and body, in a
    class with no virtual functions, virtual bases or member initialisers, whose bases and
    class-type members have empty default constructors.
    """
    if trivial_default_constructor(c):
        return True
    defined_and_bare = c.ctor in ("implicit", "defaulted", "empty")
    return (defined_and_bare and not c.dynamic and not c.nsdmi
            and all(constructor_is_empty(p) for p in c.parts()))


def destructor_is_empty(c: ClassSpec) -> bool:
    """Return whether the guide considers the destructor empty.

    Trivial, or: defined with an empty body, in a class with no virtual functions or virtual
    bases, whose bases and class-type members have empty destructors.
    """
    if trivial_destructor(c):
        return True
    defined_and_bare = c.dtor in ("implicit", "defaulted", "empty")
    return (defined_and_bare and not c.dynamic
            and all(destructor_is_empty(p) for p in c.parts()))


def lambda_execution_space(enclosing: str | None) -> str:
    """Return the execution space of a closure's member functions.

    It is that of the innermost function scope enclosing the closure type, with
    ``__global__`` counting as ``__device__``; with no enclosing function it is ``__host__``.
    """
    if enclosing is None or enclosing == "":
        return "__host__"
    if enclosing not in SPACES:
        raise UsageError(f"unknown execution space {enclosing!r}")
    return "__device__" if enclosing == "__global__" else enclosing


def implicit_member_space(callers: list[str]) -> str:
    """Return the execution space of an implicitly-declared member from its callers' spaces.

    It is the union of its callers' spaces, ``__global__`` callers counting as ``__device__``;
    with no callers it is ``__host__``.
    """
    host = device = False
    for space in callers:
        if space not in SPACES:
            raise UsageError(f"unknown execution space {space!r}")
        host |= "__host__" in space
        device |= space in ("__device__", "__global__", "__host__ __device__")
    if host and device:
        return "__host__ __device__"
    return "__device__" if device else "__host__"


# --- predicates named by oracle variants: (params, env) -> Expect -------------------------

@hooks.predicate
def device_variable_of_class(params: Mapping[str, Any], env) -> Expect:
    """A device-side variable of class type is allowed only if its ctor and dtor are empty."""
    spec = ClassSpec.from_params(params["cls"])
    ok = constructor_is_empty(spec) and destructor_is_empty(spec)
    return Expect.ACCEPT if ok else Expect.REJECT


GUIDE_PARAMETER_LIMIT = 4096  # bytes of __global__ parameters, as the seed states
PARAMETER_LIMIT_12_1 = 32764  # from CUDA 12.1 on Volta and later, as later editions state


@hooks.predicate
def kernel_parameters_fit(params: Mapping[str, Any], env) -> Expect:
    """A __global__ function's parameters must fit in the seed's 4 KB of parameter space."""
    return Expect.ACCEPT if sum(params["sizes"]) <= GUIDE_PARAMETER_LIMIT else Expect.REJECT


@hooks.predicate
def kernel_parameters_fit_32764(params: Mapping[str, Any], env) -> Expect:
    """A __global__ function's parameters must fit in 32,764 bytes (CUDA 12.1 and later, Volta and later)."""
    return Expect.ACCEPT if sum(params["sizes"]) <= PARAMETER_LIMIT_12_1 else Expect.REJECT


# --- selectors: which cases a known deviation covers, by their params ---------------------------

@hooks.selector
def plain_class_with_constexpr_constructor(params: Mapping[str, Any]) -> bool:
    """A class whose constructor is constexpr with a member initialiser, otherwise plain: no bases, no
    class-type members, no virtuals, a trivial destructor."""
    if "cls" not in params:
        return False
    c = ClassSpec.from_params(params["cls"])
    return (c.ctor == "constexpr-init-list" and not c.dynamic and not c.parts()
            and c.dtor in ("implicit", "defaulted"))


@hooks.selector
def plain_class_with_member_initializer(params: Mapping[str, Any]) -> bool:
    """A class whose only non-trivial property is a member initialiser.

    That is: no bases, no class-type members, an implicit or defaulted constructor, no virtuals,
    an empty destructor.

    nvcc 13.0 accepts exactly these as device variables (it can initialise them statically); add a
    base, a class member or a user-provided empty constructor and it rejects them as the guide says.
    """
    if "cls" not in params:
        return False
    c = ClassSpec.from_params(params["cls"])
    return (c.nsdmi and c.base is None and c.member is None and c.ctor in ("implicit", "defaulted")
            and not c.dynamic and destructor_is_empty(c))
