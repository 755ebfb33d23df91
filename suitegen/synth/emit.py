"""Spells generated programs in CUDA C++: many programs per source file, a standalone reproducer, a host check.

Each program sits in ``namespace sg_<name>`` with its tables, functions and ``body`` (a file of one program, such
as a reproducer, needs no namespace); its kernel is ``extern "C" sg_k_<name>``. ``body`` takes the built-in
values it reads (``tid``, ``lane``, ...) and the thread's outputs ``o``. Thread t writes ``width`` 64-bit outputs
at ``out[t * width]``; the global atomic reductions fold into the cells after ``lanes * width``. A program
of one thread has a kernel and a host check without a thread loop. The same text compiles as host C++
(g++ with ``HOST_PRELUDE``): the execution-space keywords become nothing and the device intrinsics
their portable definitions, which is how CI checks programs against the model without a GPU.
"""
from __future__ import annotations

import functools

from suitegen.synth import exchange, float_calls, interp, ir
from suitegen.synth import semantics as s
from suitegen.synth.interp import VECTORS

HOST_HEAD = r"""
#ifndef __CUDACC__
#include <cstdio>
#define __host__
#define __device__
#define __global__
#define __constant__
#define __managed__
#define __shared__
#define __noinline__ __attribute__((noinline))
#define __forceinline__ inline __attribute__((always_inline))
"""


def host_prelude(kinds=None) -> str:
    """Return what makes a source compile as host C++: keywords defined away, the vector types (``kinds``: only those)."""
    return HOST_HEAD + "".join(
        f"struct {k} {{ {c.name} {', '.join('xyzw'[:n])}; }};\n"
        f"static inline {k} make_{k}({', '.join(f'{c.name} {a}' for a in 'xyzw'[:n])}) "
        f"{{ {k} v = {{{', '.join('xyzw'[:n])}}}; return v; }}\n"
        for k, (c, n) in VECTORS.items() if kinds is None or k in kinds) + "#endif\n"


HOST_PRELUDE = host_prelude()

PRELUDE = r"""
#ifndef __CUDACC_RTC__
#include <cstring>
#endif
#define SG_HD __host__ __device__ __forceinline__
SG_HD unsigned long long sg_bits(bool x) { return x ? 1ull : 0ull; }
SG_HD unsigned long long sg_bits(signed char x) { return (unsigned char)x; }
SG_HD unsigned long long sg_bits(unsigned char x) { return x; }
SG_HD unsigned long long sg_bits(short x) { return (unsigned short)x; }
SG_HD unsigned long long sg_bits(unsigned short x) { return x; }
SG_HD unsigned long long sg_bits(int x) { return (unsigned)x; }
SG_HD unsigned long long sg_bits(unsigned x) { return x; }
SG_HD unsigned long long sg_bits(long long x) { return (unsigned long long)x; }
SG_HD unsigned long long sg_bits(unsigned long long x) { return x; }
#ifdef __CUDA_ARCH__
#define SG_DEV(device, host) device
#else
#define SG_DEV(device, host) host
#endif
SG_HD unsigned long long sg_bits(float x) { return SG_DEV(__float_as_uint(x), [&] { unsigned u; memcpy(&u, &x, 4); return u; }()); }
SG_HD unsigned long long sg_bits(double x) {
  return SG_DEV((unsigned long long)__double_as_longlong(x), [&] { unsigned long long u; memcpy(&u, &x, 8); return u; }()); }
SG_HD int sg_min_i(int a, int b) { return SG_DEV(min(a, b), a < b ? a : b); }
SG_HD int sg_max_i(int a, int b) { return SG_DEV(max(a, b), a > b ? a : b); }
SG_HD unsigned sg_min_u(unsigned a, unsigned b) { return SG_DEV(min(a, b), a < b ? a : b); }
SG_HD unsigned sg_max_u(unsigned a, unsigned b) { return SG_DEV(max(a, b), a > b ? a : b); }
SG_HD long long sg_min_ll(long long a, long long b) { return SG_DEV(min(a, b), a < b ? a : b); }
SG_HD unsigned long long sg_max_ull(unsigned long long a, unsigned long long b) { return SG_DEV(max(a, b), a > b ? a : b); }
SG_HD int sg_abs_i(int a) { return SG_DEV(abs(a), a < 0 ? -a : a); }
SG_HD long long sg_abs_ll(long long a) { return SG_DEV(llabs(a), a < 0 ? -a : a); }
SG_HD unsigned sg_funnel_l(unsigned lo, unsigned hi, unsigned n) {
  return SG_DEV(__funnelshift_l(lo, hi, n), (unsigned)(((((unsigned long long)hi << 32) | lo) << (n & 31u)) >> 32)); }
SG_HD unsigned sg_funnel_r(unsigned lo, unsigned hi, unsigned n) {
  return SG_DEV(__funnelshift_r(lo, hi, n), (unsigned)((((unsigned long long)hi << 32) | lo) >> (n & 31u))); }
SG_HD unsigned sg_funnel_lc(unsigned lo, unsigned hi, unsigned n) {
  return SG_DEV(__funnelshift_lc(lo, hi, n), n >= 32u ? lo : (unsigned)(((((unsigned long long)hi << 32) | lo) << n) >> 32)); }
SG_HD unsigned sg_byte_perm_h(unsigned x, unsigned y, unsigned s) {
  unsigned long long pool = ((unsigned long long)y << 32) | x; unsigned r = 0;
  for (int n = 0; n < 4; ++n) r |= (unsigned)((pool >> (8 * ((s >> (4 * n)) & 7u))) & 0xFFu) << (8 * n);
  return r; }
SG_HD unsigned sg_byte_perm(unsigned x, unsigned y, unsigned s) { return SG_DEV(__byte_perm(x, y, s), sg_byte_perm_h(x, y, s)); }
SG_HD unsigned sg_umulhi(unsigned a, unsigned b) { return SG_DEV(__umulhi(a, b), (unsigned)(((unsigned long long)a * b) >> 32)); }
SG_HD int sg_mulhi(int a, int b) { return SG_DEV(__mulhi(a, b), (int)(((long long)a * b) >> 32)); }
SG_HD unsigned long long sg_umul64hi(unsigned long long a, unsigned long long b) {
  return SG_DEV(__umul64hi(a, b), (unsigned long long)(((unsigned __int128)a * b) >> 64)); }
SG_HD long long sg_mul64hi(long long a, long long b) { return SG_DEV(__mul64hi(a, b), (long long)(((__int128)a * b) >> 64)); }
SG_HD int sg_popc(unsigned v) { return SG_DEV(__popc(v), __builtin_popcount(v)); }
SG_HD int sg_popcll(unsigned long long v) { return SG_DEV(__popcll(v), __builtin_popcountll(v)); }
SG_HD int sg_clz(unsigned v) { return SG_DEV(__clz((int)v), v ? __builtin_clz(v) : 32); }
SG_HD int sg_clzll(unsigned long long v) { return SG_DEV(__clzll((long long)v), v ? __builtin_clzll(v) : 64); }
SG_HD unsigned sg_brev_h(unsigned v) { unsigned r = 0; for (int i = 0; i < 32; ++i) r |= ((v >> i) & 1u) << (31 - i); return r; }
SG_HD unsigned long long sg_brevll_h(unsigned long long v) {
  unsigned long long r = 0; for (int i = 0; i < 64; ++i) r |= ((v >> i) & 1ull) << (63 - i); return r; }
SG_HD unsigned sg_brev(unsigned v) { return SG_DEV(__brev(v), sg_brev_h(v)); }
SG_HD unsigned long long sg_brevll(unsigned long long v) { return SG_DEV(__brevll(v), sg_brevll_h(v)); }
SG_HD int sg_ffs(unsigned v) { return SG_DEV(__ffs((int)v), __builtin_ffs((int)v)); }
SG_HD unsigned sg_rotl(unsigned x, unsigned n) { n &= 31u; return n ? (x << n) | (x >> (32u - n)) : x; }
SG_HD int sg_sext8(int x) { return (int)(signed char)x; }
SG_HD int sg_sext16(int x) { return (int)(short)x; }
"""
HELPERS = PRELUDE + float_calls.HEADERS + float_calls.PRELUDE  # the base and the float calls (rounding, math)

COMPS = "xyzw"


@functools.cache
def _snippets() -> tuple[list[str], dict[str, str]]:
    """Split HELPERS into its fixed head and one snippet per helper (keyed by name, sg_bits by type), once: callers
    only read them."""
    head, parts, current = [], {}, None
    for line in HELPERS.strip("\n").splitlines():
        if line.startswith("SG_HD "):
            name = line.split("(")[0].split()[-1]
            if name == "sg_bits":
                name = "sg_bits:" + line.split("(", 1)[1].rsplit(" x)", 1)[0]
            current = name
            parts[current] = line + "\n"
        elif current and not line.startswith("#"):
            parts[current] += line + "\n"
        else:
            current = None
            head.append(line)
    return head, parts


CSTRING = "#ifndef __CUDACC_RTC__\n#include <cstring>\n#endif\n"  # NVRTC has no headers (nor needs memcpy)
# each prelude header block (guarded for NVRTC) and its includes where no NVRTC compiles the text
HOST_HEADERS = {CSTRING: "#include <cstring>\n", float_calls.HEADERS: "#include <cfenv>\n#include <cmath>\n"}
SG_DEV_MACRO = ("#ifdef __CUDA_ARCH__\n#define SG_DEV(device, host) device\n#else\n"
                "#define SG_DEV(device, host) host\n#endif\n")


def prelude(programs) -> str:
    """Return only the part of the prelude these programs use (a reproducer stays short)."""
    return prelude_of(helpers(programs))


def helpers(programs) -> frozenset[str]:
    """Return the prelude's snippets these programs use (``prelude_of`` writes them)."""
    import re
    _, parts = _snippets()
    text = "".join(namespace(p) + kernel(p) for p in programs)
    out_types = {n.value.type.name for p in programs for _, n in _walk(p.body) if isinstance(n, ir.Out)}
    used = {f"sg_bits:{t}" for t in out_types}
    names = set(re.findall(r"\b(sg_[a-z0-9_]+)\(", text))
    while True:
        more = {n for n in names if n in parts} - used
        if not more:
            break
        used |= more
        names |= set(re.findall(r"\b(sg_[a-z0-9_]+)\(", "".join(parts[n] for n in more)))
    return frozenset(used)


def prelude_of(used) -> str:
    """Return the prelude's fixed head and the snippets named in ``used``, in the prelude's order."""
    _, parts = _snippets()
    body = "".join(parts[n] for n in parts if n in used)
    head = (CSTRING if "memcpy" in body else "") + (float_calls.HEADERS if used & float_calls.LINES.keys() else "")
    if body:
        head += "#define SG_HD __host__ __device__ __forceinline__\n" + (SG_DEV_MACRO if "SG_DEV" in body else "")
    return head + body


def _walk(node):
    from suitegen.synth.reduce import walk
    return walk(node)


class Writer:
    """Spells one program's nodes."""

    def __init__(self, program: ir.Program):
        self.p = program
        self.tables = {t.name: t for t in program.tables}
        self.funcs = {f.name: f for f in program.funcs}
        self.tparam: s.CType | None = None  # the type spelled T inside a function template
        self._ret: s.CType | None = None  # the return type of the function being spelled
        self.read: set[str] = set()  # the built-ins spelled so far

    def builtins(self) -> tuple[str, ...]:
        """Return the built-ins spelled so far, in ``ir.BUILTINS``' order."""
        return tuple(n for n in ir.BUILTINS if n in self.read)

    def t(self, t: s.CType) -> str:
        return "T" if self.tparam is not None and t == self.tparam else t.name

    def cast(self, t: s.CType, e) -> str:
        text = self.e(e)
        return text if e.type == t else f"(({self.t(t)})({text}))"

    def e(self, n) -> str:
        k = type(n)
        if k is ir.Lit:
            return s.literal(n.type, n.value)
        if k is ir.Ref:
            return n.var.name
        if k is ir.Env:
            self.read.add(n.name)
            return n.name
        if k is ir.Un:
            return f"({n.op}({self.e(n.arg)}))"
        if k is ir.Bin:
            return f"({self.e(n.lhs)} {n.op} {self.e(n.rhs)})"
        if k is ir.Cast:
            return f"(({self.t(n.type)})({self.e(n.arg)}))"
        if k is ir.Cond:
            return f"({self.e(n.test)} ? {self.e(n.then)} : {self.e(n.other)})"
        if k is ir.Intrin:
            from suitegen.synth.interp import INTRINSICS
            _, types, _ = INTRINSICS[n.name]
            return f"{n.name}({', '.join(self.cast(t, a) for t, a in zip(types, n.args))})"
        if k is ir.Call:
            return self.call(n)
        if k is ir.Load:
            table = self.tables[n.table]
            if table.writable:  # the thread's own slot
                self.read.add("tid")
                return f"{n.table}[tid]"
            return f"{n.table}[(unsigned)({self.e(n.index)}) % {len(table.values)}u]"
        if k is ir.Elem:
            return f"{n.array.name}[(unsigned)({self.e(n.index)}) % {n.size}u]"
        if k is ir.Field:
            return f"{n.vec.name}.{COMPS[n.comp]}"
        raise TypeError(f"cannot spell {k.__name__}")

    def call(self, n: ir.Call) -> str:
        f = self.funcs[n.func]
        args = [self.cast(p.type, a) for p, a in zip(f.params, n.args)]
        if f.style == "template":
            return f"{f.name}<{f.ret.name}>({', '.join(args)})"
        if f.style == "member":
            return f"{f.name}_S{{{', '.join(args)}}}.{f.name}()"
        if f.style == "lambda":
            params = ", ".join(f"{p.type.name} {p.name}" for p in f.params)
            outer, self._ret = self._ret, f.ret
            body = self.block(f.body, 2)
            self._ret = outer
            return f"([]({params}) -> {f.ret.name} {{\n{body}  }})({', '.join(args)})"
        return f"{f.name}({', '.join(args)})"

    # ---- statements
    def block(self, stmts, ind: int) -> str:
        return "".join(self.s(x, ind) for x in stmts)

    def s(self, n, ind: int) -> str:
        pad = "  " * ind
        k = type(n)
        if k is ir.Decl:
            kw = "constexpr " if n.const else ""
            return f"{pad}{kw}{self.t(n.var.type)} {n.var.name} = {self.cast(n.var.type, n.init)};\n"
        if k is ir.Assign:
            if n.op:
                return f"{pad}{n.var.name} {n.op}= {self.e(n.value)};\n"
            return f"{pad}{n.var.name} = {self.cast(n.var.type, n.value)};\n"
        if k is ir.ArrayDecl:
            inits = ", ".join(self.cast(n.var.type, i) for i in n.inits)
            return f"{pad}{self.t(n.var.type)} {n.var.name}[{n.size}] = {{{inits}}};\n"
        if k is ir.Store:
            return (f"{pad}{n.array.name}[(unsigned)({self.e(n.index)}) % {n.size}u] = "
                    f"{self.cast(n.array.type, n.value)};\n")
        if k is ir.VecDecl:
            comp, _ = VECTORS[n.kind]
            return (f"{pad}{n.kind} {n.var.name} = make_{n.kind}"
                    f"({', '.join(self.cast(comp, c) for c in n.comps)});\n")
        if k is ir.GlobalStore:
            self.read.add("tid")
            return f"{pad}{n.table}[tid] = {self.cast(self.tables[n.table].type, n.value)};\n"
        if k is ir.If:
            text = f"{pad}if ({self.e(n.test)}) {{\n{self.block(n.then, ind + 1)}{pad}}}"
            if n.other:
                text += f" else {{\n{self.block(n.other, ind + 1)}{pad}}}"
            return text + "\n"
        if k is ir.For:
            v = n.var.name
            cond = f"{v} < {n.count}"
            if n.bound is not None:
                cond += f" && (long long){v} < (long long)({self.e(n.bound)})"
            return f"{pad}for (int {v} = 0; {cond}; ++{v}) {{\n{self.block(n.body, ind + 1)}{pad}}}\n"
        if k is ir.Switch:
            text = f"{pad}switch ({self.e(n.test)}) {{\n"
            for label, body in n.cases:
                text += f"{pad}case {label}u: {{\n{self.block(body, ind + 1)}{pad}}} break;\n"
            text += f"{pad}default: {{\n{self.block(n.default, ind + 1)}{pad}}} break;\n{pad}}}\n"
            return text
        if k is ir.Out:
            return f"{pad}o[{n.slot}] = sg_bits({self.e(n.value)});\n"
        if k is ir.Return:
            return f"{pad}return {self.cast(self._ret, n.value)};\n"
        raise TypeError(f"cannot spell {k.__name__}")

    # ---- declarations
    def func(self, f: ir.Func) -> str:
        self._ret = f.ret
        if f.style == "lambda":
            return ""  # spelled at its call
        if f.style == "template":
            self.tparam = f.ret
            params = ", ".join(f"{self.t(p.type)} {p.name}" for p in f.params)
            text = (f"template <typename T> {f.space} {f.inline} T {f.name}({params}) {{\n"
                    f"{self.block(f.body, 1)}}}\n")
            self.tparam = None
            return text
        if f.style == "member":
            fields = " ".join(f"{p.type.name} {p.name};" for p in f.params)
            return (f"struct {f.name}_S {{ {fields}\n  {f.space} {f.inline} {f.ret.name} {f.name}() const {{\n"
                    f"{self.block(f.body, 2)}  }}\n}};\n")
        spec = "constexpr " if f.style == "constexpr" else ""
        params = ", ".join(f"{p.type.name} {p.name}" for p in f.params)
        return f"{f.space} {f.inline} {spec}{f.ret.name} {f.name}({params}) {{\n{self.block(f.body, 1)}}}\n"

    def table(self, t: ir.Table) -> str:
        if t.writable:
            return f"{t.space} {t.type.name} {t.name}[{self.p.lanes}];\n"
        vals = ", ".join(s.literal(t.type, v) for v in t.values)
        return f"{t.space} {t.type.name} {t.name}[{len(t.values)}] = {{{vals}}};\n"


BODY = "__device__ void body("  # how a program's body begins: its built-ins, then its outputs ``o``
DEVICE_ENV = {"tid": "sg_t", "tx": "threadIdx.x", "bx": "blockIdx.x", "bdim": "blockDim.x", "gdim": "gridDim.x",
              "lane": "threadIdx.x % 32u", "warp": "warpSize"}  # the built-ins in a kernel (sg_t: the thread's index)
HOST_ENV = {"tid": "t", "tx": "t % {n}u", "bx": "t / {n}u", "bdim": "{n}u", "gdim": "{b}u", "lane": "t % 32u",
            "warp": "32"}  # the same for host thread t of a launch of b blocks of n threads


def builtins(p: ir.Program) -> tuple[str, ...]:
    """Return the built-in values the program's body reads (``ir.BUILTINS``' order): its parameters before ``o``."""
    w = Writer(p)
    w.block(p.body, 1)
    return w.builtins()


def _call(p: ir.Program, env: dict[str, str], alone: bool = False) -> str:
    """Return the statement that runs the program's body, its built-ins spelled by ``env`` (``alone``: unqualified,
    as in a file of this program alone)."""
    args = ", ".join([*(env[n] for n in builtins(p)), "o"])
    return f"{'' if alone else f'sg_{p.name}::'}body({args});"


def _host_env(p: ir.Program) -> dict[str, str]:
    """Return the built-ins as host thread ``t`` sees them (in a program of one thread, their values)."""
    if p.lanes == 1:
        return {n: s.literal(ir.BUILTINS[n], vals[0]) for n, vals in interp.env(p).items()}
    return {n: e.format(n=p.threads, b=p.blocks) for n, e in HOST_ENV.items()}


def namespace(p: ir.Program, alone: bool = False) -> str:
    """Return the program's namespace: tables, functions and its per-thread ``body`` (``alone``: the same without the
    namespace, for a file that holds this program alone)."""
    w = Writer(p)
    parts = [] if alone else [f"namespace sg_{p.name} {{\n// seed {p.seed}, policy {p.policy}\n"]
    parts += [w.table(t) for t in p.tables]
    for f in p.funcs:
        w._ret = f.ret
        parts.append(w.func(f))
    w._ret, w.read = None, set()
    body = w.block(p.body, 1)
    params = "".join(f"{ir.BUILTINS[n].name} {n}, " for n in w.builtins())
    parts.append(f"{BODY}{params}unsigned long long *o) {{\n{body}}}\n")
    return "".join(parts) + ("" if alone else f"}}  // namespace sg_{p.name}\n")


def kernel(p: ir.Program, alone: bool = False) -> str:
    """Return the program's kernel: the body per thread, then its exchanges and atomic reductions (``alone``: calling
    the body of a file of this program alone). A kernel of one thread writes its outputs at the buffer's start."""
    several = p.lanes > 1
    buffer = "sg_out" if several else "o"
    call = _call(p, DEVICE_ENV, alone)
    lines = ["const unsigned sg_t = blockIdx.x * blockDim.x + threadIdx.x;"] if several or "sg_t" in call else []
    if several:
        lines.append(f"unsigned long long *o = sg_out + (unsigned long long)sg_t * {p.width}u;")
    lines.append(call)
    lines += [exchange.code(c, k) for k, c in enumerate(p.comms)]
    tail = f"{buffer} + {p.lanes * p.width}u"
    lines += [exchange.atomic_code(op, src, k, tail) for k, (op, src) in enumerate(p.atomics)]
    head = f'extern "C" __global__ void sg_k_{p.name}(unsigned long long *{buffer}) {{'
    if len(lines) == 1:
        return f"{head} {lines[0]} }}\n"
    return "\n  ".join([head, *lines]) + "\n}\n"


def source(programs) -> str:
    """Return one translation unit holding several programs (a batch)."""
    return HOST_PRELUDE + whole_prelude(programs) + "".join(namespace(p) + kernel(p) for p in programs)


def whole_prelude(programs) -> str:
    """The base prelude whole, and the float calls' helpers that these programs call (a file of many programs)."""
    calls = {n.name for p in programs for _, n in _walk((p.body, p.funcs)) if isinstance(n, ir.Intrin)}
    lines = [line for name, line in float_calls.LINES.items() if name in calls]
    return PRELUDE + (float_calls.HEADERS + float_calls.SUPPORT + "".join(line + "\n" for line in lines)
                      if lines else "")


def alone(p: ir.Program, text: str | None = None, whole: bool = False) -> str:
    """Return a file of one program's device code: the helpers it uses, its declarations and its kernel (``text``:
    the helpers and declarations to use instead, such as a textually reduced form of ``reducible``; ``whole``: in
    its namespace after the whole prelude, as a campaign's file holds it)."""
    return (reducible(p, whole) if text is None else text) + kernel(p, alone=not whole)


def module_source(used, texts) -> str:
    """Return one translation unit of programs given as text (each its ``namespace`` and ``kernel``) with the
    prelude's snippets they use (``used``: the union of their ``helpers``): a module of several programs."""
    return prelude_of(used) + "".join(texts)


def launch(p: ir.Program) -> tuple[str, int, int, int]:
    """Return how the GPU workers launch the program's kernel: its name, blocks, threads and output cells."""
    return f"sg_k_{p.name}", p.blocks, p.threads, p.cells


def _table(name: str, values) -> str:
    return f"static const unsigned long long {name}[{len(values)}] = {{{', '.join(f'{v}ull' for v in values)}}};\n"


STANDALONE_INCLUDE = "#include <cstdio>\n"  # a reproducer's one include, after its kernel


def standalone(p: ir.Program, expected: list[int], text: str | None = None, whole: bool = False) -> str:
    """Return a self-checking .cu file: it runs the program once and prints OK or each wrong cell
    (``text``: the helpers and declarations to use instead of the program's own, such as a textually reduced form)."""
    return alone(p, text, whole) + _checking_main(p, expected)


# A reproducer's every output cell, zeroed before its kernel runs and copied back after: no cell its kernel leaves
# unwritten is read uninitialised; and the check that a failed launch or copy is said as a CUDA error, not as wrong
# cells (a cut of a reproducer keeps all three: ``file_pass``).
ZEROED = "cudaMalloc(&d, n * 8); cudaMemset(d, 0, n * 8);"
COPIED = "cudaMemcpy(h, d, n * 8, cudaMemcpyDeviceToHost);"
CHECKED = 'if (cudaError_t err = cudaGetLastError()) return printf("CUDA error: %s\\n", cudaGetErrorString(err)), 2;'


def _checking_main(p: ir.Program, expected: list[int]) -> str:
    """Return a reproducer's ``main``: it launches the program's kernel once and prints OK or each wrong cell."""
    n = p.cells
    return (STANDALONE_INCLUDE + _table("sg_expect", expected) +
            f"int main() {{ const int n = {n}; unsigned long long *d, h[{n}]; int bad = 0;\n"
            f"  {ZEROED} sg_k_{p.name}<<<{p.blocks}, {p.threads}>>>(d); {COPIED}\n"
            f"  {CHECKED}\n"
            "  for (int i = 0; i < n; ++i) if (h[i] != sg_expect[i] && bad++ < 4) "
            "printf(\"cell %d: expected %llu, got %llu\\n\", i, sg_expect[i], h[i]);\n" + VERDICT_LINE)


VERDICT_LINE = "  printf(bad ? \"WRONG %d\\n\" : \"OK\\n\", bad); return bad != 0; }\n"  # a reproducer's last line
CASE_VERDICT_LINE = ("  printf(bad ? \"SUITEGEN-RESULT: FAIL %d wrong cells\\n\" : \"SUITEGEN-RESULT: PASS\\n\", bad);"
                     " return bad != 0; }\n")  # the same, as the oracle's runtime cases report (common/selfcheck.cuh)


def as_case(reproducer: str) -> str:
    """Return a reproducer as an oracle runtime case: its verdict lines in the harness's words; its include first
    and its kernel of C++ linkage, so that the case may share a batch's build (``cases.fragment``)."""
    if not reproducer.endswith(VERDICT_LINE):
        raise ValueError("not a reproducer written by emit.standalone (its last line differs)")
    text = reproducer.removesuffix(VERDICT_LINE).replace(
        'return printf("CUDA error: %s\\n"', 'return printf("SUITEGEN-RESULT: FAIL cuda error %s\\n"')
    before, _, after = text.rpartition(STANDALONE_INCLUDE)  # the one after the kernel
    head = STANDALONE_INCLUDE + "".join(unguarded for guarded, unguarded in HOST_HEADERS.items()
                                        if guarded in before)  # a program is never NVRTC's
    for guarded in HOST_HEADERS:
        before = before.replace(guarded, "", 1)
    text = head + before + after
    return text.replace('extern "C" __global__ void sg_k_', "__global__ void sg_k_", 1) + CASE_VERDICT_LINE


def reducible(p: ir.Program, whole: bool = False) -> str:
    """Return the part of a reproducer that textual reduction edits: the helpers the program uses and its
    declarations (its kernel and ``main`` stay as they are); ``whole``: the whole prelude and the program in its
    namespace, the layout of a campaign's file (``source``), where some bugs show that the short one hides."""
    return whole_prelude([p]) + namespace(p) if whole else prelude([p]) + namespace(p, alone=True)


def host_dump(p: ir.Program, text: str, whole: bool = False) -> str:
    """Return a host C++ file that runs ``text`` (helpers and the program's namespace) for every thread and
    prints each body output, one per line: the model-free reference of a textual reduction."""
    kinds = {n.kind for _, n in _walk((p.body, p.funcs)) if isinstance(n, ir.VecDecl)}
    return (host_prelude(kinds) + text +
            f"int main() {{ unsigned long long o[{p.outputs}];\n"
            f"  for (unsigned t = 0; t < {p.lanes}u; ++t) {{ for (int j = 0; j < {p.outputs}; ++j) o[j] = 0; "
            f"{_call(p, _host_env(p), alone=not whole)}\n"
            f"    for (int j = 0; j < {p.outputs}; ++j) printf(\"%llu\\n\", o[j]); }}\n  return 0; }}\n")


def host_check(programs, expected: list[list[int]], minimal: bool = False) -> str:
    """Return a host C++ file that runs each program's body for every thread and prints each wrong output."""
    kinds = {n.kind for p in programs for _, n in _walk((p.body, p.funcs)) if isinstance(n, ir.VecDecl)}
    out = [host_prelude(kinds) if minimal else HOST_PRELUDE, prelude(programs) if minimal else whole_prelude(programs)]
    for p in programs:
        out.append(namespace(p))
    out.append("int main() {\n  int bad = 0;\n  unsigned long long o[64];\n")
    for p, exp in zip(programs, expected):
        body_cells = [exp[lane * p.width + j] for lane in range(p.lanes) for j in range(p.outputs)]
        out.append("  {\n  " + _table("want", body_cells).replace("\n", "\n  "))
        out.append(f"  for (unsigned t = 0; t < {p.lanes}u; ++t) {{\n"
                   f"    for (int j = 0; j < {p.outputs}; ++j) o[j] = 0;\n"
                   f"    {_call(p, _host_env(p))}\n"
                   f"    for (int j = 0; j < {p.outputs}; ++j) if (o[j] != want[t * {p.outputs} + j]) {{\n"
                   f"      printf(\"{p.name} thread %u output %d: expected %llu, got %llu\\n\", t, j, "
                   f"want[t * {p.outputs} + j], o[j]); ++bad; }}\n  }}\n  }}\n")
    out.append("  printf(bad ? \"WRONG %d\\n\" : \"OK\\n\", bad);\n  return bad ? 1 : 0;\n}\n")
    return "".join(out)


def checked_main(programs, expected: list[list[int]]) -> str:
    """Return a host ``main`` that runs every program's kernel once on a zeroed buffer and prints each wrong cell
    (the file a tool such as compute-sanitizer runs: ``source(programs) + checked_main(...)``)."""
    out = ["#include <cstdio>\nint main() {\n  int bad = 0;\n  unsigned long long *d, *h;\n"]
    for p, exp in zip(programs, expected):
        n = p.cells
        out.append("  {\n  " + _table("want", exp).replace("\n", "\n  ") +
                   f"  cudaMalloc(&d, {n} * 8); cudaMemset(d, 0, {n} * 8); h = new unsigned long long[{n}];\n"
                   f"  sg_k_{p.name}<<<{p.blocks}, {p.threads}>>>(d);\n"
                   f"  cudaMemcpy(h, d, {n} * 8, cudaMemcpyDeviceToHost);\n"
                   f"  for (int i = 0; i < {n}; ++i) if (h[i] != want[i]) {{ ++bad; "
                   f"printf(\"{p.name} cell %d: expected %llu, got %llu\\n\", i, want[i], h[i]); }}\n"
                   "  cudaFree(d); delete[] h;\n  }\n")
    out.append("  printf(bad ? \"WRONG %d\\n\" : \"OK\\n\", bad);\n  return bad ? 1 : 0;\n}\n")
    return "".join(out)


def host_standalone(p: ir.Program, expected: list[int]) -> str:
    """Return a short self-checking host C++ file for one program's body (a host finding's reproducer): the body as
    host code, the keywords its functions use defined away, a loop over threads only where there are several."""
    body = prelude([p]).replace("#define SG_HD __host__ __device__ __forceinline__\n", "").replace("SG_HD ", "")
    includes = "".join(unguarded for guarded, unguarded in HOST_HEADERS.items() if guarded in body)
    for guarded in HOST_HEADERS:
        body = body.replace(guarded, "")
    body += namespace(p, alone=True).replace(BODY, BODY.removeprefix("__device__ "), 1)
    keywords = [k for k in ("__host__", "__device__", "__forceinline__", "__noinline__", "__constant__", "__managed__")
                if k in body]
    head = "#include <cstdio>\n" + includes
    head += "".join(HOST_HEAD.split(f"#define {k}")[1].split("\n")[0].join((f"#define {k}", "\n")) for k in keywords)
    body = body.replace("#include <cstring>\n", "")
    kinds = {n.kind for _, n in _walk((p.body, p.funcs)) if isinstance(n, ir.VecDecl)}
    vectors = host_prelude(kinds).split("__attribute__((always_inline))\n", 1)[1].removesuffix("#endif\n")
    w, run = p.outputs, _call(p, _host_env(p), alone=True)
    want = [expected[t * p.width + j] for t in range(p.lanes) for j in range(w)]
    cell, who = ("j", "") if p.lanes == 1 else (f"t * {w} + j", "thread %u ")
    check = (f"for (int j = 0; j < {w}; ++j) if (o[j] != want[{cell}] && bad++ < 4) "
             f"printf(\"{who}output %d: expected %llu, got %llu\\n\", {'t, ' if who else ''}j, want[{cell}], o[j]);")
    if p.lanes == 1:
        main = f"int main() {{ unsigned long long o[{w}] = {{}}; int bad = 0; {run}\n  {check}\n"
    else:
        main = (f"int main() {{ unsigned long long o[{w}]; int bad = 0;\n  for (unsigned t = 0; t < {p.lanes}u; ++t) "
                f"{{ for (int j = 0; j < {w}; ++j) o[j] = 0; {run}\n    {check} }}\n")
    return head + vectors + body + _table("want", want) + main + VERDICT_LINE
