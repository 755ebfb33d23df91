"""Traceability: the seeds' normative statements, each mapped to rules or to a reason (oracle/statements/)."""
import subprocess
import sys

import pytest

from suitegen.oracle import loader
from suitegen.oracle.statements import StatementError, load_statements, trace_table

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
    ('[[statement]]\nid = "a"\ntext = "t"\n', "id, seed and text are required"),
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
    gaps = table.split("no rule and no reason:\n")[1].split("\n\n")[0].splitlines()
    assert gaps == ["  managed/c (000 I.4.3.2): a gap"]
    assert table.splitlines()[1].split() == ["managed", "3", "1", "1", "1"]


def test_rules_trace_exits_1_while_a_statement_is_untraced():
    proc = subprocess.run([sys.executable, "-m", "suitegen", "rules", "--trace"], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    found = load_statements(ORACLE.root, ORACLE.sections, IDS)
    assert proc.returncode == (0 if all(s.traced for s in found) else 1), proc.stderr
    assert "statements" in proc.stdout and "untraced" in proc.stdout
