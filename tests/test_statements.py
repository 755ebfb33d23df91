"""Traceability: the seeds' normative statements, each mapped to rules or to a reason (oracle/statements/)."""
import subprocess
import sys

import pytest

from suitegen.oracle import loader
from suitegen.oracle.statements import StatementError, load_statements, negative_rules, trace_table

from conftest import REPO

ORACLE = loader.load()
IDS = [r.id for r in ORACLE.rules]


def test_the_statements_load_and_name_only_real_rules():
    found = load_statements(ORACLE.root, ORACLE.sections, IDS)
    assert len({s.id for s in found}) == len(found)
    assert all(set(s.rules) <= set(IDS) for s in found)


def _write(tmp_path, body):
    (tmp_path / "statements").mkdir(exist_ok=True)
    (tmp_path / "statements" / "managed.toml").write_text('section = "managed"\n' + body)


@pytest.mark.parametrize("body, words", [
    ('[[statement]]\nid = "a"\nseed = "000"\ntext = "t"\nrules = ["managed/nope"]\n', "no such rule 'managed/nope'"),
    ('[[statement]]\nid = "a"\nseed = "000"\ntext = "t"\nkind = "should"\n', "kind must be one of"),
    ('[[statement]]\nid = "a"\nseed = "000"\ntext = "t"\n[[statement]]\nid = "a"\nseed = "000"\ntext = "u"\n',
     "duplicate id 'managed/a'"),
    ('[[statement]]\nid = "a"\ntext = "t"\n', "one of seed and source are required"),
])
def test_a_broken_statements_file_is_named(tmp_path, body, words):
    _write(tmp_path, body)
    with pytest.raises(StatementError, match="managed.toml") as err:
        load_statements(tmp_path, ORACLE.sections, IDS)
    assert words in str(err.value)


def test_the_trace_lists_what_no_rule_tests(tmp_path):
    _write(tmp_path, '[[statement]]\nid = "a"\nseed = "000"\ntext = "tested"\nrules = ["managed/no-const-type"]\n'
                     '[[statement]]\nid = "b"\nseed = "000"\ntext = "windows only"\nuntested = "MSVC only"\n'
                     '[[statement]]\nid = "c"\nseed = "000"\nwhere = "I.4.3.2"\ntext = "a gap"\n')
    found = load_statements(tmp_path, ORACLE.sections, IDS)
    table = trace_table(found, IDS)
    gaps = table.split("no negative variant tests:\n")[1].split("\n\n")[0].splitlines()
    assert gaps == ["  managed/c (000 I.4.3.2): a gap"]
    assert table.splitlines()[1].split() == ["managed", "3", "1", "1", "1"]


def test_rules_trace_exits_1_while_a_statement_is_untraced():
    proc = subprocess.run([sys.executable, "-m", "suitegen", "rules", "--trace"], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    found = load_statements(ORACLE.root, ORACLE.sections, IDS, negative_rules(ORACLE.rules))
    assert proc.returncode == (0 if all(s.traced for s in found) else 1), proc.stderr
    assert "statements" in proc.stdout and "untraced" in proc.stdout


# --- example lines marked error need a negative variant, or an explicit reason ------------------------------

EXAMPLE = '[[statement]]\nid = "e"\nseed = "000"\nwhere = "I.4.3.2"\ntext = "example error"\nexample = "error"\n'


@pytest.mark.parametrize("extra, traced", [
    ('rules = ["managed/no-const-type"]\n', True),  # the rule has neg-* variants
    ('rules = ["managed/host-and-device-access"]\n', False),  # a runtime-only rule: no negative
    ('rules = ["managed/host-and-device-access"]\nuntested = "x"\n', False),  # a plain reason is not enough
    ('rules = ["managed/host-and-device-access"]\nno_negative = "run-time: a use after free"\n', True),
    ('untested = "gone"\nno_negative = "removed: texture references"\nwhen = "nvcc<12.0"\n', True),
    ('rules = ["cuda-arch/signature-independent"]\nno_negative = "no-diagnostic-required: I.4.2.1"\n', True),
])
def test_an_example_error_needs_a_negative_or_an_explicit_reason(tmp_path, extra, traced):
    _write(tmp_path, EXAMPLE + extra)
    (found,) = load_statements(tmp_path, ORACLE.sections, IDS, negative_rules(ORACLE.rules))
    assert found.traced is traced
    table = trace_table([found], IDS)
    assert ("[example error: no rule with a negative variant]" in table) is (not traced)
    if traced and "no_negative" in extra:
        assert found.no_negative in table, "an excused example error shows its reason"


@pytest.mark.parametrize("extra, words", [
    ('rules = ["managed/no-const-type"]\nno_negative = "because: x"\n', "no_negative is for an example error"),
    ('untested = "gone"\nno_negative = "removed: x"\n', "conditioned on the release"),
])
def test_a_bad_example_reason_is_refused(tmp_path, extra, words):
    _write(tmp_path, EXAMPLE + extra)
    with pytest.raises(StatementError, match=words):
        load_statements(tmp_path, ORACLE.sections, IDS)


def test_the_restored_managed_examples_are_traced_to_negatives():
    found = {s.id: s for s in load_statements(ORACLE.root, ORACLE.sections, IDS, negative_rules(ORACLE.rules))}
    for sid in ("managed/example-static-init-address-error", "managed/example-dynamic-init-error",
                "managed/example-static-destructor-error"):
        assert found[sid].example == "error" and found[sid].negative and found[sid].traced
