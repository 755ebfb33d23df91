"""What a valid item's GPU run checks, and a run without a GPU never claiming to have checked behaviour."""
import json

from suitegen.judge.behaviour import Check, planned, sentence, tally
from suitegen.model import Case, Expect, Expectation, Rule, Variant


def case(expect, text, check=None):
    exp = Expectation(expect=expect, phase="front-end" if expect is Expect.REJECT else None,
                      diagnostic="x" if expect is Expect.REJECT else None, observe="o")
    v = Variant(name="v", params={}, expectation=exp, check=check)
    rule = Rule(id="demo/r", section="demo", statement="s", templates={"main.cu": "t"}, variants=(v,))
    return Case(rule=rule, variant=v, files={"main.cu": text}, violation_line=None)


def test_each_valid_variant_gets_one_kind_of_check():
    kernel = "__global__ void k(int *p) { *p = 1; }\n"
    assert planned(case(Expect.RUNTIME, kernel), case(Expect.RUNTIME, kernel).variant.expectation)[0] is \
        Check.SEMANTIC
    fat = case(Expect.RUNTIME, kernel, check="expression_values")
    assert "expression_values" in planned(fat, fat.variant.expectation)[1]
    acc = case(Expect.ACCEPT, kernel)
    assert planned(acc, acc.variant.expectation)[0] is Check.NONE
    host = case(Expect.ACCEPT, "int f() { return 1; }\n")
    assert planned(host, host.variant.expectation) == (Check.HOST_ONLY, "no device code")
    neg = case(Expect.REJECT, kernel)
    assert planned(neg, neg.variant.expectation) is None, "nothing valid to run"


def test_a_cpu_only_run_says_no_behaviour_was_checked(run_folder):
    records = [json.loads(line) for line in (run_folder / "results.jsonl").read_text().splitlines()]
    valid = [r for r in records if r["behaviour"]]
    assert valid and all(not r["behaviour"]["ran"] for r in valid)
    assert all(r["behaviour"] is None for r in records if r["expected"] and r["expected"]["expect"] == "reject")
    summary = json.loads((run_folder / "summary.json").read_text())
    assert summary["behaviour"] == tally(records) and summary["behaviour"]["semantic ran"] == 0
    text = sentence(summary["behaviour"])
    assert text.startswith(f"behaviour checked on the GPU for 0 of {len(valid)} valid items")
    assert text in (run_folder / "index.html").read_text()
