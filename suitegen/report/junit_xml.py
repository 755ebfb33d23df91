"""JUnit XML, as Jenkins and GitLab read it, from result records: each testcase made with junitparser, the
suites around them written with their counts (``Testcases``)."""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from xml.etree import ElementTree
from xml.sax.saxutils import quoteattr
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


class Testcases:
    """A run's JUnit file: each record's testcase made (with junitparser) and serialised once, as the record
    comes (``add``), and the file written from them (``write_file``), so a run's reports are kept up to date,
    not rebuilt from every record."""

    def __init__(self, allow_xpass: bool = False):
        self.allow_xpass = allow_xpass
        # (toolchain, section) -> {(case id, config id): (testcase XML, time, result kind)}
        self.cases: dict[tuple[str, str], dict[tuple[str, str], tuple[str, float, str]]] = defaultdict(dict)
        self.fingerprints: set[str] = set()

    def add(self, records: Iterable[Record]) -> None:
        for r in records:
            case = testcase(r, self.allow_xpass)
            kind = ("failure" if case.is_failure else "error" if case.is_error
                    else "skipped" if case.is_skipped else "")
            self.cases[(r.config.toolchain, r.section)][(r.case_id, r.config_id)] = (
                ElementTree.tostring(case._elem, encoding="unicode"), r.duration, kind)
            self.fingerprints.add(r.config.fingerprint)

    def write_file(self, path: Path | str) -> Path:
        """Write the JUnit file: one testsuite per section, or per toolchain x section when there are several."""
        several = len(self.fingerprints) > 1
        suites: dict[str, list] = defaultdict(list)
        for (toolchain, section), cases in self.cases.items():
            suites[f"{toolchain}.{section}" if several else section] += cases.items()
        parts, totals = [], Counter()
        for name in sorted(suites):
            cases = sorted(suites[name])
            kinds = Counter(kind for _, (_, _, kind) in cases)
            time = sum(t for _, (_, t, _) in cases)
            totals.update(tests=len(cases), time=time, **kinds)
            parts.append(f"<testsuite name={quoteattr(name)} tests=\"{len(cases)}\" errors=\"{kinds['error']}\" "
                         f"failures=\"{kinds['failure']}\" skipped=\"{kinds['skipped']}\" time=\"{round(time, 3)}\">"
                         + "".join(xml for _, (xml, _, _) in cases) + "</testsuite>")
        head = (f"<?xml version='1.0' encoding='utf-8'?>\n<testsuites name=\"suitegen\" tests=\"{totals['tests']}\" "
                f"failures=\"{totals['failure']}\" errors=\"{totals['error']}\" skipped=\"{totals['skipped']}\" "
                f"time=\"{round(totals['time'], 3)}\">")
        Path(path).write_text(head + "".join(parts) + "</testsuites>", encoding="utf-8")
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
