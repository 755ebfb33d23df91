"""JUnit that CI can read: terminal control characters in a diagnostic make neither junit.xml nor a reproducer's
text carry them raw, `suitegen junit merge` reads such files (even one an older suitegen wrote), and two
toolchains' testcases never share class and name."""
from xml.etree import ElementTree

from junitparser import JUnitXml

from suitegen.frontends.cli import main
from suitegen.model import Diagnostic, Observed, Outcome, Phase, RecordConfig, Verdict
from suitegen.report import junit_xml as junit
from suitegen.report.repro import visible, write_repro

from conftest import a_record

HOSTILE = "\x1b[31merror\x1b[0m: bad\x07 thing\x0c\x9b2J"  # ESC, BEL, form feed, a C1 CSI


def failing(message: str = HOSTILE, **fields):
    """Return a FAIL record whose reason and diagnostic hold ``message``."""
    said = Diagnostic(severity="error", message=message, phase=Phase.CICC, file="main.cu", line=3)
    observed = Observed(outcome=Outcome.REJECTED, phase=Phase.CICC, exit_code=2, diagnostics=(said,),
                        commands=(("nvcc", "-c", "main.cu"),))
    return a_record(verdict=Verdict.FAIL, reason=f"expected acceptance: {message}", observed=observed, **fields)


def written(tmp_path, records, name="junit.xml"):
    cases = junit.Testcases()
    cases.add(records)
    return cases.write_file(tmp_path / name)


def test_visible_escapes_what_xml_forbids_and_terminals_act_on():
    assert visible(HOSTILE) == "\\x1b[31merror\\x1b[0m: bad\\x07 thing\\x0c\\x9b2J"
    assert visible("tab\tnew\nline é \ud800\uffff") == "tab\tnew\nline é \\ud800\\uffff"


def test_junit_with_terminal_escapes_parses_and_merges(tmp_path, capsys):
    path = written(tmp_path, [failing(), a_record(case_id="demo/r[neg]", variant="neg")])
    raw = path.read_text(encoding="utf-8")
    assert "\x1b" not in raw and "\x07" not in raw and "\x9b" not in raw
    root = ElementTree.parse(path).getroot()  # valid XML
    failure = root.find(".//failure")
    assert "\\x1b[31merror" in failure.get("message") and "\\x07" in failure.text
    xml = JUnitXml.fromfile(str(path))
    assert junit.counts(xml) == {"tests": 2, "failures": 1, "errors": 0, "skipped": 0}
    assert main(["junit", "merge", str(tmp_path / "m.xml"), str(path), str(path)]) == 0
    assert "4 tests, 2 failures" in capsys.readouterr().out
    ElementTree.parse(tmp_path / "m.xml")


def test_junit_merge_reads_a_file_with_raw_control_characters(tmp_path, capsys):
    """A file an older suitegen wrote (raw ESC and BEL, invalid XML) merges; its text made visible."""
    old = tmp_path / "old.xml"
    old.write_text("<?xml version='1.0' encoding='utf-8'?>\n<testsuites><testsuite name=\"demo\">"
                   f"<testcase name=\"pos[c++17,sm_90]\" classname=\"demo/r\"><failure message=\"{HOSTILE}\">"
                   f"{HOSTILE}</failure></testcase></testsuite></testsuites>", encoding="utf-8")
    assert main(["junit", "merge", str(tmp_path / "m.xml"), str(old)]) == 0
    assert "1 tests, 1 failures" in capsys.readouterr().out
    merged = ElementTree.parse(tmp_path / "m.xml").getroot()
    assert merged.find(".//failure").text == visible(HOSTILE)


def test_junit_merge_of_a_file_that_is_not_xml_is_a_usage_error(tmp_path, capsys):
    bad = tmp_path / "bad.xml"
    bad.write_text("<testsuites><testsuite>")
    assert main(["junit", "merge", str(tmp_path / "m.xml"), str(bad)]) == 2
    assert f"{bad}: not a JUnit XML file" in capsys.readouterr().err
    assert main(["junit", "merge", str(tmp_path / "m.xml"), str(tmp_path / "missing.xml")]) == 2
    assert "missing.xml: cannot read JUnit file" in capsys.readouterr().err


def on(label: str, fingerprint: str) -> RecordConfig:
    base = a_record().config
    return RecordConfig(**{**base.to_json(), "flags": (), "case_flags": (), "toolchain": label,
                           "fingerprint": fingerprint})


def pairs(path):
    return [(tc.get("classname"), tc.get("name")) for tc in ElementTree.parse(path).getroot().iter("testcase")]


def test_two_toolchains_of_one_version_get_testcases_of_their_own(tmp_path):
    variants = [f"v{i}" for i in range(5)]
    a, b = on("nvcc-13.0.88-aaaaaaaa", "a" * 16), on("nvcc-13.0.88-bbbbbbbb", "b" * 16)
    records = [a_record(variant=v, case_id=f"demo/r[{v}]", config=c) for v in variants for c in (a, b)]
    named = pairs(written(tmp_path, records))
    assert len(named) == len(set(named)) == 10
    assert ("demo/r", "v0[nvcc-13.0.88-aaaaaaaa,c++17,sm_90]") in named
    # one label, two fingerprints (runs of two machines merged): every record kept, each with its own name
    same = [a_record(variant=v, case_id=f"demo/r[{v}]", config=on("nvcc-13.0", fp)) for v in variants
            for fp in ("a" * 16, "b" * 16)]
    named = pairs(written(tmp_path, same, "same.xml"))
    assert len(named) == len(set(named)) == 10
    assert ("demo/r", "v0[nvcc-13.0-bbbbbbbb,c++17,sm_90]") in named


def test_one_toolchain_keeps_plain_testcase_names(tmp_path):
    assert pairs(written(tmp_path, [a_record()])) == [("demo/r", "pos[c++17,sm_90]")]


def test_reproducer_text_carries_no_raw_terminal_escapes(tmp_path):
    folder = write_repro(tmp_path, failing(), {"files": {"main.cu": "int x;\n"}, "statement": HOSTILE})
    for name in ("expected-vs-observed.txt", "run.sh"):
        text = (folder / name).read_text()
        assert not any(c in text for c in "\x1b\x07\x0c\x9b"), name
    assert "\\x1b[31merror" in (folder / "expected-vs-observed.txt").read_text()
