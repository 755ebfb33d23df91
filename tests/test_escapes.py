"""No input that escapes: ids and file names are checked at load, reproducers quote every word, and two
toolchains of one version never share a label or a reproducer folder."""
import json
import shlex
import subprocess
import sys

import pytest
from junitparser import JUnitXml

from suitegen.qualification.session import probe_toolchains
from suitegen.frontends.cli import main
from suitegen.model import Observed, Outcome, Verdict
from suitegen.report.repro import write_repro

from conftest import REPO, a_record, write_demo_oracle

RULES = '''
section = "demo"

[[rule]]
id = {id}
statement = "A statement."
{templates}

  [[rule.variant]]
  name = {name}
  expect = "accept"
'''


def oracle(tmp_path, rule_id='"ok"', templates='template = "demo/ok.cu.j2"', name='"pos"'):
    return write_demo_oracle(tmp_path, RULES.format(id=rule_id, templates=templates, name=name),
                             {"ok.cu.j2": "__device__ int f() { return 1; }\n"})


def refused(capsys, orc, tpl, *commands) -> list[str]:
    """Run each command on the oracle; return what each said on stderr (each must exit 2)."""
    said = []
    for command in commands:
        extra = ["--out", str(orc.parent / "gen")] if command == "generate" else []
        assert main([command, "--oracle", str(orc), "--templates", str(tpl), *extra]) == 2
        said.append(capsys.readouterr().err)
    return said


def test_a_rule_id_with_a_newline_is_refused_naming_file_and_rule(tmp_path, capsys):
    orc, tpl = oracle(tmp_path, rule_id=r'"x\ntouch PWNED $(touch PWNED)"')
    for err in refused(capsys, orc, tpl, "rules", "generate"):
        assert f"{orc / 'demo.toml'}: rule 'demo/x\\ntouch PWNED $(touch PWNED)': field 'id'" in err
    assert not list(tmp_path.rglob("PWNED")) and not (tmp_path / "gen").exists()


@pytest.mark.parametrize("rule_id", ['"a b"', '"a/b"', '"-a"', '"a;b"', '""'])
def test_a_rule_id_is_a_plain_name(tmp_path, capsys, rule_id):
    orc, tpl = oracle(tmp_path, rule_id=rule_id)
    assert "field 'id'" in refused(capsys, orc, tpl, "rules")[0]


def test_a_variant_name_is_a_plain_name(tmp_path, capsys):
    orc, tpl = oracle(tmp_path, name='"pos\\n$(touch PWNED)"')
    assert "field 'name'" in refused(capsys, orc, tpl, "rules")[0]


@pytest.mark.parametrize("key", ["../../../../../tmp/x/ESCAPED.cu", "/tmp/x/ESCAPED.cu", "sub/main.cu", "..",
                                 "a b.cu", ".hidden.cu", "x\\n.cu"])
def test_a_file_name_that_could_escape_is_refused(tmp_path, capsys, key):
    orc, tpl = oracle(tmp_path, templates=f'templates = {{ "{key}" = "demo/ok.cu.j2" }}')
    gen = tmp_path / "gen"
    for err in refused(capsys, orc, tpl, "rules", "generate"):
        assert f"{orc / 'demo.toml'}: rule 'demo/ok': field 'templates'" in err and "not a plain file name" in err
    assert not gen.exists() and not list(tmp_path.rglob("ESCAPED.cu"))


def test_a_run_refuses_an_escaping_file_name_before_building(tmp_path, fake_nvcc):
    orc, tpl = oracle(tmp_path, templates='templates = { "../../../../../tmp/x/ESCAPED.cu" = "demo/ok.cu.j2" }')
    proc = subprocess.run([sys.executable, "-m", "suitegen", "run", "--nvcc", str(fake_nvcc("exit 0")), "--oracle",
                           str(orc), "--templates", str(tpl), "--out", str(tmp_path / "run")], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "not a plain file name" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "run" / "results.jsonl").exists()


def test_a_corpus_manifest_naming_an_escaping_file_is_refused(tmp_path, capsys, mini_oracle):
    corpus = tmp_path / "corpus"
    assert main(["generate", "--oracle", str(mini_oracle[0]), "--templates", str(mini_oracle[1]),
                 "--out", str(corpus)]) == 0
    manifest = json.loads((corpus / "manifest.json").read_text())
    manifest["cases"][0]["files"] = ["../../escaped.cu"]
    (corpus / "manifest.json").write_text(json.dumps(manifest))
    assert main(["run", "--list", "--corpus", str(corpus), "--nvcc", "/no/nvcc"]) == 2
    assert "'../../escaped.cu' is not a plain file name" in capsys.readouterr().err


def test_every_line_of_a_reproducer_is_a_comment_or_a_quoted_command(tmp_path):
    """Whatever a record holds (a hostile id, reason or argument), running run.sh runs only its commands."""
    evil = "$(touch PWNED1)`touch PWNED2`;touch PWNED3\ntouch PWNED4"
    record = a_record(case_id=f"demo/x[{evil}]", verdict=Verdict.FAIL, reason=f"because\n{evil}", rule="demo/x",
                      observed=Observed(outcome=Outcome.ACCEPTED, phase=None, exit_code=0,
                                        commands=(("echo", evil, "it's"),)))
    folder = write_repro(tmp_path, record, {"files": {"main.cu": "int x;\n", "../escaped.cu": "no"}})
    text = (folder / "run.sh").read_text()
    lines = text.splitlines()
    assert lines[0] == "#!/bin/sh" and all(line.startswith("# ") for line in lines[1:3])
    assert lines[3] == 'cd "$(dirname "$0")" || exit 1'
    # the rest is the command, every word quoted (a newline in a word stays inside its quotes)
    assert shlex.split(text.split("|| exit 1\n", 1)[1]) == ["echo", evil, "it's"]
    done = subprocess.run(["sh", str(folder / "run.sh")], capture_output=True, text=True, cwd=tmp_path)
    assert done.stdout == f"{evil} it's\n"
    assert not list(tmp_path.rglob("PWNED*")), "nothing in the record ran"
    assert not (tmp_path / "repro" / "escaped.cu").exists() and (folder / "main.cu").exists()


REJECTS = 'echo "#$ cudafe++ --c++17 x"; echo "main.cu(2): error: no"; echo "# --error 0x2 --"; exit 2'


def test_two_toolchains_of_one_version_get_their_own_labels_and_folders(fake_nvcc, mini_oracle, tmp_path, capsys):
    a, b = fake_nvcc(REJECTS), fake_nvcc(REJECTS)
    labels = [t.label for t in probe_toolchains([str(a), str(b)])]
    assert len(set(labels)) == 2 and all(label.startswith("nvcc-13.0.88-") for label in labels)
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "suitegen", "run", "--nvcc", str(a), "--nvcc", str(b),
                           "--oracle", str(mini_oracle[0]), "--templates", str(mini_oracle[1]), "--std", "c++17",
                           "--arch", "sm_90", "--out", str(out), "-q"], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 1, proc.stderr
    recs = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted({r["config"]["toolchain"] for r in recs}) == sorted(labels)
    failing = [r for r in recs if r["verdict"] in ("FAIL", "UNRESOLVED", "XPASS")]
    assert len(failing) == 6 and len(list((out / "repro").iterdir())) == 6, "one folder per item"
    xml = JUnitXml.fromfile(str(out / "junit.xml"))
    names = [(suite.name, case.classname, case.name) for suite in xml for case in suite]
    assert len(names) == len(set(names)) == len(recs)
    history = tmp_path / "history"
    assert main(["history", str(out), "--out", str(history)]) == 0
    assert "2 toolchains" in capsys.readouterr().out, "two history columns"
    table = (history / "history.md").read_text()
    assert all(f"| {label} 13.0.88" in table or f" {label} 13.0.88 |" in table for label in labels)
