"""The program generator: its model of C++ arithmetic, determinism, soundness on the host, and reduction."""
import pickle
import shutil
import subprocess
from dataclasses import replace

import pytest

from suitegen.synth import emit, interp, ir, populate, reduce
from suitegen.synth import semantics as s
from suitegen.synth.semantics import UB

from conftest import HAVE_NVCC

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")

# (op, left type, left, right type, right) -> value, or UB
BINARY = [
    ("+", s.I32, 2**31 - 1, s.I32, 1, UB),
    ("+", s.U32, 2**32 - 1, s.U32, 1, 0),
    ("+", s.I8, 127, s.I8, 1, 128),  # promoted to int: no overflow
    ("-", s.I32, 0, s.U32, 1, 2**32 - 1),  # usual arithmetic conversions: unsigned
    ("*", s.I64, 2**62, s.I64, 2, UB),
    ("*", s.U16, 65535, s.U16, 65535, UB),  # promoted to int: 65535 * 65535 overflows int
    ("/", s.I32, -7, s.I32, 2, -3),
    ("%", s.I32, -7, s.I32, 2, -1),
    ("/", s.I32, -2**31, s.I32, -1, UB),
    ("%", s.I32, -2**31, s.I32, -1, UB),
    ("/", s.U32, 7, s.U32, 0, UB),
    ("<<", s.I32, 1, s.I32, 31, UB),  # the strict C++11 rule
    ("<<", s.U32, 1, s.I32, 31, 2**31),
    ("<<", s.U32, 1, s.I32, 32, UB),
    ("<<", s.I32, -1, s.I32, 1, UB),
    (">>", s.I32, -8, s.I32, 1, -4),
    ("<<", s.U8, 255, s.I32, 24, UB),  # promoted to int: 255 << 24 does not fit
    ("<", s.I32, -1, s.U32, 0, 0),  # -1 converts to UINT_MAX
    ("<", s.I64, -1, s.U32, 0, 1),  # long long holds every unsigned value
    ("==", s.F32, 0.0, s.F32, -0.0, 1),
    ("+", s.F32, 16777216.0, s.F32, 1.0, 16777216.0),  # rounds to nearest even
    ("/", s.F64, 1.0, s.F64, 0.0, UB),
    ("*", s.F32, 3.0e38, s.F32, 10.0, UB),  # overflow to infinity
    ("&&", s.F64, 0.5, s.I32, 3, 1),
]


@pytest.mark.parametrize("op,ta,a,tb,b,want", BINARY)
def test_binary_operations_follow_cxx(op, ta, a, tb, b, want):
    if want is UB:
        with pytest.raises(UB):
            s.binary(op, ta, a, tb, b)
        with pytest.raises(UB):
            s.binary_lanes(op, ta, [a], tb, [b], [True])
    else:
        assert s.binary(op, ta, a, tb, b) == want
        assert s.binary_lanes(op, ta, [a], tb, [b], [True]) == [want]


CONVERSIONS = [
    (2**63 - 1, s.I64, s.I32, -1),
    (300, s.I32, s.U8, 44),
    (200, s.U8, s.I8, -56),
    (-0.5, s.F64, s.U32, 0),  # truncates to 0, which fits
    (-1.5, s.F64, s.U32, UB),
    (3e9, s.F64, s.I32, UB),
    (2**24 + 1, s.I32, s.F32, 2.0**24),
    (2**53 + 1, s.I64, s.F64, 2.0**53),  # ties to even
    (2**53 + 3, s.I64, s.F64, 2.0**53 + 4),
    (2**64 - 1, s.U64, s.F32, 2.0**64),
    (0.1, s.F64, s.F32, 0.10000000149011612),
    (0.25, s.F64, s.BOOL, 1),
]


@pytest.mark.parametrize("v,src,dst,want", CONVERSIONS)
def test_conversions_follow_cxx(v, src, dst, want):
    if want is UB:
        with pytest.raises(UB):
            s.convert(v, src, dst)
    else:
        assert s.convert(v, src, dst) == want


def test_common_types():
    assert s.common(s.I8, s.U16) is s.I32
    assert s.common(s.I32, s.U32) is s.U32
    assert s.common(s.I64, s.U32) is s.I64
    assert s.common(s.I64, s.U64) is s.U64
    assert s.common(s.U64, s.F32) is s.F32
    assert s.promote(s.BOOL) is s.I32 and s.promote(s.U32) is s.U32


@needs_gxx
def test_literals_spell_their_values(tmp_path):
    """Every literal the emitter writes compiles to exactly the value the model holds."""
    cases = [(t, v) for t in s.INTEGERS for v in (t.lo, t.hi, 0, 1, -1 if t.signed else 7)]
    cases += [(t, v) for t in s.FLOATS for v in (0.1, -2.5e-7, 1e30 if t is s.F64 else 3.4e38, 1.401298464324817e-45)]
    cases = [(t, s.convert(v, s.F64, t) if t.floating else v) for t, v in cases]
    body = "".join(f'  printf("%llu\\n", sg_bits(({t.name})({s.literal(t, v)})));\n' for t, v in cases)
    src = tmp_path / "lits.cpp"
    src.write_text(emit.HOST_PRELUDE + emit.PRELUDE + "int main() {\n" + body + "}\n")
    subprocess.run(["g++", "-std=c++17", "-w", str(src), "-o", str(tmp_path / "lits")], check=True)
    out = subprocess.run([str(tmp_path / "lits")], capture_output=True, text=True, check=True).stdout.split()
    assert [int(x) for x in out] == [s.bits_of(t, v) for t, v in cases]


def test_same_seed_same_program_and_bytes():
    a = [populate.generate("det", i) for i in range(4)]
    b = [populate.generate("det", i) for i in range(4)]
    assert a == b
    assert emit.source(a) == emit.source(b)
    assert populate.generate("det", 0) != populate.generate("det", 1)
    assert populate.generate("other", 0) != a[0]


def test_programs_pickle_with_their_types():
    p = populate.generate("pickle", 3)
    q = pickle.loads(pickle.dumps(p))
    assert q == p
    assert q.body[0].var.type is p.body[0].var.type  # one object per type survives a process pool


def test_programs_are_big_enough_to_count():
    """The issue's measure: at least 30 statements or 100 expression nodes."""
    for i in range(6):
        p = populate.generate("size", i)
        nodes = sum(1 for _, n in reduce.walk((p.body, p.funcs)) if isinstance(n, reduce.EXPRESSIONS))
        stmts = sum(1 for _, n in reduce.walk((p.body, p.funcs)) if isinstance(n, reduce.STATEMENTS))
        assert stmts >= 30 or nodes >= 100, (i, stmts, nodes)


def test_masks_guard_what_they_guard():
    """A division under ``if (b != 0)`` is evaluated only where the guard holds."""
    b = ir.Var(name="b", type=s.I32)
    q = ir.Var(name="q", type=s.I32)
    body = (ir.Decl(var=b, init=ir.Cast(type=s.I32, arg=ir.Bin(op="&", lhs=ir.Env(name="tid"), rhs=ir.Lit(type=s.U32, value=1)))),
            ir.Decl(var=q, init=ir.Lit(type=s.I32, value=-1)),
            ir.If(test=ir.Bin(op="!=", lhs=ir.Ref(var=b), rhs=ir.ZERO),
                  then=(ir.Assign(var=q, op="", value=ir.Bin(op="/", lhs=ir.Lit(type=s.I32, value=10), rhs=ir.Ref(var=b))),)),
            ir.Out(slot=0, value=ir.Ref(var=q)))
    p = ir.Program(name="m", seed="m", blocks=1, threads=32, tables=(), funcs=(), body=body, outputs=1)
    outs, _ = interp.run(p)
    assert [row[0] for row in outs[:4]] == [2**32 - 1, 10, 2**32 - 1, 10]
    unguarded = ir.Program(name="m", seed="m", blocks=1, threads=32, tables=(), funcs=(), outputs=1,
                           body=(*body[:2], body[2].then[0], body[3]))
    assert reduce.expected(unguarded) is None


@needs_gxx
def test_generated_programs_match_the_model_on_the_host(tmp_path):
    """Soundness, a small sample: g++ -O0 and -O2 with UBSan agree with the model and report nothing."""
    from suitegen.execute import host_check
    progs = [populate.generate("sound", i) for i in range(12)]
    exp = [reduce.expected(p) for p in progs]
    for name, flags in host_check.HOST_BUILDS.items():
        run = host_check.run(emit.host_check(progs, exp), tmp_path / name, name, flags)
        assert run.ok and not run.wrong and not run.undefined, run.log[-2000:]


def test_reduction_keeps_what_the_test_asks_for_and_never_adds_undefined_behaviour():
    """A fake interestingness test: the program still holds a 64-bit multiply. Every candidate it sees is
    well defined in the model, and the result is far smaller than the start."""
    p = populate.generate("reduce", 5, "wide")

    def has_mul(prog):
        return any(isinstance(n, ir.Bin) and n.op == "*" and n.type.bits == 64
                   for _, n in reduce.walk((prog.body, prog.funcs)))
    assert has_mul(p)
    seen = []

    def still_bad(cands):
        seen.extend(cands)
        return [has_mul(c) for c in cands]
    small = reduce.reduce(p, still_bad)
    assert has_mul(small)
    assert all(reduce.expected(c) is not None for c in seen)
    assert reduce.size(small.body) + reduce.size(small.funcs) <= 12 < reduce.size(p.body)


def test_no_candidate_names_a_variable_its_cut_removed():
    """A cut can leave a read of a variable it removed where the model never runs it (a branch not taken): the model
    computes the program, nvcc refuses it. No such candidate is judged (one in a batch built as one module would sink
    the batch); every program generated is scoped."""
    assert all(reduce.scoped(populate.generate("scoped", i)) for i in range(60))
    p = reduce._tidy(populate.generate("k11", 280))  # its first round holds three such candidates
    assert sum(not reduce.scoped(c) for c in map(reduce._tidy, reduce.candidates(p))) >= 3
    seen = []
    reduce.reduce(p, lambda cands: seen.extend(cands) or [False] * len(cands))
    assert len(seen) > 100 and all(reduce.scoped(c) for c in seen)


def test_reduction_shrinks_the_harness_to_one_thread_and_one_output():
    """Where the bug needs no more, a reduced program runs one thread of one block with one output (its slot renumbered
    to 0) and no exchanges or atomics, and its reproducers hold one expected cell and no loop over threads; a bug that
    needs a warp exchange keeps a whole warp (the model refuses a full-mask warp operation in a partial one)."""
    def xor_out(prog) -> bool:  # an output computed with a ^
        return any(isinstance(n, ir.Out) and any(isinstance(m, ir.Bin) and m.op == "^" for _, m in reduce.walk(n))
                   for _, n in reduce.walk(prog.body))
    p = next(q for q in (populate.generate("harness", i) for i in range(40))
             if q.lanes > 32 and q.comms and q.atomics and q.outputs > 1 and xor_out(q))
    small = reduce.reduce(p, lambda cands: [xor_out(c) for c in cands])
    assert (small.blocks, small.threads, small.outputs, small.comms, small.atomics) == (1, 1, 1, (), ())
    assert [n.slot for _, n in reduce.walk(small.body) if isinstance(n, ir.Out)] == [0]
    expected = reduce.expected(small)
    gpu, host = emit.standalone(small, expected), emit.host_standalone(small, expected)
    assert len(expected) == 1 and "sg_expect[1] = " in gpu and "<<<1, 1>>>" in gpu and "for (unsigned t" not in host
    shfl = ir.Comm(kind="shfl", type=s.U32, src=1, out=2, params=("xor", 1, 0))
    q = ir.Program(name="w", seed="w", blocks=2, threads=64, tables=(), funcs=(), outputs=2, comms=(shfl,),
                   body=(ir.Out(slot=0, value=ir.Env(name="tid")), ir.Out(slot=1, value=ir.Env(name="lane"))))
    assert reduce.expected(replace(q, threads=16)) is None
    small = reduce.reduce(q, lambda cands: [bool(c.comms) for c in cands])
    assert (small.blocks, small.threads, small.outputs, small.comms) == (1, 32, 1, (replace(shfl, src=0, out=1),))


def test_reduction_takes_a_statement_out_of_its_loop_branch_or_switch():
    """An operation inside a loop, an ``if`` or a ``switch`` ends outside it: a compound statement may be replaced by
    its first iteration (the counter 0), a branch or a case, so a reproducer keeps no nesting the bug does not need."""
    compound = (ir.For, ir.If, ir.Switch)

    def xor(node) -> bool:
        return any(isinstance(n, ir.Bin) and n.op == "^" for _, n in reduce.walk(node))

    def nested(prog) -> bool:  # a ^ inside a compound statement of the kernel's body
        return any(isinstance(n, compound) and xor(n) for _, n in reduce.walk(prog.body))
    p = next(q for q in (populate.generate("nest", i, "wide") for i in range(40)) if nested(q))

    def still_bad(cands):
        return [xor((c.body, c.funcs)) for c in cands]
    small = reduce.reduce(p, still_bad)
    assert still_bad([small]) == [True]
    assert not [n for _, n in reduce.walk((small.body, small.funcs)) if isinstance(n, compound)], small.body


def test_line_reduction_keeps_only_what_the_test_needs():
    from suitegen.synth import textual
    text = "".join(f"line {i}\n" for i in range(40))
    calls = []

    def interesting(batch):
        calls.append(len(batch))
        return ["line 7\n" in t and "line 31\n" in t for t in batch]
    assert textual.ddmin(text, interesting, width=3) == "line 7\nline 31\n"
    assert max(calls) == 3 and sum(calls) <= 400


def test_an_expression_is_put_as_0_where_the_test_allows_and_never_a_divisor_or_a_call():
    """``textual.zeroes``: the largest parenthesised expressions first; a call's arguments, an ``if``'s condition, a
    cast's type and a divisor are never replaced (the last would be undefined behaviour)."""
    from suitegen.synth import textual
    text = ("int f(int a, int b) {\n  int v = ((a + 3) * (b ^ 7));\n  if ((v > 2)) v = v / (a - 1);\n"
            "  return (unsigned)(v) + g((a * 2));\n}\n")
    spans = [text[i:j + 1] for i, j in textual.expressions(text)]
    assert "(a + 3)" in spans and "((a + 3) * (b ^ 7))" in spans and "(v > 2)" in spans
    assert not {"(int a, int b)", "((v > 2))", "(a - 1)", "(unsigned)", "((a * 2))"} & set(spans), spans
    kept = textual.rewrite(text, textual.zeroes, lambda batch: ["^ 7" in t for t in batch], width=2)
    assert "int v = (0 * (b ^ 7));" in kept and "if (0) v = v / (a - 1);" in kept, kept


def test_the_rewrites_put_an_operand_for_its_expression_a_value_for_its_one_use_and_a_body_for_its_block():
    """What lines cannot do: a cast's operand (which may also be 0), either operand of a binary operator, a call's
    argument for the call, never a divisor's; a variable's value where it is read once; a loop's body once, its
    variable declared; either branch of an ``if``, or the ``if`` without its ``else``."""
    from suitegen.synth import present, textual
    text = ("__device__ int f(int a, int b) {\n  int v = ((int)((a + 3) * (b ^ 7)));\n  int w = max((a * 2), 3);\n"
            "  for (int i = 0; i < 4; ++i) {\n    w += (unsigned)((v - i));\n  }\n"
            "  if ((w > 2)) {\n    w = w / (a - 1);\n  } else {\n    w ^= 1;\n  }\n  return w;\n}\n")
    made = {f"{key[1]} -> {key[2]}" for key, _ in textual.operands(text)}
    assert {"((int)((a + 3) * (b ^ 7))) -> ((a + 3) * (b ^ 7))", "((a + 3) * (b ^ 7)) -> (b ^ 7)",
            "max((a * 2), 3) -> (a * 2)", "max((a * 2), 3) -> (3)", "(w > 2) -> (w)"} <= made, made
    assert not any(m.startswith(("(a - 1)", "(int a, int b)")) for m in made), made
    # nothing in a divisor (a cast's operand there too) is put as 0 or loses an operand; a cast of part of an operand
    # stays; a guarded branch keeps its guard; a shift count keeps its mask and a shifted value its width; a string's
    # parentheses are no expression's
    guarded = {"int v = ((double)a / b);": ["int v = 0;"],
               "int v = (x / ((int)((a + b))));": ["int v = 0;", "int v = (x);", "int v = ((int)((a + b)));"],
               "v /= (a - b);": [], "v %= ((int)((a * b)));": [],
               "int v = (b ? a / b : 0);": ["int v = 0;", "int v = (0);"],
               "v <<= (((unsigned)(e)) & 31u);": ["v <<= 0;", "v <<= (0 & 31u);", "v <<= ((e) & 31u);"],
               'printf("(%d + %f)\\n", (i + 1), g);': ['printf("(%d + %f)\\n", 0, g);',
                                                      'printf("(%d + %f)\\n", (i), g);',
                                                      'printf("(%d + %f)\\n", (1), g);']}
    for line, allowed in guarded.items():
        assert [n for _, n in textual.zeroes(line) + textual.operands(line)] == allowed, line
    shift = "unsigned long long v = (((unsigned long long)(x)) << (((unsigned)(n)) & 63u));"
    assert not [n for _, n in textual.operands(shift) if "((x) <<" in n], "the shifted value keeps its 64-bit cast"
    masked = {key[1] for key, _ in textual.operands("int g(int *t, int s) { return t[(s % 4)] << (s & 31) >> "
                                                    "min(s, 7) + t[min(s, 3)]; }\n")}
    assert masked == set(), "an index or a shift count keeps its mask (a % or &, or a clamping call)"
    assert "((v - i))" in [text[i:j + 1] for i, j in textual.expressions(text)], "a cast's operand may be 0"
    assert textual.inlined(text) == [], "v is read in a loop, a block deeper: every trip would compute it again"
    flat = text.replace("  for (int i = 0; i < 4; ++i) {\n    w += (unsigned)((v - i));\n  }\n", "  w += v;\n")
    assert [t for _, t in textual.inlined(flat)] == [flat.replace("  int v = ((int)((a + 3) * (b ^ 7)));\n", "")
                                                    .replace("w += v;", "w += ((int)((a + 3) * (b ^ 7)));")]
    for moved in ("  int v = t[1];\n  t[1] = 0;\n  return v;\n", "  int v = x;\n  x += 1;\n  return v;\n",
                  "  int v = s[1];\n  __syncthreads();\n  return v;\n", "  int v = x++;\n  return v + x;\n"):
        assert textual.inlined("__device__ int f(int *t, int *s, int x) {\n" + moved + "}\n") == [], moved
    lines = text.splitlines(keepends=True)
    unwrapped = ["".join(u) for i, j in textual._blocks(lines) for u in textual._unwrapped(lines, i, j)]
    assert len(unwrapped) == 4, "never the function's own braces"
    assert "  int i = 0;\n    w += (unsigned)((v - i));\n  if" in unwrapped[0]
    assert [u.count("{") for u in unwrapped[1:]] == [2, 2, 3] and "w ^= 1;\n  return" in unwrapped[2]
    assert "  }\n  return" in unwrapped[3] and "else" not in unwrapped[3]
    small = textual.shrink(text, lambda batch: ["^ 7" in t and "return" in t for t in batch], width=2)
    assert small.count("\n") <= 4 and "(b ^ 7)" in small, small
    lines = ["  if (((bool)(f(1, 2)))) {\n", "  }\n"]
    assert ["".join(u) for u in textual._unwrapped(lines, 0, 1)] == ["", "  (void)(((bool)(f(1, 2))));\n"]
    helper = ("__device__ unsigned long long sg_max_ull(unsigned long long a, unsigned long long b) "
              "{ return a > b ? a : b; }\n"
              "__global__ void k(unsigned long long *o) { o[0] = sg_max_ull(1ull, sg_max_ull(o[1], 2)); }\n")
    assert [t for _, t in textual.helpers_inlined(helper)] == [
        "__global__ void k(unsigned long long *o) { o[0] = (((unsigned long long)(1ull)) > ((unsigned long long)"
        "((((unsigned long long)(o[1])) > ((unsigned long long)(2)) ? ((unsigned long long)(o[1])) : ((unsigned long "
        "long)(2))))) ? ((unsigned long long)(1ull)) : ((unsigned long long)((((unsigned long long)(o[1])) > "
        "((unsigned long long)(2)) ? ((unsigned long long)(o[1])) : ((unsigned long long)(2)))))); }\n"]
    assert textual.helpers_inlined(helper.replace("sg_max_ull(o[1], 2)", "sg_max_ull(o[1]++, 2)")) == [], \
        "an argument with a side effect would be evaluated twice"
    member = "__device__ int get(S s, int a) { return s.a + a; }\n__global__ void k(int *o) { o[0] = get(v, 3); }\n"
    assert [t for _, t in textual.helpers_inlined(member)] == [
        "__global__ void k(int *o) { o[0] = (((S)(v)).a + ((int)(3))); }\n"], "a member is not the parameter it names"
    assert present.spelled("s->a + ns::a + a", {"a": "(3)"}) == "s->a + ns::a + (3)", "nor one after -> or ::"
    macro = "#ifdef __CUDA_ARCH__\n#define SG_DEV(d, h) d\n#else\n#define SG_DEV(d, h) h\n#endif\nint main() {}\n"
    assert textual.unused(macro) == "int main() {}\n", "a macro defined in both arms, and the conditional left empty"


UNFOLDED = ('struct sg_env { unsigned tid, tx; int warp; };\n'
            'namespace sg_p1 {\n__device__ int t8[2] = {1, 2};\n'
            '__device__ void body(const sg_env &e, int k, unsigned long long *o) {\n'
            '  int v = [](int p) -> int {\n    return p + 1;\n  }(t8[e.tx % 2u]);\n'
            '  o[0] = v + e.warp * k;\n}\n}  // namespace sg_p1\n'
            'extern "C" __global__ void sg_k(unsigned long long *sg_out) {\n'
            '  const sg_env e = {threadIdx.x, threadIdx.x % 32u, warpSize};\n'
            '  unsigned long long *o = sg_out + threadIdx.x;\n'
            '  sg_p1::body(e, 3, o);\n}\n')


def test_a_program_s_wrapping_unfolds_a_namespace_a_call_and_a_struct_s_members(tmp_path):
    """What a campaign's file wraps its program in (its namespace, ``body`` called once from the kernel, the thread's
    ``sg_env``) unfolds into the kernel, which nvcc still builds: the reduction of a file of one's own can then cut
    what the wrapping held. A lambda's ``return`` is no early return; a namespace ``around`` names stays; nothing is
    unfolded where it would read another value, and odd text is no crash."""
    from suitegen.synth import present, textual
    [(_, flat)] = textual.namespaces_unwrapped(UNFOLDED)
    assert "sg_p1" not in flat and textual.namespaces_unwrapped(UNFOLDED, around="sg_p1::body(e, o);") == []
    [(_, inlined)] = textual.calls_inlined(flat)
    assert "body" not in inlined and "  int k = 3;\n" in inlined and "const sg_env &e = e" not in inlined
    [(_, members)] = textual.members_inlined(inlined)
    assert "e." not in members and "((int)(warpSize))" in members and "const sg_env e" not in members
    assert textual.calls_inlined(flat.replace("  o[0] = v", "  if (k) return;\n  o[0] = v")) == [], "an early return"
    assert textual.calls_inlined(flat.replace("body(e, 3, o)", "body(e, (int)o[0], o)")) == [], \
        "an argument names a parameter"
    assert textual.members_inlined(inlined.replace("  o[0] = v", "  e.warp = 1;\n  o[0] = v")) == [], "written"
    two = ("int g;\n__device__ void f(int a, int b, int *o) {\n  o[0] = a - b + g;\n}\n"
           "__global__ void k(int *o, int x, int a, int b) {\n  f(ARGS);\n}\n")
    assert len(textual.calls_inlined(two.replace("ARGS", "x, 1, o"))) == 1
    for args, why in (("x, a, o", "b would read the block's a"), ("a, b, o", "a by value passed its own name"),
                      ("x, 1, o);\n  int g = 7;\n  f(x, 1, o", "called twice")):
        assert textual.calls_inlined(two.replace("ARGS", args)) == [], why
    assert textual.calls_inlined(two.replace("int *o, int x", "int *o, int g, int x").replace("ARGS", "x, 1, o")) == \
        [], "the caller declares g, which the body reads as the global"
    struct = "struct S { int a, b; };\n__global__ void k(int *o, int x) {\n  S s = {x, 2};\nLATER  o[0] = s.a;\n}\n"
    assert len(textual.members_inlined(struct.replace("LATER", ""))) == 1
    for later, why in (("  x = 5;\n", "what its value reads is set before the read"),):
        assert textual.members_inlined(struct.replace("LATER", later)) == [], why
    assert textual.members_inlined(struct.replace("LATER", "").replace("{x, 2}", "{x++, 2}")) == [], "a side effect"
    for hostile in ("static void say(const char *fmt, ...) {\n  (void)fmt;\n}\nint main() {\n  say(\"x\");\n}\n",
                    "struct S { int a,; };\nvoid k() {\n  S s = {1};\n  (void)s.a;\n}\n", "struct S { *; };\n"):
        assert textual.calls_inlined(hostile) + textual.members_inlined(hostile) == []  # and no exception
    assert present.split("',', \"a, b\", f(1, 2)") == ["','", '"a, b"', "f(1, 2)"], "no comma of a literal splits"
    qualified = "namespace ns {\nint x;\n}\nint y = ns::x + other::ns::x;\n"
    assert [t for _, t in textual.namespaces_unwrapped(qualified)] == ["int x;\nint y = x + other::ns::x;\n"]
    if not HAVE_NVCC:
        return
    unused = textual.unused(members)
    assert "struct sg_env" not in unused
    source = tmp_path / "unfolded.cu"
    source.write_text(unused)
    built = subprocess.run(["nvcc", "-std=c++17", "-arch=sm_90", "-c", str(source), "-o", str(tmp_path / "u.o")],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr + unused


def test_shrink_drops_what_nothing_names_judges_no_text_twice_and_never_an_unpaired_brace():
    """``textual.unused`` takes out the helpers, globals and macros nothing names (again once their last user went),
    never ``main``; ``shrink`` judges each text once and ddmin proposes no text whose braces do not pair up."""
    from suitegen.synth import textual
    text = ('#define SG_HD __host__ __device__\n#define SG_UNUSED 1\n'
            'SG_HD int sg_min(int a, int b) { return a < b ? a : b; }\n'
            'SG_HD int sg_max(int a, int b) {\n  return a > b ? a : b; }\n'
            'SG_HD int sg_twice(int a) { return sg_max(a, a) * 2; }\n'
            'namespace sg_p1 {\n__device__ int t8[4] = {1, 2, 3, 4};\n__device__ int w9[4];\n'
            'template <typename T> __device__ T f4(T p3) {\n  return p3 + 1;\n}\n'
            '__device__ void body(int *o) { o[0] = sg_min(t8[1], 3) ^ 5; }\n}  // namespace sg_p1\n'
            'extern "C" __global__ void k(int *o) { sg_p1::body(o); }\n'
            'int main() { k<<<1, 1>>>(0); }\n')
    kept = textual.unused(text)
    assert kept == ('#define SG_HD __host__ __device__\nSG_HD int sg_min(int a, int b) { return a < b ? a : b; }\n'
                    'namespace sg_p1 {\n__device__ int t8[4] = {1, 2, 3, 4};\n'
                    '__device__ void body(int *o) { o[0] = sg_min(t8[1], 3) ^ 5; }\n}  // namespace sg_p1\n'
                    'extern "C" __global__ void k(int *o) { sg_p1::body(o); }\nint main() { k<<<1, 1>>>(0); }\n'), kept
    body = text.split('extern "C"')[0]  # the text a reducer edits, without the kernel that calls into it
    assert textual.unused(body, around="sg_p1::body(o);") == kept.split('extern "C"')[0]
    assert textual.unused(body) == "namespace sg_p1 {\n}  // namespace sg_p1\n", "nothing in it is named from outside"
    judged = []

    def interesting(batch):
        judged.extend(batch)
        return ["^ 5" in t and "int main" in t for t in batch]
    small = textual.shrink(text, interesting, width=3)
    assert "^ 5" in small and len(judged) == len(set(judged)), "no text judged twice"
    assert all(textual.balanced(t) for t in judged), [t for t in judged if not textual.balanced(t)]
    assert not textual.balanced("int f() {\n") and textual.balanced('puts("{");\n')


FLOAT_CALLS = [  # (helper, arguments, result or UB): the exact result, rounded in the call's mode
    ("sg_fadd_rz", (1.0, 2.0 ** -30), 1.0),
    ("sg_fadd_ru", (1.0, 2.0 ** -30), 1.0 + 2.0 ** -23),
    ("sg_fadd_rd", (1.0, -1.0), -0.0),  # an exact zero sum is -0 rounding down, +0 otherwise (IEEE 754)
    ("sg_fadd_rn", (1.0, -1.0), 0.0),
    ("sg_fdiv_ru", (1.0, 3.0), 0.3333333432674408),
    ("sg_fdiv_rd", (1.0, 3.0), 0.3333333134651184),
    ("sg_fdiv_rn", (1.0, 0.0), UB),
    ("sg_dmul_rd", (1.0 + 2.0 ** -52, 1.0 + 2.0 ** -52), 1.0 + 2.0 ** -51),
    ("sg_dmul_ru", (1.0 + 2.0 ** -52, 1.0 + 2.0 ** -52), 1.0 + 2.0 ** -51 + 2.0 ** -52),
    ("sg_fmul_rz", (3.0e38, 10.0), 3.4028234663852886e38),  # toward zero: the largest float, not infinity
    ("sg_fmul_rn", (3.0e38, 10.0), UB),
    ("sg_f2i_rn", (2.5,), 2), ("sg_f2i_rn", (3.5,), 4), ("sg_f2i_rd", (-0.5,), -1), ("sg_f2i_ru", (-0.5,), 0),
    ("sg_f2i_rz", (3.0e9,), UB), ("sg_d2i_rz", (-7.9,), -7),
    ("sg_i2f_rz", (2 ** 24 + 1,), 2.0 ** 24), ("sg_i2f_ru", (2 ** 24 + 1,), 2.0 ** 24 + 2),
    ("sg_i2f_rn", (2 ** 24 + 3,), 2.0 ** 24 + 4),
    ("sg_rintf", (-0.3,), -0.0), ("sg_rintf", (2.5,), 2.0), ("sg_ceilf", (-0.5,), -0.0), ("sg_truncf", (-0.5,), -0.0),
    ("sg_floord", (-0.5,), -1.0), ("sg_fmodf", (-4.0, 2.0), -0.0),
    ("sg_remainderf", (5.0, 2.0), 1.0), ("sg_remainderf", (7.0, 2.0), -1.0), ("sg_fmodf", (-5.0, 2.0), -1.0),
    ("sg_fmodd", (1.0, 0.0), UB), ("sg_sqrtf", (-1.0,), UB), ("sg_sqrtf", (2.0,), 1.4142135381698608),
    ("sg_fmaf", (1.0 + 2.0 ** -13, 1.0 - 2.0 ** -13, -1.0), -(2.0 ** -26)),  # rounded once: not 0
    ("sg_copysignd", (3.0, -0.0), -3.0),
]


@pytest.mark.parametrize("name,args,want", FLOAT_CALLS)
def test_float_calls_round_as_their_mode_says(name, args, want):
    import math
    _, _, model = interp.INTRINSICS[name]
    if want is UB:
        with pytest.raises(UB):
            model(*args)
    else:
        got = model(*args)
        assert got == want and math.copysign(1, got) == math.copysign(1, want), got


@needs_gxx
def test_rounding_programs_match_the_model_on_the_host_and_a_wrong_mode_is_caught(tmp_path):
    """The rounding policy (synth/float_calls): g++ -O0 and -O2 with UBSan, each mode set by fesetround around
    volatile operands, compute what the model's MPFR does; the same programs with round-toward-zero made
    round-up are caught."""
    from suitegen.execute import host_check
    from suitegen.synth import float_calls
    progs = [populate.generate("round", i, "rounding") for i in range(8)]
    calls = {n.name for p in progs for _, n in reduce.walk((p.body, p.funcs)) if isinstance(n, ir.Intrin)}
    assert len(calls & float_calls.CALLS.keys()) > 40, "the programs call most of them"
    exp = [reduce.expected(p) for p in progs]
    for name, flags in host_check.HOST_BUILDS.items():
        run = host_check.run(emit.host_check(progs, exp), tmp_path / name, name, flags)
        assert run.ok and not run.wrong and not run.undefined, run.log[-2000:]
    planted = emit.host_check(progs, exp).replace("FE_TOWARDZERO", "FE_UPWARD")
    run = host_check.run(planted, tmp_path / "planted", "host-O0", host_check.HOST_BUILDS["host-O0"])
    assert run.wrong, "a rounding mode changed changes what the programs print"


def test_a_corpus_draws_from_its_fixed_mix_and_campaigns_from_every_policy():
    """A policy added later (rounding, math) never changes a corpus's program N; campaigns draw it."""
    from suitegen.synth.policies import CORPUS_MIX, POLICIES
    assert {"rounding", "math"} <= POLICIES.keys() and not {"rounding", "math"} & set(CORPUS_MIX)
    assert {populate.generate("mix", i, mix=CORPUS_MIX).policy for i in range(10)} <= set(CORPUS_MIX)
    assert {"rounding", "math"} <= {populate.generate("mix", i).policy for i in range(14)}


def test_a_bounded_math_call_is_known_to_its_cell_or_not_drawn():
    """The math policy's calls (expf, sinf, ...: their bound read from their rule in oracle/math-functions.toml)
    give the cell of 2^GRID ulps that every value within the bound lies in, and are undefined for the model where
    that interval crosses a cell's edge."""
    from suitegen.cases import math_reference as mr
    from suitegen.synth import float_calls as fc
    model = interp.INTRINSICS["sg_b_expf"][2]
    assert model.args[0].ulp == 2 and model.args[0].call == "expf(a0)", "the bound of the oracle's expf rule"
    assert len(fc.BOUNDED) == 44, "every one-argument function of the host's libm that the guide bounds in ulps"
    mask = (1 << fc.GRID) - 1
    inside = crossing = 0
    for k in range(1, 400):
        x = s.f32(k / 97)
        o = mr.ordered(mr.reference(model.args[0], [[x]])[0][0], "float")
        if fc.SLACK <= o & mask <= mask - fc.SLACK:
            assert mr.to_bits(model(x), "float") == o & ~mask
            inside += 1
        elif o & mask < fc.SLACK - 2 or o & mask > mask - fc.SLACK + 2:
            with pytest.raises(UB):
                model(x)
            crossing += 1
    assert inside > 300 and crossing > 0


@needs_gxx
def test_math_programs_match_the_model_on_the_host_and_a_lost_accuracy_is_caught(tmp_path):
    """g++ -O0 and -O2 with UBSan (the host's C library within SLACK ulps) print the model's cells; expf, sinf and
    atan made 0.1% wrong leave their cells."""
    from suitegen.execute import host_check
    from suitegen.synth import float_calls
    progs = [populate.generate("mathcalls", i, "math") for i in range(6)]
    calls = {n.name for p in progs for _, n in reduce.walk((p.body, p.funcs)) if isinstance(n, ir.Intrin)}
    assert len(calls & float_calls.BOUNDED.keys()) > 15
    exp = [reduce.expected(p) for p in progs]
    source = emit.host_check(progs, exp)
    for name, flags in host_check.HOST_BUILDS.items():
        run = host_check.run(source, tmp_path / name, name, flags)
        assert run.ok and not run.wrong and not run.undefined, run.log[-2000:]
    for f in ("expf", "sinf", "atan", "cbrtf", "tan", "log1p"):
        source = source.replace(f"sg_cell{f[-1] if f.endswith('f') else 'd'}({f}(a0))",
                                f"sg_cell{f[-1] if f.endswith('f') else 'd'}({f}(a0) * 1.001)")
    run = host_check.run(source, tmp_path / "planted", "host-O0", host_check.HOST_BUILDS["host-O0"])
    assert run.wrong, "results 0.1% off leave their cells"
