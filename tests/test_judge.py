"""The judge, table-driven: outcome x expectation -> verdict."""
import pytest

from suitegen import hooks
from suitegen.qualification.facts import given, make_env
from suitegen.judge.expectations import Given, prepare
from suitegen.judge.verdicts import verdict
from suitegen.model import (Case, CompileResult, Config, Deviation, Diagnostic, Expect, Expectation, Outcome, Phase,
                            Rule, Std, Toolchain, Variant, Verdict)
from suitegen.oracle import conditions

TC = Toolchain(nvcc="/x/nvcc", version=(13, 0, 88), version_text="", host_compiler="g++",
               host_version="g++ 12", fingerprint="f00")
CFG = Config(toolchain=TC, std=Std.CXX17, arch="sm_90")
REJECT = Expectation(expect=Expect.REJECT, phase="front-end", diagnostic="long double")
WARN = Expectation(expect=Expect.WARN, diagnostic="deprecated")
ACCEPT = Expectation(expect=Expect.ACCEPT)
RUNTIME = Expectation(expect=Expect.RUNTIME, observe="prints 32")
DIAGNOSE = Expectation(expect=Expect.DIAGNOSE, phase="front-end", diagnostic="C\\+\\+17 feature")


def case(exp, name="neg", requires=None, predicate=None, params=None, line=2):
    v = Variant(name=name, params=params or {}, expectation=exp, predicate=hooks.resolve("predicate", predicate),
                requires=conditions.parse(requires) if requires else None)
    rule = Rule(id="demo/r", section="demo", statement="s", templates={"main.cu": "t"}, variants=(v,))
    return Case(rule=rule, variant=v, files={"main.cu": "a\nb\nc\n"}, violation_line=line)


def diag(msg, sev="error", phase=Phase.CICC, line=2, file="main.cu"):
    return Diagnostic(severity=sev, message=msg, phase=phase, file=file, line=line)


def result(outcome, *diags, phase=None):
    return CompileResult(outcome=outcome, phase=phase, exit_code=0 if outcome.accepted else 1,
                         diagnostics=diags, commands=(("nvcc",),), output="", duration=0.1)


def judge(c, cfg, env, res, devs=(), execution=None, execution_skipped=None):
    """Both steps of the judge, as the engine takes them."""
    return verdict(prepare(c, cfg, env), c, res, devs, execution=execution,
                   execution_skipped=execution_skipped)


def run(c, res, devs=(), features=("linux",), skipped=None):
    return judge(c, CFG, make_env(CFG, c, features), res, devs, execution_skipped=skipped)


LD = diag("type long double is not supported in device code")

TABLE = [
    # expectation, result, verdict
    # ill-formed, diagnosis required: a matching error or a matching warning at the line passes
    (DIAGNOSE, result(Outcome.REJECTED, diag("a C++17 feature"), phase=Phase.CICC), Verdict.PASS),
    (DIAGNOSE, result(Outcome.ACCEPTED_WITH_WARNINGS, diag("a C++17 feature", "warning", Phase.CUDAFE)), Verdict.PASS),
    (DIAGNOSE, result(Outcome.ACCEPTED), Verdict.FAIL),
    (DIAGNOSE, result(Outcome.ACCEPTED_WITH_WARNINGS, diag("unused variable", "warning")), Verdict.FAIL),
    (DIAGNOSE, result(Outcome.ACCEPTED_WITH_WARNINGS, diag("a C++17 feature", "warning", line=3)), Verdict.FAIL),
    (DIAGNOSE, result(Outcome.REJECTED, diag("identifier x is undefined"), phase=Phase.CICC), Verdict.FAIL),
    (ACCEPT, result(Outcome.ACCEPTED), Verdict.PASS),
    (ACCEPT, result(Outcome.ACCEPTED_WITH_WARNINGS, diag("unused", "warning")), Verdict.PASS),
    (ACCEPT, result(Outcome.REJECTED, LD, phase=Phase.CICC), Verdict.FAIL),
    (REJECT, result(Outcome.REJECTED, LD, phase=Phase.CICC), Verdict.PASS),
    (REJECT, result(Outcome.ACCEPTED), Verdict.FAIL),
    (REJECT, result(Outcome.ACCEPTED_WITH_WARNINGS, diag("long double", "warning")), Verdict.FAIL),
    # rejected for an unrelated reason: not this rule's rejection
    (REJECT, result(Outcome.REJECTED, diag("identifier x is undefined"), phase=Phase.CICC), Verdict.FAIL),
    # right message, wrong line
    (REJECT, result(Outcome.REJECTED, diag("long double", line=3), phase=Phase.CICC), Verdict.FAIL),
    # right message, wrong phase
    (REJECT, result(Outcome.REJECTED, diag("long double", phase=Phase.PTXAS), phase=Phase.PTXAS), Verdict.FAIL),
    # a note with the right text does not count as the error
    (REJECT, result(Outcome.REJECTED, diag("long double", "note"), diag("other"), phase=Phase.CICC), Verdict.FAIL),
    (WARN, result(Outcome.ACCEPTED_WITH_WARNINGS, diag("entity is deprecated", "warning")), Verdict.PASS),
    (WARN, result(Outcome.ACCEPTED), Verdict.FAIL),
    (WARN, result(Outcome.REJECTED, diag("deprecated")), Verdict.FAIL),
    # infrastructure failures are never a rejection as expected
    (REJECT, result(Outcome.CRASHED, diag("internal error: long double")), Verdict.UNRESOLVED),
    (REJECT, result(Outcome.TIMED_OUT), Verdict.UNRESOLVED),
    (ACCEPT, result(Outcome.TOOLCHAIN_ERROR, diag("Value 'c++99' is not defined", "fatal", Phase.NVCC)),
     Verdict.UNRESOLVED),
]


@pytest.mark.parametrize("exp, res, verdict", TABLE)
def test_table(exp, res, verdict):
    j = run(case(exp), res)
    assert j.verdict is verdict, j.reason


def test_unsupported_says_why():
    j = run(case(REJECT, requires="windows"), None)
    assert j.verdict is Verdict.UNSUPPORTED and j.reason == "requires windows"


def test_runtime_without_gpu_never_passes():
    j = run(case(RUNTIME), result(Outcome.ACCEPTED), skipped="no GPU: nvidia-smi not found")
    assert j.verdict is Verdict.UNSUPPORTED and "no GPU" in j.reason
    j = run(case(RUNTIME), result(Outcome.REJECTED, LD, phase=Phase.CICC), skipped="no GPU")
    assert j.verdict is Verdict.FAIL, "a runtime case that does not compile fails"


def test_predicate_decides_expectation():
    params = {"cls": {"ctor": "body"}}
    neg = case(REJECT.__class__(expect=Expect.REJECT, phase="front-end", diagnostic="dynamic initialization"),
               predicate="device_variable_of_class", params=params)
    ok = result(Outcome.ACCEPTED)
    assert run(neg, ok).verdict is Verdict.FAIL  # non-empty ctor: the guide says reject
    pos = case(neg.variant.expectation, predicate="device_variable_of_class", params={"cls": {"ctor": "empty"}})
    assert run(pos, ok).verdict is Verdict.PASS


def dev(observed, match="", when="nvcc==13.0", variants=("neg",)):
    return Deviation(rule="demo/r", variants=variants, when=conditions.parse(when), observed=observed,
                     diagnostic="evidence", seen="2026-11-21", match=match)


def test_known_deviation_is_xfail():
    res = result(Outcome.ACCEPTED_WITH_WARNINGS, diag('attribute "__shared__" does not apply here', "warning"))
    j = run(case(REJECT), res, [dev(Outcome.ACCEPTED_WITH_WARNINGS, match="does not apply")])
    assert j.verdict is Verdict.XFAIL and j.deviation is not None


def test_deviation_for_other_version_or_variant_does_not_apply():
    res = result(Outcome.ACCEPTED)
    assert run(case(REJECT), res, [dev(Outcome.ACCEPTED, when="nvcc>=13.2")]).verdict is Verdict.FAIL
    assert run(case(REJECT), res, [dev(Outcome.ACCEPTED, variants=("pos-*",))]).verdict is Verdict.FAIL


def test_deviation_that_changed_shape_is_a_fail():
    res = result(Outcome.REJECTED, diag("something else"), phase=Phase.CICC)
    j = run(case(REJECT), res, [dev(Outcome.ACCEPTED)])
    assert j.verdict is Verdict.FAIL and "differs from the recorded deviation" in j.reason


def test_deviation_that_no_longer_shows_is_xpass():
    j = run(case(REJECT), result(Outcome.REJECTED, LD, phase=Phase.CICC), [dev(Outcome.ACCEPTED)])
    assert j.verdict is Verdict.XPASS


def test_failure_codes():
    # XPASS fails, as in lit: a known deviation that no longer shows is a stale record.
    assert {v for v in Verdict if v.is_failure} == {Verdict.FAIL, Verdict.UNRESOLVED, Verdict.XPASS}
    assert {v for v in Verdict if v.fails(allow_xpass=True)} == {Verdict.FAIL, Verdict.UNRESOLVED}


def test_rdc_link_mode_counts_as_separate_compilation():
    from dataclasses import replace

    from suitegen.model import Mode
    c = case(ACCEPT, requires="rdc")
    c = replace(c, variant=replace(c.variant, mode=Mode.RDC_LINK))
    env = make_env(CFG, c, ())
    assert "rdc" in env.features and "whole-program" not in env.features


def test_member_initializer_selector():
    from suitegen.oracle.definitions import plain_class_with_member_initializer as sel
    assert sel({"cls": {"nsdmi": True}}) and sel({"cls": {"nsdmi": True, "ctor": "defaulted", "dtor": "empty"}})
    assert not sel({"cls": {"nsdmi": True, "ctor": "body"}}), "non-empty for another reason too"
    assert not sel({"cls": {"nsdmi": True, "member": {}}}), "nvcc rejects it once it has a class member"
    assert not sel({"cls": {"member": {"nsdmi": True}}}) and not sel({"space": "device"})


def test_deviation_selected_by_params_covers_drawn_variants():
    d = Deviation(rule="demo/r", variants=("*",), when=conditions.parse("nvcc==13.0"),
                  observed=Outcome.ACCEPTED, diagnostic="", seen="2026-11-21", params={"cls": {"nsdmi": True}})
    hit = case(REJECT, name="gen-1234", params={"space": "device", "cls": {"nsdmi": True, "ctor": "empty"}})
    miss = case(REJECT, name="gen-5678", params={"space": "device", "cls": {"member": {"nsdmi": True}}})
    assert run(hit, result(Outcome.ACCEPTED), [d]).verdict is Verdict.XFAIL
    assert run(miss, result(Outcome.ACCEPTED), [d]).verdict is Verdict.FAIL


def test_deviation_says_nothing_where_it_agrees_with_the_expectation():
    # "shared classes are only warned about" must not turn an allowed (accepted) shared case into XPASS
    d = Deviation(rule="demo/r", variants=("*",), when=conditions.parse("nvcc==13.0"),
                  observed=Outcome.ACCEPTED_WITH_WARNINGS, diagnostic="", seen="2026-11-21", params={"space": "shared"})
    allowed = case(ACCEPT, name="shared-trivial", params={"space": "shared"})
    assert run(allowed, result(Outcome.ACCEPTED), [d]).verdict is Verdict.PASS


def test_runtime_deviation():
    from suitegen.execute.programs import classify
    d = Deviation(rule="demo/r", variants=("*",), when=conditions.parse("nvcc==13.0 && std>=c++20"),
                  observed=Outcome.ACCEPTED, diagnostic="device 0, host 776", seen="2026-11-22", run="failed",
                  match="result == expected")
    bad = classify("SUITEGEN-CHECK-FAILED: result == expected (line 76)\nSUITEGEN-RESULT: FAIL 1\n", 1, 1, "GPU 0")
    good = classify("SUITEGEN-RESULT: PASS\n", 0, 1, "GPU 0")
    c = case(RUNTIME, name="run-x")
    cfg20 = Config(toolchain=TC, std=Std.CXX20, arch="sm_90")
    j = judge(c, cfg20, make_env(cfg20, c, ()), result(Outcome.ACCEPTED), [d], execution=bad)
    assert j.verdict is Verdict.XFAIL
    assert judge(c, cfg20, make_env(cfg20, c, ()), result(Outcome.ACCEPTED), [d], execution=good).verdict is Verdict.XPASS
    # under c++17 the deviation does not apply: a failed run is a FAIL
    assert judge(c, CFG, make_env(CFG, c, ()), result(Outcome.ACCEPTED), [d], execution=bad).verdict is Verdict.FAIL


def test_deviation_selector_and_parameter_predicates(monkeypatch):
    from suitegen.oracle.definitions import kernel_parameters_fit, kernel_parameters_fit_32764
    assert kernel_parameters_fit({"sizes": [4096]}, None) is Expect.ACCEPT
    assert kernel_parameters_fit({"sizes": [4000, 97]}, None) is Expect.REJECT
    assert kernel_parameters_fit_32764({"sizes": [32764]}, None) is Expect.ACCEPT
    assert kernel_parameters_fit_32764({"sizes": [16384, 16384]}, None) is Expect.REJECT

    # registered for this test only: the registry is the process's, and other tests check that every hook is used
    monkeypatch.setitem(hooks._registry._hooks, "selector", dict(hooks._registry._hooks["selector"]))

    @hooks.selector
    def demo_within_32764(params):
        return 4096 < sum(params.get("sizes", ())) <= 32764

    d = Deviation(rule="demo/r", variants=("*",), when=conditions.parse("nvcc==13.0"), observed=Outcome.ACCEPTED,
                  diagnostic="", seen="2026-11-22", select=hooks.resolve("selector", "demo_within_32764"))
    inside = case(REJECT, name="drawn.gen-1", params={"sizes": [4097]})
    beyond = case(REJECT, name="drawn.gen-2", params={"sizes": [40000]})
    assert run(inside, result(Outcome.ACCEPTED), [d]).verdict is Verdict.XFAIL
    assert run(beyond, result(Outcome.ACCEPTED), [d]).verdict is Verdict.FAIL


def test_derived_variants_match_their_base_variants_deviations():
    d = Deviation(rule="demo/r", variants=("neg-*-array",), when=conditions.parse("nvcc==13.0"),
                  observed=Outcome.ACCEPTED, diagnostic="", seen="2026-11-22")
    composed = case(REJECT, name="neg-device-array.composed-1e4c5cc7b2")
    drawn = case(REJECT, name="neg-device-array.gen-0a1b2c3d4e")
    other = case(REJECT, name="neg-device-arrayish")
    assert run(composed, result(Outcome.ACCEPTED), [d]).verdict is Verdict.XFAIL
    assert run(drawn, result(Outcome.ACCEPTED), [d]).verdict is Verdict.XFAIL
    assert run(other, result(Outcome.ACCEPTED), [d]).verdict is Verdict.FAIL


def test_prepare_decides_before_the_build():
    asked = []

    class Session:  # what ``facts.given`` asks of a run's session
        gpus = None

        def unhonoured(self, config, c, observed=None):
            asked.append(1)
            return "asked -std=c++23, host compiled as __cplusplus 201703"

        def observed(self, config, c):
            return None

    def prepared(c):
        env = make_env(CFG, c, ("linux",))
        return prepare(c, CFG, env, given(Session(), c, CFG, env))

    unsupported = prepared(case(REJECT, requires="windows"))
    assert unsupported.final.verdict is Verdict.UNSUPPORTED and not asked, "no probe for an unsupported item"
    assert prepare(case(REJECT, requires="windows"), CFG, make_env(CFG, case(REJECT), ("linux",)),
                   Given(unhonoured="x")).final.verdict is Verdict.UNSUPPORTED, "the rule's conditions come first"
    ignored = prepared(case(REJECT))
    assert ignored.final.verdict is Verdict.UNRESOLVED and "config not honoured: asked -std=c++23" in ignored.final.reason
    assert ignored.final.expected == REJECT
    # An unhonoured config is never judged as if it had been, whatever the build did.
    assert verdict(ignored, case(REJECT), result(Outcome.REJECTED, LD, phase=Phase.CICC)).verdict is Verdict.UNRESOLVED
    ready = prepare(case(REJECT), CFG, make_env(CFG, case(REJECT), ("linux",)))
    assert ready.final is None and ready.expectation == REJECT


def test_a_compilers_refusal_and_wording_are_given_to_the_judge():
    """NVRTC's words for host code make a built item UNSUPPORTED; a compiler worded otherwise than nvcc is judged
    without its messages. Both reach the judge as data (``Given``), from the compiler's backend."""
    c = case(REJECT)
    env = make_env(CFG, c, ("linux",))
    host = diag("a host function is not allowed in JIT mode")
    refused = prepare(c, CFG, env, Given(refusal=("not allowed in JIT mode", "device code only")))
    judged = verdict(refused, c, result(Outcome.REJECTED, host, phase=Phase.CICC))
    assert judged.verdict is Verdict.UNSUPPORTED and judged.reason == "device code only"
    assert verdict(prepare(c, CFG, env), c, result(Outcome.REJECTED, host, phase=Phase.CICC)).verdict is Verdict.FAIL
    other_words = diag("this type is not supported in device code")
    assert verdict(prepare(c, CFG, env), c, result(Outcome.REJECTED, other_words, phase=Phase.CICC)).verdict \
        is Verdict.FAIL
    assert verdict(prepare(c, CFG, env, Given(by_message=False)), c,
                   result(Outcome.REJECTED, other_words, phase=Phase.CICC)).verdict is Verdict.PASS


def test_a_ptx_only_target_is_a_feature_conditions_can_name():
    from dataclasses import replace
    c = case(ACCEPT)
    assert "ptx-only" in make_env(replace(CFG, arch="compute_90"), c, ()).features
    assert "ptx-only" not in make_env(CFG, c, ()).features
    assert "ptx-only" not in make_env(replace(CFG, arch="sm_80+compute_90"), c, ()).features
    assert conditions.parse("!ptx-only")(make_env(CFG, c, ()))


# --- diagnose: a diagnostic the same program does not also get where it is valid --------------------------

from suitegen.judge.expectations import valid_dialects

from suitegen.judge.verdicts import Twin  # noqa: E402

REMOVED = Expectation(expect=Expect.DIAGNOSE, phase="front-end", diagnostic="bool|increment")
BOOL_DEPRECATED = diag("incrementing a bool value is deprecated", "warning", Phase.CUDAFE)
BOOL_FORBIDDEN = diag("use of an operand of type bool in operator++ is forbidden in C++17")


def twinned(exp=REMOVED, valid_in="std<c++17"):
    c = case(exp, requires="std>=c++17")
    v = Variant(name=c.variant.name, params={}, expectation=exp, requires=c.variant.requires,
                valid_in=conditions.parse(valid_in))
    return Case(rule=c.rule, variant=v, files=c.files, violation_line=c.violation_line)


def under(std, *diags, outcome=None):
    outcome = outcome or (Outcome.ACCEPTED_WITH_WARNINGS if diags else Outcome.ACCEPTED)
    return Twin(std=std, result=result(outcome, *diags))


TWIN_TABLE = [
    # the build, the same program where it is valid (None: not built), verdict
    # the deprecation warning c++14 prints too tells nothing: nvcc 13.0's bool-increment-removed[neg-cxx17]
    (result(Outcome.ACCEPTED_WITH_WARNINGS, BOOL_DEPRECATED), under(Std.CXX14, BOOL_DEPRECATED), Verdict.FAIL),
    # an error where the valid dialect warns is the removal
    (result(Outcome.REJECTED, BOOL_FORBIDDEN, phase=Phase.CUDAFE), under(Std.CXX14, BOOL_DEPRECATED), Verdict.PASS),
    # a warning the valid dialect does not print is a diagnostic of its own
    (result(Outcome.ACCEPTED_WITH_WARNINGS, BOOL_DEPRECATED), under(Std.CXX14), Verdict.PASS),
    # one matching diagnostic of its own is enough beside a shared one
    (result(Outcome.ACCEPTED_WITH_WARNINGS, BOOL_DEPRECATED, diag("increment of bool removed", "warning")),
     under(Std.CXX14, BOOL_DEPRECATED), Verdict.PASS),
    # nothing matched: fails before any comparison
    (result(Outcome.ACCEPTED), under(Std.CXX14), Verdict.FAIL),
    # a twin that could not be built leaves nothing to compare with
    (result(Outcome.ACCEPTED_WITH_WARNINGS, BOOL_DEPRECATED), None, Verdict.UNRESOLVED),
    (result(Outcome.ACCEPTED_WITH_WARNINGS, BOOL_DEPRECATED), under(Std.CXX14, outcome=Outcome.CRASHED),
     Verdict.UNRESOLVED),
]


@pytest.mark.parametrize("res, twin, verdict_", TWIN_TABLE)
def test_diagnose_twin_table(res, twin, verdict_):
    c = twinned()
    j = verdict(prepare(c, CFG, make_env(CFG, c, ("linux",))), c, res, (), twin=twin)
    assert j.verdict is verdict_, j.reason


def test_diagnose_twin_failure_says_where_the_same_diagnostic_shows():
    c = twinned()
    j = verdict(prepare(c, CFG, make_env(CFG, c, ("linux",))), c, result(Outcome.ACCEPTED_WITH_WARNINGS, BOOL_DEPRECATED), (),
                twin=under(Std.CXX14, BOOL_DEPRECATED))
    assert "also given under c++14, where the program is valid" in j.reason
    assert "incrementing a bool value is deprecated" in j.reason


def test_diagnose_twin_failure_is_a_known_deviation_where_recorded():
    c = twinned()
    known = dev(Outcome.ACCEPTED_WITH_WARNINGS, match="incrementing a bool value is deprecated")
    j = verdict(prepare(c, CFG, make_env(CFG, c, ("linux",))), c, result(Outcome.ACCEPTED_WITH_WARNINGS, BOOL_DEPRECATED), (known,),
                twin=under(Std.CXX14, BOOL_DEPRECATED))
    assert j.verdict is Verdict.XFAIL


def test_diagnose_without_twin_is_judged_on_its_pattern():
    assert run(case(REMOVED), result(Outcome.ACCEPTED_WITH_WARNINGS, BOOL_DEPRECATED)).verdict is Verdict.PASS


@pytest.mark.parametrize("std, valid_in, rule_requires, nearest", [
    (Std.CXX17, "std<c++17", None, (Std.CXX14, Std.CXX11, Std.CXX03)),
    (Std.CXX11, "std>=c++17", None, (Std.CXX17, Std.CXX20, Std.CXX23)),
    (Std.CXX14, "std>=c++20", "std>=c++11", (Std.CXX20, Std.CXX23)),
    (Std.CXX17, "std<c++17", "std>=c++14", (Std.CXX14,)),
])
def test_valid_dialects_nearest_first(std, valid_in, rule_requires, nearest):
    c = twinned(valid_in=valid_in)
    if rule_requires:
        c = Case(rule=Rule(id="demo/r", section="demo", statement="s", templates={}, variants=(c.variant,),
                           requires=conditions.parse(rule_requires)), variant=c.variant, files=c.files,
                 violation_line=c.violation_line)
    cfg = Config(toolchain=TC, std=std, arch="sm_90")
    assert valid_dialects(c, make_env(cfg, c, ())) == nearest
    assert valid_dialects(case(REMOVED), make_env(cfg, c, ())) == ()


def test_driver_jit_is_a_config_with_no_sass_this_gpu_runs():
    """On an sm_90 GPU (machine feature gpu-cc-9.0): sm_80 and compute_90 builds run PTX the driver
    JIT-compiles; sm_90 and sm_80+sm_90 run their own SASS. Without a GPU nothing is driver-jit."""
    from dataclasses import replace
    c = case(RUNTIME, name="run")
    jit = {arch: "driver-jit" in make_env(replace(CFG, arch=arch), c, ("gpu", "gpu-cc-9.0")).features
           for arch in ("sm_90", "sm_80", "compute_90", "sm_80+sm_90", "sm_90a")}
    assert jit == {"sm_90": False, "sm_80": True, "compute_90": True, "sm_80+sm_90": False, "sm_90a": False}
    assert "driver-jit" not in make_env(replace(CFG, arch="sm_80"), c, ("linux",)).features
    assert conditions.parse("driver-jit && nvcc==13.0")(make_env(replace(CFG, arch="sm_80"), c, ("gpu-cc-9.0",)))


def test_the_run_is_judged_on_its_own_before_any_deviation():
    """The second step: a run's own verdict (recorded as execution_verdict), then the deviations over it."""
    from suitegen.execute.programs import classify
    from suitegen.judge.verdicts import execution_verdict
    from suitegen.model import ExecResult, ExecStatus
    bad = classify("SUITEGEN-CHECK-FAILED: x (line 4)\nSUITEGEN-RESULT: FAIL 1\n", 1, 1, "GPU 0")
    good = classify("SUITEGEN-RESULT: PASS\n", 0, 1, "GPU 0")
    hung = ExecResult(status=ExecStatus.TIMED_OUT, exit_code=None, detail="60s", output="", duration=60, gpu="GPU 0",
                      command=())
    run = case(RUNTIME, name="run-x")
    assert [execution_verdict(RUNTIME, run, e, "no GPU")[0] for e in (good, bad, hung, None)] == \
        [Verdict.PASS, Verdict.FAIL, Verdict.UNRESOLVED, Verdict.UNSUPPORTED]
    valid = case(ACCEPT, name="pos")
    assert execution_verdict(ACCEPT, valid, None, None) is None, "nothing ran: no execution verdict"
    assert execution_verdict(ACCEPT, valid, good, None)[0] is Verdict.PASS  # its module loaded
    assert execution_verdict(ACCEPT, valid, bad, None)[1].startswith("its module did not load")
    d = Deviation(rule="demo/r", variants=("*",), when=conditions.parse("nvcc==13.0"), observed=Outcome.ACCEPTED,
                  diagnostic="wrong", seen="today", run="failed")
    j = judge(run, CFG, make_env(CFG, run, ()), result(Outcome.ACCEPTED), [d], execution=bad)
    assert (j.verdict, j.execution) == (Verdict.XFAIL, Verdict.FAIL), "the deviation covers the run; the run failed"
    j = judge(valid, CFG, make_env(CFG, valid, ()), result(Outcome.ACCEPTED), execution=good)
    assert (j.verdict, j.execution) == (Verdict.PASS, Verdict.PASS)
    assert judge(valid, CFG, make_env(CFG, valid, ()), result(Outcome.ACCEPTED)).execution is None
