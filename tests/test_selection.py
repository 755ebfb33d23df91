"""--rules: a pattern that matches nothing is a usage error with close matches; a bare rule name matches its
rule, in every section that has one (and says so); the CLI and the pytest plugin agree."""

import pytest

from suitegen.qualification.session import SelectionError, selection
from suitegen.frontends.cli import main
from suitegen.oracle import loader

from conftest import WRITES_OUTPUT, write_demo_oracle

RULE = '''
[[rule]]
id = "{id}"
statement = "A statement."
template = "demo/ok.cu.j2"

  [[rule.variant]]
  name = "pos"
  expect = "accept"
'''


@pytest.fixture
def two_sections(tmp_path):
    """An oracle of sections demo (rules shared-name, only-here) and other (shared-name)."""
    orc, tpl = write_demo_oracle(tmp_path, 'section = "demo"\n' + RULE.format(id="shared-name")
                                 + RULE.format(id="only-here"), {"ok.cu.j2": "__device__ int f() { return 1; }\n"})
    (orc / "sections.toml").write_text('[sections]\ndemo = "A demo section"\nother = "Another section"\n')
    (orc / "other.toml").write_text('section = "other"\n' + RULE.format(id="shared-name"))
    return orc, tpl


def ids(rules):
    return sorted(r.id for r in rules)


def test_ids_sections_and_bare_names_select(two_sections):
    rules = loader.load(two_sections[0]).rules
    assert ids(selection(rules, ["demo/only-here"])[0]) == ["demo/only-here"]
    assert ids(selection(rules, ["other"])[0]) == ["other/shared-name"]
    assert ids(selection(rules, ["only-here"])[0]) == ["demo/only-here"], "a bare name matches its rule"
    chosen, notes = selection(rules, ["shared-name"])
    assert ids(chosen) == ["demo/shared-name", "other/shared-name"]
    assert notes == ["--rules shared-name names a rule in 2 sections; all are selected: demo/shared-name, "
                     "other/shared-name"]
    assert selection(rules, ["demo/*"])[1] == [] and selection(rules, [])[0] == list(rules)


def test_a_pattern_that_matches_nothing_is_an_error_with_close_matches(two_sections):
    rules = loader.load(two_sections[0]).rules
    with pytest.raises(SelectionError, match=r"--rules 'only-her' matches no rule or section \(close: only-here"):
        selection(rules, ["only-her"])
    with pytest.raises(SelectionError, match="'no-such-thing' matches no rule or section \\(suitegen rules lists"):
        selection(rules, ["demo", "no-such-thing"]), "each pattern must match: one typo among others is caught"


def test_the_cli_exits_2_on_an_empty_selection(two_sections, fake_nvcc, capsys):
    orc, tpl = two_sections
    base = ["--oracle", str(orc), "--templates", str(tpl)]
    assert main(["rules", *base, "--rules", "demo/sahred-name"]) == 2
    assert "close: demo/shared-name" in capsys.readouterr().err
    nvcc = str(fake_nvcc(WRITES_OUTPUT + "exit 0"))
    assert main(["run", "--list", "--nvcc", nvcc, *base, "--rules", "exception", "--arch", "sm_90"]) == 2
    assert "--rules 'exception' matches no rule or section" in capsys.readouterr().err
    assert main(["run", "--list", "--nvcc", nvcc, *base, "--rules", "shared-name", "--std", "c++17",
                 "--arch", "sm_90"]) == 0
    out = capsys.readouterr()
    assert sorted(out.out.split()) == ["demo/shared-name[pos,c++17,sm_90]", "other/shared-name[pos,c++17,sm_90]"]
    assert "names a rule in 2 sections; all are selected" in out.err


def test_the_plugin_refuses_an_empty_selection_and_selects_bare_names(pytester, two_sections, fake_nvcc):
    orc, tpl = two_sections
    base = ["--suitegen", str(orc), "--suitegen-templates", str(tpl), "--suitegen-nvcc",
            str(fake_nvcc(WRITES_OUTPUT + "exit 0")), "--suitegen-std", "c++17", "--suitegen-arch", "sm_90",
            "--co", "-p", "no:cacheprovider"]
    bad = pytester.runpytest_subprocess(*base, "--suitegen-rules", "exception")
    assert bad.ret not in (0, 5), bad.stdout.str()
    assert "--rules 'exception' matches no rule or section" in bad.stdout.str() + bad.stderr.str()
    good = pytester.runpytest_subprocess(*base, "--suitegen-rules", "shared-name")
    assert good.ret == 0, good.stdout.str()
    good.stdout.fnmatch_lines(["suitegen: --rules shared-name names a rule in 2 sections*", "*2 tests collected*"])


def test_a_corpus_run_checks_its_selection_too(two_sections, fake_nvcc, tmp_path, capsys):
    orc, tpl = two_sections
    corpus = tmp_path / "corpus"
    assert main(["generate", "--oracle", str(orc), "--templates", str(tpl), "--out", str(corpus)]) == 0
    capsys.readouterr()
    nvcc = str(fake_nvcc(WRITES_OUTPUT + "exit 0"))
    base = ["run", "--list", "--corpus", str(corpus), "--nvcc", nvcc, "--std", "c++17", "--arch", "sm_90"]
    assert main([*base, "--rules", "only-here"]) == 0
    assert capsys.readouterr().out.split() == ["demo/only-here[pos,c++17,sm_90]"]
    assert main([*base, "--rules", "nothing-here"]) == 2


def test_the_plugin_collects_the_profiles_generated_corpus_as_the_run_plans_it(pytester, fake_nvcc):
    """The built-in oracle's session collects the profile's generated corpus beside its sections (from its
    sections.toml): the injected programs and the programs, each under the profile's configs."""
    base = ["--suitegen", "--suitegen-nvcc", str(fake_nvcc(WRITES_OUTPUT + "exit 0")), "--suitegen-profile", "quick",
            "--co", "-q", "-p", "no:cacheprovider"]
    got = pytester.runpytest_subprocess(*base, "--suitegen-rules", "generated", "--suitegen-generated", "2")
    assert got.ret == 0, got.stdout.str() + got.stderr.str()
    got.stdout.fnmatch_lines(["*sections.toml::generated/g1.p0[[]run,c++17,sm_90]",
                              "*sections.toml::generated/g1.p1[[]run,c++17,sm_90]"])
    names = got.stdout.str()
    assert "generated/g1.p2[" not in names and "neg-" in names, "two programs, and the injected ones"
    none = pytester.runpytest_subprocess(*base, "--suitegen-rules", "generated", "--suitegen-generated", "0")
    assert none.ret != 0 and "matches no rule" in none.stdout.str() + none.stderr.str()
