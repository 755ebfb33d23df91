"""Batched builds: attribution by member region, and fallback to single builds wherever it is not certain."""
import json
from dataclasses import replace
import subprocess
import sys
from pathlib import Path

import pytest

from suitegen.compilers import batch, members
from suitegen.qualification.batch_units import Member, _again
from suitegen.qualification.item import BATCH_SIZE, REJECT_BATCH_SIZE, Built, expected_side, units
from suitegen.model import (Alone, Batched, Case, CompileResult, Config, Deviation, Diagnostic, Expect, Expectation, Mode, Outcome, Phase, Rule,
                            Std, Toolchain, Variant)

from conftest import REPO, WRITES_OUTPUT, batch_of, needs_nvcc

TC = Toolchain(nvcc="/x/nvcc", version=(13, 0, 88), version_text="", host_compiler="g++", host_version="g++ 12",
               fingerprint="f00")
CFG = Config(toolchain=TC, std=Std.CXX17, arch="sm_90")


def case(text, name="v", mode=Mode.COMPILE, files=None, expectation=Expectation(expect=Expect.ACCEPT)):
    v = Variant(name=name, params={}, expectation=expectation, mode=mode)
    rule = Rule(id=f"demo/{name}", section="demo", statement="s", templates={"main.cu": "t"}, variants=(v,))
    return Case(rule=rule, variant=v, files=files or {"main.cu": text}, violation_line=None)


def diag(sev, file, line=2, phase=Phase.CUDAFE, msg="m"):
    return Diagnostic(severity=sev, message=msg, phase=phase, file=file, line=line)


def result(outcome, *diags, phase=None):
    return CompileResult(outcome=outcome, phase=phase, exit_code=0 if outcome.accepted else 2, diagnostics=diags,
                         commands=(("nvcc",),), output="", duration=3.0)


def test_what_may_join_a_batch():
    assert batch.batchable(case("#include <cstdio>\n__device__ int f() { return 1; }\n"))
    assert batch.batchable(case("int main() { return 0; }\n")), "compiled only: its main is a member's function"
    assert not batch.batchable(case("int main(int argc, char **argv) { return 0; }\n")), "not a plain main"
    assert not batch.batchable(case("int main() { return 0; }\nint f() { return main(); }\n")), "main named twice"
    assert not batch.batchable(case("#pragma nv_diag_suppress 177\nint x;\n")), "a pragma changes later members"
    assert not batch.batchable(case('extern "C" __device__ int f();\n')), "C names collide"
    assert not batch.batchable(case("int x;\n#include <cstdio>\n")), "an include after code"
    assert not batch.batchable(case("int x;\n", mode=Mode.LINK)), "a program without main"
    assert batch.batchable(case("int main() { return 0; }\n", mode=Mode.LINK))
    assert not batch.batchable(case("int main(int argc, char **argv) { return 0; }\n", mode=Mode.LINK))
    selfcheck = "#define SG_CHECK(c) c\n#define SG_CUDA(c) c\nint main() { return 0; }\n"
    assert batch.batchable(case(selfcheck, mode=Mode.LINK)), "the self-check's own macros are the same in all"
    assert batch.batchable(case("#define N 3\nint main() { return N; }\n", mode=Mode.LINK)), "undefined after it"
    assert not batch.batchable(case("#undef N\nint x;\n")), "an #undef reaches into the rest"
    assert not batch.batchable(case("int x;\nint f() { return ::x; }\n")), "a global qualifier leaves the namespace"
    assert batch.batchable(case("template <class T> struct A { using type = T; };\n"
                                "__device__ A<int>::type f(int *p) { return A<int>::type(*p); }\n")), "not global"
    assert not batch.batchable(case("", files={"main.cu": "int a;", "b.cu": "int b;"})), "-c builds one file"
    two = {"main.cu": "extern __device__ int v;\nint main() { return 0; }\n", "other.cu": "__device__ int v;\n"}
    assert batch.batchable(case("", mode=Mode.RDC_LINK, files=two))
    assert not batch.batchable(case("", mode=Mode.RDC_LINK, files={**two, "other.cu": "int main() { return 1; }"}))


def test_each_member_keeps_its_own_lines_and_file_name():
    a = case("#include <cstdio>\n\n__device__ int f() { return 1; }\n", "a")
    b = case("#include <cstdio>\n__device__ int g() { return 2; }\n", "b")
    tu = batch.translation_unit([a, b]).splitlines()
    assert tu[0] == "#include <cstdio>" and tu.count("#include <cstdio>") == 1
    start = tu.index('#line 1 "sg_b1/main.cu"')
    assert tu[start + 2] == "__device__ int g() { return 2; }", "line 2 of the member is line 2 after #line 1"
    assert members.member_of("sg_b1/main.cu") == 1 and members.member_of("/tmp/x/sg_b12/main.cu") == 12
    assert members.member_of("batch.cu") is None and members.member_of(None) is None


def test_a_member_s_macros_end_with_it():
    a = case("#define N 3\n__device__ int f() { return N; }\n", "a")
    b = case("__device__ int g() { return 2; }\n", "b")
    tu = batch.translation_unit([a, b]).splitlines()
    assert tu.index("#undef N") < tu.index('#line 1 "sg_b1/main.cu"')


def test_a_program_of_several_files_is_a_batch_of_as_many_files():
    files = {"main.cu": "#include <cstdio>\nextern __device__ int v;\nint main() { return 0; }\n",
             "other.cu": "__device__ int v = 7;\n"}
    cases = [case("", f"p{i}", mode=Mode.RDC_LINK, files=files) for i in range(2)]
    src = batch.sources(cases)
    assert list(src) == ["batch.cu", "batch-other.cu"]
    assert '#line 1 "sg_b1/other.cu"' in src["batch-other.cu"] and "sg_b1::main()" in src["batch.cu"]
    assert "main" not in src["batch-other.cu"] and src["batch.cu"].startswith("#include <cstdio>")
    assert batch.command(cases, CFG)[-5:] == ["-rdc=true", "batch.cu", "batch-other.cu", "-o", "batch.out"]


def test_a_linker_message_belongs_to_the_one_member_it_names():
    assert members.named_member("Undefined reference to '_ZN5sg_b31vE' in 'batch.o'") == 3
    assert members.named_member("Undefined reference to '_ZN6sg_b121vE' in 'batch.o'") == 12
    assert members.named_member("undefined reference to `sg_b7::f()'") == 7
    assert members.named_member("multiple definition of `sg_b1::f()' and `sg_b2::f()'") is None
    assert members.named_member("ld returned 1 exit status") is None
    link = result(Outcome.REJECTED, diag("error", None, phase=Phase.NVLINK, msg="Undefined reference to "
                                         "'_ZN5sg_b11vE' in 'batch.o'"), phase=Phase.NVLINK)
    parts = batch.split(link, 3)
    assert [p and p.outcome for p in parts] == [None, Outcome.REJECTED, None]
    assert parts[1].diagnostics[0].file is None


def test_a_host_compiler_error_on_the_stub_belongs_to_the_member_its_notes_point_into():
    stub = "tmpxft_0_batch.cudafe1.stub.c"
    ambiguous = [diag("error", stub, 1, Phase.HOST_COMPILER, "reference to \u2018Gvar\u2019 is ambiguous"),
                 diag("note", "sg_b1/main.cu", 6, Phase.HOST_COMPILER, "candidates are: \u2018int sg_b1::N1::Gvar\u2019"),
                 diag("note", "sg_b1/main.cu", 1, Phase.HOST_COMPILER, "\u2018int sg_b1::Gvar\u2019")]
    parts = batch.split(result(Outcome.REJECTED, *ambiguous, phase=Phase.HOST_COMPILER), 3)
    assert [p and p.outcome for p in parts] == [None, Outcome.REJECTED, None], "the others never got past it"
    assert [(d.severity, d.file, d.message) for d in parts[1].diagnostics] == [
        ("error", stub, "reference to \u2018Gvar\u2019 is ambiguous"),
        ("note", "main.cu", "candidates are: \u2018int N1::Gvar\u2019"), ("note", "main.cu", "\u2018int Gvar\u2019")]
    across = [ambiguous[0], ambiguous[1], replace(ambiguous[2], file="sg_b2/main.cu")]
    assert batch.split(result(Outcome.REJECTED, *across, phase=Phase.HOST_COMPILER), 3) == [None] * 3, \
        "notes in two members' regions: nobody's"
    bare = result(Outcome.REJECTED, ambiguous[0], phase=Phase.HOST_COMPILER)
    assert batch.split(bare, 3) == [None] * 3, "no notes: nobody's"
    naming = [replace(ambiguous[0], message="\u2018_ZZN5sg_b03barEvEUlvE_\u2019 was not declared"), *ambiguous[1:]]
    assert batch.split(result(Outcome.REJECTED, *naming, phase=Phase.HOST_COMPILER), 3) == [None] * 3, \
        "an error naming another member than its notes: nobody's"


def test_a_batched_program_runs_the_member_it_is_asked_for():
    a = case("int main() { return 1; }\n", "a", mode=Mode.LINK)
    b = case("int main() { return 2; }\n", "b", mode=Mode.LINK)
    tu = batch.translation_unit([a, b])
    assert "case 0: return sg_b0::main();" in tu and "case 1: return sg_b1::main();" in tu
    assert batch.command([a, b], CFG)[-3:] == ["batch.cu", "-o", "batch.out"]
    assert batch.command([case("int f();\n")] * 2, CFG)[-4:] == ["-c", "batch.cu", "-o", "batch.o"]


def test_units_group_by_config_flags_and_quoted_includes():
    same = [case("__device__ int f();\n", f"s{i}") for i in range(5)]
    system = case("#include <cstdio>\n__device__ int f();\n", "sys")
    local = case('#include "local.h"\n__device__ int f();\n', "local")
    alone = case("int main(int argc, char **argv) { return 0; }\n", "main")
    work = units([(c, CFG) for c in [*same, system, local, alone]], size=4)
    assert sorted(len(u.cases) for u in work) == [1, 1, 2, 4], "system headers join; a local one does not"
    tu = batch.translation_unit([same[0], system])
    assert tu.startswith("#include <cstdio>\nnamespace sg_b0 {"), "a batch includes every member's headers"
    assert len(units([(c, CFG) for c in same], batching=False)) == 5


def test_members_that_include_the_same_headers_share_a_batch():
    """An accepted group is cut into batches after its members are ordered by the system headers they include:
    a header is parsed by as few batches as possible. Rejected members keep their order."""
    heavy = [case(f"#include <atomic>\n__device__ int f{i}();\n", f"a{i}") for i in range(3)]
    plain = [case(f"__device__ int g{i}();\n", f"p{i}") for i in range(5)]
    mixed = [c for pair in zip(plain, heavy) for c in pair] + plain[3:]
    work = units([(c, CFG) for c in mixed], size=4)
    assert [[c.variant.name for c in u.cases] for u in work] == [["p0", "p1", "p2", "p3"], ["p4", "a0", "a1", "a2"]]
    assert batch.headers(heavy[0]) == ("#include <atomic>",) and batch.headers(plain[0]) == ()
    rejected = Expectation(expect=Expect.REJECT, phase="front-end")
    kept = [replace(c, variant=replace(c.variant, expectation=rejected)) for c in mixed]
    assert [c.variant.name for u in units([(c, CFG) for c in kept]) for c in u.cases] == [c.variant.name for c in mixed]


def test_each_side_of_a_config_has_its_own_batch_size():
    rejected = Expectation(expect=Expect.REJECT, phase="front-end")
    rejects = [case("__device__ int f();\n", f"r{i}", expectation=rejected) for i in range(REJECT_BATCH_SIZE + 8)]
    accepts = [case("__device__ int f();\n", f"a{i}") for i in range(BATCH_SIZE + 4)]
    work = units([(c, CFG) for c in [*rejects, *accepts]])  # a reject group first must not shrink the next
    assert [len(u.cases) for u in work] == [REJECT_BATCH_SIZE, 8, BATCH_SIZE, 4], "rejections first, then by size"
    late = Expectation(expect=Expect.REJECT, phase="link")
    assert len(units([(case("int x;\n", f"h{i}", expectation=late), CFG) for i in range(3)])) == 3, \
        "the host linker's rejections are built alone (its warnings name no member)"
    host = Expectation(expect=Expect.REJECT, phase="host-compiler")
    assert [len(u.cases) for u in units([(case("int x;\n", f"g{i}", expectation=host), CFG) for i in range(3)])] \
        == [3], "the host compiler's errors are attributed (a member's region, or notes there): they batch"
    nvlink = Expectation(expect=Expect.REJECT, phase="device-link")
    work = units([(case("int x;\n", f"l{i}", expectation=nvlink), CFG) for i in range(3)] + [(accepts[0], CFG)])
    assert [len(u.cases) for u in work] == [3, 1], "nvlink names each member's symbols: its rejections batch, first"


def test_items_a_deviation_saw_rejected_batch_by_where_it_saw_it():
    """A deviation's phase puts the items it covers beside that phase's rejections; without one, or at the host
    linker, they are built alone."""
    items = [case("int x;\n", f"d{i}") for i in range(3)]
    def dev(phase):
        return Deviation(rule="demo/d0", variants=("d*",), when=lambda env: True, observed=Outcome.REJECTED,
                         diagnostic="", seen="", match="x", phase=phase)
    devs = [replace(dev(Phase.HOST_COMPILER), rule=c.rule.id) for c in items]
    assert expected_side(items[0], CFG, devs) == ("host-compiler",)
    assert [len(u.cases) for u in units([(c, CFG) for c in items], deviations=devs)] == [3]
    for phase, side in [(Phase.CUDAFE, ("front-end",)), (Phase.NVLINK, ("device-link",)), (Phase.LINK, None),
                        (None, None)]:
        assert expected_side(items[0], CFG, [replace(devs[0], phase=phase)]) == side, phase
    accepted = replace(devs[0], observed=Outcome.ACCEPTED_WITH_WARNINGS, phase=None)
    assert expected_side(items[0], CFG, [accepted]) == (), "it does not contradict the guide's acceptance"


def test_units_that_build_programs_come_first():
    """Their runs queue for the GPU while the units after them build."""
    objects = [case("__device__ int f();\n", f"o{i}") for i in range(6)]
    programs = [case(f"int main() {{ return {i}; }}\n", f"p{i}", mode=Mode.LINK) for i in range(2)]
    lone = case("", "lone", mode=Mode.LINK, files={"main.cu": "int main() { return 0; }\n", "other.cu": "int g();\n"})
    work = units([(c, CFG) for c in [*objects, lone, *programs]])
    assert [(u.cases[0].variant.mode, len(u.cases)) for u in work] == [
        (Mode.LINK, 2), (Mode.LINK, 1), (Mode.COMPILE, 6)]


def test_ptx_only_program_members_that_run_share_no_program_with_those_that_only_build():
    """A PTX-only program JIT-links every member's device code at its first CUDA call: a member that only needs
    to build must not be able to fail those that run. With SASS, nvlink links it at build time."""
    runtime = Expectation(expect=Expect.RUNTIME)
    run = [case(f"int main() {{ return {i}; }}\n", f"r{i}", mode=Mode.LINK, expectation=runtime) for i in range(3)]
    build = [case(f"int main() {{ return {i}; }}\n", f"b{i}", mode=Mode.LINK) for i in range(2)]
    ptx = replace(CFG, arch="compute_90")
    work = units([(c, ptx) for c in [*run, *build]])
    assert sorted(tuple(c.variant.name for c in u.cases) for u in work) == [("b0", "b1"), ("r0", "r1", "r2")]
    assert len(units([(c, CFG) for c in [*run, *build]])) == 1, "sm_90: one program"
    objects = [case("__device__ int f();\n", f"o{i}", expectation=e)
               for i, e in enumerate([runtime, Expectation(expect=Expect.ACCEPT)])]
    assert len(units([(c, ptx) for c in objects])) == 1, "an object's value checks and its other members share"


SPLIT = [
    # an accepted batch: members' own diagnostics, each alone would give the same
    (result(Outcome.ACCEPTED_WITH_WARNINGS, diag("warning", "sg_b1/main.cu")),
     [Outcome.ACCEPTED, Outcome.ACCEPTED_WITH_WARNINGS, Outcome.ACCEPTED]),
    # a rejected batch: members with an error of their own are rejected; the others are unknown
    (result(Outcome.REJECTED, diag("error", "sg_b0/main.cu"), phase=Phase.CUDAFE), [Outcome.REJECTED, None, None]),
    # anything outside every member: nothing is certain
    (result(Outcome.ACCEPTED_WITH_WARNINGS, diag("warning", "/usr/include/x.h")), [None, None, None]),
    (result(Outcome.REJECTED, diag("error", "sg_b0/main.cu"), diag("error", "batch.cu"), phase=Phase.CUDAFE),
     [None, None, None]),
    (result(Outcome.REJECTED, diag("error", "sg_b2/main.cu", msg="Error limit reached."), phase=Phase.CUDAFE),
     [None, None, None]),
    (result(Outcome.CRASHED, phase=Phase.CICC), [None, None, None]),
    # a linker's closing line goes to each member with an error in that phase; alone, it names nobody
    (result(Outcome.REJECTED, diag("error", None, phase=Phase.NVLINK, msg="Undefined reference to '_ZN5sg_b11gEi'"),
            diag("fatal", None, phase=Phase.NVLINK, msg="merge_elf failed"), phase=Phase.NVLINK),
     [None, Outcome.REJECTED, None]),
    (result(Outcome.REJECTED, diag("fatal", None, phase=Phase.NVLINK, msg="merge_elf failed"), phase=Phase.NVLINK),
     [None, None, None]),
    (result(Outcome.TIMED_OUT, phase=Phase.CICC), [None, None, None]),
    # nvcc 13.0 puts member 1's error about a compiler-derived constructor in member 0's file (and member 0's
    # warning in member 1's): each goes to the member its symbols name; member 0 has no error in a rejected batch
    (result(Outcome.REJECTED, diag("warning", "sg_b1/main.cu", msg='calling a __host__ function("sg_b0::Base::Base()") '
                                   'from a __host__ __device__ function("sg_b0::Base::Base [subobject]")'),
            diag("error", "sg_b0/main.cu", msg='calling a __host__ function("sg_b1::Base::Base()") from a __device__ '
                                               'function("sg_b1::Base::Base [subobject]") is not allowed'),
            phase=Phase.CICC), [None, Outcome.REJECTED, None]),
]


@pytest.mark.parametrize("res, outcomes", SPLIT)
def test_split_attributes_only_what_is_certain(res, outcomes):
    parts = batch.split(res, 3)
    assert [p and p.outcome for p in parts] == outcomes
    for p in parts:
        if p is not None:
            assert all(d.file in ("main.cu", None) or members.member_of(d.file) is not None and members.QUALIFIER.search(d.message)
                       is None for d in p.diagnostics), "records read like a single compile's, but where nvcc put it"


def test_a_closing_line_is_kept_with_the_member_s_errors():
    res = result(Outcome.REJECTED, diag("error", None, phase=Phase.NVLINK, msg="Multiple definition of '_ZN5sg_b01hEv'"),
                 diag("fatal", None, phase=Phase.NVLINK, msg="merge_elf failed"), phase=Phase.NVLINK)
    assert [d.message for d in batch.split(res, 1)[0].diagnostics] == ["Multiple definition of '_ZN5sg_b01hEv'",
                                                                       "merge_elf failed"]


def test_a_batch_that_attributes_nobody_leaves_alone_the_members_it_names():
    stub = "/tmp/x.cudafe1.stub.c"
    res = result(Outcome.REJECTED, diag("error", "sg_b1/main.cu", phase=Phase.HOST_COMPILER),
                 diag("error", stub, phase=Phase.HOST_COMPILER, msg="template-id for 'void sg_b3::stub(int&)'"),
                 diag("warning", "sg_b0/main.cu", phase=Phase.CUDAFE), phase=Phase.HOST_COMPILER)
    assert batch.split(res, 5) == [None] * 5
    assert batch.suspects(res, 5) == {1, 3}, "an error in its region or naming it; a warning of its own is no cause"
    cases = [case("int x;\n", f"m{i}") for i in range(5)]
    again = _again(res, cases, cases, {}, {}, peeling=False)
    assert again == [([cases[0], cases[2], cases[4]], False)], "the others are built together again"
    silent = result(Outcome.REJECTED, diag("error", stub, phase=Phase.HOST_COMPILER, msg="ambiguous"),
                    phase=Phase.HOST_COMPILER)
    assert [len(part) for part, _ in _again(silent, cases[:4], cases[:4], {}, {}, False)] == [2, 2], "halved"


def test_a_diagnostic_in_one_member_s_region_naming_another_s_symbols_goes_to_that_member():
    """nvcc put member 1's error about a compiler-derived constructor in member 0's file, and member 0's warning in
    member 1's: each goes to the member its symbols name, with the file and line nvcc gave (at no line of the
    member's own file), and no member is built alone for it."""
    crossed = SPLIT[-1][0]
    parts = batch.split(crossed, 4)
    assert [p and p.outcome for p in parts] == [None, Outcome.REJECTED, None, None]
    assert [(d.file, d.message) for d in parts[1].diagnostics] == [
        ("sg_b0/main.cu", 'calling a __host__ function("Base::Base()") from a __device__ function("Base::Base '
                          '[subobject]") is not allowed')]
    assert batch.crossed(crossed) == set() and batch.suspects(crossed, 4) == {1}, "the error is member 1's"


def test_a_diagnostic_placed_in_another_member_s_region_is_at_no_line_of_the_case():
    from suitegen.judge.verdicts import matches
    exp = Expectation(expect=Expect.REJECT, diagnostic="not allowed", check_line=True)
    at = replace(case("int x;\n", "m"), violation_line=3)
    own = Diagnostic(severity="error", message="not allowed", phase=Phase.CICC, file="main.cu", line=3)
    assert matches(own, exp, at, ("error",))
    assert not matches(replace(own, file="sg_b0/main.cu"), exp, at, ("error",))
    assert matches(replace(own, file="sg_b0/main.cu"), replace(exp, check_line=False), at, ("error",))


def test_a_phase_that_stops_at_one_member_s_error():
    """cicc stops at some errors (dynamic initialization of a function-scope static): members expected to
    give the same error are built alone, the rest together, and the run learns the error. Where cicc
    stopped, the rest are built again however often it peels one; elsewhere (a linker), two peels without
    such a hint end it."""
    cases = [case("int x;\n", f"m{i}") for i in range(4)]

    def peeled_at(phase):
        stop = diag("error", "main.cu", phase=phase, msg="dynamic initialization is not supported for a static")
        peeled = result(Outcome.REJECTED, stop, phase=phase)
        return peeled, {cases[0].key: Member(result=peeled, source=Batched(id="b", size=4),
                                             built=Built(module=Path("m"), product=None, member=0))}
    peeled, out = peeled_at(Phase.CICC)
    hints = {cases[1].key: "dynamic initialization", cases[2].key: "typeid", cases[3].key: None}
    stopped = set()
    assert _again(peeled, cases, cases[1:], out, hints, False, stopped) == [([cases[2], cases[3]], False)]
    assert stopped == {cases[1].key}, "the run learns which expected errors stop the build"
    hints = {cases[0].key: "dynamic initialization", cases[2].key: "typeid"}
    assert _again(peeled, cases, cases[1:], out, hints, True, stopped := set()) == [(cases[1:], False)]
    assert stopped == set(), "the member cicc stopped at teaches nothing: its kind may batch elsewhere"
    peeled, out = peeled_at(Phase.NVLINK)
    assert _again(peeled, cases, cases[1:], out, {}, peeling=False) == [(cases[1:], True)]
    assert _again(peeled, cases, cases[1:], out, {}, peeling=True) == []


def test_the_members_a_diagnostic_crossed_between_go_alone_where_it_is_uncertain_whose_it_is():
    """nvcc put member 1's warning about a compiler-derived constructor in member 0's file. Where member 0's region
    holds nothing else, the warning is member 1's; where it holds a warning of its own (which may be member 1's,
    placed there without naming it), member 0 is uncertain; where the message names two members, both are, and the
    holder. The others are attributed either way."""
    derived = diag("warning", "sg_b0/main.cu", msg='calling a __host__ function("sg_b1::Base::Base()") from a '
                                                  '__host__ __device__ function("sg_b1::Base::Base [subobject]")')
    other = diag("warning", "sg_b2/main.cu", msg='variable "sg_b2::v" was declared but never referenced')
    warned = result(Outcome.ACCEPTED_WITH_WARNINGS, derived, other)
    assert [p and p.outcome for p in batch.split(warned, 4)] == [
        Outcome.ACCEPTED, Outcome.ACCEPTED_WITH_WARNINGS, Outcome.ACCEPTED_WITH_WARNINGS, Outcome.ACCEPTED]
    held = result(Outcome.ACCEPTED_WITH_WARNINGS, derived, replace(other, file="sg_b0/main.cu", message="unused"))
    assert [p and p.outcome for p in batch.split(held, 3)] == [None, Outcome.ACCEPTED_WITH_WARNINGS, Outcome.ACCEPTED]
    assert batch.crossed(held) == {0}
    two = result(Outcome.ACCEPTED_WITH_WARNINGS, replace(derived, message=derived.message + " (sg_b2::g)"), other)
    assert [p and p.outcome for p in batch.split(two, 4)] == [None, None, None, Outcome.ACCEPTED]
    assert batch.crossed(two) == {0, 1, 2}
    cases = [case("int x;\n", f"m{i}") for i in range(5)]
    out = {c.key: None for c in cases[1:4]}
    assert _again(two, cases, [cases[0], cases[1], cases[2], cases[4]], out, {}, False) == [([cases[4]], False)], (
        "the crossed members are not built together again")


def test_messages_read_like_a_single_compile_s():
    res = result(Outcome.REJECTED, diag("error", "sg_b0/main.cu", msg='identifier "sg_b0::S::m" is undefined'),
                 phase=Phase.CICC)
    assert batch.split(res, 1)[0].diagnostics[0].message == 'identifier "S::m" is undefined'


def test_a_remark_printed_once_per_unit_is_no_member_s():
    remark = Diagnostic(severity="remark", message="The warnings can be suppressed", phase=Phase.CUDAFE)
    parts = batch.split(result(Outcome.ACCEPTED_WITH_WARNINGS, diag("warning", "sg_b0/main.cu"), remark), 2)
    assert [p.outcome for p in parts] == [Outcome.ACCEPTED_WITH_WARNINGS, Outcome.ACCEPTED]


# A fake nvcc that crashes (or hangs) on any batch and accepts single compiles.
BAD_BATCH = '''
if [ -e batch.cu ]; then {what}; fi
''' + WRITES_OUTPUT.replace("{", "{{").replace("}", "}}") + "exit 0\n"


@pytest.mark.parametrize("what, why", [("echo 'Segmentation fault (core dumped)'; exit 139", "crash"),
                                       ("sleep 30", "hang")])
def test_a_batch_that_crashes_or_hangs_costs_its_members_nothing(fake_nvcc, mini_oracle, tmp_path, what, why):
    nvcc = fake_nvcc(BAD_BATCH.format(what=what))
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "suitegen", "run", "--nvcc", str(nvcc), "--oracle",
                           str(mini_oracle[0]), "--templates", str(mini_oracle[1]), "--std", "c++17", "--arch",
                           "sm_90", "--out", str(out), "-q", "--timeout", "3"], cwd=REPO, capture_output=True,
                          text=True, timeout=300)
    recs = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(recs) == 3, proc.stderr
    for r in recs:  # every item was built alone (the accept case is alone on its side): the fake accepts singles
        assert (r["batch"] or {"how": "alone"})["how"] == "alone" and r["observed"]["outcome"] == "accepted"
    assert sum(r["batch"] is not None for r in recs) == 2, "the two reject cases were a batch, then built alone"
    assert {r["variant"]: r["verdict"] for r in recs} == {"pos-host": "PASS", "neg-device": "FAIL",
                                                          "neg-global": "FAIL"}


@pytest.mark.slow
@needs_nvcc
@pytest.mark.nvcc
def test_batched_verdicts_equal_single_ones(tmp_path):
    """The reference path and the batched path judge every (case, config) alike, on real nvcc."""
    rules = ["execution-space-specifiers/global-void-return", "deprecation/gcc-diagnostic-pragma-front-end",
             "deprecation/device-reference-diagnosed", "built-in-variables/types",
             "relocatable-device-code/one-external-definition"]  # accepted, rejected and warned-about cases
    runs = {}
    for mode in ("off", "on"):
        out = tmp_path / mode
        argv = [sys.executable, "-m", "suitegen", "run", "--profile", "quick", "--out", str(out), "-q",
                "--batch", mode, *[a for r in rules for a in ("--rules", r)]]
        proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=900)
        assert proc.returncode in (0, 1), proc.stderr
        runs[mode] = {(r["case_key"], r["config_key"]): r for r in map(json.loads, (out / "results.jsonl").open())}
    assert runs["on"].keys() == runs["off"].keys()
    assert {k: r["verdict"] for k, r in runs["on"].items()} == {k: r["verdict"] for k, r in runs["off"].items()}
    batched = [r for r in runs["on"].values() if (r["batch"] or {}).get("how") == "batch"]
    assert len(batched) > len(runs["on"]) / 2, "most of these cases were judged from batches"
    assert {r["verdict"] for r in batched} <= {"PASS", "XFAIL", "UNSUPPORTED"}, "only a single build may say FAIL"
    assert all("not run" in r["reason"] for r in batched if r["verdict"] == "UNSUPPORTED"), "compiled; not run"
    kinds = {(r["expected"] or {}).get("expect") for r in batched}
    assert {"accept", "reject", "warn"} <= kinds, "accept, reject and warn cases all batch"


RUNTIME_RULES = '''
section = "demo"

[[rule]]
id = "sums"
statement = "Addition of ints computes their sum."
template = "demo/sums.cu.j2"
mode = "link"
''' + "".join(f'''
  [[rule.variant]]
  name = "run-{name}"
  expect = "runtime"
  params = {{ how = "{how}" }}
  observe = "the host checks 2 + 3 == 5"
''' for name, how in (("first", "ok"), ("exits", "exit"), ("after", "ok"), ("last", "ok"), ("wrong", "wrong")))
# host-only programs (no CUDA call), so they run here without a GPU
RUNTIME_TEMPLATE = '''\
{% include "common/selfcheck.cuh" %}
__global__ void unused(int *out) { *out = 1; }
int main() {
{% if how == "exit" %}  std::exit(0);  // ends its process: no result line
{% endif %}
  SG_CHECK(2 + 3 == {{ 4 if how == "wrong" else 5 }});
  return sg_report();
}
'''


@needs_nvcc
@pytest.mark.nvcc
def test_a_batched_program_runs_its_members_in_one_process_and_only_passes_count(tmp_path):
    """Members run in one process, one after another; a member that exits ends it, so it runs alone and those
    after it run together again in a fresh process; a member that fails runs (and is built) alone: its evidence is
    its single build and run."""
    import dataclasses

    from suitegen.qualification import session as engine
    from suitegen.engine.options import RunOptions
    from suitegen.execute.gpus import GpuPool

    from conftest import write_demo_oracle
    orc, tpl = write_demo_oracle(tmp_path, RUNTIME_RULES, {"sums.cu.j2": RUNTIME_TEMPLATE})
    base = engine.open_session(RunOptions(oracle=str(orc), templates=str(tpl), no_exec=True))
    session = dataclasses.replace(base, gpus=GpuPool("0", ()), execution_skipped=None)
    (tc,) = session.toolchains
    recs = {r.variant: r for r in batch_of(session, session.cases, Config(toolchain=tc, std=Std.CXX17, arch="sm_90"))}
    verdicts = {name: r.verdict.value for name, r in recs.items()}
    assert verdicts == {"run-first": "PASS", "run-exits": "FAIL", "run-after": "PASS", "run-last": "PASS",
                        "run-wrong": "FAIL"}, {n: r.reason for n, r in recs.items()}
    assert "in one process with the 4 other" in recs["run-first"].execution.detail
    assert recs["run-first"].execution.command[1:] == ("0",), "its reproducer is its own run"
    assert "in one process with the 2 other" in recs["run-after"].execution.detail, "after the exit: a fresh process"
    assert isinstance(recs["run-after"].batch, Batched)
    for name in ("run-exits", "run-wrong"):
        assert isinstance(recs[name].batch, Alone) and "batch.out" not in recs[name].execution.command[0]


@pytest.mark.parametrize("fate, processes, passed", [
    ("all-fail", [[0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5]], []),  # twice none passed: the rest run alone at once
    ("first-spoils", [[0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5]], [1, 2, 3, 4, 5]),
    ("first-fails", [[0, 1, 2, 3, 4, 5]], [1, 2, 3, 4, 5]),
])
def test_a_batch_program_s_members_share_processes_until_the_program_fails_as_a_whole(monkeypatch, tmp_path, fate,
                                                                                       processes, passed):
    from types import SimpleNamespace

    from suitegen.qualification import batch_units, item
    from suitegen.judge.behaviour import AfterBuild
    from suitegen.model import ExecResult, ExecStatus

    calls = []

    def run_members(path, todo, cwd, timeout, gpu):
        calls.append(list(todo))
        ok = {"all-fail": False, "first-spoils": len(calls) > 1, "first-fails": True}[fate]
        return {i: ExecResult(status=ExecStatus.PASSED if ok and i else ExecStatus.FAILED, exit_code=0, detail="",
                              output="", duration=0.1, gpu="GPU 0", command=()) for i in todo}

    monkeypatch.setattr(batch_units, "run_members", run_members)
    session = SimpleNamespace(fatbin=object(), options=SimpleNamespace(exec_timeout=5),
                              gpus=SimpleNamespace(take=lambda: ("0", "GPU 0")))
    cases = [SimpleNamespace(key=f"k{i}") for i in range(6)]
    built = {c.key: batch_units.Member(result=result(Outcome.ACCEPTED), source=Batched(id="b", size=6),
                                built=item.Built(module=tmp_path / "m", product=tmp_path / "batch.out", member=i))
             for i, c in enumerate(cases)}
    out = batch_units._batch_programs(session, cases, built, {c.key: AfterBuild.PROGRAM for c in cases})
    assert calls == processes
    assert sorted(out) == [f"k{i}" for i in passed], "the others run alone, as run_after does"


STOPPER_RULES = '''
section = "demo"

[[rule]]
id = "static-init"
statement = "A function-scope static in device code may not be dynamically initialized."
template = "demo/static.cu.j2"
phase = "front-end"
diagnostic = "dynamic initialization is not supported"
''' + "".join(f'''
  [[rule.variant]]
  name = "neg-{n}"
  expect = "reject"
  params = {{ n = {n} }}
''' for n in range(3))
STOPPER_TEMPLATE = '''\
__device__ int f{{ n }}();
__global__ void k(int *p) { static int s = f{{ n }}(); *p = s; {{ CHECK }}
}
'''


@needs_nvcc
@pytest.mark.nvcc
def test_members_whose_error_stopped_a_batch_go_alone_at_once_in_later_batches(tmp_path):
    """cicc stops at the first of these errors: the first batch peels one member and leaves the others alone; the
    run's next batch sends such members alone without building them together first. Verdicts are the same."""
    from suitegen.qualification import session as engine
    from suitegen.qualification.batch_units import STOPS
    from suitegen.engine.options import RunOptions

    from conftest import write_demo_oracle
    orc, tpl = write_demo_oracle(tmp_path, STOPPER_RULES, {"static.cu.j2": STOPPER_TEMPLATE})
    session = engine.open_session(RunOptions(oracle=str(orc), templates=str(tpl), no_exec=True))
    (tc,) = session.toolchains
    first = batch_of(session, session.cases, Config(toolchain=tc, std=Std.CXX14, arch="sm_90"))
    assert session.stoppers == {(tc.fingerprint, "dynamic initialization is not supported")}
    assert sorted(r.batch.why for r in first if isinstance(r.batch, Alone)) == ["no batch build attributed it"] * 2
    second = batch_of(session, session.cases, Config(toolchain=tc, std=Std.CXX17, arch="sm_90"))
    assert [(type(r.batch), r.batch.why, r.batch.tried) for r in second] == [(Alone, STOPS, ())] * 3
    assert {r.verdict.value for r in first + second} == {"PASS"}
