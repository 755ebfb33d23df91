"""The typed intermediate form of a generated program: expressions, statements, functions, tables.

Nodes are frozen dataclasses and say nothing about values: ``interp`` gives them meaning and
``emit`` spells them in CUDA C++. Each node that stands for an oracle construct carries the rule ids
it exercises in ``tags``.
"""
from __future__ import annotations

from dataclasses import dataclass

from suitegen.model import FROZEN
from suitegen.synth.semantics import BOOL, CType, I32, U32, common, result_type, unary_type


@dataclass(**FROZEN)
class Var:
    """A named local, parameter or loop counter."""

    name: str
    type: CType


# ---- expressions -------------------------------------------------------------------------------

@dataclass(**FROZEN)
class Lit:
    type: CType
    value: object


@dataclass(**FROZEN)
class Ref:
    var: Var

    @property
    def type(self) -> CType:
        return self.var.type


BUILTINS = {"tid": U32, "tx": U32, "bx": U32, "bdim": U32, "gdim": U32, "lane": U32, "warp": I32}


@dataclass(**FROZEN)
class Env:
    """A built-in value of the thread (``threadIdx.x`` and friends), read through the program's env."""

    name: str

    @property
    def type(self) -> CType:
        return BUILTINS[self.name]


@dataclass(**FROZEN)
class Un:
    op: str
    arg: object

    @property
    def type(self) -> CType:
        return unary_type(self.op, self.arg.type)


@dataclass(**FROZEN)
class Bin:
    op: str
    lhs: object
    rhs: object

    @property
    def type(self) -> CType:
        return result_type(self.op, self.lhs.type, self.rhs.type)


@dataclass(**FROZEN)
class Cast:
    type: CType
    arg: object


@dataclass(**FROZEN)
class Cond:
    test: object
    then: object
    other: object

    @property
    def type(self) -> CType:
        return common(self.then.type, self.other.type) if self.then.type != self.other.type else self.then.type


@dataclass(**FROZEN)
class Call:
    """A call of a generated function (or its template instance, member function or lambda)."""

    func: str
    args: tuple
    type: CType


@dataclass(**FROZEN)
class Intrin:
    """A helper of the prelude (``sg_min``, ``sg_funnel_l``, ...): device intrinsics with host fallbacks."""

    name: str
    args: tuple
    type: CType


@dataclass(**FROZEN)
class Load:
    """``table[index % len]``: a read of a namespace-scope array in some memory space."""

    table: str
    index: object
    type: CType


@dataclass(**FROZEN)
class Elem:
    """``array[index % len]`` of a local array."""

    array: Var
    size: int
    index: object

    @property
    def type(self) -> CType:
        return self.array.type


@dataclass(**FROZEN)
class Field:
    """``vec.x``: a component of a local vector-type value."""

    vec: Var
    kind: str  # e.g. "int4"
    comp: int
    type: CType


# ---- statements --------------------------------------------------------------------------------

@dataclass(**FROZEN)
class Decl:
    var: Var
    init: object
    const: bool = False


@dataclass(**FROZEN)
class Assign:
    """``var op= value`` (``op`` empty for plain assignment); the result converts back to var's type."""

    var: Var
    op: str
    value: object


@dataclass(**FROZEN)
class ArrayDecl:
    var: Var
    size: int
    inits: tuple  # expressions


@dataclass(**FROZEN)
class Store:
    array: Var
    size: int
    index: object
    value: object


@dataclass(**FROZEN)
class VecDecl:
    var: Var
    kind: str
    comps: tuple  # expressions, one per component


@dataclass(**FROZEN)
class GlobalStore:
    """``table[tid] = value``: each thread writes only the slot it owns of a writable ``__device__`` array."""

    table: str
    value: object


@dataclass(**FROZEN)
class If:
    test: object
    then: tuple
    other: tuple = ()


@dataclass(**FROZEN)
class For:
    """``for (int v = 0; v < count; ++v) body``: a counted loop (count may be 0, or per-thread ``bound``)."""

    var: Var
    count: int
    body: tuple
    bound: object = None  # an expression giving each thread its own trip count (< count), or None


@dataclass(**FROZEN)
class Switch:
    test: object
    cases: tuple  # ((label, body), ...), each case ends in break
    default: tuple = ()


@dataclass(**FROZEN)
class Out:
    """``o[slot] = sg_bits(value)``: one checked output of the thread."""

    slot: int
    value: object


@dataclass(**FROZEN)
class Return:
    value: object


# ---- the program -------------------------------------------------------------------------------

@dataclass(**FROZEN)
class Func:
    """A generated function: one of several spellings of the same semantics (``style``)."""

    name: str
    params: tuple  # Vars
    ret: CType
    body: tuple  # statements, ending in Return
    space: str = "__device__"  # or "__host__ __device__"
    inline: str = ""  # "", "__noinline__", "__forceinline__"
    style: str = "plain"  # plain, template, member, lambda, constexpr, recursive
    tags: tuple = ()


@dataclass(**FROZEN)
class Table:
    """A namespace-scope array: ``__constant__``, ``__device__`` (read-only or one slot per thread) or ``__managed__``."""

    name: str
    space: str
    type: CType
    values: tuple
    writable: bool = False


@dataclass(**FROZEN)
class Comm:
    """A device-only block of the kernel where threads exchange values (barrier phases, atomics, warp ops).

    ``kind`` names the pattern, ``slot`` the body output it starts from, ``out`` where its result goes;
    ``params`` holds the pattern's constants.
    """

    kind: str
    type: CType
    src: int
    out: int
    params: tuple = ()
    tags: tuple = ()


@dataclass(**FROZEN)
class Program:
    """One generated program: its functions, tables, body, and the kernel's thread-exchange blocks."""

    name: str
    seed: str
    blocks: int
    threads: int
    tables: tuple
    funcs: tuple
    body: tuple  # statements of sg body (per thread, host and device)
    outputs: int  # outputs the body writes
    comms: tuple = ()
    atomics: tuple = ()  # (op, slot of the body, type) global atomic reductions into the buffer's tail
    policy: str = "default"
    tags: tuple = ()

    @property
    def lanes(self) -> int:
        return self.blocks * self.threads

    @property
    def width(self) -> int:
        """Slots per thread: the body's outputs and the exchange blocks' results."""
        return self.outputs + len(self.comms)

    @property
    def cells(self) -> int:
        """The 64-bit cells of its output buffer: each thread's slots, then one per global atomic reduction."""
        return self.lanes * self.width + len(self.atomics)

    def func(self, name: str) -> Func:
        for f in self.funcs:
            if f.name == name:
                return f
        raise KeyError(name)


TRUE = Lit(type=BOOL, value=1)
ZERO = Lit(type=I32, value=0)
