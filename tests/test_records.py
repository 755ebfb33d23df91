"""One record type: what a run writes to results.jsonl is what every reader reads back (model.Record)."""
import json

import pytest

from conftest import a_record
from suitegen.frontends.cli import main
from suitegen.model import (Alone, Batched, Behaviour, Case, CompileResult, Config, DeviationRef, Diagnostic, ExecResult,
                            ExecStatus, Expect, Expectation, Expected, Judgement, Observed, ObservedConfig, Outcome,
                            Phase, Record, RecordError, Rule, Std, Toolchain, Variant, Verdict)
from suitegen.report.run_folder import ResultsFile, read_records


def _full(batch) -> Record:
    """A record with every part set (``batch``: how it was obtained)."""
    return a_record(
        verdict=Verdict.XFAIL, reason="known deviation",
        expected=Expected(expect=Expect.REJECT, phase="front-end", diagnostic="long double", line=2),
        observed=Observed(outcome=Outcome.REJECTED, phase=Phase.CUDAFE, exit_code=2, cached=True,
                          diagnostics=(Diagnostic(severity="error", message="no", phase=Phase.CUDAFE, file="main.cu",
                                                  line=2, number="20"),),
                          commands=(("nvcc", "-c", "main.cu"),)),
        deviation=DeviationRef(observed=Outcome.REJECTED, diagnostic="[cudafe++] no", seen="13.0", file="d.toml"),
        execution=ExecResult(status=ExecStatus.PASSED, exit_code=0, detail="ok", output="SUITEGEN-RESULT: PASS",
                             duration=0.5, gpu="NVIDIA H100", command=("./main.out",), loaded="SASS sm_90"),
        observed_config=ObservedConfig(host_cplusplus=201703, device_cplusplus=(201703,), cuda_arch=(900,),
                                       targets=("sm_90",)),
        execution_verdict=Verdict.PASS, behaviour=Behaviour(check="semantic", ran=True, what="a program"),
        batch=batch, duration=1.25)


@pytest.mark.parametrize("batch", [Alone(why="the batch said FAIL", tried=("b1",)), Batched(id="b1", size=3), None])
def test_a_record_reads_back_equal_to_what_was_written(batch):
    record = _full(batch)
    line = json.dumps(record.to_json(), sort_keys=True)
    assert json.loads(line)["schema"] == 3 and "gpu" not in json.loads(line), "the run's gpu is execution.gpu"
    assert Record.from_json(json.loads(line)) == record
    bare = a_record()
    assert Record.from_json(json.loads(json.dumps(bare.to_json()))) == bare


def test_a_record_of_a_judged_item_keeps_its_run_as_written():
    """Record.of names the item by keys and words; its run is kept as written (the end of a long output), so the
    record read back equals the one the engine holds."""
    tc = Toolchain(nvcc="/usr/bin/nvcc", version=(13, 0, 88), version_text="13.0", host_compiler="g++",
                   host_version="g++ 12", fingerprint="f" * 16)
    variant = Variant(name="pos", params={}, expectation=Expectation(expect=Expect.ACCEPT), flags=("-rdc=true",))
    rule = Rule(id="demo/r", section="demo", statement="s", templates={}, variants=(variant,))
    case = Case(rule=rule, variant=variant, files={"main.cu": "int x;\n"}, violation_line=1)
    config = Config(toolchain=tc, std=Std.CXX17, arch="sm_90")
    result = CompileResult(outcome=Outcome.ACCEPTED, phase=None, exit_code=0, diagnostics=(), commands=(("nvcc",),),
                           output="lots", duration=0.25)
    run = ExecResult(status=ExecStatus.PASSED, exit_code=0, detail="", output="x" * 5000, duration=0.12345,
                     gpu="g", command=())
    record = Record.of(case, config, Judgement(verdict=Verdict.PASS, reason="ok", expected=variant.expectation),
                       result, started="t", execution=run)
    assert (record.case_id, record.config_id, record.config.case_flags) == ("demo/r[pos]", "c++17,sm_90", ("-rdc=true",))
    assert record.key == (case.key, config.key) and record.expected.line == 1 and record.duration == 0.373
    assert len(record.execution.output) == 4000 and record.execution.duration == 0.123
    assert Record.from_json(json.loads(json.dumps(record.to_json()))) == record


SCHEMA_2 = {  # a line an early schema-2 suitegen wrote: a top-level gpu, no config.compiler, no behaviour
    "schema": 2, "case_id": "demo/r[pos]", "case_key": "c" * 16, "config_id": "c++17,sm_90", "config_key": "k" * 16,
    "rule": "demo/r", "section": "demo", "variant": "pos",
    "config": {"toolchain": "nvcc-13.0", "fingerprint": "f" * 16, "nvcc": "/usr/bin/nvcc", "nvcc_version": "13.0.88",
               "host_compiler": "g++", "host_version": "g++ 12", "std": "c++17", "arch": "sm_90", "flags": [],
               "case_flags": []},
    "expected": {"expect": "runtime", "phase": None, "diagnostic": None, "line": None, "observe": "3"},
    "observed": {"outcome": "accepted", "phase": None, "exit_code": 0, "diagnostics": [], "commands": [["nvcc"]]},
    "verdict": "PASS", "reason": "ran", "deviation": None,
    "execution": {"status": "passed", "exit_code": 0, "detail": "", "output": "", "duration": 0.1, "gpu": "H100",
                  "command": ["./main.out"]},
    "gpu": "H100", "observed_config": None, "execution_verdict": "PASS", "batch": {"how": "alone", "why": "mode"},
    "duration": 0.2, "started": "t"}


def test_a_schema_2_line_is_read_as_schema_3():
    record = Record.from_json(SCHEMA_2)
    assert record.config.compiler == "nvcc" and record.behaviour is None and record.observed.cached is False
    assert record.execution.gpu == "H100" and record.batch == Alone(why="mode")
    assert record.verdict is Verdict.PASS and record.expected.expect is Expect.RUNTIME
    upgraded = {k: v for k, v in SCHEMA_2.items() if k != "gpu"} | {
        "schema": 3, "config": {**SCHEMA_2["config"], "compiler": "nvcc"}, "behaviour": None,
        "observed": {**SCHEMA_2["observed"], "cached": False}, "batch": {**SCHEMA_2["batch"], "tried": []}}
    assert record.to_json() == upgraded, "written again: the top-level gpu dropped, what was left out filled in"


@pytest.mark.parametrize("line, said", [({**SCHEMA_2, "schema": 9}, "schema 9"),
                                        ({k: v for k, v in SCHEMA_2.items() if k != "schema"}, "no schema version"),
                                        ({**SCHEMA_2, "verdict": "MAYBE"}, "bad field")])
def test_a_record_of_an_unknown_schema_is_refused_naming_file_and_line(tmp_path, capsys, line, said):
    with pytest.raises(RecordError, match=said):
        Record.from_json(line)
    out = tmp_path / "run"
    ResultsFile(out).append(a_record())
    ResultsFile(out).append(line)
    (out / "run.json").write_text("{}")
    with pytest.raises(ValueError, match=rf"results.jsonl, line 2: .*{said}"):
        list(read_records(out / "results.jsonl"))
    assert main(["report", str(out)]) == 2
    assert f"{out / 'results.jsonl'}, line 2: " in capsys.readouterr().err


def test_every_reader_gets_records(run_folder):
    """The run folder's reader yields records; the merge of a run into a new folder keeps them equal."""
    from suitegen.report.run_folder import merge
    records = list(read_records(run_folder / "results.jsonl"))
    assert records and all(isinstance(r, Record) for r in records)
    merged = merge([run_folder], run_folder.parent / "merged")
    assert list(read_records(merged / "results.jsonl")) == records
