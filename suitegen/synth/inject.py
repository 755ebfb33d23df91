"""Puts exactly one violation of an oracle rule into a generated valid program, in a chosen context.

A violation is one line of code that a rule forbids (a ``throw`` in device code, a ``__shared__``
variable with an initializer, ...). ``inject`` writes it into a new function of the program's
namespace, spelled in one of four contexts: the body of an instantiated function template, an
immediately invoked lambda, a member function, or a plain function reached only through a call chain.
That function is reached from the program's own code (a random statement of ``body`` or of one of
its ``__device__`` functions) through a random number of wrapper functions, so a diagnostic must be
attributed through instantiations and call chains. Device-side violations hang off the kernel; host-side
ones (a ``__device__`` function called from host code) off a new host function. Everything else is
the generated program, unchanged. Pure: the same program, violation, context and random state give
the same bytes.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass

from suitegen.cases.fragment import parse
from suitegen.model import FROZEN, UsageError
from suitegen.synth import emit, ir, populate
from suitegen.synth.policies import CORPUS_MIX
from suitegen.synth.reduce import nodes

CONTEXTS = ("template", "lambda", "member", "chain")
TYPES = ("int", "unsigned", "long long")  # the carrier's type: T in a template, spelled out elsewhere
MARK = "// sg-violation:"  # ends the violation's line, so a reader of the file sees it


@dataclass(**FROZEN)
class Violation:
    """One forbidden line and what it needs around it.

    ``stmt`` and ``support`` are format strings: ``{T}`` the carrier's type, ``{x}`` its parameter (a
    local of type T), ``{n}`` a suffix unique to the program. ``support`` is the valid code the line needs,
    spliced as a fragment (``cases.fragment``): its ``#include`` lines at the top of the file, the rest at
    namespace scope. ``side`` is where the function holding the line runs; ``case`` names the rule's
    hand-written negative variant that does the same thing.
    """

    name: str
    rule: str
    side: str  # "device" or "host"
    stmt: str
    case: str
    support: str = ""
    phase: str = "front-end"


@dataclass(**FROZEN)
class Invalid:
    """A generated program with one violation: its source, what must reject it, and where."""

    program: str  # the program's name (sg_<name> is its namespace)
    seed: str
    violation: str
    rule: str
    context: str
    depth: int  # calls from the kernel (device side) or from the host entry (host side) to the violation
    line: int  # 1-based line of the violation in ``source``
    phase: str
    source: str
    file: str = "main.cu"


VIOLATIONS: tuple[Violation, ...] = (
    Violation(name="throw", rule="exceptions/host-code-only", side="device", case="neg-device-throw",
              stmt="if ({x} == ({T})12345) throw {x};"),
    Violation(name="try-catch", rule="exceptions/host-code-only", side="device", case="neg-device-try-catch",
              stmt="try {{ {x} += 1; }} catch (...) {{ {x} = 0; }}"),
    Violation(name="shared-initializer", rule="assignment-operator/shared-no-initializer", side="device",
              case="neg-device-function-copy", stmt="__shared__ {T} sg_s{n} = 1; {x} += sg_s{n};"),
    Violation(name="constant-write-device", rule="assignment-operator/constant-not-assignable-in-device-code",
              side="device", case="neg-device-assign", support="__constant__ int sg_c{n} = 1;",
              stmt="sg_c{n} = (int){x};"),
    Violation(name="constant-element-write-device", rule="assignment-operator/constant-not-assignable-in-device-code",
              side="device", case="neg-device-array-element", support="__constant__ int sg_ca{n}[4] = {{1, 2, 3, 4}};",
              stmt="sg_ca{n}[1] = (int){x};"),
    Violation(name="builtin-assign", rule="assignment-operator/builtin-not-assignable", side="device",
              case="neg-blockIdx-member", stmt="blockIdx.x = (unsigned){x};"),
    Violation(name="builtin-address", rule="address-operator/builtin-address", side="device",
              case="neg-blockIdx-whole", stmt="const uint3 *sg_b{n} = &blockIdx; {x} += (sg_b{n} != nullptr);"),
    Violation(name="host-const", rule="const-variables/host-const-in-device-code", side="device",
              case="neg-non-constant-initializer",
              support="int sg_hv{n}() {{ return 4; }}\nconst int sg_rc{n} = sg_hv{n}();",
              stmt="{x} += sg_rc{n};"),
    Violation(name="static-member", rule="data-members/static-member-device-use", side="device",
              case="neg-nonconst-read-device", support="struct sg_H{n} {{ static int m; }};\nint sg_H{n}::m = 37;",
              stmt="{x} += sg_H{n}::m;"),
    Violation(name="anonymous-union", rule="anonymous-unions/namespace-scope-member-in-device-code",
              side="device", case="neg-global-static-read-device",
              support="static union {{ int sg_ux{n}; float sg_uf{n}; }};", stmt="{x} += sg_ux{n};"),
    Violation(name="host-call", rule="execution-space-specifiers/host-callable-from-host-only", side="device",
              case="neg-host-from-device", support="int sg_hf{n}(int v) {{ return v + 1; }}",
              stmt="{x} += sg_hf{n}(1);"),
    Violation(name="automatic-device", rule="device-memory-space/no-automatic-in-device-function",
              side="device", case="neg-automatic-device-device", stmt="__device__ int sg_l{n} = 7; {x} += sg_l{n};"),
    Violation(name="long-double", rule="long-double/not-in-device-code", side="device", case="neg-device-local",
              stmt="long double sg_ld{n} = {x}; {x} += (int)sg_ld{n};"),
    Violation(name="typeid", rule="rtti/typeid-host-only", side="device", case="neg-device-type",
              support="#include <typeinfo>", stmt="{x} += (typeid({T}) == typeid(int));"),
    Violation(name="dynamic-cast", rule="rtti/dynamic-cast-host-only", side="device", case="neg-device-pointer",
              support=("struct sg_B{n} {{ __host__ __device__ virtual ~sg_B{n}() {{}} }};\n"
                       "struct sg_D{n} : sg_B{n} {{ int value; }};"),
              stmt="sg_D{n} sg_o{n}; sg_B{n} *sg_p{n} = &sg_o{n}; {x} += dynamic_cast<sg_D{n} *>(sg_p{n}) != nullptr;"),
    Violation(name="thread-local", rule="thread-local/not-in-device-code", side="device",
              case="neg-device-thread-local", stmt="thread_local int sg_tl{n} = 40; {x} += ++sg_tl{n};"),
    Violation(name="dynamic-static", rule="static-variables/device-function-static", side="device",
              case="neg-int-from-local-device", stmt="static {T} sg_st{n} = {x}; {x} += sg_st{n};"),
    Violation(name="statement-expression", rule="host-compiler-extensions/gnu-extensions-not-in-device-code",
              side="device", case="neg-device-statement-expression", stmt="{x} += ({{ int sg_q{n} = 2; sg_q{n}; }});"),
    Violation(name="float128", rule="host-compiler-extensions/float128-host-only", side="device",
              case="neg-device", stmt="__float128 sg_q{n} = {x}; {x} += (int)(sg_q{n} * 3);"),
    Violation(name="complex", rule="host-compiler-extensions/complex-host-only", side="device", case="neg-device",
              stmt="_Complex double sg_z{n} = {x}; {x} += (int)__real__ sg_z{n};"),
    Violation(name="managed-local", rule="managed/device-function-needs-linkage", side="device",
              case="neg-automatic-device", stmt="__managed__ int sg_m{n}; {x} += sg_m{n};"),
    Violation(name="strlen", rule="standard-library/host-only-unless-stated", side="device",
              case="neg-device-strlen", support="#include <cstring>",
              stmt="char sg_t{n}[3] = {{'a', (char){x}, 0}}; {x} += (int)std::strlen(sg_t{n});"),
    Violation(name="vla", rule="host-compiler-extensions/gnu-extensions-not-in-device-code", side="device",
              case="neg-device-variable-length-array",
              stmt="int sg_a{n}[(unsigned){x} % 4u + 1u]; sg_a{n}[0] = 1; {x} += sg_a{n}[0];"),
    Violation(name="constexpr-host-call", rule="constexpr-functions/cross-space-call", side="device",
              case="neg-implicit-host-from-device", support="constexpr int sg_ce{n}(int v) {{ return v + 1; }}",
              stmt="{x} += sg_ce{n}((int){x});"),
    Violation(name="host-constexpr-address", rule="constexpr-variables/host-constexpr-in-device-code",
              side="device", case="neg-address-v3", support="constexpr int sg_cv{n} = 3;",
              stmt="const int *sg_pa{n} = &sg_cv{n}; {x} += *sg_pa{n};"),
    Violation(name="shared-constexpr-address", rule="variable-memory-space-specifiers/shared-no-constant-address",
              side="device", case="neg-block-constexpr-pointer",
              stmt="__shared__ int sg_sh{n}; constexpr int *sg_sp{n} = &sg_sh{n}; {x} += (sg_sp{n} != nullptr);"),
    # host side: the line sits in host code
    Violation(name="device-call", rule="execution-space-specifiers/device-callable-from-device-only",
              side="host", case="neg-from-host", support="__device__ int sg_df{n}(int v) {{ return v + 1; }}",
              stmt="{x} += sg_df{n}(1);"),
    Violation(name="unconfigured-launch", rule="execution-space-specifiers/global-call-configured", side="host",
              case="neg-unconfigured", support="__global__ void sg_g{n}(int v) {{ (void)v; }}",
              stmt="sg_g{n}((int){x});"),
    Violation(name="fence-in-host", rule="memory-fences/fences-not-in-host-code", side="host",
              case="neg-threadfence", stmt="__threadfence();"),
    Violation(name="shared-in-host", rule="device-memory-space/no-local-in-host-function", side="host",
              case="neg-shared-automatic", stmt="__shared__ int sg_hs{n}; sg_hs{n} = 1; {x} += sg_hs{n};"),
    Violation(name="constant-write-host", rule="assignment-operator/constant-host-only-via-runtime",
              side="host", case="neg-host-assign", support="__constant__ int sg_hc{n} = 1;",
              stmt="sg_hc{n} = (int){x};"),
    Violation(name="builtin-in-host", rule="built-in-variables/device-functions-only", side="host",
              case="neg-threadIdx-host", stmt="{x} += threadIdx.x;"),
    Violation(name="device-address-in-host", rule="function-pointers/no-device-function-address-in-host",
              side="host", case="neg-address-in-host-code", support="__device__ int sg_da{n}(int v) {{ return v; }}",
              stmt="int (*sg_fp{n})(int) = sg_da{n}; {x} += sg_fp{n} != nullptr;"),
)
BY_NAME = {v.name: v for v in VIOLATIONS}
assert len(BY_NAME) == len(VIOLATIONS), "violation names must be unique"


def rules() -> list[str]:
    """Return the oracle rule ids the registry covers, sorted."""
    return sorted({v.rule for v in VIOLATIONS})


# ---- where the call to the violation can go -----------------------------------------------------

def _calls(node) -> set[str]:
    return {n.func for n in nodes(node) if isinstance(n, ir.Call)}


_REACHED: dict[int, tuple[ir.Program, dict[str, int]]] = {}  # ``_depths`` of the programs being injected into


def _depths(program: ir.Program) -> dict[str, int]:
    """Return each generated function's call depth from ``body`` (body itself is 0), for those reached (the same
    program is injected into once per violation and context: its depths are found once)."""
    hit = _REACHED.get(id(program))
    if hit is None or hit[0] is not program:
        if len(_REACHED) > 16:
            _REACHED.clear()
        hit = _REACHED[id(program)] = (program, _reached(program))
    return hit[1]


def _reached(program: ir.Program) -> dict[str, int]:
    funcs = {f.name: f for f in program.funcs}
    depth, frontier, d = {"body": 0}, _calls(program.body), 0
    while frontier:
        d += 1
        new = {f for f in frontier if f in funcs and f not in depth}
        for f in new:
            depth[f] = d
        frontier = set().union(*(_calls(funcs[f].body) for f in new)) if new else set()
    return depth


def _ranges(lines: list[str], program: ir.Program) -> list[tuple[str, int, int]]:
    """Return (function, first, end) line ranges of body and of the reached ``__device__`` functions that may hold a call.

    Constexpr and recursive functions are left out (a call would spoil their constant evaluation),
    and so are ``__host__ __device__`` ones (a ``__device__`` callee there is a diagnostic of its own).
    """
    out = []
    start = lines.index(next(x for x in lines if x.startswith(emit.BODY)))
    out.append(("body", start + 1, lines.index("}", start)))
    reached = _depths(program)
    for f in program.funcs:
        if f.name not in reached or f.space != "__device__" or f.style not in ("plain", "template", "member"):
            continue
        if f.style == "member":
            head = lines.index(next(x for x in lines if x.startswith(f"struct {f.name}_S {{")))
            out.append((f.name, head + 2, lines.index("  }", head)))
        else:
            pat = re.compile(rf"^(template <typename T> )?__device__ .*\b{f.name}\(.*\{{$")
            head = next(i for i, x in enumerate(lines) if pat.match(x))
            out.append((f.name, head + 1, lines.index("}", head)))
    return out


def _slots(lines: list[str], first: int, end: int) -> list[int]:
    """Return the indices in [first, end] before which a statement may be inserted (statement boundaries only)."""
    slots = []
    for i in range(first, end + 1):
        text, before = lines[i].strip(), lines[i - 1].strip()
        if text.startswith(("case ", "default:")) or before.endswith("break;"):
            continue  # between a switch's cases
        if before.endswith((";", "{")):
            slots.append(i)
    return slots


# ---- the injected functions ---------------------------------------------------------------------

def _carrier(v: Violation, context: str, t: str, n: str) -> tuple[list[str], str]:
    """Return the lines of the function holding the violation and its name as called (with ``{arg}`` for the argument)."""
    space = "__device__ " if v.side == "device" else ""
    name = f"sg_inj_{n}"
    tp = "T" if context == "template" else t
    line = v.stmt.format(T=tp, x="sg_x", n=n) + f"  {MARK} {v.rule}"
    if context == "template":
        return ([f"template <typename T> {space}T {name}(T sg_x) {{", f"  {line}", "  return sg_x;", "}"],
                f"{name}<{t}>(({t})({{arg}}))")
    if context == "lambda":
        return ([f"{space}{t} {name}({t} sg_x) {{", f"  return [&]() -> {t} {{", f"    {line}", "    return sg_x;",
                 "  }();", "}"], f"{name}(({t})({{arg}}))")
    if context == "member":
        return ([f"struct {name}_S {{ {t} sg_x;", f"  {space}{t} run() {{", f"    {line}", "    return sg_x;",
                 "  }", "};"], f"{name}_S{{({t})({{arg}})}}.run()")
    return [f"{space}{t} {name}({t} sg_x) {{", f"  {line}", "  return sg_x;", "}"], f"{name}(({t})({{arg}}))"


def _wrappers(v: Violation, count: int, target: str, n: str, rng: random.Random) -> tuple[list[str], str]:
    """Return ``count`` wrapper functions, deepest first, each calling the next, and the call of the outermost."""
    space = "__device__ " if v.side == "device" else ""
    lines, call = [], target
    for k in range(count, 0, -1):
        inline = rng.choice(("", "__noinline__ ", "__forceinline__ ")) if v.side == "device" else ""
        name = f"sg_w{k}_{n}"
        lines += [f"{space}{inline}int {name}(int sg_v) {{",
                  f"  return (int)({call.replace('{arg}', 'sg_v')}) + {rng.randint(1, 9)};", "}"]
        call = f"{name}({{arg}})"
    return lines, call


def inject(program: ir.Program, violation: Violation, context: str, rng: random.Random) -> Invalid:
    """Return the program's source with ``violation`` placed in ``context``, at a random depth, and where it is."""
    if context not in CONTEXTS:
        raise UsageError(f"unknown context {context!r}: one of {', '.join(CONTEXTS)}")
    v, n = violation, program.name
    lines = emit.source([program]).splitlines()
    t = rng.choice(TYPES)
    carrier, call = _carrier(v, context, t, n)
    wrappers = rng.randint(1, 3) if context == "chain" else rng.randint(0, 2)
    wrapped, call = _wrappers(v, wrappers, call, n, rng)
    block = [f"// injected: {v.name} ({v.rule}) in a {context}"]
    support = parse(v.support.format(n=n))
    block += [*support.code, *carrier, *wrapped]
    stmt = f"(void)({call.replace('{arg}', str(rng.randint(0, 99)))});"
    open_at = lines.index(next(x for x in lines if x.startswith(f"namespace sg_{n} {{"))) + 2  # after the seed comment
    close_at = lines.index(f"}}  // namespace sg_{n}")
    if v.side == "device":
        site, first, end = rng.choice(_ranges(lines, program))
        at = rng.choice(_slots(lines, first, end))
        pad = re.match(r"\s*", lines[at]).group() or "  "
        depth = 1 + _depths(program)[site] + 1 + wrappers  # kernel -> body -> ... -> site -> wrappers -> carrier
        lines[at:at] = [pad + stmt]
    else:
        lines[close_at:close_at] = [f"void sg_host_{n}() {{", f"  {stmt}", "}"]
        depth = 1 + wrappers
    lines[open_at:open_at] = block
    lines[0:0] = support.includes
    text = "\n".join(lines) + "\n"
    line = next(i for i, x in enumerate(lines, 1) if MARK in x)
    return Invalid(program=n, seed=program.seed, violation=v.name, rule=v.rule, context=context, depth=depth,
                   line=line, phase=v.phase, source=text)


def generate(seed: str, index: int, violation: str, context: str, policy: str | None = None) -> Invalid:
    """Return the invalid form of program ``index`` of ``seed``: the same arguments always give the same bytes."""
    program = populate.generate(seed, index, policy)
    return inject(program, BY_NAME[violation], context, random.Random(f"{seed}:{index}:{violation}:{context}"))


def matrix(seed: str, per_cell: int = 1, violations=None, contexts=CONTEXTS) -> list[Invalid]:
    """Return ``per_cell`` invalid programs for each violation x context (program k of a cell is index k)."""
    names = violations or [v.name for v in VIOLATIONS]
    programs = [populate.generate(seed, k, mix=CORPUS_MIX) for k in range(per_cell)]
    return [inject(programs[k], BY_NAME[name], c, random.Random(f"{seed}:{k}:{name}:{c}"))
            for name in names for c in contexts for k in range(per_cell)]
