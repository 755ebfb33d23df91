"""Injected violations: the registry matches the oracle, injection is deterministic and leaves the program intact,
and the judge of nvcc's answer is right (table-driven on canned output, then a few real builds)."""
import random

import pytest

from conftest import needs_nvcc
from suitegen import procs
from suitegen.campaigns import invalid
from suitegen.oracle import loader
from suitegen.synth import emit, inject, populate


@pytest.fixture(scope="module")
def oracle():
    return loader.load()


@pytest.fixture(scope="module")
def program():
    return populate.generate("inject-test", 0)


def test_registry_covers_twenty_rules_each_with_a_rejected_handwritten_case(oracle):
    assert len(inject.rules()) >= 20
    for v in inject.VIOLATIONS:
        exp = invalid.expectation(oracle, v)  # raises when the rule or its rejected variant is missing
        assert exp.phase == v.phase, v.name
        assert v.side in ("device", "host")


def test_same_seed_same_bytes():
    a = inject.generate("s", 3, "throw", "template")
    b = inject.generate("s", 3, "throw", "template")
    assert a == b
    assert inject.generate("s", 4, "throw", "template").source != a.source


@pytest.mark.parametrize("context", inject.CONTEXTS)
def test_every_violation_renders_in_every_context_and_leaves_the_program_intact(program, context):
    original = emit.source([program]).splitlines()
    for v in inject.VIOLATIONS:
        got = inject.inject(program, v, context, random.Random(f"{v.name}:{context}"))
        lines = got.source.splitlines()
        assert inject.MARK in lines[got.line - 1] and got.rule in lines[got.line - 1], v.name
        assert sum(inject.MARK in x for x in lines) == 1
        assert got.depth >= (2 if context == "chain" else 1)
        it = iter(lines)  # the generated program is a subsequence: nothing of it changed or went away
        assert all(any(x == y for y in it) for x in original), (v.name, context)


def test_unknown_context_is_refused(program):
    with pytest.raises(ValueError, match="unknown context"):
        inject.inject(program, inject.VIOLATIONS[0], "macro", random.Random(0))


def _done(output: str, rc: int = 1) -> procs.Completed:
    return procs.Completed(argv=("nvcc",), returncode=rc, output=output, timed_out=False, duration=0.0)


CUDAFE = "#$ cudafe++ --foo main.cu\n"


@pytest.mark.parametrize("output, rc, verdict, what", [
    (CUDAFE + 'main.cu(7): error: an exception was thrown\n# --error 0x1 --\n', 1, "PASS", "rejected at the line"),
    (CUDAFE + 'main.cu(9): error: an exception was thrown\n# --error 0x1 --\n', 1, "FAIL", "other line"),
    (CUDAFE + 'main.cu(7): error: identifier "x" is undefined\n# --error 0x1 --\n', 1, "FAIL", "other message"),
    ("#$ gcc -c x.cpp\nmain.cu:7:3: error: an exception\n# --error 0x1 --\n", 1, "FAIL", "other message"),
    (CUDAFE + 'main.cu(7): warning #1: an exception\n', 0, "FAIL", "accepted"),
    (CUDAFE + 'main.cu(7): internal error: assertion failed\n# --error 0x1 --\n', 1, "FAIL", "crash"),
])
def test_decide(oracle, output, rc, verdict, what):
    exp = invalid.expectation(oracle, inject.BY_NAME["throw"])
    got = invalid.decide(_done(output, rc), exp, "main.cu", 7)
    assert (got.verdict, got.what) == (verdict, what)


def test_summary_counts_and_lists_differences(program, oracle):
    iv = inject.inject(program, inject.BY_NAME["throw"], "lambda", random.Random(0))
    ok = invalid.Outcome(verdict="PASS", what="rejected at the line", detail="", command=())
    bad = invalid.Outcome(verdict="FAIL", what="accepted", detail="", command=())
    s = invalid.summary([invalid.Result(invalid=iv, outcome=ok, handwritten=ok),
                         invalid.Result(invalid=iv, outcome=bad, handwritten=ok)])
    assert s["counts"]["exceptions/host-code-only | lambda"] == {"PASS": 1, "FAIL": 1, "FAIL:accepted": 1}
    assert [d["context"] for d in s["differs"]] == ["lambda"]


@needs_nvcc
def test_generated_programs_compile_before_injection():
    programs = [populate.generate("inject-test", k) for k in range(3)]
    out = invalid.compile_source(emit.source(programs))
    assert out.returncode == 0, out.output[-2000:]


@needs_nvcc
def test_real_nvcc_rejects_injected_violations_at_their_line():
    cases = [inject.generate("inject-test", 0, "throw", "template"),
             inject.generate("inject-test", 1, "device-call", "chain"),
             inject.generate("inject-test", 2, "shared-initializer", "member")]
    results = invalid.judge(cases, jobs=2)
    assert [(r.outcome.verdict, r.handwritten.verdict) for r in results] == [("PASS", "PASS")] * 3, \
        [r.outcome.detail for r in results]
