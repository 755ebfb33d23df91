"""Shrinks a generated program that shows a problem, using what the generator knows about it.

Every candidate is a smaller program: a statement, a thread exchange, an atomic or a function gone, a
compound statement replaced by one of its parts (an ``if`` by a branch, a loop by its first iteration, a
``switch`` by one case), a subexpression replaced by the value it has in every thread, an operation
replaced by one of its operands, a smaller launch (down to one thread of one block), fewer outputs (the slots
renumbered, so a program has as many as it writes). Each candidate runs in the model first, so none brings in
undefined behaviour (a candidate the model finds undefined is dropped), and its expected outputs are known.
The caller's test ``still_bad`` takes a batch of candidates at once (many programs share one build)
and says which still show the problem; the smallest that does is kept, until none does
(MacIver and Donaldson, "test-case reduction via test-case generation").
"""
from __future__ import annotations

from dataclasses import fields, is_dataclass, replace
from typing import Callable, Iterator

from suitegen.synth import interp, ir
from suitegen.synth.semantics import UB

STATEMENTS = (ir.Decl, ir.Assign, ir.ArrayDecl, ir.Store, ir.VecDecl, ir.GlobalStore, ir.If, ir.For, ir.Switch,
              ir.Out)
EXPRESSIONS = (ir.Lit, ir.Ref, ir.Env, ir.Un, ir.Bin, ir.Cast, ir.Cond, ir.Call, ir.Intrin, ir.Load, ir.Elem,
               ir.Field)


_NAMES: dict[type, tuple[str, ...] | None] = {}


def _names(kind: type) -> tuple[str, ...] | None:
    """Return the field names of an IR node's class (None: not a node), looked up once per class."""
    if kind not in _NAMES:
        _NAMES[kind] = tuple(f.name for f in fields(kind)) if is_dataclass(kind) else None
    return _NAMES[kind]


def size(node) -> int:
    """Return how many IR nodes a tree holds (the measure the reducer makes smaller)."""
    if isinstance(node, (tuple, list)):
        return sum(map(size, node))
    names = _names(type(node))
    if names is None or type(node) is ir.Var:
        return 0
    return 1 + sum(size(getattr(node, name)) for name in names)


def walk(node, path=()) -> Iterator[tuple[tuple, object]]:
    """Yield (path, node) for every node under ``node``; a path is a sequence of field names and indices."""
    yield path, node
    if isinstance(node, tuple):
        for i, x in enumerate(node):
            yield from walk(x, (*path, i))
        return
    kind = type(node)
    names = None if kind is ir.Var or kind is ir.Table else _names(kind)
    for name in names or ():
        v = getattr(node, name)
        if isinstance(v, tuple) or _names(type(v)) is not None:
            yield from walk(v, (*path, name))


def get(node, path):
    for step in path:
        node = node[step] if isinstance(step, int) else getattr(node, step)
    return node


def put(node, path, new):
    """Return ``node`` with the node at ``path`` replaced by ``new`` (None deletes a tuple element)."""
    if not path:
        return new
    step, rest = path[0], path[1:]
    if isinstance(step, int):
        items = list(node)
        inner = put(items[step], rest, new)
        if inner is None:
            del items[step]
        else:
            items[step] = inner
        return tuple(items)
    return replace(node, **{step: put(getattr(node, step), rest, new)})


def _uniform_values(program: ir.Program) -> dict[int, object]:
    """Return, per expression node (by identity), its value where every thread that evaluates it agrees."""
    seen: dict[int, set] = {}
    machine = interp.Machine(program)
    plain = machine.eval

    def eval_(e, frame, mask):
        vals = plain(e, frame, mask)
        seen.setdefault(id(e), set()).update(v for v, m in zip(vals, mask) if m)
        return vals
    machine.eval = eval_
    try:
        machine.block(program.body, {}, [True] * machine.lanes)
    except UB:
        return {}
    return {k: next(iter(v)) for k, v in seen.items() if len(v) == 1}


def nodes(node) -> Iterator[object]:
    """Yield every node under ``node``, as ``walk`` reaches them but without their paths, in no stated order."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, tuple):
            stack.extend(n)
            continue
        kind = type(n)
        for name in (None if kind is ir.Var or kind is ir.Table else _names(kind)) or ():
            v = getattr(n, name)
            if isinstance(v, tuple) or _names(type(v)) is not None:
                stack.append(v)


def _refs(node) -> tuple[set[str], set[str]]:
    """Return the functions a tree calls and the tables it reads or writes."""
    calls, tables = set(), set()
    for n in nodes(node):
        if isinstance(n, ir.Call):
            calls.add(n.func)
        elif isinstance(n, (ir.Load, ir.GlobalStore)):
            tables.add(n.table)
    return calls, tables


def _tidy(program: ir.Program) -> ir.Program:
    """Drop functions, tables and output slots nothing refers to any more: keep the functions the body reaches,
    through calls, the tables the body and those functions use, and the output slots ``_compact`` keeps."""
    refs = {f.name: _refs(f.body) for f in program.funcs}
    calls, tables = _refs(program.body)
    reach, todo = set(calls), list(calls)
    while todo:
        for name in refs.get(todo.pop(), ((), ()))[0]:
            if name not in reach:
                reach.add(name)
                todo.append(name)
    funcs = tuple(f for f in program.funcs if f.name in reach)
    for f in funcs:
        tables |= refs[f.name][1]
    kept = tuple(t for t in program.tables if t.name in tables)
    if len(funcs) < len(program.funcs) or len(kept) < len(program.tables):
        program = replace(program, funcs=funcs, tables=kept)
    return _compact(program)


def _named(node) -> set[str]:
    """Return the names of the variables expressions read: a variable, an array's element, a vector's field."""
    return {(n.var if isinstance(n, ir.Ref) else n.array if isinstance(n, ir.Elem) else n.vec).name
            for n in nodes(node) if isinstance(n, (ir.Ref, ir.Elem, ir.Field))}


BLOCKS = ("then", "other", "body", "cases", "default")  # a statement's fields that hold statements


def _scoped(statements: tuple, scope: frozenset) -> bool:
    """Whether every variable ``statements`` name is declared before, in a block that holds them."""
    for s in statements:
        if s is None:
            continue
        own = [getattr(s, f.name) for f in fields(s) if f.name not in BLOCKS]
        if not _named(tuple(x for x in own if not isinstance(x, ir.Var))) <= scope:
            return False
        if isinstance(s, (ir.Assign, ir.Store)) and (s.var if isinstance(s, ir.Assign) else s.array).name not in scope:
            return False
        inner = scope | {s.var.name} if isinstance(s, ir.For) else scope
        blocks = [getattr(s, f) for f in BLOCKS if hasattr(s, f)]
        if isinstance(s, ir.Switch):
            blocks = [b for _, b in s.cases] + [s.default]
        if not all(_scoped(b, inner) for b in blocks):
            return False
        if isinstance(s, (ir.Decl, ir.ArrayDecl, ir.VecDecl)):
            scope = scope | {s.var.name}
    return True


def scoped(program: ir.Program) -> bool:
    """Whether the program names no variable outside its declaration's scope: a cut can leave a read of a variable
    it removed where the model never runs it (a branch not taken), and such a program does not build."""
    return _scoped(program.body, frozenset()) and all(_scoped(f.body, frozenset(v.name for v in f.params))
                                                      for f in program.funcs)


def _compact(program: ir.Program) -> ir.Program:
    """Renumber the body's output slots, in their order, so that the program has only those it writes or its
    exchanges and atomics read (at least one); the exchanges' results follow them, as before."""
    p = program
    outs = [(path, n) for path, n in walk(p.body) if isinstance(n, ir.Out)]
    used = sorted({n.slot for _, n in outs} | {c.src for c in p.comms} | {src for _, src in p.atomics}) or [0]
    if used == list(range(p.outputs)):
        return p
    new = {old: k for k, old in enumerate(used)}
    body = p.body
    for path, n in outs:
        body = put(body, path, replace(n, slot=new[n.slot]))
    return replace(p, body=body, outputs=len(used), atomics=tuple((op, new[src]) for op, src in p.atomics),
                   comms=tuple(replace(c, src=new[c.src], out=len(used) + k) for k, c in enumerate(p.comms)))


def _harness(p: ir.Program) -> list[ir.Program]:
    """Return the program with a smaller launch or fewer outputs, the biggest cuts first: one thread of one block
    with no exchanges or atomics (with one output, then all), one thread of one block, fewer exchanges and atomics,
    one block, half the threads, one output (the model refuses a launch that changes what the program means, such
    as a warp operation in a partial warp)."""
    least = replace(p, blocks=1, threads=1, comms=(), atomics=())
    out = [_only_output(least, slot) for slot in range(p.outputs)] if p.outputs > 1 else []
    out += [least, replace(p, blocks=1, threads=1)]
    if p.comms:  # from the end: each exchange writes the slot after the ones before it
        out += [replace(p, comms=()), replace(p, comms=p.comms[:-1])]
    if p.atomics:
        out.append(replace(p, atomics=()))
    if p.blocks > 1:
        out.append(replace(p, blocks=1))
    out += [replace(p, threads=n) for n in sorted({1, p.threads // 2}) if 1 <= n < p.threads]
    if p.outputs > 1:
        out += [_only_output(p, slot) for slot in range(p.outputs)]
    return out


def _only_output(p: ir.Program, slot: int) -> ir.Program:
    """Return the program with every output statement but those of ``slot`` dropped."""
    body = p.body
    for path, n in reversed(list(walk(p.body))):  # the last first: the paths before it stay good
        if isinstance(n, ir.Out) and n.slot != slot:
            body = put(body, path, None)
    return replace(p, body=body)


def candidates(program: ir.Program) -> Iterator[ir.Program]:
    """Yield smaller variants of a program, roughly the biggest cuts first."""
    p = program
    yield from _harness(p)
    body = p.body
    n = len(body)
    for parts in (2, 4, 8):  # chunks of the body first, then single statements
        step = max(1, n // parts)
        for start in range(0, n, step):
            cut = body[:start] + body[start + step:]
            if cut and len(cut) < n:
                yield replace(p, body=cut)
    root = (p.body, p.funcs)
    stmts = [(path, node) for path, node in walk(root) if isinstance(node, STATEMENTS)]
    for path, node in reversed(stmts):
        yield _from_root(p, put(root, path, None))
    for path, node in walk(root):  # a compound statement replaced by its parts
        if isinstance(node, ir.If):
            yield _from_root(p, put(root, path, ir.If(test=node.test, then=node.then, other=())))
            yield _from_root(p, _spliced(root, path, node.then))
            if node.other:
                yield _from_root(p, _spliced(root, path, node.other))
        elif isinstance(node, ir.For):  # its first iteration alone, the counter 0
            first = _substituted(node.body, node.var, ir.Lit(type=node.var.type, value=0))
            yield _from_root(p, _spliced(root, path, first))
        elif isinstance(node, ir.Switch):
            for body in (*(b for _, b in node.cases), *((node.default,) if node.default else ())):
                yield _from_root(p, _spliced(root, path, body))
    values = _uniform_values(p)
    exprs = [(path, node) for path, node in walk(root) if isinstance(node, EXPRESSIONS)
             and not isinstance(node, ir.Lit)]
    for path, node in exprs:
        if id(node) in values and node.type.bits <= 64:
            yield _from_root(p, put(root, path, ir.Lit(type=node.type, value=values[id(node)])))
        for part in _operands(node):
            swap = part if part.type is node.type else ir.Cast(type=node.type, arg=part)
            yield _from_root(p, put(root, path, swap))
    for path, node in walk(root):  # simpler literals
        if isinstance(node, ir.Lit) and node.value not in (0, 1) and not node.type.floating:
            yield _from_root(p, put(root, path, ir.Lit(type=node.type, value=1)))


def _spliced(root, path: tuple, statements: tuple):
    """Return ``root`` with the statement at ``path`` replaced by ``statements`` in the sequence that holds it."""
    holder = get(root, path[:-1])
    at = path[-1]
    return put(root, path[:-1], holder[:at] + tuple(statements) + holder[at + 1:])


def _substituted(node, var: ir.Var, value):
    """Return ``node`` with every reference to ``var`` replaced by the expression ``value``."""
    if isinstance(node, ir.Ref) and node.var == var:
        return value
    if isinstance(node, tuple):
        return tuple(_substituted(x, var, value) for x in node)
    if is_dataclass(node) and not isinstance(node, (ir.Var, ir.Table)):
        return replace(node, **{f.name: _substituted(getattr(node, f.name), var, value) for f in fields(node)})
    return node


def _operands(node) -> list:
    if isinstance(node, ir.Bin):
        return [node.lhs, node.rhs]
    if isinstance(node, (ir.Un, ir.Cast)):
        return [node.arg]
    if isinstance(node, ir.Cond):
        return [node.then, node.other]
    if isinstance(node, (ir.Intrin, ir.Call)):
        return list(node.args)
    return []


def _from_root(p: ir.Program, root) -> ir.Program:
    body, funcs = root
    return replace(p, body=body, funcs=funcs)


def expected(program: ir.Program, ran: tuple | None = None) -> list[int] | None:
    """Return a program's expected buffer cells, or None where the model finds it undefined or broken (``ran``: what
    the model computed for it already, ``populate.generated``'s answer)."""
    try:
        outs, tail = ran or interp.run(program)
    except (UB, ZeroDivisionError, OverflowError, KeyError, TypeError, ValueError, IndexError, RecursionError):
        return None
    return [c for row in outs for c in row] + tail


def _measure(p: ir.Program) -> tuple[int, int, int]:
    """Return what a candidate must make smaller, in this order: the cells of its output buffer, its nodes, then its
    variable reads (two each) and literals other than 0 and 1 (one each), so that a read replaced by its value, or a
    literal by 1, counts as simpler."""
    root = (p.body, p.funcs)
    every = list(nodes(root))
    reads = sum(isinstance(n, ir.Ref) for n in every)
    literals = sum(isinstance(n, ir.Lit) and n.value not in (0, 1) for n in every)
    return p.cells, size(root), 2 * reads + literals


def reduce(program: ir.Program, still_bad: Callable[[list[ir.Program]], list[bool]], batch: int = 24,
           rounds: int = 1000, log: Callable[[str], None] = lambda _: None,
           deadline: float = float("inf")) -> ir.Program:
    """Return the smallest program found that ``still_bad`` accepts, starting from ``program``
    (by ``deadline``, a ``time.monotonic()`` instant, the smallest so far). Candidates are judged ``width`` at a time,
    at most ``batch``: twice as many as the last round tried up to its first accepted one, since a batch is built
    whole and only its first accepted candidate is kept (early on most are accepted; at the end none is)."""
    import time
    current = _tidy(program)
    width = batch
    for r in range(rounds):
        if time.monotonic() > deadline:
            log(f"round {r}: out of time at size {size(current.body)}")
            return current
        tried = 0
        found = None
        pool: list[ir.Program] = []
        seen = set()
        bound = _measure(current)

        def judge(pool: list[ir.Program]) -> ir.Program | None:
            """Return the pool's first candidate that still shows the bug (None: none does), counting the pool as
            tried and setting the next width from where that candidate stood among this round's."""
            nonlocal tried, width
            verdicts = still_bad(pool)
            tried += len(pool)
            if True not in verdicts:
                return None
            width = max(2, min(batch, 2 * (tried - len(pool) + verdicts.index(True) + 1)))
            return pool[verdicts.index(True)]
        for cand in candidates(current):
            cand = _tidy(cand)
            if _measure(cand) >= bound:
                continue
            key = repr(cand)
            if key in seen or not scoped(cand) or expected(cand) is None:
                continue
            seen.add(key)
            pool.append(cand)
            if len(pool) == width:
                found, pool = judge(pool), []
                if found is not None:
                    break
                width = min(batch, 2 * width)
        if found is None and pool:
            found = judge(pool)
        if found is None:
            log(f"round {r}: none of {tried} candidates still shows it; done at size {size(current.body)}")
            return current
        current = found
        log(f"round {r}: size {size(current.body) + size(current.funcs)} after {tried} candidates")
    return current
