"""JUnit XML, as Jenkins and GitLab read it, from result records: each testcase made with junitparser, the
suites around them written with their counts (``Testcases``)."""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from xml.etree import ElementTree
from xml.sax.saxutils import quoteattr
from typing import Iterable, Sequence

from junitparser import Error, Failure, JUnitXml, JUnitXmlError, Properties, Property, Skipped, TestCase, TestSuite
from junitparser.junitparser import etree  # the XML library junitparser parses with (lxml where it is installed)

from suitegen.model import Record, UsageError, Verdict, plain, section_family
from suitegen.report.repro import visible
from suitegen.report.summary import GUIDE

PROPERTIES = ("rule", "section", "variant", "toolchain", "fingerprint", "nvcc_version", "std", "arch",
              "flags", "gpu", "verdict", "family")


def properties(r: Record) -> list[tuple[str, str]]:
    """Return the (name, value) properties of one record, for JUnit files and pytest's user_properties."""
    cfg = r.config
    values = {"rule": r.rule, "section": r.section, "variant": r.variant, "toolchain": cfg.toolchain,
              "fingerprint": cfg.fingerprint, "nvcc_version": cfg.nvcc_version, "std": cfg.std, "arch": cfg.arch,
              "flags": " ".join(cfg.flags + cfg.case_flags), "gpu": r.execution.gpu if r.execution else "",
              "verdict": r.verdict.value, "family": section_family(r.section)}
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


def case_name(variant: str, config_id: str, toolchain: str = "") -> str:
    """Return a JUnit testcase's name: ``variant[config]``, or ``variant[toolchain,config]`` in a file of several
    toolchains (as ``session.item_name`` names the item), so that no two testcases share class and name."""
    return f"{variant}[{toolchain},{config_id}]" if toolchain else f"{variant}[{config_id}]"


def testcase(r: Record, allow_xpass: bool = False) -> TestCase:
    """Return the JUnit testcase of one record, without its name (``case_name``: it depends on the file's other
    toolchains): failures (XPASS too, unless allowed) as failure elements."""
    case = TestCase(None, r.rule, r.duration)
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
        family = section_family(r.section)
        known = "known deviation" if family == GUIDE else f"known {family} deviation (not the guide's)"
        case.result = [Skipped(f"XFAIL {known} (seen {seen}): {said}"[:500], "XFAIL")]
    elif r.verdict is Verdict.UNSUPPORTED:
        case.result = [Skipped(r.reason[:500], "UNSUPPORTED")]
    return case


class Testcases:
    """A run's JUnit file: each record's testcase made (with junitparser) and serialised once, as the record
    comes (``add``), and the file written from them (``write_file``), so a run's reports are kept up to date,
    not rebuilt from every record. Every text is made XML-safe (``repro.visible``): a diagnostic holding
    terminal escapes still gives a file CI can read."""

    def __init__(self, allow_xpass: bool = False):
        self.allow_xpass = allow_xpass
        # (toolchain fingerprint, section) -> {(case id, config id): (testcase XML but its name, variant, time, kind)}
        self.cases: dict[tuple[str, str], dict[tuple[str, str], tuple[str, str, float, str]]] = defaultdict(dict)
        self.labels: dict[str, str] = {}  # toolchain fingerprint -> label

    def add(self, records: Iterable[Record]) -> None:
        for r in records:
            case = testcase(r, self.allow_xpass)
            kind = ("failure" if case.is_failure else "error" if case.is_error
                    else "skipped" if case.is_skipped else "")
            xml = visible(ElementTree.tostring(case._elem, encoding="unicode"))
            self.cases[(r.config.fingerprint, r.section)][(r.case_id, r.config_id)] = (
                xml.removeprefix("<testcase"), r.variant, r.duration, kind)
            self.labels[r.config.fingerprint] = r.config.toolchain

    def toolchains(self) -> dict[str, str]:
        """Return fingerprint -> what the file's names call a toolchain: nothing where it holds one, else its label,
        with its fingerprint where another toolchain has that label."""
        if len(self.labels) < 2:
            return dict.fromkeys(self.labels, "")
        shared = Counter(self.labels.values())
        return {fp: f"{label}-{fp[:8]}" if shared[label] > 1 else label for fp, label in self.labels.items()}

    def write_file(self, path: Path | str) -> Path:
        """Write the JUnit file: one testsuite per section, or per toolchain x section when there are several."""
        names = self.toolchains()
        suites: dict[str, list] = defaultdict(list)
        for (fingerprint, section), cases in self.cases.items():
            tc = names[fingerprint]
            family = section_family(section)
            section = section if family == GUIDE else f"{family}/{section}"
            suites[visible(f"{tc}.{section}" if tc else section)] += [
                (key, (f"<testcase name={quoteattr(visible(case_name(variant, key[1], tc)))}{rest}", time, kind))
                for key, (rest, variant, time, kind) in cases.items()]
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


def read(path: Path | str) -> JUnitXml:
    """Return a JUnit file's document, read with what XML forbids in it made visible (``repro.visible``: a file an
    older suitegen wrote with a diagnostic's terminal escapes); raise UsageError naming a file that cannot be read."""
    try:
        text = visible(Path(path).read_bytes().decode("utf-8", errors="replace"))
        return JUnitXml.fromstring(text.encode("utf-8"))
    except OSError as exc:
        raise UsageError(f"{path}: cannot read JUnit file: {exc.strerror or exc}") from None
    except (etree.ParseError, JUnitXmlError) as exc:
        raise UsageError(f"{path}: not a JUnit XML file: {exc}") from None


def merge(inputs: Sequence[Path | str], output: Path | str) -> JUnitXml:
    """Merge JUnit files (per worker or per toolchain) into one; suites with one name are joined."""
    merged = JUnitXml("suitegen")
    by_name: dict[str, TestSuite] = {}
    for path in inputs:
        xml = read(path)
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
