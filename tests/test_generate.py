"""Corpora: systematic coverage first, drawn cases on top, reproducible bytes, attributable compositions."""
import hashlib

import pytest

from suitegen.cases.compose import composable, compose, corpus
from suitegen.cases.corpus import read_corpus, write_corpus
from suitegen.cases.render import CHECK_MARK, Renderer
from suitegen.judge.expectations import expectation_for
from suitegen.model import Expect, Std
from suitegen.oracle import loader as oracle
from suitegen.oracle.conditions import Env
from suitegen.oracle.definitions import ClassSpec, constructor_is_empty, destructor_is_empty

from conftest import REPO


@pytest.fixture(scope="module")
def orc():
    return oracle.load(REPO / "oracle")


def tree_hash(folder):
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(folder)).encode() + p.read_bytes())
    return h.hexdigest()


@pytest.mark.slow
def test_two_thousand_cases_reproducibly(orc, tmp_path):
    # How fast generation is belongs to benchmarks/generate.py, not to a test.
    renderer = Renderer(REPO / "templates")
    a = corpus(renderer, orc.rules, seed=11, count=700)
    assert len(a) >= 2000 and len({c.key for c in a}) == len(a), "distinct cases"
    assert {c.rule.id for c in a} >= {r.id for r in orc.rules}, "every rule appears"
    drawn = {(c.rule.id, c.variant.name) for c in a}
    assert all((r.id, v.name) in drawn for r in orc.rules for v in r.variants), "every variant appears"
    b = corpus(Renderer(REPO / "templates"), orc.rules, seed=11, count=700)
    assert [c.key for c in a] == [c.key for c in b]
    write_corpus(a, tmp_path / "a")
    write_corpus(b, tmp_path / "b")
    assert tree_hash(tmp_path / "a") == tree_hash(tmp_path / "b")
    other = corpus(renderer, orc.rules, seed=12, count=50)
    assert {c.key for c in other} - {c.key for c in a}, "another seed draws other cases"
    back = read_corpus(tmp_path / "a" / "manifest.json")
    assert {c.key for c in back} == {c.key for c in a}, "a corpus reads back to the same cases"


def test_drawn_cases_take_expectations_from_the_oracle(orc):
    rules = [r for r in orc.rules if r.section == "device-memory-space"]
    cases = corpus(Renderer(REPO / "templates"), rules, seed=3, count=100)
    drawn = [c for c in cases if ".gen-" in c.variant.name and c.rule.id.endswith("empty-ctor-dtor")]
    assert drawn, "class shapes are drawn for the empty constructor/destructor rule"
    env = Env(std=Std.CXX17, arch="sm_90", nvcc=(13, 0))
    expected = set()
    for c in drawn:
        spec = ClassSpec.from_params(c.variant.params["cls"])
        # The guide's definitions, applied to the drawn class, decide what the judge expects of it.
        empty = constructor_is_empty(spec) and destructor_is_empty(spec)
        want = Expect.ACCEPT if empty else Expect.REJECT
        got = expectation_for(c, env)
        assert got.expect is want, (c.variant.params, got)
        if want is Expect.REJECT:
            assert got.phase and got.diagnostic, "a drawn rejection keeps the rule's phase and diagnostic"
        # ... and the program holds that class: its shape shows in the source.
        source = c.files[c.main_file]
        assert ("virtual" in source) == (spec.virtual or spec.virtual_base or _nested(spec, "dynamic"))
        expected.add(want)
    assert expected == {Expect.ACCEPT, Expect.REJECT}, "both sides of the definition are drawn"


def _nested(spec, attr) -> bool:
    return any(getattr(p, attr) or _nested(p, attr) for p in spec.parts())


def test_composition_keeps_one_attributable_violation(orc):
    cases = Renderer(REPO / "templates").render_all(orc.rules)
    pos = [c for c in cases if composable(c) and c.variant.expectation.expect is Expect.ACCEPT][:3]
    neg = next(c for c in cases if composable(c) and c.variant.expectation.expect is Expect.REJECT)
    valid = compose(pos)
    assert valid.rule.id == "composition/valid" and valid.violation_line is None
    assert CHECK_MARK not in valid.files["main.cu"]
    bad = compose(pos, neg)
    text = bad.files["main.cu"]
    assert text.count(CHECK_MARK) == 1 and bad.rule.id == neg.rule.id
    marked = text.splitlines()[bad.violation_line - 1]
    original = neg.files["main.cu"].splitlines()[neg.violation_line - 1]
    assert marked == original
