"""Rewrites every output of a run folder from its records: summary.json and .md, junit.xml, index.html, repro/."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Mapping

from suitegen.report import junit_xml, page
from suitegen.report.repro import write_repro
from suitegen.report.run_folder import META, RESULTS, SUMMARY, read_cases, read_records, write_json
from suitegen.report.summary import markdown, summarize


def publish(folder: Path, sections: Mapping[str, str], meta: Mapping | None = None) -> dict:
    """(Re)write summary.json, summary.md, junit.xml, index.html and repro/ from the folder's records."""
    folder = Path(folder)
    records = list(read_records(folder / RESULTS))
    if meta is None and (folder / META).exists():
        meta = json.loads((folder / META).read_text())
    meta = dict(meta or {})
    allow_xpass = bool(meta.get("allow_xpass"))
    summary = summarize(records, meta)
    write_json(folder / SUMMARY, summary)
    (folder / "summary.md").write_text(markdown(summary))
    junit_xml.write(records, folder / "junit.xml", allow_xpass=allow_xpass)
    cases = read_cases(folder)
    (folder / "index.html").write_text(page.render(records, summary, cases, sections))
    shutil.rmtree(folder / "repro", ignore_errors=True)
    for r in records:
        if r.verdict.fails(allow_xpass):
            write_repro(folder, r, cases.get(r.case_key))
    return summary
