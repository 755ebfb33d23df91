"""Draws a program (structure, then populate), evaluating every node as it is made.

Undefined behaviour is avoided by construction, from concrete values (YARPGen's ``rebuild``): a node
whose value would be undefined in any thread is rewritten (``+`` becomes ``-`` or ``^``, a shift
amount is masked into range, a signed left operand is made unsigned) or replaced by a leaf. A
statement inside a loop is checked by running the whole loop in the model; one that would be
undefined on some trip is drawn again. The same seed and index always give the same program.
"""
from __future__ import annotations

import random
from typing import Sequence

from suitegen.model import Std
from suitegen.synth import interp, ir
from suitegen.synth import semantics as s
from suitegen.synth.interp import INTRINSICS, VECTORS
from suitegen.synth.policies import BASE, POLICIES, Policy, pick
from suitegen.synth.semantics import UB

INT_SPECIAL = (0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 63, 127, 128, 255, 256, 0x7FFF, 0x8000, 0xFFFF, 0x10000,
               0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x00FF00FF, 0xFF00FF00, 0x0F0F0F0F, 0xAAAAAAAA)
FLOAT_SPECIAL = (0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, 0.1, 1e10, -1e-10, 65504.0, 1.5e-5, 123.456, 0.3333333)
# Constructs that crash a compiler we test, kept out of programs so one known crash does not hide other
# findings (each is a filed finding; a policy with avoid_known_crashes=False draws them again):
# nvcc 13.0.88 cicc -O0 segfaults on a recursive __device__ function called in a loop that runs no trips.
KNOWN_CRASHES = ("cicc -O0: a recursive function called in a zero-trip loop",)
RULE_TAGS = {
    "noinline": ("inlining-specifiers/noinline",), "forceinline": ("inlining-specifiers/forceinline",),
    "template": ("global-functions-and-templates/device-template",), "member": ("function-members/device",),
    "lambda": ("lambdas/device-lambda",), "constexpr": ("constexpr-functions/device-call",),
    "recursive": ("recursion/device-recursion",), "hd": ("execution-space-specifiers/host-device",),
    "__constant__": ("variable-memory-space-specifiers/constant",),
    "__device__": ("variable-memory-space-specifiers/device",),
    "__managed__": ("managed/device-access",), "vector": ("vector-types/make-functions",),
    "env": ("built-in-variables/thread-index",),
}


class Retry(Exception):
    """The statement being drawn could not be made well defined: draw another."""


class Scope:
    """What a block being generated can see and where it runs: variables, the frame, the active lanes."""

    def __init__(self, frame: dict, mask: list, vars_: list, space: str, in_loop: bool, depth: int,
                 in_function: bool = False):
        self.frame = frame
        self.mask = mask
        self.vars = vars_
        self.space = space
        self.in_loop = in_loop
        self.depth = depth
        self.in_function = in_function  # a generated function: no thread env, no per-thread tables
        self.no_recursion = False  # inside a loop that never runs (see KNOWN_CRASHES)

    def child(self, mask=None, in_loop=None) -> "Scope":
        kid = Scope(self.frame, self.mask if mask is None else mask, list(self.vars), self.space,
                    self.in_loop if in_loop is None else in_loop, self.depth + 1, self.in_function)
        kid.no_recursion = self.no_recursion
        return kid


def _copy_frame(frame: dict) -> dict:
    return {k: list(v) if isinstance(v, list) else v for k, v in frame.items()}


class Generator:
    """Builds one program from a seed string and a policy."""

    def __init__(self, seed: str, policy: Policy = BASE, std: Std | None = None):
        self.rng = random.Random(seed)
        self.seed = seed
        self.policy = policy
        self.std = std  # the dialect the program must be valid in (None: the newest the generator uses)
        self.counter = 0
        self.funcs: list[ir.Func] = []
        self.tables: list[ir.Table] = []
        self.tags: set[str] = set()
        p = policy
        self.blocks = self.rng.choice(p.blocks)
        self.threads = self.rng.choice(p.threads)
        self.lanes = self.blocks * self.threads
        self.written: set[str] = set()

    # ---- helpers
    def name(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def _program(self, body) -> ir.Program:
        return ir.Program(name="p", seed=self.seed, blocks=self.blocks, threads=self.threads,
                          tables=tuple(self.tables), funcs=tuple(self.funcs), body=tuple(body), outputs=0)

    def _sync(self) -> interp.Machine:
        """Return the model machine, seeing every function and table made so far."""
        m = self._m
        m.funcs = {f.name: f for f in self.funcs}
        m.tables = {t.name: t for t in self.tables}
        m.steps = 0
        m.depth = 0
        return m

    def eval(self, node, scope: Scope) -> list:
        return self._sync().eval(node, scope.frame, scope.mask)

    def ok(self, node, scope: Scope) -> bool:
        try:
            self.eval(node, scope)
            return True
        except (UB, ZeroDivisionError, OverflowError):
            return False

    def a_type(self, floats: bool = True) -> s.CType:
        for _ in range(8):
            t = pick(self.rng, self.policy.types)
            if floats or not t.floating:
                return t
        return s.U32

    def literal(self, t: s.CType) -> ir.Lit:
        r = self.rng
        if t.is_bool:
            return ir.Lit(type=t, value=r.randint(0, 1))
        if t.floating:
            v = r.choice(FLOAT_SPECIAL) if r.random() < self.policy.special else r.uniform(-1000, 1000)
            if r.random() < 0.3:
                v = float(r.randint(-300, 300))
            return ir.Lit(type=t, value=s.convert(v, s.F64, t))
        if r.random() < self.policy.special:
            v = r.choice(INT_SPECIAL + (t.lo, t.hi, t.lo + 1, t.hi - 1))
            if r.random() < 0.3:
                v = -v
        else:
            v = r.choice((r.randint(-20, 20), r.randint(t.lo, t.hi)))
        return ir.Lit(type=t, value=s.wrap(t, v))

    # ---- expressions
    def expr(self, scope: Scope, depth: int, want: s.CType | None = None):
        """Return a well-defined expression (of type ``want`` if given, through a cast where needed)."""
        e = self._expr(scope, depth)
        if want is not None and e.type != want:
            e = self._fix(ir.Cast(type=want, arg=e), scope, want)
        return e

    def _fix(self, node, scope: Scope, t: s.CType):
        """Return ``node`` if it is well defined here, else a leaf of type ``t``."""
        return node if self.ok(node, scope) else self.literal(t)

    def _expr(self, scope: Scope, depth: int):
        p, r = self.policy, self.rng
        if depth <= 0 or r.random() < 0.2:
            return self.leaf(scope)
        kind = pick(r, p.nodes)
        if kind == "bin":
            return self.binary(scope, depth)
        if kind == "un":
            arg = self._expr(scope, depth - 1)
            op = r.choice(s.UNARY)
            if arg.type.floating and op == "~":
                op = "-"
            node = ir.Un(op=op, arg=arg)
            if self.ok(node, scope):
                return node
            return self._fix(ir.Un(op="~" if not arg.type.floating else "!", arg=arg), scope, s.BOOL)
        if kind == "cast":
            arg = self._expr(scope, depth - 1)
            node = ir.Cast(type=self.a_type(), arg=arg)
            return node if self.ok(node, scope) else arg
        if kind == "cond":
            test = self.expr(scope, depth - 1)
            a, b = self._expr(scope, depth - 1), self._expr(scope, depth - 1)
            if a.type.floating != b.type.floating and r.random() < 0.5:
                b = ir.Cast(type=a.type, arg=b) if self.ok(ir.Cast(type=a.type, arg=b), scope) else a
            node = ir.Cond(test=test, then=a, other=b)
            return node if self.ok(node, scope) else a
        if kind == "intrin":
            name = pick(r, p.intrinsics)
            ret, types, _ = INTRINSICS[name]
            args = tuple(self.expr(scope, depth - 1, t) for t in types)
            node = ir.Intrin(name=name, args=args, type=ret)
            return node if self.ok(node, scope) else args[0]
        if kind == "call" and len(self.funcs) < p.max_funcs and scope.depth < 6:
            return self.call(scope, depth)
        return self.binary(scope, depth)

    def leaf(self, scope: Scope):
        r = self.rng
        kind = pick(r, self.policy.leaves)
        scalars = [v for v in scope.vars if not isinstance(v, tuple)]
        arrays = [v for v in scope.vars if isinstance(v, tuple) and v[0] == "array"]
        vectors = [v for v in scope.vars if isinstance(v, tuple) and v[0] == "vector"]
        if kind == "var" and scalars:
            return ir.Ref(var=r.choice(scalars))
        if kind == "env" and not scope.in_function:
            self.tags.update(RULE_TAGS["env"])
            return ir.Env(name=r.choice(sorted(ir.BUILTINS)))
        if kind == "table" and scope.space == "__device__":
            if scope.in_function and not [t for t in self.tables if not t.writable]:
                return self.literal(self.a_type())
            return self.table_read(scope)
        if kind == "elem" and arrays:
            _, var, size = r.choice(arrays)
            idx = self.expr(scope, 1)
            if idx.type.floating:
                idx = ir.Lit(type=s.U32, value=r.randint(0, 100))
            return ir.Elem(array=var, size=size, index=idx)
        if kind == "field" and vectors:
            _, var, vk = r.choice(vectors)
            comp_t, n = VECTORS[vk]
            return ir.Field(vec=var, kind=vk, comp=r.randrange(n), type=comp_t)
        return self.literal(self.a_type())

    def table_read(self, scope: Scope):
        r = self.rng
        readable = [t for t in self.tables if not t.writable or (t.name in self.written and not scope.in_function)]
        if not readable or (len(self.tables) < 4 and r.random() < 0.5):
            space = r.choice(("__constant__", "__device__", "__managed__"))
            t = self.a_type()
            n = r.choice((4, 8, 16))
            table = ir.Table(name=self.name("t"), space=space, type=t,
                             values=tuple(self.literal(t).value for _ in range(n)))
            self.tables.append(table)
            self.tags.update(RULE_TAGS[space])
            readable = [table]
        table = r.choice(readable)
        if table.writable:
            return ir.Load(table=table.name, index=ir.Env(name="tid"), type=table.type)
        idx = self.expr(scope, 1)
        if idx.type.floating:
            idx = ir.Env(name="tid") if not scope.in_function else self.literal(s.U32)
        return ir.Load(table=table.name, index=idx, type=table.type)

    def binary(self, scope: Scope, depth: int):
        r = self.rng
        lhs, rhs = self._expr(scope, depth - 1), self._expr(scope, depth - 1)
        op = pick(r, self.policy.ops)
        for attempt in self._rebuilds(op, lhs, rhs):
            node = attempt
            try:
                node.type
            except TypeError:
                continue
            if self.ok(node, scope):
                return node
        return lhs

    def _rebuilds(self, op, lhs, rhs):
        """Yield ``lhs op rhs`` and the rewrites tried when it is undefined (YARPGen's rebuild)."""
        yield ir.Bin(op=op, lhs=lhs, rhs=rhs)
        if op in s.SHIFTS and lhs.type.integral and rhs.type.integral:
            width = s.promote(lhs.type).bits
            amount = ir.Bin(op="&", lhs=ir.Cast(type=s.U32, arg=rhs), rhs=ir.Lit(type=s.U32, value=width - 1))
            yield ir.Bin(op=op, lhs=lhs, rhs=amount)
            unsigned = s.U64 if s.promote(lhs.type).bits == 64 else s.U32
            yield ir.Bin(op=op, lhs=ir.Cast(type=unsigned, arg=lhs), rhs=amount)
        swaps = {"+": ("-", "^"), "-": ("+", "^"), "*": ("-", "+", "^"), "/": ("*", "-", "^"), "%": ("*", "-", "^")}
        for alt in swaps.get(op, ()):
            yield ir.Bin(op=alt, lhs=lhs, rhs=rhs)
        if lhs.type.integral and rhs.type.integral:
            yield ir.Bin(op="^", lhs=lhs, rhs=rhs)
            yield ir.Bin(op="&", lhs=lhs, rhs=rhs)

    # ---- functions
    def call(self, scope: Scope, depth: int):
        """Make a new function for this call site, from the arguments' values here, and return the call."""
        r = self.rng
        style = pick(r, self.policy.func_styles)
        hd = scope.space != "__device__" or r.random() < 0.4
        space = "__host__ __device__" if hd else "__device__"
        if style == "recursive" and scope.no_recursion:
            style = "plain"
        if style == "recursive":
            return self.recursive(scope, space)
        n = r.randint(1, 3)
        if style == "template":
            t = self.a_type()
            types = [t] * n
            ret = t
        else:
            types = [self.a_type() for _ in range(n)]
            ret = self.a_type()
        args = tuple(self.expr(scope, depth - 1, t) for t in types)
        params = tuple(ir.Var(name=self.name("p"), type=t) for t in types)
        name = self.name("f")
        arg_vals = [self.eval(a, scope) for a in args]
        frame = {p.name: v for p, v in zip(params, arg_vals)}
        inner = Scope(frame, list(scope.mask), list(params), space, False, scope.depth + 1, True)
        inner.no_recursion = scope.no_recursion
        body = self.block(inner, r.randint(1, 4))
        result = self.expr(inner, max(1, depth - 1), ret)
        inline = {"noinline": "__noinline__", "forceinline": "__forceinline__"}.get(style, "")
        if style == "constexpr" and not (_constexpr_ok(body, result) and (self.std is None or self.std >= dialect_of(body))):
            style = "plain"
        func = ir.Func(name=name, params=params, ret=ret, body=(*body, ir.Return(value=result)), space=space,
                       inline=inline, style=style, tags=RULE_TAGS.get(style, ()) + (RULE_TAGS["hd"] if hd else ()))
        self.funcs.append(func)
        node = ir.Call(func=name, args=args, type=ret)
        if not self.ok(node, scope):
            self.funcs.remove(func)
            return self.literal(ret)
        self.tags.update(func.tags)
        return node

    def recursive(self, scope: Scope, space: str):
        """``f(d, x) = d <= 0 ? x : f(d - 1, x op k)``, called with a known depth (the model checks every step:
        an ``unsigned short`` product promotes to int and can overflow)."""
        r = self.rng
        t = r.choice((s.U32, s.U64, s.U16))
        d, x = ir.Var(name=self.name("p"), type=s.I32), ir.Var(name=self.name("p"), type=t)
        name = self.name("f")
        op = r.choice(("+", "^", "*"))
        k = self.literal(t)
        step = ir.Cast(type=t, arg=ir.Bin(op=op, lhs=ir.Ref(var=x), rhs=k))
        body = (ir.If(test=ir.Bin(op="<=", lhs=ir.Ref(var=d), rhs=ir.ZERO), then=(ir.Return(value=ir.Ref(var=x)),)),
                ir.Return(value=ir.Call(func=name, args=(ir.Bin(op="-", lhs=ir.Ref(var=d), rhs=ir.Lit(type=s.I32, value=1)), step),
                                        type=t)))
        func = ir.Func(name=name, params=(d, x), ret=t, body=body, space=space, style="recursive",
                       tags=RULE_TAGS["recursive"])
        self.funcs.append(func)
        node = ir.Call(func=name, args=(ir.Lit(type=s.I32, value=r.randint(0, 6)), self.expr(scope, 1, t)), type=t)
        if not self.ok(node, scope):
            self.funcs.remove(func)
            return self.literal(t)
        self.tags.update(func.tags)
        return node

    # ---- statements
    def block(self, scope: Scope, count: int) -> list:
        """Draw ``count`` statements into ``scope``, running each in the model as it is accepted."""
        out = []
        for _ in range(count):
            stmt = self.statement(scope)
            if stmt is not None:
                out.append(stmt)
        return out

    def statement(self, scope: Scope):
        for _ in range(4):
            kind = pick(self.rng, self.policy.statements)
            try:
                stmt, declared = self._statement(kind, scope)
            except Retry:
                continue
            if isinstance(stmt, _Done):  # its branches already ran as they were drawn
                return stmt.stmt
            if self._run(stmt, scope):
                scope.vars.extend(declared)
                if isinstance(stmt, ir.GlobalStore):
                    self.written.add(stmt.table)
                return stmt
            if isinstance(stmt, ir.GlobalStore):  # its table goes with it
                self.tables = [t for t in self.tables if t.name != stmt.table]
        return None

    def _run(self, stmt, scope: Scope) -> bool:
        """Run an accepted statement on the scope's frame; a statement that is undefined is refused."""
        saved = _copy_frame(scope.frame)
        written = {k: list(v) for k, v in self._m.written.items()}
        try:
            live = self._sync().stmt(stmt, scope.frame, scope.mask)
            if live != scope.mask:
                raise UB("a statement returned")
            return True
        except (UB, ZeroDivisionError, OverflowError):
            scope.frame.clear()
            scope.frame.update(saved)
            self._m.written = written
            return False

    def _statement(self, kind: str, scope: Scope):
        r, p = self.rng, self.policy
        if kind == "decl":
            t = self.a_type()
            init = self.expr(scope, p.depth, t)
            const = _constant(init) and r.random() < 0.5
            var = ir.Var(name=self.name("k" if const else "v"), type=t)
            if const:
                self.tags.add("constexpr-variables/device-use")
            return ir.Decl(var=var, init=init, const=const), [var]
        if kind == "assign":
            targets = [v for v in scope.vars if isinstance(v, ir.Var) and not v.name.startswith(("i", "p", "k"))]
            if not targets:
                raise Retry()
            var = r.choice(targets)
            op = r.choice(("", "+", "-", "*", "^", "|", "&", "<<", ">>"))
            if var.type.floating and op not in ("", "+", "-", "*"):
                op = "+"
            value = self.expr(scope, p.depth - 1)
            if op and value.type.floating and not var.type.floating:
                value = ir.Cast(type=var.type, arg=value)
            if op in s.SHIFTS:
                value = ir.Bin(op="&", lhs=ir.Cast(type=s.U32, arg=value),
                               rhs=ir.Lit(type=s.U32, value=s.promote(var.type).bits - 1))
            return ir.Assign(var=var, op=op, value=value), []
        if kind in ("if", "for", "switch") and scope.depth >= p.block_depth:
            raise Retry()
        if kind == "if":
            test = self.expr(scope, 2, s.BOOL)
            vals = self.eval(test, scope)
            tm = [m and bool(v) for v, m in zip(vals, scope.mask)]
            fm = [m and not v for v, m in zip(vals, scope.mask)]
            if scope.in_loop:
                return ir.If(test=test, then=tuple(self._loop_free(scope, 2)), other=()), []
            then = self.block(scope.child(mask=tm), r.randint(1, 4)) if any(tm) else []
            other = self.block(scope.child(mask=fm), r.randint(0, 3)) if any(fm) else []
            return _Done(ir.If(test=test, then=tuple(then), other=tuple(other))), []
        if kind == "for":
            return self.loop(scope), []
        if kind == "switch":
            test = self.expr(scope, 2)
            if test.type.floating:
                test = ir.Cast(type=s.I32, arg=test)
            k = r.choice((2, 4, 8))
            test = ir.Bin(op="&", lhs=ir.Cast(type=s.U32, arg=test), rhs=ir.Lit(type=s.U32, value=k - 1))
            labels = sorted(r.sample(range(k), r.randint(1, min(3, k))))
            cases = tuple((lab, tuple(self._loop_free(scope, 2))) for lab in labels)
            return ir.Switch(test=test, cases=cases, default=tuple(self._loop_free(scope, 1))), []
        if kind == "array":
            t = self.a_type()
            size = r.choice((2, 4, 8))
            var = ir.Var(name=self.name("a"), type=t)
            inits = tuple(self.expr(scope, 1, t) for _ in range(size))
            self.tags.add("cxx11-features/local-arrays")
            return ir.ArrayDecl(var=var, size=size, inits=inits), [("array", var, size)]
        if kind == "vector":
            vk = r.choice(sorted(VECTORS))
            comp_t, n = VECTORS[vk]
            var = ir.Var(name=self.name("q"), type=comp_t)
            self.tags.update(RULE_TAGS["vector"])
            return ir.VecDecl(var=var, kind=vk, comps=tuple(self.expr(scope, 2, comp_t) for _ in range(n))), \
                [("vector", var, vk)]
        if kind == "global":
            if scope.depth > 0 or scope.in_function:
                raise Retry()
            t = self.a_type()
            table = ir.Table(name=self.name("w"), space="__device__", type=t, values=(), writable=True)
            self.tables.append(table)
            self._m.tables[table.name] = table
            self._m.written[table.name] = [None] * self.lanes
            return ir.GlobalStore(table=table.name, value=self.expr(scope, p.depth - 1, t)), []
        raise Retry()

    def _loop_free(self, scope: Scope, most: int) -> list:
        """Draw up to ``most`` assignments for a body that runs on lanes or trips not known here."""
        out = []
        for _ in range(self.rng.randint(0, most)):
            try:
                stmt, _ = self._statement("assign", scope)
            except Retry:
                continue
            out.append(stmt)
        return out

    def loop(self, scope: Scope):
        """A counted loop whose body is checked by running the whole loop in the model."""
        r = self.rng
        var = ir.Var(name=self.name("i"), type=s.I32)
        count = r.choice(self.policy.loop_counts)
        bound = None
        if r.random() < 0.25 and not scope.in_function:
            bound = ir.Bin(op="&", lhs=ir.Env(name="tx"), rhs=ir.Lit(type=s.U32, value=3))
            count = max(count, 4)
        inner = scope.child(in_loop=True)
        inner.no_recursion = scope.no_recursion or (count == 0 and self.policy.avoid_known_crashes)
        inner.vars.append(var)
        probe = _copy_frame(scope.frame)
        probe[var.name] = [0] * self.lanes
        inner.frame = probe
        body: list = []
        for _ in range(r.randint(1, 4)):
            kind = r.choice(("assign", "assign", "decl", "if"))
            try:
                stmt, declared = self._statement(kind, inner)
            except Retry:
                continue
            if isinstance(stmt, _Done):
                stmt = stmt.stmt
            trial = ir.For(var=var, count=count, body=(*body, stmt), bound=bound)
            test_frame = _copy_frame(scope.frame)
            try:
                self._sync().stmt(trial, test_frame, scope.mask)
            except (UB, ZeroDivisionError, OverflowError):
                continue
            body.append(stmt)
            if isinstance(stmt, ir.Decl):
                inner.frame[stmt.var.name] = test_frame.get(stmt.var.name) or [0] * self.lanes
                self._run(stmt, inner)
            inner.vars.extend(declared)
        self.tags.add("statements/loops")
        return ir.For(var=var, count=count, body=tuple(body), bound=bound)

    # ---- the program
    def program(self, index: int = 0, name: str = "p") -> ir.Program:
        r, p = self.rng, self.policy
        outputs = r.randint(*p.outputs)
        self._m = interp.Machine(self._program(()))
        scope = Scope({}, [True] * self.lanes, [], "__device__", False, 0)
        body = []
        for _ in range(r.randint(*p.body_statements)):
            stmt = self.statement(scope)
            if stmt is not None:
                body.append(stmt)
        scalars = [v for v in scope.vars if isinstance(v, ir.Var)]
        outs = []
        for slot in range(outputs):
            value = ir.Ref(var=scalars[-1 - slot]) if slot < len(scalars) and r.random() < 0.7 else self.expr(scope, 2)
            if not self.ok(value, scope):
                value = self.literal(s.U32)
            outs.append(ir.Out(slot=slot, value=value))
        comms = []
        for k in range(r.randint(*p.n_comms)):
            kind = pick(r, p.comms)
            comms.append(self.comm(kind, r.randrange(outputs), outputs + k))
        atomics = tuple((r.choice(("add", "xor", "or", "max")), r.randrange(outputs)) for _ in range(r.randint(*p.atomics)))
        prog = ir.Program(name=name, seed=self.seed, blocks=self.blocks, threads=self.threads, tables=tuple(self.tables),
                          funcs=tuple(self.funcs), body=(*body, *outs), outputs=outputs, comms=tuple(comms),
                          atomics=atomics, policy=p.name, tags=tuple(sorted(self.tags)))
        return prog

    def comm(self, kind: str, src: int, out: int) -> ir.Comm:
        from suitegen.synth.exchange import TAGS
        r = self.rng
        t = r.choice((s.U32, s.U64)) if kind not in ("reduce",) else s.U32
        if kind in ("barrier", "uniform-barrier"):
            params = (r.choice((1, 3, 5, 7, 31)), r.randrange(64))
        elif kind == "block-atomic":
            op = r.choice(("add", "xor", "or", "and", "min", "max"))
            init = {"and": t.hi, "min": t.hi}.get(op, r.randrange(100))
            params = (op, init, r.choice((1, 1, 2, 3)), r.randrange(1, 9))
        elif kind == "section":
            params = (r.randrange(self.threads), r.randrange(1, 1000), r.randrange(1000))
        elif kind == "shfl":
            mode = r.choice(("idx", "xor", "down", "up"))
            params = (mode, r.choice((1, 2, 3, 5, 16)) if mode != "idx" else r.choice((1, 3, 5, 7)), r.randrange(32))
        elif kind == "vote":
            params = (r.choice(("ballot", "any", "all")), r.choice((1, 2, 0x100, 0x80000000, 0xFF)))
        else:
            params = (r.choice(("add", "min", "max", "and", "or", "xor")),)
        return ir.Comm(kind=kind, type=t, src=src, out=out, params=params, tags=TAGS[kind])


class _Done:
    """A statement whose parts already ran in the model as they were drawn (an if with its branches)."""

    def __init__(self, stmt):
        self.stmt = stmt


def _constant(e) -> bool:
    """Return whether an expression is made of literals only (a constant expression)."""
    if isinstance(e, ir.Lit):
        return True
    if isinstance(e, ir.Un):
        return _constant(e.arg)
    if isinstance(e, ir.Cast):  # nvcc 13.0 refuses a constant float-to-integer conversion it cannot fold
        return _constant(e.arg) and not (e.arg.type.floating and e.type.integral)
    if isinstance(e, ir.Bin):
        return _constant(e.lhs) and _constant(e.rhs)
    return False


def _constexpr_ok(body, result) -> bool:
    """Return whether a function body may be spelled constexpr (C++17): no helpers, tables or calls."""
    bad = (ir.Intrin, ir.Load, ir.Env, ir.Call, ir.Elem, ir.Field, ir.ArrayDecl, ir.Store, ir.VecDecl,
           ir.GlobalStore, ir.Switch)
    seen = []

    def walk(n):
        if isinstance(n, bad):
            seen.append(n)
        if hasattr(n, "__dataclass_fields__"):
            for f in n.__dataclass_fields__:
                walk(getattr(n, f))
        elif isinstance(n, (tuple, list)):
            for x in n:
                walk(x)
    walk(body)
    walk(result)
    return not seen


def dialect_of(body) -> Std:
    """Return the oldest dialect in which a constexpr function may have this body: C++11 allows only its
    ``return`` statement, C++14 declarations and assignments before it ([dcl.constexpr])."""
    return Std.CXX11 if not body else Std.CXX14


def dialect(p: ir.Program) -> Std:
    """Return the oldest -std level a program is valid in (what its constructs need)."""
    return max((dialect_of(f.body[:-1]) for f in p.funcs if f.style == "constexpr"), default=Std.CXX11)


def generate(seed: str, index: int, policy: str | None = None, std: Std | None = None,
             mix: Sequence[str] | None = None) -> ir.Program:
    """Return program ``index`` of a campaign seeded ``seed``: the same arguments always give the same program.
    ``std``: draw it valid in that dialect (the same program but for what that dialect lacks). Without ``policy``,
    one of ``mix`` (every policy where not given; a corpus gives ``policies.CORPUS_MIX``)."""
    return generated(seed, index, policy, std, mix)[0]


def generated(seed: str, index: int, policy: str | None = None, std: Std | None = None,
              mix: Sequence[str] | None = None) -> tuple[ir.Program, tuple]:
    """Return ``generate``'s program and what the model computed for it (``interp.run``'s answer, which drawing it
    needed: ``reduce.expected`` takes it instead of running the model again)."""
    rng = random.Random(f"{seed}:{index}:policy")
    pol = POLICIES[policy] if policy else POLICIES[rng.choice(sorted(mix or POLICIES))]
    for attempt in range(8):
        try:
            prog = Generator(f"{seed}:{index}" + (f":{attempt}" if attempt else ""), pol, std).program(index, name=f"p{index}")
            return prog, interp.run(prog)
        except (UB, ZeroDivisionError, OverflowError):
            continue  # the model found a path generation did not check: draw the program again
    raise RuntimeError(f"program {index} of seed {seed!r}: no well-defined program in 8 draws")
