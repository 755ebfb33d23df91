"""JUnit XML, as Jenkins and GitLab read it, written with junitparser from result records."""
from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Iterable, Sequence

from junitparser import Error, Failure, JUnitXml, Properties, Property, Skipped, TestCase, TestSuite

from suitegen.model import Record, Verdict, plain

PROPERTIES = ("rule", "section", "variant", "toolchain", "fingerprint", "nvcc_version", "std", "arch",
              "flags", "gpu", "verdict")


def properties(r: Record) -> list[tuple[str, str]]:
    """Return the (name, value) properties of one record, for JUnit files and pytest's user_properties."""
    cfg = r.config
    values = {"rule": r.rule, "section": r.section, "variant": r.variant, "toolchain": cfg.toolchain,
              "fingerprint": cfg.fingerprint, "nvcc_version": cfg.nvcc_version, "std": cfg.std, "arch": cfg.arch,
              "flags": " ".join(cfg.flags + cfg.case_flags), "gpu": r.execution.gpu if r.execution else "",
              "verdict": r.verdict.value}
    return [(name, str(values[name])) for name in PROPERTIES]


def _properties(r: Record) -> Properties:
    props = Properties()
    for name, value in properties(r):
        props.add_property(Property(name, value))
    return props


def _evidence(r: Record) -> str:
    lines = [f"expected: {json.dumps(plain(r.expected), sort_keys=True)}"]
    obs = r.observed
    if obs:
        lines.append(f"observed: {obs.outcome.value} (phase {plain(obs.phase)}, exit {obs.exit_code})")
        lines += [f"  {d.severity}: {d.file or ''}({d.line or ''}) {d.message}" for d in obs.diagnostics[:20]]
        lines += ["command: " + " ".join(c) for c in obs.commands]
    if r.execution:
        ex = r.execution
        lines.append(f"execution: {ex.status.value} on {ex.gpu}: {ex.detail}")
    return "\n".join(lines)


def testcase(r: Record, allow_xpass: bool = False) -> TestCase:
    """Return the JUnit testcase of one record: failures (XPASS too, unless allowed) as failure elements."""
    case = TestCase(f"{r.variant}[{r.config_id}]", r.rule, r.duration)
    case.append(_properties(r))
    if r.verdict is Verdict.FAIL:
        fail = Failure(r.reason[:500], "FAIL")
        fail.text = _evidence(r)
        case.result = [fail]
    elif r.verdict is Verdict.UNRESOLVED:
        err = Error(r.reason[:500], "UNRESOLVED")
        err.text = _evidence(r)
        case.result = [err]
    elif r.verdict is Verdict.XPASS and not allow_xpass:
        fail = Failure(r.reason[:500], "XPASS")
        fail.text = _evidence(r)
        case.result = [fail]
    elif r.verdict is Verdict.XFAIL:
        seen, said = (r.deviation.seen, r.deviation.diagnostic) if r.deviation else (None, "")
        case.result = [Skipped(f"XFAIL known deviation (seen {seen}): {said}"[:500], "XFAIL")]
    elif r.verdict is Verdict.UNSUPPORTED:
        case.result = [Skipped(r.reason[:500], "UNSUPPORTED")]
    return case


def build(records: Iterable[Record], allow_xpass: bool = False) -> JUnitXml:
    """Return JUnit XML: one testsuite per section, or per toolchain x section when there are several."""
    records = list(records)
    several = len({r.config.fingerprint for r in records}) > 1
    suites: dict[str, TestSuite] = {}
    grouped = defaultdict(list)
    for r in records:
        name = f"{r.config.toolchain}.{r.section}" if several else r.section
        grouped[name].append(r)
    xml = JUnitXml("suitegen")
    for name in sorted(grouped):
        suite = suites[name] = TestSuite(name)
        # add_testcases counts once per suite (add_testcase recounts the suite for every case: quadratic)
        suite.add_testcases([testcase(r, allow_xpass)
                             for r in sorted(grouped[name], key=lambda r: (r.case_id, r.config_id))])
        xml.add_testsuite(suite)
    xml.update_statistics()
    return xml


def write(records: Iterable[Record], path: Path | str, allow_xpass: bool = False) -> Path:
    """Write the JUnit file of a run's records."""
    xml = build(records, allow_xpass)
    xml.write(str(path))  # not pretty: junitparser's pretty printer (minidom) takes minutes on a nightly run
    return Path(path)


def merge(inputs: Sequence[Path | str], output: Path | str) -> JUnitXml:
    """Merge JUnit files (per worker or per toolchain) into one; suites with one name are joined."""
    merged = JUnitXml("suitegen")
    by_name: dict[str, TestSuite] = {}
    for path in inputs:
        xml = JUnitXml.fromfile(str(path))
        suites = [xml] if isinstance(xml, TestSuite) else list(xml)
        for suite in suites:
            target = by_name.get(suite.name)
            if target is None:
                target = by_name[suite.name] = TestSuite(suite.name)
                merged.add_testsuite(target)
            target.extend(list(suite))
    for suite in by_name.values():
        suite.update_statistics()
    merged.update_statistics()
    merged.write(str(output))
    return merged


def counts(xml: JUnitXml) -> dict[str, int]:
    """Return tests / failures / errors / skipped of a JUnit document, counted from its testcases."""
    out = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in xml:
        for case in suite:
            out["tests"] += 1
            out["failures"] += case.is_failure
            out["errors"] += case.is_error
            out["skipped"] += case.is_skipped
    return out
