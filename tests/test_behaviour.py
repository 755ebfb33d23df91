"""What a valid item's GPU run checks, and a run without a GPU never claiming to have checked behaviour."""
import dataclasses
import json

from suitegen import hooks
from suitegen.judge.behaviour import Check, planned, sentence, tally
from suitegen.model import Case, Expect, Expectation, Mode, Rule, Variant
from suitegen.report.run_folder import read_records


def case(expect, text, check=None):
    exp = Expectation(expect=expect, phase="front-end" if expect is Expect.REJECT else None,
                      diagnostic="x" if expect is Expect.REJECT else None, observe="o")
    v = Variant(name="v", params={}, expectation=exp, check=hooks.resolve("check", check))
    rule = Rule(id="demo/r", section="demo", statement="s", templates={"main.cu": "t"}, variants=(v,))
    return Case(rule=rule, variant=v, files={"main.cu": text}, violation_line=None)


def test_each_valid_variant_gets_one_kind_of_check():
    kernel = "__global__ void k(int *p) { *p = 1; }\n"
    assert planned(case(Expect.RUNTIME, kernel), case(Expect.RUNTIME, kernel).variant.expectation)[0] is \
        Check.SEMANTIC
    fat = case(Expect.RUNTIME, kernel, check="expression_values")
    assert "expression_values" in planned(fat, fat.variant.expectation)[1]
    acc = case(Expect.ACCEPT, kernel)
    assert planned(acc, acc.variant.expectation)[0] is Check.LOAD_ONLY, "a compile-only valid module is loaded"
    rdc = planned(acc, acc.variant.expectation, ("-rdc=true",))
    assert rdc[0] is Check.LOAD_ONLY and "nvcc -dlink" in rdc[1], "relocatable: the device-linked module"
    valued = dataclasses.replace(acc, variant=dataclasses.replace(acc.variant, value=7))
    assert planned(valued, acc.variant.expectation)[0] is Check.SEMANTIC, "a value check"
    hosted = dataclasses.replace(valued, files={"main.cu": "void use(int *out) { *out = 7; }\n"})
    assert "on the host" in planned(hosted, acc.variant.expectation)[1]
    program = dataclasses.replace(acc, variant=dataclasses.replace(acc.variant, mode=Mode.LINK))
    assert planned(program, acc.variant.expectation)[0] is Check.LOAD_ONLY, "a one-file program's module"
    two = dataclasses.replace(program, files={"main.cu": kernel, "other.cu": kernel})
    assert planned(two, acc.variant.expectation)[0] is Check.NONE, "several whole-program modules"
    host = case(Expect.ACCEPT, "int f() { return 1; }\n")
    assert planned(host, host.variant.expectation) == (Check.HOST_ONLY, "no device code")
    neg = case(Expect.REJECT, kernel)
    assert planned(neg, neg.variant.expectation) is None, "nothing valid to run"


def test_a_cpu_only_run_says_no_behaviour_was_checked(run_folder):
    records = list(read_records(run_folder / "results.jsonl"))
    valid = [r for r in records if r.behaviour]
    assert valid and all(not r.behaviour.ran for r in valid)
    assert all(r.behaviour is None for r in records if r.expected and r.expected.expect is Expect.REJECT)
    summary = json.loads((run_folder / "summary.json").read_text())
    assert summary["behaviour"] == tally(records) and summary["behaviour"]["semantic ran"] == 0
    text = sentence(summary["behaviour"])
    assert text.startswith(f"behaviour checked on the GPU for 0 of {len(valid)} valid items")
    assert text in (run_folder / "index.html").read_text()


def test_what_the_driver_loads():
    from suitegen.execute.images import compute_capability, loaded_code
    h100 = compute_capability("GPU 0 (NVIDIA H100 80GB HBM3, 9.0, 550.54.15)")
    assert h100 == (9, 0) and compute_capability("GPU 1") is None
    assert loaded_code(["sm_90", "compute_90"], h100) == "SASS sm_90"
    assert loaded_code(["sm_80", "compute_80"], h100).startswith("PTX compute_80, JIT-compiled"), \
        "sm_80 SASS does not run on 9.0: the driver compiles the PTX"
    assert loaded_code(["compute_90"], h100).startswith("PTX compute_90")
    assert loaded_code(["sm_80", "compute_80"], (8, 6)) == "SASS sm_80", "same major, later minor"
    assert loaded_code(["sm_90a", "compute_90a"], (10, 0)).startswith("nothing"), "arch-specific: 9.0 only"
    assert loaded_code(["sm_100", "compute_100"], h100).startswith("nothing")


def test_a_specifier_named_in_a_comment_is_not_device_code():
    """A host-only case whose comment names __device__ has its value checked on the host, not looked for on the GPU."""
    from types import SimpleNamespace
    from suitegen.judge.behaviour import has_device_code
    host = "// the caller: a __device__ function, or (here) a host one\n/* __global__ too */\nint use(int *o) { *o = 42; }\n"
    assert not has_device_code(SimpleNamespace(files={"main.cu": host}))
    assert has_device_code(SimpleNamespace(files={"main.cu": host + "__device__ int d;\n"}))
