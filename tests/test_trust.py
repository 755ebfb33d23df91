"""Issue 39, "Trust, second round": a negative's valid twin, ld's two-line errors, deviation phases, the readings
of nodiscard-message and the orphan rules, and the fuzz findings counted apart from the guide."""
import json
import re
from pathlib import Path

import pytest

from suitegen.compilers.batch import named_member
from suitegen.compilers.compile import compile_case, front_end_build
from suitegen.compilers.diagnostics import parse
from suitegen.model import fixed_words
from suitegen.engine import hook_modules  # noqa: F401 - hooks registered before the oracle loads
from suitegen.qualification import record
from suitegen.frontends.cli import main
from suitegen.judge.deviations import shows_in_build
from suitegen.qualification.facts import make_env
from suitegen.judge.expectations import dialect_twin, prepare, program_twin
from suitegen.judge.verdicts import Twin, verdict
from suitegen.model import (Case, Deviation, Diagnostic, Expect, Expectation, Observed, Outcome, Phase, Rule, Std,
                            Variant, Verdict, section_family)
from suitegen.oracle import conditions, loader
from suitegen.oracle.statements import load_statements, negative_rules, orphans
from suitegen.report import page
from suitegen.report.summary import markdown, summarize, table

from conftest import a_record, needs_nvcc, plain_config
from test_judge import CFG, diag, result

ORACLE = loader.load()
RULES = {r.id: r for r in ORACLE.rules}

# --- 1. a negative's valid twin: a rejection the valid program also gets proves nothing -------------------------

PROTOTYPE = Expectation(expect=Expect.REJECT, phase="device-link", diagnostic="prototype doesn't match|incomplete",
                        check_line=False)


def twin_rule(*variants):
    rule = Rule(id="demo/r", section="demo", statement="s", templates={"main.cu": "t"}, variants=variants)
    return {v.name: Case(rule=rule, variant=v, files={"main.cu": "a\n"}, violation_line=None) for v in variants}


def variant(name, expect, **params):
    exp = PROTOTYPE if expect is Expect.REJECT else Expectation(expect=expect)
    return Variant(name=name, params=params, expectation=exp)


CASES = twin_rule(variant("pos-complete-return", Expect.ACCEPT, complete=True, what="return"),
                  variant("pos-complete-param", Expect.ACCEPT, complete=True, what="param"),
                  variant("neg-incomplete-return", Expect.REJECT, complete=False, what="return"))
NEG = CASES["neg-incomplete-return"]


def nvlink(member: str) -> Diagnostic:
    """nvlink's error as a batch (a member's symbol, a batch folder) or a single build (its own folder) prints it."""
    return Diagnostic(severity="error", phase=Phase.NVLINK,
                      message=f"Prototype doesn't match for '_ZN5{member}3fooEv' in '/dev/shm/{member}/x-other.o', "
                              f"first defined in '/dev/shm/{member}/x-other.o'")


def judged(twin_result, devs=()):
    rejected = result(Outcome.REJECTED, nvlink("sg_b2"), phase=Phase.NVLINK)
    twin = Twin(std=Std.CXX17, result=twin_result, variant="pos-complete-return")
    return verdict(prepare(NEG, CFG, make_env(CFG, NEG, ("linux",))), NEG, rejected, devs, twin=twin)


def test_a_negatives_program_twin_is_its_valid_variant_but_for_one_param():
    env = make_env(CFG, NEG, ())
    assert program_twin(NEG, env).name == "pos-complete-return"
    assert dialect_twin(NEG) is None


def test_a_rejection_its_valid_twin_also_gets_is_a_failure():
    """complete-types-separate-compilation[neg-incomplete-device-return] passed on nvlink's "Prototype doesn't
    match", which its twin with complete types gets too (there in another folder, under another symbol)."""
    j = judged(result(Outcome.REJECTED, nvlink("sg_b0"), phase=Phase.NVLINK))
    assert j.verdict is Verdict.FAIL
    assert "is also given for pos-complete-return, its valid twin" in j.reason


def test_a_rejection_its_valid_twin_does_not_get_passes():
    j = judged(result(Outcome.ACCEPTED))
    assert j.verdict is Verdict.PASS and "not given for pos-complete-return" in j.reason


def test_a_twin_that_could_not_be_built_leaves_the_rejection_unresolved():
    assert judged(result(Outcome.TIMED_OUT)).verdict is Verdict.UNRESOLVED


def test_a_rejection_its_twin_also_gets_is_a_known_deviation_where_recorded():
    dev = Deviation(rule="demo/r", variants=("neg-incomplete-return",), observed=Outcome.REJECTED, phase=Phase.NVLINK,
                    diagnostic="", match="Prototype doesn't match", seen="t", when=conditions.parse("nvcc>=13.0"))
    assert judged(result(Outcome.REJECTED, nvlink("sg_b0"), phase=Phase.NVLINK), (dev,)).verdict is Verdict.XFAIL


def test_a_reject_variant_with_a_valid_dialect_twin_takes_its_condition():
    neg = Variant(name="neg-cxx14", params={}, expectation=PROTOTYPE, requires=conditions.parse("std<c++17"))
    pos = Variant(name="pos-cxx17", params={}, expectation=Expectation(expect=Expect.ACCEPT),
                  requires=conditions.parse("std>=c++17"))
    cases = twin_rule(neg, pos)
    assert dialect_twin(cases["neg-cxx14"]).text == "std>=c++17"
    assert program_twin(cases["neg-cxx14"], make_env(CFG, cases["neg-cxx14"], ())) is None


def test_messages_of_one_kind_share_their_fixed_words():
    assert fixed_words(nvlink("sg_b2").message) == fixed_words(nvlink("sg_b0").message)
    assert fixed_words("in function `f()': undefined reference to `g'") == ("in function", ": undefined reference to")
    assert fixed_words("Prototype doesn't match") == ("Prototype doesn't match",), "an apostrophe in a word quotes nothing"


@needs_nvcc
@pytest.mark.nvcc
def test_complete_types_device_return_is_a_known_deviation_not_a_pass(tmp_path):
    out = tmp_path / "run"
    main(["run", "--profile", "quick", "--no-exec", "--rules", "function-parameters/complete-types-separate-compilation",
          "--out", str(out), "-q"])
    got = {r["variant"]: r for r in map(json.loads, (out / "results.jsonl").open())}
    neg = got["neg-incomplete-device-return"]
    assert neg["verdict"] == "XFAIL" and "also given for pos-complete-device-return" in neg["reason"]
    assert got["neg-incomplete-device-parameter"]["verdict"] == "PASS"
    assert "not given for pos-complete-device-parameter" in got["neg-incomplete-device-parameter"]["reason"]


# --- 2. ld's two-line form: the error is kept, its warning is a warning ------------------------------------------

LD_OUTPUT = """#$ g++ -D__CUDA_ARCH_LIST__=900 -m64 "main.o" -o "main.out" -lcudadevrt -lcudart_static
/usr/bin/ld: /tmp/tmpxft_26a1-11_main.o: warning: relocation against `__device_builtin_variable_threadIdx' in read-only section `.text'
/usr/bin/ld: /tmp/tmpxft_26a1-11_main.o: in function `sg_b3::read_builtin()':
tmpxft_26a1-6_main.cudafe1.cpp:(.text+0x34): undefined reference to `__device_builtin_variable_threadIdx'
/usr/bin/ld: warning: creating DT_TEXTREL in a PIE
collect2: error: ld returned 1 exit status
# --error 0x1 --
"""


def test_ld_two_line_error_is_kept_and_its_warning_is_a_warning():
    p = parse(LD_OUTPUT)
    said = [(d.severity, d.message) for d in p.diagnostics]
    assert said == [
        ("warning", "relocation against `__device_builtin_variable_threadIdx' in read-only section `.text'"),
        ("error", "in function `sg_b3::read_builtin()': undefined reference to `__device_builtin_variable_threadIdx'"),
        ("warning", "creating DT_TEXTREL in a PIE"),
        ("error", "ld returned 1 exit status")]
    assert all(d.phase is Phase.LINK for d in p.diagnostics) and p.failed_phase is Phase.LINK
    assert named_member(p.diagnostics[1].message) == 3, "the function names the batch member"


def test_the_built_in_variables_deviation_rests_on_ld_s_error():
    (dev,) = [d for d in ORACLE.deviations if d.rule == "built-in-variables/device-functions-only"
              and d.compiler.value == "nvcc" and d.phase is Phase.LINK]
    diags = parse(LD_OUTPUT).diagnostics
    warned_only = result(Outcome.REJECTED, *(d for d in diags if d.severity == "warning"), phase=Phase.LINK)
    assert not shows_in_build(dev, warned_only)
    assert shows_in_build(dev, result(Outcome.REJECTED, *diags, phase=Phase.LINK))


# --- 3. a deviation's phase is checked ---------------------------------------------------------------------------

def deviation(phase):
    return Deviation(rule="demo/r", variants=("*",), observed=Outcome.REJECTED, phase=phase, diagnostic="",
                     match="deleted function", seen="t", when=conditions.parse("nvcc>=13.0"))


@pytest.mark.parametrize("recorded, seen, shows", [
    (Phase.NVLINK, Phase.PTXAS, False),  # another stage: the record is wrong
    (Phase.CICC, Phase.CUDAFE, False),  # the item's own command stopped at cudafe++, before any cicc
    (Phase.CUDAFE, Phase.CUDAFE, True),
    (Phase.CUDAFE, Phase.CICC, True),  # a build only up to the device front end skips cudafe++: its cicc stands in
    (None, Phase.PTXAS, True),
])
def test_a_deviation_shows_only_at_its_phase(recorded, seen, shows):
    built = result(Outcome.REJECTED, diag("a deleted function", phase=seen), phase=seen)
    assert shows_in_build(deviation(recorded), built) is shows


def test_a_recorded_phase_the_run_contradicts_is_named_when_recording(tmp_path):
    path = tmp_path / "demo.toml"
    path.write_text('when = "nvcc==13.0"\n[[deviation]]\nrule = "demo/r"\nvariants = ["pos-*"]\nobserved = "rejected"\n'
                    'phase = "cudafe++"\ndiagnostic = "x"\nmatch = "deleted function"\nseen = "t"\n')
    said = Diagnostic(severity="error", phase=Phase.CICC, message="it is a deleted function", file="main.cu", line=3)
    failed = a_record(variant="pos-by-value", verdict=Verdict.FAIL, reason="differs from the recorded deviation",
                      observed=Observed(outcome=Outcome.REJECTED, phase=Phase.CICC, exit_code=1, diagnostics=(said,)))
    with pytest.raises(record.UsageError, match=r"demo\.toml: rule 'demo/r' variant 'pos-by-value': phase 'cudafe\+\+'"):
        record.write([failed], tmp_path, "nvcc", "nvcc==13.0", "a run")


@needs_nvcc
@pytest.mark.nvcc
def test_the_two_front_end_deviations_name_the_stage_of_the_items_own_command(tmp_path):
    """cudafe++ stops ``nvcc -c`` on both; only a build up to the device front end (``nvcc -ptx``) sees cicc."""
    from suitegen.cases.render import Renderer
    from suitegen.engine.options import RunOptions
    from suitegen.qualification.session import open_session
    session = open_session(RunOptions(rules=("cxx17-features/inheriting-constructors-respecified",),
                                      std=("c++17",), arch=("sm_90",), no_cache=True))
    try:
        config = plain_config(session.toolchains, session.options)
    finally:
        session.close()
    rule = RULES["cxx17-features/inheriting-constructors-respecified"]
    case = Renderer().render(rule, next(v for v in rule.variants if v.name == "pos-by-value"))
    (dev,) = [d for d in ORACLE.deviations if d.rule == rule.id and d.variants == ("pos-by-value",)
              and d.compiler.value == "nvcc"]
    (tmp_path / "whole").mkdir()
    (tmp_path / "short").mkdir()
    whole = compile_case(case, config, tmp_path / "whole", timeout=120)
    short = front_end_build(case, config, tmp_path / "short", timeout=120)
    assert (whole.phase, short.phase) == (Phase.CUDAFE, Phase.CICC)
    assert shows_in_build(dev, whole) and shows_in_build(dev, short)


# --- 4. nodiscard-message: demanded only where the attribute is standard --------------------------------------

def test_nodiscard_message_demands_a_diagnostic_under_cxx17_only():
    rule = RULES["cxx20-features/nodiscard-message"]
    neg = next(v for v in rule.variants if v.name == "neg-pre-cxx20")
    applies = {std for std in (Std.CXX11, Std.CXX14, Std.CXX17, Std.CXX20)
               if neg.requires(make_env(Config_(std), Case(rule=rule, variant=neg, files={}, violation_line=None), ()))}
    assert applies == {Std.CXX17}
    assert "implementation-defined" in rule.note, "the note says which reading it takes and why"


def Config_(std):
    from dataclasses import replace
    return replace(CFG, std=std)


# --- 5. every rule of the guide's sections is named by a statement -----------------------------------------------

def test_no_rule_is_an_orphan():
    ids = [r.id for r in ORACLE.rules]
    found = load_statements(ORACLE.root, ORACLE.sections, ids, negative_rules(ORACLE.rules))
    later = [r.id for r in ORACLE.rules if r.edition != loader.SEED_EDITION]
    assert orphans(found, ids, later) == []


# --- 6. the fuzz findings (and the generated corpus) are counted apart from the guide ----------------------------

def test_a_sections_family():
    assert [section_family(s) for s in ("rtti", "fuzz-findings", "generated")] == ["guide", "findings", "generated"]


RECORDS = [a_record(case_key="a" * 16, verdict=Verdict.PASS),
           a_record(case_key="b" * 16, verdict=Verdict.XFAIL, reason="known deviation"),
           a_record(case_key="c" * 16, rule="fuzz-findings/b1", section="fuzz-findings", case_id="fuzz-findings/b1[run]",
                    variant="run", verdict=Verdict.XFAIL, reason="known deviation")]


def test_summary_keeps_the_findings_out_of_the_guides_totals():
    s = summarize(RECORDS)
    assert s["results"] == 3 and s["counts"]["XFAIL"] == 1 and s["counts"]["PASS"] == 1
    assert list(s["sections"]) == ["demo"] and list(s["families"]) == ["findings"]
    assert s["families"]["findings"]["counts"]["XFAIL"] == 1 and s["families"]["findings"]["results"] == 1
    md = markdown(s)
    guide, findings = md.split("**fuzz findings")
    assert "| demo |" in guide and "fuzz-findings" not in guide and "| fuzz-findings |" in findings
    assert "| **total** | **1** | **0** | **1** | **0** | **0** | **0** |" in guide
    text = table(s)
    assert text.index("fuzz findings") > text.index("total") and "not in the guide's totals" in text


def test_page_shows_the_findings_in_a_block_of_their_own():
    s = summarize(RECORDS)
    html = page.render(RECORDS, s, {}, {"demo": "Demo"})
    guide = html.split("<table id='overview'")[1].split("</table>")[0]
    assert "data-section='demo'" in guide and "fuzz-findings" not in guide
    findings = html.split("<table id='overview-findings'")[1].split("</table>")[0]
    assert "data-section='fuzz-findings'" in findings
    assert re.search(r"id='count-XFAIL'>1<", html), "the counts at the top are the guide's"


# --- 7. the page says why there is no GPU once ------------------------------------------------------------------

def test_page_says_why_there_is_no_gpu_once():
    reason = "no NVIDIA driver found (nvidia-smi is not on PATH)"
    s = {**summarize(RECORDS[:1]), "gpu": {"available": False, "devices": [], "reason": reason},
         "execution": f"no GPU: {reason}"}
    assert page.render(RECORDS[:1], s, {}, {"demo": "Demo"}).count(reason) == 1
    s["execution"] = "execution disabled (--no-exec)"
    assert page.render(RECORDS[:1], s, {}, {"demo": "Demo"}).count(reason) == 1
