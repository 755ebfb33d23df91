"""Runs a program's model: every thread at once (lanes), so each value the program computes is known.

This is the single definition of what a generated program means. The generator calls it as it
builds (a node whose value would be undefined is rewritten), the reducer calls it on every candidate,
and the expected outputs come from it. Control flow is executed with per-lane masks, so a guarded
operation (``if (b != 0) a / b``) is only evaluated where its guard holds.
"""
from __future__ import annotations

from suitegen.synth import float_calls, ir
from suitegen.synth.semantics import (F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, UB, CType, binary_lanes,
                                      bits_of, convert, convert_lanes, promote, unary_lanes, wrap)

MAX_DEPTH = 24  # calls deep: recursion in a generated program is bounded well below this
MAX_STEPS = 200_000  # expression evaluations per program: a guard against runaway loops in a candidate


def _popc(v: int) -> int:
    return bin(v).count("1")


def _clz(v: int, bits: int) -> int:
    return bits - v.bit_length()


def _brev(v: int, bits: int) -> int:
    return int(format(v, f"0{bits}b")[::-1], 2)


def _ffs(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return (v & -v).bit_length()


def _byte_perm(x: int, y: int, s: int) -> int:
    pool = (y << 32) | x
    out = 0
    for n in range(4):
        sel = (s >> (4 * n)) & 7
        out |= ((pool >> (8 * sel)) & 0xFF) << (8 * n)
    return out


def _mulhi(a: int, b: int, t: CType) -> int:
    return wrap(t, (a * b) >> t.bits)


def _abs(a: int, t: CType) -> int:
    if a == t.lo:
        raise UB("abs of the minimum")
    return abs(a)


# name -> (result type, argument types, model). Arguments arrive already converted to their types.
INTRINSICS = {
    "sg_min_i": (I32, (I32, I32), lambda a, b: min(a, b)),
    "sg_max_i": (I32, (I32, I32), lambda a, b: max(a, b)),
    "sg_min_u": (U32, (U32, U32), lambda a, b: min(a, b)),
    "sg_max_u": (U32, (U32, U32), lambda a, b: max(a, b)),
    "sg_min_ll": (I64, (I64, I64), lambda a, b: min(a, b)),
    "sg_max_ull": (U64, (U64, U64), lambda a, b: max(a, b)),
    "sg_abs_i": (I32, (I32,), lambda a: _abs(a, I32)),
    "sg_abs_ll": (I64, (I64,), lambda a: _abs(a, I64)),
    "sg_funnel_l": (U32, (U32, U32, U32), lambda lo, hi, s: (((hi << 32) | lo) << (s & 31) >> 32) & 0xFFFFFFFF),
    "sg_funnel_r": (U32, (U32, U32, U32), lambda lo, hi, s: (((hi << 32) | lo) >> (s & 31)) & 0xFFFFFFFF),
    "sg_funnel_lc": (U32, (U32, U32, U32), lambda lo, hi, s: (((hi << 32) | lo) << min(s, 32) >> 32) & 0xFFFFFFFF),
    "sg_byte_perm": (U32, (U32, U32, U32), _byte_perm),
    "sg_umulhi": (U32, (U32, U32), lambda a, b: _mulhi(a, b, U32)),
    "sg_mulhi": (I32, (I32, I32), lambda a, b: _mulhi(a, b, I32)),
    "sg_umul64hi": (U64, (U64, U64), lambda a, b: _mulhi(a, b, U64)),
    "sg_mul64hi": (I64, (I64, I64), lambda a, b: _mulhi(a, b, I64)),
    "sg_popc": (I32, (U32,), _popc),
    "sg_popcll": (I32, (U64,), _popc),
    "sg_clz": (I32, (U32,), lambda v: _clz(v, 32)),
    "sg_clzll": (I32, (U64,), lambda v: _clz(v, 64)),
    "sg_brev": (U32, (U32,), lambda v: _brev(v, 32)),
    "sg_brevll": (U64, (U64,), lambda v: _brev(v, 64)),
    "sg_ffs": (I32, (U32,), lambda v: _ffs(v, 32)),
    "sg_rotl": (U32, (U32, U32), lambda x, n: ((x << (n & 31)) | (x >> ((32 - (n & 31)) & 31))) & 0xFFFFFFFF
                if n & 31 else x),
    "sg_sext8": (I32, (I32,), lambda x: ((x & 0xFF) ^ 0x80) - 0x80),
    "sg_sext16": (I32, (I32,), lambda x: ((x & 0xFFFF) ^ 0x8000) - 0x8000),
    **float_calls.INTRINSICS,
}

VECTORS = {  # vector type -> (component type, components)
    "char4": (I8, 4), "uchar4": (U8, 4), "short2": (I16, 2), "ushort4": (U16, 4),
    "int2": (I32, 2), "int4": (I32, 4), "uint2": (U32, 2), "uint4": (U32, 4),
    "longlong2": (I64, 2), "ulonglong2": (U64, 2), "float2": (F32, 2), "float4": (F32, 4), "double2": (F64, 2),
}


def env(program: ir.Program) -> dict[str, list[int]]:
    """Return each built-in value (``ir.BUILTINS``) of every thread, in thread order."""
    lanes, n, b = program.lanes, program.threads, program.blocks
    return {"tid": list(range(lanes)), "tx": [i % n for i in range(lanes)], "bx": [i // n for i in range(lanes)],
            "bdim": [n] * lanes, "gdim": [b] * lanes, "lane": [i % 32 for i in range(lanes)], "warp": [32] * lanes}


class Machine:
    """The state of one program's threads while it runs in the model."""

    def __init__(self, program: ir.Program):
        self.program = program
        self.lanes = program.lanes
        self.funcs = {f.name: f for f in program.funcs}
        self.tables = {t.name: t for t in program.tables}
        self.written = {t.name: [None] * self.lanes for t in program.tables if t.writable}
        self.env = env(program)
        self.outputs = [[0] * program.width for _ in range(self.lanes)]
        self.steps = 0
        self.depth = 0

    # ---- expressions
    def eval(self, e, frame: dict, mask: list[bool]) -> list:
        """Return the value of ``e`` in each active lane (None in the others); raises UB."""
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise UB("too many steps")
        kind = type(e)
        if kind is ir.Lit:
            return [e.value if m else None for m in mask]
        if kind is ir.Ref:
            vals = frame[e.var.name]
            return [v if m else None for v, m in zip(vals, mask)]
        if kind is ir.Env:
            return [v if m else None for v, m in zip(self.env[e.name], mask)]
        if kind is ir.Un:
            xs = self.eval(e.arg, frame, mask)
            t = e.arg.type
            return unary_lanes(e.op, t, xs, mask)
        if kind is ir.Bin:
            return self._bin(e, frame, mask)
        if kind is ir.Cast:
            return convert_lanes(self.eval(e.arg, frame, mask), e.arg.type, e.type, mask)
        if kind is ir.Cond:
            ts = self.eval(e.test, frame, mask)
            tm = [m and bool(t) for t, m in zip(ts, mask)]
            fm = [m and not t for t, m in zip(ts, mask)]
            a = self.eval(e.then, frame, tm) if any(tm) else [None] * self.lanes
            b = self.eval(e.other, frame, fm) if any(fm) else [None] * self.lanes
            t = e.type
            a, b = convert_lanes(a, e.then.type, t, tm), convert_lanes(b, e.other.type, t, fm)
            return [x if mt else y if mf else None for x, y, mt, mf in zip(a, b, tm, fm)]
        if kind is ir.Call:
            f = self.funcs[e.func]
            args = [convert_lanes(self.eval(a, frame, mask), a.type, p.type, mask) for a, p in zip(e.args, f.params)]
            return self.call(f, args, mask)
        if kind is ir.Intrin:
            ret, types, fn = INTRINSICS[e.name]
            args = [self.eval(a, frame, mask) for a in e.args]
            cols = [convert_lanes(vals, a.type, t, mask) for vals, a, t in zip(args, e.args, types)]
            return [fn(*vs) if m else None for m, *vs in zip(mask, *cols)]
        if kind is ir.Load:
            idx = self.eval(e.index, frame, mask)
            table = self.tables[e.table]
            if table.writable:
                store = self.written[e.table]
                out = []
                for lane, (i, m) in enumerate(zip(idx, mask)):
                    if not m:
                        out.append(None)
                        continue
                    if convert(i, e.index.type, U32) != lane or store[lane] is None:
                        raise UB("a thread reads a slot it has not written")
                    out.append(store[lane])
                return out
            n, values = len(table.values), table.values
            return [values[i % n] if m else None for i, m in zip(convert_lanes(idx, e.index.type, U32, mask), mask)]
        if kind is ir.Elem:
            idx = self.eval(e.index, frame, mask)
            arr = frame[e.array.name]
            return [arr[lane][i % e.size] if m else None
                    for lane, (i, m) in enumerate(zip(convert_lanes(idx, e.index.type, U32, mask), mask))]
        if kind is ir.Field:
            vec = frame[e.vec.name]
            return [vec[lane][e.comp] if m else None for lane, m in enumerate(mask)]
        raise TypeError(f"no model for {kind.__name__}")

    def _bin(self, e: ir.Bin, frame, mask) -> list:
        xs = self.eval(e.lhs, frame, mask)
        ta, tb = e.lhs.type, e.rhs.type
        if e.op in ("&&", "||"):
            need = [m and (bool(x) if e.op == "&&" else not x) for x, m in zip(xs, mask)]
            ys = self.eval(e.rhs, frame, need) if any(need) else [None] * self.lanes
            return [(int(bool(y)) if n else int(e.op == "||")) if m else None
                    for y, n, m in zip(ys, need, mask)]
        ys = self.eval(e.rhs, frame, mask)
        return binary_lanes(e.op, ta, xs, tb, ys, mask)

    def call(self, f: ir.Func, args: list[list], mask: list[bool]) -> list:
        """Run a function on the active lanes and return its result per lane."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise UB("recursion too deep")
        frame = {p.name: vals for p, vals in zip(f.params, args)}
        frame["<ret>"] = [None] * self.lanes
        frame["<rt>"] = f.ret
        live = self.block(f.body, frame, list(mask))
        self.depth -= 1
        if any(live):
            raise UB(f"{f.name} can end without returning")
        return [r if m else None for r, m in zip(frame["<ret>"], mask)]

    # ---- statements
    def block(self, stmts, frame: dict, mask: list[bool]) -> list[bool]:
        """Run statements on the active lanes; return the lanes still running (the others returned)."""
        for s in stmts:
            if not any(mask):
                break
            mask = self.stmt(s, frame, mask)
        return mask

    def _set(self, frame, var: ir.Var, vals, src: CType, mask):
        vals = convert_lanes(vals, src, var.type, mask)
        old = frame.get(var.name)
        frame[var.name] = vals if old is None or all(mask) else [v if m else o for v, o, m in zip(vals, old, mask)]

    def stmt(self, s, frame: dict, mask: list[bool]) -> list[bool]:
        kind = type(s)
        if kind is ir.Decl:
            self._set(frame, s.var, self.eval(s.init, frame, mask), s.init.type, mask)
        elif kind is ir.Assign:
            vals = self.eval(s.value, frame, mask)
            if s.op:
                old = frame[s.var.name]
                t = s.var.type
                vals = binary_lanes(s.op, t, old, s.value.type, vals, mask)
                src = promote(t) if s.op in ("<<", ">>") else ir.Bin(op=s.op, lhs=ir.Ref(var=s.var), rhs=s.value).type
            else:
                src = s.value.type
            self._set(frame, s.var, vals, src, mask)
        elif kind is ir.ArrayDecl:
            cols = [self.eval(i, frame, mask) for i in s.inits]
            frame[s.var.name] = [[convert(c[lane], i.type, s.var.type) for c, i in zip(cols, s.inits)] if m else None
                                 for lane, m in enumerate(mask)]
        elif kind is ir.Store:
            idx = self.eval(s.index, frame, mask)
            vals = self.eval(s.value, frame, mask)
            arr = frame[s.array.name]
            for lane, m in enumerate(mask):
                if m:
                    row = list(arr[lane])
                    row[convert(idx[lane], s.index.type, U32) % s.size] = convert(vals[lane], s.value.type, s.array.type)
                    arr[lane] = row
        elif kind is ir.VecDecl:
            comp, n = VECTORS[s.kind]
            cols = [self.eval(c, frame, mask) for c in s.comps]
            frame[s.var.name] = [tuple(convert(col[lane], c.type, comp) for col, c in zip(cols, s.comps)) if m else None
                                 for lane, m in enumerate(mask)]
        elif kind is ir.GlobalStore:
            vals = self.eval(s.value, frame, mask)
            t = self.tables[s.table].type
            for lane, m in enumerate(mask):
                if m:
                    self.written[s.table][lane] = convert(vals[lane], s.value.type, t)
        elif kind is ir.If:
            ts = self.eval(s.test, frame, mask)
            tm = [m and bool(t) for t, m in zip(ts, mask)]
            fm = [m and not t for t, m in zip(ts, mask)]
            tl = self.block(s.then, frame, tm) if any(tm) else tm
            fl = self.block(s.other, frame, fm) if any(fm) else fm
            return [a or b for a, b in zip(tl, fl)]
        elif kind is ir.For:
            bound = self.eval(s.bound, frame, mask) if s.bound is not None else None
            limit = convert_lanes(bound, s.bound.type, I64, mask) if bound is not None and s.count else None
            for i in range(s.count):
                active = list(mask) if limit is None else [m and i < b for m, b in zip(mask, limit)]
                if not any(active):
                    break
                frame[s.var.name] = [i] * self.lanes
                live = self.block(s.body, frame, active)
                if live != active:
                    raise UB("return inside a loop")
        elif kind is ir.Switch:
            ts = self.eval(s.test, frame, mask)
            t = s.test.type
            labels = {label for label, _ in s.cases}
            vs = convert_lanes(ts, t, promote(t), mask)
            for label, body in s.cases:
                cm = [m and v == label for v, m in zip(vs, mask)]
                if any(cm) and self.block(body, frame, cm) != cm:
                    raise UB("return inside a switch")
            dm = [m and v not in labels for v, m in zip(vs, mask)]
            if any(dm) and self.block(s.default, frame, dm) != dm:
                raise UB("return inside a switch")
        elif kind is ir.Out:
            vals = self.eval(s.value, frame, mask)
            for lane, m in enumerate(mask):
                if m:
                    self.outputs[lane][s.slot] = bits_of(s.value.type, vals[lane])
        elif kind is ir.Return:
            vals = self.eval(s.value, frame, mask)
            ret, rt = frame["<ret>"], frame["<rt>"]
            for lane, m in enumerate(mask):
                if m:
                    ret[lane] = convert(vals[lane], s.value.type, rt)
            return [False] * self.lanes
        else:
            raise TypeError(f"no model for {kind.__name__}")
        return mask


def run(program: ir.Program) -> tuple[list[list[int]], list[int]]:
    """Return each thread's outputs (64-bit patterns) and the global atomic results; raises UB."""
    from suitegen.synth import exchange
    m = Machine(program)
    frame: dict = {}
    m.block(program.body, frame, [True] * m.lanes)
    exchange.run_comms(program, m.outputs)
    return m.outputs, exchange.run_atomics(program, m.outputs)
