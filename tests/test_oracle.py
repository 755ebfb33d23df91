"""The loader: the real oracle validates; malformed files name the file, rule and field."""
import textwrap

import pytest

from suitegen.cases.render import Renderer
from suitegen.model import GENERATED_RULE, Expect
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
        assert any(r.id == dev.rule for r in orc.rules) or GENERATED_RULE.fullmatch(dev.rule)


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


@pytest.mark.parametrize("old, new, field, kind, name, close", [
    ('expect = "reject"', 'predicate = "kernel_parameters_fitt"', "predicate", "predicate", "kernel_parameters_fitt",
     "kernel_parameters_fit"),
    ('expect = "accept"', 'expect = "accept"\n  strategies = { type = "memory_space" }', "strategies", "strategy",
     "memory_space", "memory_spaces"),
    ('expect = "accept"', 'expect = "accept"\n  mode = "fatbin"\n  check = "expresion_values"', "check", "check",
     "expresion_values", "expression_values"),
])
def test_an_unknown_hook_is_refused_at_load(mini_oracle, old, new, field, kind, name, close):
    path = _break(mini_oracle, old, new)
    with pytest.raises(oracle.OracleError) as err:
        oracle.load(mini_oracle[0])
    msg = str(err.value)
    assert msg.startswith(f"{path}: rule 'demo/no-long-double': field {field!r}: ")
    assert f"unknown {kind} {name!r} (did you mean {close!r}" in msg


def test_an_unknown_selector_is_refused_at_load(mini_oracle):
    path = mini_oracle[0] / "deviations" / "x.toml"
    path.write_text('when = "nvcc==13.0"\n[[deviation]]\nrule = "demo/no-long-double"\nobserved = "accepted"\n'
                    'diagnostic = ""\nseen = "2026-11-21"\nselect = "plain_class"\n')
    with pytest.raises(oracle.OracleError) as err:
        oracle.load(mini_oracle[0])
    msg = str(err.value)
    assert f"{path}: rule 'demo/no-long-double': field 'select': unknown selector 'plain_class'" in msg
    assert "plain_class_with_member_initializer" in msg


def test_hooks_are_held_resolved(mini_oracle):
    # what the model holds is the function itself, under its name: nothing looks the name up later
    from suitegen.oracle import definitions
    _break(mini_oracle, 'expect = "reject"', 'predicate = "kernel_parameters_fit"')
    neg = oracle.load(mini_oracle[0]).rules[0].variants[1]
    assert neg.predicate.name == "kernel_parameters_fit" and neg.predicate.fn is definitions.kernel_parameters_fit
    assert neg.predicate({"sizes": [4097]}, None) is Expect.REJECT


def test_deviation_needs_a_toolchain_range(mini_oracle):
    (mini_oracle[0] / "deviations" / "x.toml").write_text('[[deviation]]\nrule = "demo/no-long-double"\n')
    with pytest.raises(oracle.OracleError, match="field 'when'"):
        oracle.load(mini_oracle[0])


# --- the oracle against itself (suitegen/oracle/consistency.py) -------------------------------------------

def _all_cases():
    from suitegen.engine import options
    from suitegen.qualification.session import load_cases
    from suitegen.frontends.cli import build_parser
    return load_cases(options.from_namespace(build_parser().parse_args(["rules"])))[1]


def test_construct_patterns_hold_on_their_own_rules():
    """Each rule's construct pattern matches every variant it expects rejected and none it expects to compile."""
    from suitegen.oracle.consistency import unproven
    cases = _all_cases()
    assert len({c.rule.id for c in cases if c.rule.construct}) >= 25
    assert unproven(cases) == []


def test_no_valid_variant_contains_what_another_rule_forbids():
    from suitegen.oracle.consistency import conflicts
    assert conflicts(_all_cases()) == []


# The three positive variants an audit found, as they were: each must be caught.
REVERTED = [
    ("global-functions-and-templates/parameter-types[pos-const-ref-function]",
     "__global__ void kern(const int &p) { }\n", "function-parameters/no-pass-by-reference"),
    ("global-argument-processing/host-launch-any-arguments[pos-host-launch-virtual]",
     "struct Arg {\n  int x;\n  __host__ __device__ virtual int get() const { return x; }\n};\n"
     "__global__ void child(Arg a, int *out) {\n  *out = a.x;\n}\n", "virtual-functions/no-global-argument"),
    ("cxx11-features/row-user-defined-literals[pos-device]",
     "__host__ __device__ constexpr long double operator\"\" _half(long double v) { return v / 2; }\n"
     "__device__ void use(int *out) { *out = (int)(3.0_half); }\n", "long-double/not-in-device-code"),
]


@pytest.mark.parametrize("case_id, text, rule", REVERTED)
def test_reverting_a_fix_is_caught(case_id, text, rule):
    from dataclasses import replace

    from suitegen.oracle.consistency import conflicts
    cases = _all_cases()
    positive = next(c for c in cases if c.rule.id == case_id.split("[")[0] and c.variant.expectation.expect.value
                    == "accept")
    reverted = replace(positive, files={"main.cu": text})
    assert (reverted.id, rule) in conflicts([*cases, reverted])


# --- diagnose variants: a valid-dialect twin, or a pattern that names what is wrong -------------------------

DIAGNOSE_RULE = '''
[[rule]]
id = "removed"
statement = "Under C++17 a thing may not be done."
template = "demo/ld.cu.j2"

  [[rule.variant]]
  name = "neg-cxx17"
  expect = "diagnose"
  requires = "std>=c++17"
  params = {{ fn = "device", type = "long double" }}
  phase = "front-end"
  diagnostic = '{pattern}'
{twin}'''
TWIN = '''
  [[rule.variant]]
  name = "pos-pre-cxx17"
  expect = "accept"
  requires = "std<c++17"
  params = { fn = "device", type = "long double" }
'''


def _diagnose_rule(mini_oracle, pattern, twin):
    path = mini_oracle[0] / "demo.toml"
    path.write_text(path.read_text() + DIAGNOSE_RULE.format(pattern=pattern, twin=twin))
    return oracle.load(mini_oracle[0]).rule("demo/removed").variants[0]


def test_diagnose_variant_takes_its_twins_condition(mini_oracle):
    neg = _diagnose_rule(mini_oracle, "bool|increment", TWIN)
    assert neg.valid_in is not None and neg.valid_in.text == "std<c++17"


@pytest.mark.parametrize("pattern, ok", [
    ("bool|increment", False),  # names the construct, not what is wrong
    ("increment of bool is deprecated|not allowed", False),  # a deprecation never satisfies it
    ("is deprecat|removed", False),
    (r"not allowed|removed in C\+\+17|invalid", True),
    ("not allowed|bool", False),  # every alternative, not one of them
    ("narrow", True),
    (r"(bool|increment) (is )?not allowed", True),  # alternatives inside a group are one alternative
])
def test_diagnose_variant_without_twin_names_what_is_wrong(mini_oracle, pattern, ok):
    if ok:
        assert _diagnose_rule(mini_oracle, pattern, "").valid_in is None
    else:
        with pytest.raises(oracle.OracleError, match="rule 'demo/removed': field 'diagnostic'.*names what is wrong"):
            _diagnose_rule(mini_oracle, pattern, "")


def test_twin_must_build_the_same_program(mini_oracle):
    other = TWIN.replace('type = "long double"', 'type = "double"')
    with pytest.raises(oracle.OracleError, match="no valid-dialect twin"):
        _diagnose_rule(mini_oracle, "bool|increment", other)


def test_real_diagnose_variants_have_twins_or_say_what_is_wrong():
    orc = oracle.load(REPO / "oracle")
    diagnose = [v for r in orc.rules for v in r.variants if v.expectation.expect is Expect.DIAGNOSE]
    assert diagnose and sum(v.valid_in is not None for v in diagnose) > len(diagnose) // 2
    assert all(v.valid_in is not None or oracle.names_what_is_wrong(v.expectation.diagnostic) for v in diagnose)


# --- deviations: the rule's own evidence, never an incidental warning ---------------------------------------

def _deviation(mini_oracle, **fields) -> None:
    """Write one deviation of the rule demo/no-long-double, its fields as given."""
    lines = "".join(f'{k} = "{v}"\n' for k, v in fields.items())
    (mini_oracle[0] / "deviations" / "x.toml").write_text(
        f'when = "nvcc==13.0"\n[[deviation]]\nrule = "demo/no-long-double"\n{lines}diagnostic = ""\nseen = "2026-11-25"\n')


@pytest.mark.parametrize("observed, match, error", [
    ("accepted", "", None),  # accepted: warnings do not change it, so nothing to match
    ("accepted-with-warnings", "", "needs a match"),
    ("rejected", "", "needs a match"),
    ("accepted-with-warnings", "long double", None),
    ("accepted-with-warnings", "was declared but never referenced", "incidental warning"),
    ("accepted-with-warnings", "set but never used", "incidental warning"),
    ("rejected", "unused variable", "incidental warning"),
])
def test_deviation_evidence_is_the_rules_own(mini_oracle, observed, match, error):
    _deviation(mini_oracle, observed=observed, match=match)
    if error is None:
        assert oracle.load(mini_oracle[0]).deviations
    else:
        with pytest.raises(oracle.OracleError, match=f"x.toml: rule 'demo/no-long-double': field 'match'.*{error}"):
            oracle.load(mini_oracle[0])


@pytest.mark.parametrize("observed, phase, error", [
    ("rejected", "host-compiler", None),
    ("rejected", "gcc", "phase must be one of"),
    ("accepted-with-warnings", "cudafe++", "an accepted item has none"),
])
def test_a_deviation_says_where_a_rejection_was_seen(mini_oracle, observed, phase, error):
    _deviation(mini_oracle, observed=observed, phase=phase, match="long double")
    if error is None:
        assert [d.phase.value for d in oracle.load(mini_oracle[0]).deviations] == [phase]
    else:
        with pytest.raises(oracle.OracleError, match=f"x.toml: rule 'demo/no-long-double': field 'phase'.*{error}"):
            oracle.load(mini_oracle[0])
