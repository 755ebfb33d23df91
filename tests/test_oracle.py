"""The loader: the real oracle validates; malformed files name the file, rule and field."""
import textwrap

import pytest

from suitegen.cases.render import Renderer
from suitegen.model import Expect
from suitegen.oracle import loader as oracle

from conftest import REPO


def test_real_oracle_loads_and_renders():
    orc = oracle.load(REPO / "oracle")
    assert orc.rules, "the oracle has rules"
    keys = set(orc.sections)
    for rule in orc.rules:
        assert rule.section in keys
        assert rule.id.startswith(rule.section + "/")
        assert rule.statement
    cases = Renderer(REPO / "templates").render_all(orc.rules)
    assert len({c.id for c in cases}) == len(cases), "case ids are unique"
    for dev in orc.deviations:
        assert any(r.id == dev.rule for r in orc.rules)


def test_sections_cover_the_shared_list():
    # every key of the guide's section list is known to the oracle
    orc = oracle.load(REPO / "oracle")
    for key in ("device-memory-space", "managed", "function-parameters", "exceptions", "rtti",
                "thread-local", "long-double", "built-in-variables", "assignment-operator",
                "address-operator", "cxx11-features", "lambdas", "memory-fences"):
        assert key in orc.sections


def test_mini_oracle_expands_matrix(mini_oracle):
    orc = oracle.load(mini_oracle[0])
    (rule,) = orc.rules
    assert rule.id == "demo/no-long-double"
    assert [v.name for v in rule.variants] == ["pos-host", "neg-device", "neg-global"]
    neg = rule.variants[1]
    assert neg.expectation.expect is Expect.REJECT
    assert neg.expectation.phase == "front-end" and neg.expectation.diagnostic == "long double"


def _break(mini_oracle, old, new):
    path = mini_oracle[0] / "demo.toml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return path


@pytest.mark.parametrize("old, new, field", [
    ('phase = "front-end"', 'phase = "frontend"', "phase"),
    ('diagnostic = "long double"', 'diagnostic = "long (double"', "diagnostic"),
    ('expect = "accept"', 'expect = "acept"', "expect"),
    ('statement = "long double may not be used in device code."', 'statment = "x"', "statment"),
    ('  [[rule.variant]]\n  name = "pos-{fn}"', '  [[rule.variant]]\n  requires = "std>=c++99"\n  name = "pos-{fn}"',
     "requires"),
    ('name = "pos-{fn}"', 'name = "pos-{fun}"', "name"),
    ('template = "demo/ld.cu.j2"', 'template = "demo/ld.cu.j2"\nbogus = 1', "bogus"),
    ('name = "neg-{fn}"', 'name = "pos-{fn}"\n  predicate = "nope"', "expect"),
])
def test_malformed_rule_names_file_rule_and_field(mini_oracle, old, new, field):
    path = _break(mini_oracle, old, new)
    with pytest.raises(oracle.OracleError) as err:
        oracle.load(mini_oracle[0])
    msg = str(err.value)
    assert str(path) in msg
    assert f"field {field!r}" in msg
    assert "demo/no-long-double" in msg


def test_bad_toml_names_the_file(mini_oracle):
    path = mini_oracle[0] / "demo.toml"
    path.write_text(path.read_text() + "\n[[rule]\n")
    with pytest.raises(oracle.OracleError, match="demo.toml: not valid TOML"):
        oracle.load(mini_oracle[0])


def test_section_must_match_file_and_list(mini_oracle):
    _break(mini_oracle, 'section = "demo"', 'section = "other"')
    with pytest.raises(oracle.OracleError, match="field 'section'"):
        oracle.load(mini_oracle[0])


def test_deviation_must_name_known_rule(mini_oracle):
    (mini_oracle[0] / "deviations" / "x.toml").write_text(textwrap.dedent('''
        when = "nvcc==13.0"
        [[deviation]]
        rule = "demo/nonexistent"
        observed = "accepted"
        diagnostic = ""
        seen = "2026-11-21"
        '''))
    with pytest.raises(oracle.OracleError, match="x.toml: rule 'demo/nonexistent': field 'rule'"):
        oracle.load(mini_oracle[0])


def test_deviation_needs_a_toolchain_range(mini_oracle):
    (mini_oracle[0] / "deviations" / "x.toml").write_text('[[deviation]]\nrule = "demo/no-long-double"\n')
    with pytest.raises(oracle.OracleError, match="field 'when'"):
        oracle.load(mini_oracle[0])
