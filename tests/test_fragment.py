"""Fragments: one analysis of a file decides what batching, composition and synth may splice; one naming of
batch members; driver programs rendered from templates."""
import subprocess

import pytest

from suitegen.cases.compose import composable
from suitegen.cases.fragment import parse
from suitegen.cases.render import Renderer
from suitegen.compilers import batch, members
from suitegen.execute import host_values
from suitegen.model import ExecStatus
from suitegen.oracle import loader

from conftest import REPO


def test_a_file_s_includes_come_first_or_it_cannot_be_hoisted():
    first = parse("#include <cstdio>\n\n// note\n#include \"a.h\"\nint x;\n")
    assert first.includes == ("#include <cstdio>", '#include "a.h"') and first.fits_namespace
    assert first.body == ("", "", "// note", "", "int x;"), "includes blanked: every line keeps its number"
    assert first.code == ("", "// note", "int x;")
    late = parse("int x;\n#include <cstdio>\n")
    assert late.late_include and not late.fits_namespace and late.includes == ("#include <cstdio>",)


def test_a_fragment_s_macros_are_undefined_after_it():
    f = parse("#define N 3\n#  define M(x) x\n__device__ int f() { return M(N); }\n")
    assert f.defines == ("N", "M") and f.fits_namespace
    assert f.enclose("ns", "ns/main.cu") == ["namespace ns {", '#line 1 "ns/main.cu"', "#define N 3",
                                             "#  define M(x) x", "__device__ int f() { return M(N); }", "}  // ns",
                                             "#undef N", "#undef M"]


@pytest.mark.parametrize("text", ['extern "C" __device__ int f();', "int x;\nint f() { return ::x; }",
                                  "namespace std { struct S; }", "#pragma nv_diag_suppress 177", "#undef N",
                                  "  ::f();", "template <> struct std::tuple_size<P> : std::integral_constant<int, 2> {};",
                                  "export module m;", "module;\nexport module m;", "import m;",
                                  "void *operator new(std::size_t n) { return malloc(n); }",
                                  "__device__ void operator delete[](void *p) noexcept {}",
                                  "struct S {};\n void operator delete(void *p, S) noexcept {}"])
def test_what_needs_global_scope(text):
    assert parse(text).global_scope and not parse(text).fits_namespace


@pytest.mark.parametrize("text", ["__device__ A<int>::type f(int *p) { return A<int>::type(*p); }",
                                  "struct P : std::pair<int, int> {};", "int module = 1;\nmodule = 2;\nimport(3);",
                                  "void *p = ::operator new(4);", "int g() { return S::m + f()::x; }",
                                  "#pragma unroll\nfor (int i = 0; i < 4; ++i) s += i;", "#pragma nounroll\nwhile (n--) {}",
                                  "#pragma nv_abi preserve_n_data(16)\n__device__ int f(int);",
                                  "struct S {\nstatic void *operator new(std::size_t n);\n};",
                                  "int f() {\n  operator delete(p); // operator new\n}", '// void *operator new(size_t);'])
def test_what_only_looks_global(text):
    assert not parse(text).global_scope


def test_a_fragment_s_main():
    assert parse("int main() { return 0; }\n").plain_main and parse("int main(void) {}\n").mains == 1
    two = parse("int main(int argc, char **argv) { return main(0, 0); }\n")
    assert two.mains == 2 and not two.plain_main
    assert parse("__device__ int f();\n").mains == 0


def test_a_composition_takes_only_what_a_batch_could_take():
    """One analysis: every composable case (one file, compile-only) can also be a batch member."""
    cases = Renderer(REPO / "templates").render_all(loader.load(REPO / "oracle").rules)
    composed = [c for c in cases if composable(c)]
    assert len(composed) > 500 and all(batch.batchable(c) for c in composed)
    # a type member (``T<int>::value``) is not a global qualifier: such cases compose, as they batch
    assert any("::value" in c.files["main.cu"] for c in composed)


def test_one_naming_of_batch_members():
    assert members.member_name(3) == "sg_b3" and members.member_index("sg_b3") == 3
    assert members.member_index("sg_bx") is None and members.member_index("other") is None
    assert members.member_file(12, "main.cu") == "sg_b12/main.cu" and members.member_of("/t/sg_b12/main.cu") == 12
    assert members.mangled(3) == "5sg_b3" and members.mangled(12) == "6sg_b12"
    assert members.mentioned(f"undefined '_ZN{members.mangled(31)}1fEv'") == {31}
    assert members.unqualified("undefined reference to `sg_b7::f()'") == "undefined reference to `f()'"
    assert members.anonymous("_ZN5sg_b31fEv in sg_b3/main.cu; _ZNK6sg_b121gEv") == "_ZN1fEv in main.cu; _ZNK1gEv"


def test_the_value_driver_runs_the_members_it_is_given_in_one_process(tmp_path, monkeypatch):
    (tmp_path / "uses.cpp").write_text("void use(int *out) { *out = -4; }\n"
                                       "namespace sg_b3 { void use(int *out) { *out = 7; } }\n"
                                       "namespace sg_b5 { void use(int *out) { __builtin_trap(); } }\n")
    (tmp_path / "main.cpp").write_text(host_values.driver([None, 3, 5]))
    subprocess.run(["g++", "main.cpp", "uses.cpp", "-o", "v.out"], cwd=tmp_path, check=True)
    program, runs = tmp_path / "v.out", []
    real = host_values.procs.run
    monkeypatch.setattr(host_values.procs, "run", lambda argv, **kw: runs.append(argv[1:]) or real(argv, **kw))
    ok, wrong = host_values.run_all(program, [-4, 8], timeout=10)
    assert runs == [("0", "1")], "one process for both"
    assert ok.status is ExecStatus.PASSED and ok.detail == "out[0] == -4" and ok.command == (str(program), "0")
    assert wrong.status is ExecStatus.FAILED and "expected 8, the host stored 7" in wrong.detail
    runs.clear()
    results = host_values.run_all(program, [-4, 7, 1], timeout=10)
    assert runs == [("0", "1", "2"), ("0",), ("1",), ("2",)], "the shared process crashed: each alone"
    assert [r.status for r in results] == [ExecStatus.PASSED, ExecStatus.PASSED, ExecStatus.CRASHED]


def test_a_batched_program_s_dispatcher_brackets_each_member():
    from test_batch import case
    from suitegen.model import Mode
    tu = batch.translation_unit([case("int main() { return 1; }\n", f"p{i}", mode=Mode.LINK) for i in range(2)])
    assert tu.count("#include <cstdio>") == 1 and f'#line 1 "{batch.DISPATCH}"' in tu
    assert f'std::printf("{batch.MEMBER_BEGIN} %d\\n", std::atoi(argv[a]));' in tu
    assert f'std::printf("{batch.MEMBER_END} %d %d\\n", std::atoi(argv[a]), status);' in tu
