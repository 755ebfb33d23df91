"""Threads that talk, deterministically (CLsmith's patterns): each pattern's model and its CUDA code.

Every pattern runs at the kernel's top level, after the body, where control flow is uniform, so its
barriers are legal. It starts from one of the thread's body outputs (``src``) and writes its result
to slot ``out``. Results never depend on the order threads run in:
- ``barrier``: each thread writes only the shared slot it owns, then reads another thread's slot;
- ``uniform-barrier``: the same behind a test that looks thread-dependent but holds for every thread;
- ``block-atomic``: a commutative atomic on one shared cell (return values unused), read after a barrier;
- ``section``: an atomic ticket lets exactly one thread in; what it writes does not depend on which;
- ``shfl``, ``vote``, ``reduce``: full-mask warp operations (in blocks of whole warps only).
Global atomic reductions (``Program.atomics``) fold every thread's value into the output buffer's tail.
"""
from __future__ import annotations

from suitegen.synth import ir
from suitegen.synth.semantics import U32, U64, UB, wrap

FULL = "0xffffffffu"
ATOMIC_OPS = {"add": lambda a, b, t: wrap(t, a + b), "xor": lambda a, b, t: a ^ b,
              "or": lambda a, b, t: a | b, "and": lambda a, b, t: a & b,
              "min": lambda a, b, t: min(a, b), "max": lambda a, b, t: max(a, b)}
WARP = ("shfl", "vote", "reduce")  # the full-mask warp operations: every lane of each warp takes part
TAGS = {
    "barrier": ("built-in-variables/thread-index", "device-memory-space/shared"),
    "uniform-barrier": ("built-in-variables/thread-index", "device-memory-space/shared"),
    "block-atomic": ("device-memory-space/shared",),
    "section": ("device-memory-space/shared",),
    "shfl": ("built-in-variables/warp-size",),
    "vote": ("built-in-variables/warp-size",),
    "reduce": ("built-in-variables/warp-size",),
}


def run_comms(program: ir.Program, outputs: list[list[int]]) -> None:
    """Apply the program's exchange blocks to the threads' outputs, in order."""
    n = program.threads
    for c in program.comms:
        if c.kind in WARP and n % 32:  # a full mask names lanes a partial warp lacks
            raise UB(f"a full-mask warp operation in a block of {n} threads")
        t = c.type
        xs = [wrap(t, row[c.src]) for row in outputs]
        res = [0] * len(xs)
        for lane, x in enumerate(xs):
            block, tx, warp_base = lane // n, lane % n, lane - lane % 32
            if c.kind in ("barrier", "uniform-barrier"):
                a, b = c.params
                other = xs[block * n + (tx * a + b) % n]
                res[lane] = wrap(t, x + other)
            elif c.kind == "block-atomic":
                op, init, reps, step = c.params
                acc = init
                for other in xs[block * n:(block + 1) * n]:
                    for k in range(reps):
                        acc = ATOMIC_OPS[op](acc, wrap(t, other + k * step), t)
                res[lane] = acc
            elif c.kind == "section":
                ticket, mul, add = c.params  # no thread draws a ticket past the block: the cell keeps its 0
                res[lane] = wrap(t, block * mul + add) if ticket < n else 0
            elif c.kind == "shfl":
                mode, a, b = c.params
                ln = lane % 32
                if mode == "idx":
                    src = (ln * a + b) & 31
                elif mode == "xor":
                    src = ln ^ a
                elif mode == "down":
                    src = ln + a if ln + a < 32 else ln
                else:  # up
                    src = ln - a if ln - a >= 0 else ln
                res[lane] = wrap(t, x ^ xs[warp_base + src])
            elif c.kind == "vote":
                mode, mask = c.params
                preds = [(v & mask) != 0 for v in xs[warp_base:warp_base + 32]]
                res[lane] = {"ballot": sum(1 << i for i, p in enumerate(preds) if p),
                             "any": int(any(preds)), "all": int(all(preds))}[mode]
            elif c.kind == "reduce":
                (op,) = c.params
                acc = None
                for v in xs[warp_base:warp_base + 32]:
                    acc = v if acc is None else ATOMIC_OPS[op](acc, v, U32)
                res[lane] = acc
            else:
                raise ValueError(f"unknown exchange {c.kind}")
        for lane, row in enumerate(outputs):
            row[c.out] = res[lane] & ((1 << t.bits) - 1)


def run_atomics(program: ir.Program, outputs: list[list[int]]) -> list[int]:
    """Return the buffer tail the global atomic reductions leave (it starts at zero)."""
    tail = []
    for op, src in program.atomics:
        acc = 0
        for row in outputs:
            acc = ATOMIC_OPS[op](acc, row[src], U64)
        tail.append(acc)
    return tail


def code(c: ir.Comm, k: int) -> str:
    """Return the CUDA statements of one exchange block (the k-th of its kernel)."""
    t = c.type.name
    x = f"(({t})o[{c.src}])"
    if c.kind in ("barrier", "uniform-barrier"):
        a, b = c.params
        inner = (f"sg_s{k}[threadIdx.x] = {x}; __syncthreads();\n"
                 f"    {t} r = sg_s{k}[(threadIdx.x * {a}u + {b}u) % blockDim.x]; __syncthreads();\n"
                 f"    o[{c.out}] = ({t})({x} + r);")
        if c.kind == "uniform-barrier":  # looks thread-dependent, holds for every thread of the block
            inner = f"if ((threadIdx.x >> 12) == 0u) {{\n    {inner}\n  }}"
        return f"{{ __shared__ {t} sg_s{k}[{1024}];\n    {inner}\n  }}"
    if c.kind == "block-atomic":
        op, init, reps, step = c.params
        suffix = "u" if c.type is U32 else "ull"
        call = (f"atomic{op.capitalize()}(&sg_a{k}, ({t})({x} + ({t})sg_r * {step}{suffix}))" if reps > 1
                else f"atomic{op.capitalize()}(&sg_a{k}, {x})")
        body = f"for (int sg_r = 0; sg_r < {reps}; ++sg_r) {call};" if reps > 1 else f"{call};"
        return (f"{{ __shared__ {t} sg_a{k};\n    if (threadIdx.x == 0) sg_a{k} = {init}{suffix}; __syncthreads();\n"
                f"    {body} __syncthreads();\n    o[{c.out}] = sg_a{k}; __syncthreads(); }}")
    if c.kind == "section":
        ticket, mul, add = c.params
        return (f"{{ __shared__ unsigned sg_c{k}; __shared__ {t} sg_v{k};\n"
                f"    if (threadIdx.x == 0) {{ sg_c{k} = 0u; sg_v{k} = 0; }} __syncthreads();\n"
                f"    if (atomicAdd(&sg_c{k}, 1u) == {ticket}u) sg_v{k} = ({t})(({t})blockIdx.x * ({t}){mul}u + ({t}){add}u);\n"
                f"    __syncthreads(); o[{c.out}] = sg_v{k}; __syncthreads(); }}")
    if c.kind == "shfl":
        mode, a, b = c.params
        call = {"idx": f"__shfl_sync({FULL}, {x}, (int)(((threadIdx.x % 32u) * {a}u + {b}u) & 31u))",
                "xor": f"__shfl_xor_sync({FULL}, {x}, {a})",
                "down": f"__shfl_down_sync({FULL}, {x}, {a}u)",
                "up": f"__shfl_up_sync({FULL}, {x}, {a}u)"}[mode]
        return f"o[{c.out}] = ({t})({x} ^ {call});"
    if c.kind == "vote":
        mode, mask = c.params
        pred = f"(({x} & {mask}ull) != 0)"
        call = {"ballot": f"__ballot_sync({FULL}, {pred})", "any": f"(unsigned)(__any_sync({FULL}, {pred}) != 0)",
                "all": f"(unsigned)(__all_sync({FULL}, {pred}) != 0)"}[mode]  # documented as non-zero, not 1
        return f"o[{c.out}] = {call};"
    if c.kind == "reduce":
        (op,) = c.params
        return f"o[{c.out}] = __reduce_{op}_sync({FULL}, (unsigned){x});"
    raise ValueError(f"unknown exchange {c.kind}")


def atomic_code(op: str, src: int, k: int, base: str) -> str:
    """Return the statement folding a thread's output into the buffer tail's k-th cell."""
    return f"atomic{op.capitalize()}({base} + {k}, (unsigned long long)o[{src}]);"
