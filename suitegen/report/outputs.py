"""A run folder's outputs, from its records: summary.json and .md, junit.xml, index.html, repro/."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Iterable, Mapping

from suitegen.model import Record
from suitegen.report import junit_xml, page
from suitegen.report.repro import write_repro
from suitegen.report.run_folder import META, RESULTS, SUMMARY, read_cases, read_records, write_json
from suitegen.report.summary import markdown, summarize


class Reports:
    """A run folder's outputs, kept up to date as records come (``add``) and written with ``publish``: each
    record's JUnit testcase and reproducer is made once, and the records are read from the folder once, when
    it is opened (a resumed run's earlier records)."""

    def __init__(self, folder: Path, sections: Mapping[str, str], meta: Mapping | None = None):
        self.folder, self.sections = Path(folder), sections
        if meta is None and (self.folder / META).exists():
            meta = json.loads((self.folder / META).read_text())
        self.meta = dict(meta or {})
        self.allow_xpass = bool(self.meta.get("allow_xpass"))
        self.records: list[Record] = []
        self.testcases = junit_xml.Testcases(self.allow_xpass)
        self.cases: dict = {}
        self._repro: set[tuple[str, str]] | None = None  # keys of the reproducers written; None: repro/ not yet cleared
        if (self.folder / RESULTS).exists():
            self.add(read_records(self.folder / RESULTS))

    def add(self, records: Iterable[Record]) -> None:
        records = list(records)
        self.records += records
        self.testcases.add(records)

    def publish(self, meta: Mapping | None = None) -> dict:
        """(Re)write summary.json, summary.md, junit.xml, index.html and repro/; return the summary."""
        meta = dict(self.meta if meta is None else meta)
        summary = summarize(self.records, meta)
        write_json(self.folder / SUMMARY, summary)
        (self.folder / "summary.md").write_text(markdown(summary))
        self.testcases.write_file(self.folder / "junit.xml")
        if len(self.cases) < len({r.case_key for r in self.records}):
            self.cases = read_cases(self.folder)
        (self.folder / "index.html").write_text(page.render(self.records, summary, self.cases, self.sections))
        if self._repro is None:
            shutil.rmtree(self.folder / "repro", ignore_errors=True)
            self._repro = set()
        for r in self.records:
            if r.key not in self._repro and r.verdict.fails(self.allow_xpass):
                write_repro(self.folder, r, self.cases.get(r.case_key))
                self._repro.add(r.key)
        return summary


def publish(folder: Path, sections: Mapping[str, str], meta: Mapping | None = None) -> dict:
    """(Re)write every output of a run folder from its records; return the summary."""
    return Reports(folder, sections, meta).publish(meta)
