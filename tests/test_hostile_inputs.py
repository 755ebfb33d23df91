"""No input that runs code or hangs: templates render in jinja2's sandbox, flags keep to a safe set, and regexes
are refused at load where they could take exponential time and searched in bounded time everywhere."""
import re
import threading

import jinja2
import pytest

from suitegen import procs
from suitegen.cases.render import Renderer
from suitegen.frontends.cli import main
from suitegen.judge import deviations as devs
from suitegen.model import Expect, Expectation, Outcome, Phase, Verdict
from suitegen.oracle import fields, loader

from conftest import REPO, write_demo_oracle
from test_judge import case, dev, diag, result, run as judged

RULES = '''
section = "demo"

[[rule]]
id = "hostile"
statement = "A statement."
template = "demo/ok.cu.j2"
phase = "front-end"
{rule}

  [[rule.variant]]
  name = "neg"
  expect = "reject"
  {variant}
'''
SAFE_TEMPLATE = "__device__ long double f() { return 1; } {{ CHECK }}\n"
MATRIX = '[profile.one]\nstd = ["c++17"]\narch = ["sm_90"]\n'
# The regex: exponential on a line of letters, and no SIGTERM reaches the matcher.
HOSTILE_REGEX = '^(([a-z" ])+)+Q$'


def demo(tmp_path, rule='diagnostic = "long double"', variant="", templates=None):
    """Write the demo oracle (one reject rule) with these lines in its rule and variant tables."""
    return write_demo_oracle(tmp_path, RULES.format(rule=rule, variant=variant),
                             {"ok.cu.j2": SAFE_TEMPLATE, **(templates or {})})


def refused(tmp_path, capsys, monkeypatch, orc, tpl, fake_nvcc) -> list[str]:
    """Run `suitegen rules`, `generate` and `run --list` from ``tmp_path`` on the oracle; return each one's stderr
    (each must exit 2, print no traceback and leave no file behind)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "matrix.toml").write_text(MATRIX)
    commands = [["rules"], ["generate", "--out", "gen"],
                ["run", "--list", "--matrix", "matrix.toml", "--profile", "one", "--nvcc", str(fake_nvcc("exit 0"))]]
    before = set(tmp_path.rglob("*"))
    said = []
    for command in commands:
        assert main([*command, "--oracle", str(orc), "--templates", str(tpl)]) == 2, command
        said.append(capsys.readouterr().err)
        assert "Traceback" not in said[-1]
    assert not set(tmp_path.rglob("*")) - before, "no file is made"
    return said


# Templates --------------------------------------------------------------------------------------------------------

PAYLOADS = ["{{ cycler.__init__.__globals__.os.system('touch PWNED') }}",
            "{{ lipsum.__globals__['os'].popen('touch PWNED').read() }}",
            "{{ joiner.__init__.__globals__.os.system('touch PWNED') }}",
            "{{ ''.__class__.__mro__[1].__subclasses__() }}"]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_template_that_reaches_python_is_refused_naming_its_file(tmp_path, capsys, monkeypatch, fake_nvcc, payload):
    orc, tpl = demo(tmp_path, templates={"ok.cu.j2": SAFE_TEMPLATE + payload + "\n"})
    for err in refused(tmp_path, capsys, monkeypatch, orc, tpl, fake_nvcc):
        assert f"{tpl / 'demo' / 'ok.cu.j2'}: rule 'demo/hostile' variant 'neg': refused by the template sandbox" in err
    assert not list(tmp_path.rglob("PWNED"))


def test_an_included_template_that_reaches_python_is_named(tmp_path, capsys, monkeypatch, fake_nvcc):
    orc, tpl = demo(tmp_path, templates={"ok.cu.j2": '{% include "demo/part.cuh" %}' + SAFE_TEMPLATE,
                                         "part.cuh": PAYLOADS[0] + "\n"})
    for err in refused(tmp_path, capsys, monkeypatch, orc, tpl, fake_nvcc):
        assert f"{tpl / 'demo' / 'part.cuh'}: rule 'demo/hostile'" in err
    assert not list(tmp_path.rglob("PWNED"))


def plain(renderer: Renderer) -> Renderer:
    """Return ``renderer`` rendering with an unsandboxed environment of the same settings (the renderer before
    the sandbox)."""
    sandboxed = renderer.env
    renderer.env = jinja2.Environment(loader=sandboxed.loader, undefined=sandboxed.undefined,
                                      keep_trailing_newline=sandboxed.keep_trailing_newline,
                                      trim_blocks=sandboxed.trim_blocks, lstrip_blocks=sandboxed.lstrip_blocks,
                                      autoescape=sandboxed.autoescape)
    renderer.env.globals.update(sandboxed.globals)
    return renderer


def test_every_case_and_driver_renders_the_same_bytes_in_the_sandbox():
    orc = loader.load(REPO / "oracle")
    sandboxed, unsandboxed = Renderer(REPO / "templates"), plain(Renderer(REPO / "templates"))
    assert isinstance(sandboxed.env, jinja2.sandbox.ImmutableSandboxedEnvironment)
    ours, theirs = sandboxed.render_all(orc.rules), unsandboxed.render_all(orc.rules)
    assert len(ours) > 1000
    assert [(c.files, c.violation_line) for c in ours] == [(c.files, c.violation_line) for c in theirs]
    drivers = {"batch.cu.j2": dict(includes=["#include <cstdio>"], members=["int a;", "int b;"], dispatch=True,
                                   namespaces=["sg0", "sg1"], file="batch.cu", begin="BEGIN", end="END"),
               "values.cpp.j2": dict(tag="TAG", namespaces=[None, "sg0", "sg1"])}
    for name, context in drivers.items():
        get = lambda r: r.env.get_template(f"drivers/{name}").render(**context)  # noqa: E731
        assert get(sandboxed) == get(unsandboxed) and "sg1" in get(sandboxed)


# Flags ------------------------------------------------------------------------------------------------------------

HOSTILE_FLAGS = ["-DX=$(touch PWNED)", "-DZ=`touch PWNED`", "-DY=1;touch PWNED", "-DW=1 && touch PWNED",
                 "-Xcompiler=-wrapper,touch,PWNED", "-ccbin=./evil.sh", "--options-file=flags.txt", "-o=/tmp/x"]


@pytest.mark.parametrize("where", ["rule", "variant"])
@pytest.mark.parametrize("flag", HOSTILE_FLAGS)
def test_a_hostile_flag_is_refused_at_load_naming_file_rule_and_field(tmp_path, capsys, monkeypatch, fake_nvcc,
                                                                     where, flag):
    line = f"flags = ['-rdc=true', '{flag}']"
    orc, tpl = demo(tmp_path, **{where: f'diagnostic = "long double"\n{line}' if where == "rule" else line})
    for err in refused(tmp_path, capsys, monkeypatch, orc, tpl, fake_nvcc):
        assert f"{orc / 'demo.toml'}: rule 'demo/hostile': field 'flags': flag {flag!r}" in err
    assert not list(tmp_path.rglob("PWNED"))


def test_the_flag_check_keeps_every_flag_in_use():
    in_use = ["--extended-lambda", "--expt-extended-lambda", "--expt-relaxed-constexpr", "-rdc=true", "-fmad=false",
              "-Werror=all-warnings", "-Wno-deprecated-declarations", "--no-host-device-initializer-list",
              "-std=c++17", "-DN=3", "-DNAME=a_b.c", "-Xcompiler=-fno-exceptions,-Wall", "-Xptxas", "-v",
              "-I/opt/include", "-G", "-lineinfo", "-O3", "-arch=sm_90", "-gencode=arch=compute_90,code=sm_90"]
    assert fields.flag_problem(in_use) is None
    assert "is not letters, digits" in fields.flag_problem(["-DX=a b"])
    assert "'-wrapper' makes the toolchain run" in fields.flag_problem(["-Xcompiler", "-wrapper,touch,x"])
    assert fields.flag_problem("-G") == "flags is a list of strings, got '-G'"


# Regexes ----------------------------------------------------------------------------------------------------------

EXPONENTIAL = [HOSTILE_REGEX, r"(a+)+b", r"(a|a)*b", r"(a?)*b", r"(\w+\s?)*;", r"(x+x+)+y", r"(.*?,){11}P",
               r"(a|ab)*c", r"(?:\w?a)+b", r"(?:a?a)+b", r"(?i)(?:ab|AB)+c", r"(?=(a+)+b)"]
POLYNOMIAL_OR_LINEAR = [r"a.*a.*a.*Q", r"(?:\w+::)*\w+", r"(?:ab|cd)+", r"(?:a{1,3}b)+", r"(?:x?a)+b", r"(\w+)\s+\1",
                        r"(?:(?!#\s*if)[^}])*\b(?:throw|try)\b", r"calling a (constexpr )?__(host|device)__ function"]


@pytest.mark.parametrize("pattern", EXPONENTIAL)
def test_a_pattern_that_could_take_exponential_time_is_refused(pattern):
    assert "could take exponential time" in fields.pattern_problem(pattern)


@pytest.mark.parametrize("pattern", POLYNOMIAL_OR_LINEAR)
def test_a_pattern_whose_repeats_match_one_way_is_kept(pattern):
    assert fields.pattern_problem(pattern) is None


@pytest.mark.parametrize("where,field,line", [
    ("variant", "diagnostic", f"diagnostic = '{HOSTILE_REGEX}'"),
    ("rule", "diagnostic", "diagnostic = '(a|a)*x'"),
    ("rule", "construct", "diagnostic = 'x'\n" r"construct = '(\w+\s?)*;'"),
    ("variant", "diagnostic", "diagnostic = '(unclosed'"),
])
def test_a_hostile_regex_is_refused_at_load_naming_file_rule_and_field(tmp_path, capsys, monkeypatch, fake_nvcc,
                                                                      where, field, line):
    orc, tpl = demo(tmp_path, **{where: line})
    for err in refused(tmp_path, capsys, monkeypatch, orc, tpl, fake_nvcc):
        assert f"{orc / 'demo.toml'}: rule 'demo/hostile': field '{field}': " in err
        assert "could take exponential time" in err or "not a valid regex" in err


def test_a_hostile_deviation_match_is_refused_at_load(tmp_path):
    orc, _ = demo(tmp_path)
    path = orc / "deviations" / "demo.toml"
    path.write_text(f'when = "nvcc==13.0"\n[[deviation]]\nrule = "demo/hostile"\nobserved = "rejected"\n'
                    f'diagnostic = "x"\nseen = "today"\nmatch = \'{HOSTILE_REGEX}\'\n')
    with pytest.raises(loader.OracleError, match="could take exponential time") as err:
        loader.load(orc)
    assert (err.value.file, err.value.rule, err.value.field) == (str(path), "demo/hostile", "match")


def test_every_real_pattern_loads_and_searches_a_real_message_here():
    orc = loader.load(REPO / "oracle")
    patterns = {v.expectation.diagnostic for r in orc.rules for v in r.variants if v.expectation.diagnostic}
    patterns |= {d.match for d in orc.deviations if d.match}
    assert len(patterns) > 100
    assert not [p for p in patterns if fields.pattern_problem(p)]
    # a real diagnostic is a line of a few hundred characters at most: searched in this process
    assert not [p for p in patterns if fields.search_cost(p, 512, re.I) > fields.MATCH_BUDGET]


@pytest.fixture
def short_searches(monkeypatch):
    """A search that could take longer than the budget is given one second in its child process."""
    monkeypatch.setattr(fields, "MATCH_SECONDS", 1.0)


def test_a_costly_search_runs_apart_and_still_answers(short_searches):
    text = "a" * 3000
    assert fields.search_cost("a.*a.*a.*Q", len(text)) > fields.MATCH_BUDGET
    assert fields.search("a.*a.*a.*Q", text + "Q") and not fields.search("a.*a.*a.*Q", text + "R")
    assert fields.search("long double", "type long double is not supported", re.I)
    # the flags reach the child as a number (re.I's str() is "re.IGNORECASE", which no child could read)
    assert fields.search("A.*A.*A.*q", text + "Q", re.I) and not fields.search("A.*A.*A.*q", text + "R", re.I)


def test_a_search_that_never_ends_is_bounded_and_no_match(short_searches):
    assert fields.search(HOSTILE_REGEX, "a" * 64) is False


def test_the_judge_bounds_an_unchecked_pattern(short_searches):
    hostile = Expectation(expect=Expect.REJECT, phase="front-end", diagnostic=HOSTILE_REGEX)
    rejected = result(Outcome.REJECTED, diag("a" * 64), phase=Phase.CICC)
    assert judged(case(hostile), rejected).verdict is Verdict.FAIL
    assert not devs.shows_in_build(dev(Outcome.REJECTED, match=HOSTILE_REGEX), rejected)


def test_a_stopping_run_ends_a_search_in_progress():
    outcome = {}

    def search():
        try:
            outcome["found"] = fields.search(HOSTILE_REGEX, "a" * 64)
        except procs.Stopped:
            outcome["stopped"] = True

    worker = threading.Thread(target=search)
    worker.start()
    try:
        while worker.is_alive() and not procs._live:
            worker.join(0.05)
        procs.stop_all()
        worker.join()
    finally:
        procs.reset()
    assert outcome == {"stopped": True}
