"""Run outputs: JUnit counts equal the summary, the page escapes everything, reproducers are complete."""
import json
import re
from collections import Counter
import shutil
import subprocess
from dataclasses import replace
from html.parser import HTMLParser

import pytest
from junitparser import JUnitXml

from suitegen.frontends.cli import main
from suitegen.report import junit_xml as junit

from conftest import EVIL


def test_junit_counts_match_summary(run_folder):
    summary = json.loads((run_folder / "summary.json").read_text())
    xml = JUnitXml.fromfile(str(run_folder / "junit.xml"))
    c = junit.counts(xml)
    k = summary["counts"]
    assert c["tests"] == summary["results"] == 6
    assert c["failures"] == k["FAIL"] == 2 and c["errors"] == k["UNRESOLVED"]
    assert c["skipped"] == k["XFAIL"] + k["UNSUPPORTED"]
    # the counts the file states, per suite and in all, are those of its testcases
    assert (xml.tests, xml.failures, xml.errors, xml.skipped) == (c["tests"], c["failures"], c["errors"], c["skipped"])
    for suite in xml:
        cases = list(suite)
        assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (
            len(cases), sum(t.is_failure for t in cases), sum(t.is_error for t in cases),
            sum(t.is_skipped for t in cases))
    case = next(tc for suite in xml for tc in suite if tc.is_failure)
    assert "expected" in case.result[0].text and "command:" in case.result[0].text


def test_junit_merge_keeps_counts(run_folder, tmp_path, capsys):
    assert main(["junit", "merge", str(tmp_path / "m.xml"), str(run_folder / "junit.xml"),
                 str(run_folder / "junit.xml")]) == 0
    assert junit.counts(JUnitXml.fromfile(str(tmp_path / "m.xml")))["tests"] == 12


def test_repro_folder_reruns_without_suitegen(run_folder):
    repros = sorted((run_folder / "repro").iterdir())
    assert len(repros) == 2  # the two FAILs (pos-host under two -std levels)
    r = repros[0]
    assert (r / "main.cu").exists() and (r / "expected-vs-observed.txt").exists()
    script = (r / "run.sh").read_text()
    assert "-std=c++" in script and "main.cu" in script
    proc = subprocess.run(["sh", str(r / "run.sh")], capture_output=True, text=True)
    assert "long double is not supported" in proc.stdout  # the same fake nvcc, same output
    told = (r / "expected-vs-observed.txt").read_text()
    assert "obtained: from this item's own single-case command" in told, "a FAIL comes from the command it reruns"
    assert any("verdict obtained from this item" in d.get("observed", "") for d in page_details(run_folder))


def page_blocks(folder):
    """Return the decoded per-section data blocks of a run's page."""
    from suitegen.report.page import unpack
    text = (folder / "index.html").read_text()
    return [unpack(b) for b in re.findall(r"<script type='application/octet-stream' id='data-\d+'>([^<]*)</script>", text)]


def page_details(folder):
    return [x[2] for data in page_blocks(folder) for rule in data["rules"].values()
            for case in rule["cases"].values() for x in case["results"]]


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.scripts, self.imgs = [], 0

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.scripts.append(dict(attrs).get("type"))
        self.imgs += tag == "img"


def test_page_escapes_and_counts(run_folder):
    """Case text travels only inside the compressed section data (drawn with textContent); every result is
    there once; the overview's counts add up to the summary's."""
    page = (run_folder / "index.html").read_text()
    assert EVIL not in page
    parsed = _Tags()
    parsed.feed(page)
    assert parsed.scripts[-1] is None and set(parsed.scripts[:-1]) == {"application/octet-stream"}
    assert parsed.imgs == 0, "no element from case text"
    blocks = page_blocks(run_folder)
    assert any(EVIL in text for data in blocks for src in data["sources"].values() for _, text in src["files"])
    summary = json.loads((run_folder / "summary.json").read_text())
    got = Counter(d["verdict"] for d in page_details(run_folder))
    assert got == Counter({v: n for v, n in summary["counts"].items() if n})
    totals = Counter()
    for row in re.findall(r"<tr class='sec'.*?</tr>", page, re.S):
        title = re.findall(r"title='([^']*)'", row)[0]  # the row's "all" cell
        totals.update({v: int(n) for v, n in (part.rsplit(" ", 1) for part in title.split(", "))})
    assert totals == got


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(not CHROMIUM, reason="needs Debian's chromium (apt-get install chromium)")
def test_page_renders_in_headless_chromium(run_folder, tmp_path):
    """Opened with every section, rule and case drawn (``#all``), at 1,400 px: one cell per result, the
    summary's counts, no sideways scroll, and case text drawn as text."""
    dom = chromium_dom(run_folder / "index.html", tmp_path)
    assert 'id="overview"' in dom
    summary = json.loads((run_folder / "summary.json").read_text())
    for verdict, n in summary["counts"].items():
        assert len(re.findall(rf'<td class="v v-{verdict}"', dom)) == n, verdict
        assert f'id="count-{verdict}">{n}<' in dom
    width = int(re.search(r'data-done="(\d+)"', dom).group(1))
    assert width <= 1400
    assert "onerror=alert" not in dom.replace("onerror=alert(1)&gt;", "")


def chromium_dom(page, tmp_path, hash_="#all"):
    """Return the DOM of ``page`` after its scripts ran, in headless Chromium 1,400 px wide."""
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                           "--no-first-run", "--disable-background-networking", "--disable-component-update",
                           "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1400,900",
                           "--virtual-time-budget=10000", "--dump-dom", page.as_uri() + hash_],
                          capture_output=True, text=True, timeout=120)
    assert "data-done=" in proc.stdout, proc.stderr[-2000:]
    return proc.stdout


@pytest.mark.skipif(not CHROMIUM, reason="needs Debian's chromium (apt-get install chromium)")
def test_a_nightly_sized_page_stays_small_fast_and_narrow(run_folder, tmp_path):
    """37,800 results over 16 -std/arch columns and four flag sets: under 5 MB, the load event within 2 s of
    navigation, and no sideways scroll at 1,400 px (benchmarks/page_scale.py measures real runs)."""
    from suitegen.oracle import loader
    from suitegen.report import page
    from suitegen.report.run_folder import read_cases, read_records
    from suitegen.report.summary import summarize
    base = list(read_records(run_folder / "results.jsonl"))
    records = []
    for k in range(6300 // len(base) * 6):
        std, arch = ("c++11", "c++14", "c++17", "c++20")[k % 4], ("sm_80", "sm_90", "compute_90", "sm_80+sm_90")[k // 4 % 4]
        flags = ((), ("--extended-lambda",), ("-rdc=true",), ("--expt-relaxed-constexpr",))[k // 16 % 4]
        records += [replace(r, config=replace(r.config, std=std, arch=arch, flags=flags),
                            config_key=f"{r.config_key}-{k}", case_id=f"{r.case_id}-{k // 64}") for r in base]
    html = page.render(records, summarize(records), read_cases(run_folder), loader.load().sections)
    assert len(records) >= 37_000 and len(html) < 5e6
    f = tmp_path / "index.html"
    f.write_text(html)
    dom = chromium_dom(f, tmp_path, hash_="")
    width, ms = (int(x) for x in re.search(r'data-done="(\d+)" data-ms="(\d+)"', dom).groups())
    assert width <= 1400 and ms < 2000


def test_reports_kept_as_records_come_are_those_made_from_the_file(run_folder, tmp_path):
    """A run adds its records to its reports as they come; what it writes is what a rebuild from the file writes."""
    from suitegen.report.outputs import Reports, publish
    from suitegen.report.run_folder import RESULTS, read_records
    records = list(read_records(run_folder / RESULTS))
    assert any(r.verdict.value == "FAIL" for r in records) and len(records) > 2
    kept = tmp_path / "kept"
    kept.mkdir()
    for name in ("run.json", "cases.jsonl"):
        shutil.copy(run_folder / name, kept / name)
    reports = Reports(kept, {})
    half = len(records) // 2
    reports.add(records[:half])
    reports.publish()  # a checkpoint halfway
    reports.add(records[half:])
    reports.publish()
    publish(run_folder, {})
    for name in ("junit.xml", "summary.json", "index.html"):
        assert (kept / name).read_bytes() == (run_folder / name).read_bytes(), name
    assert sorted(p.name for p in (kept / "repro").iterdir()) == sorted(p.name for p in (run_folder / "repro").iterdir())


def test_the_page_tables_each_math_checks_largest_error_beside_its_bound(run_folder):
    """A math check's run detail (``checks.SUMMARY``) becomes a row of the page's accuracy table, past the bound
    and nearest the bound first; a run of anything else adds none."""
    from suitegen.execute.checks import SUMMARY
    from suitegen.model import ExecResult, ExecStatus, Verdict
    from suitegen.oracle import loader
    from suitegen.report import page
    from suitegen.report.run_folder import read_cases, read_records
    from suitegen.report.summary import summarize
    base = next(iter(read_records(run_folder / "results.jsonl")))

    def math(case, found, bound, verdict="PASS"):
        run = ExecResult(status=ExecStatus.PASSED, exit_code=0, duration=0.1, output="", gpu="GPU 0", command=(),
                         detail=SUMMARY.format(found=found, bound=bound, checked=1000, n=1083))
        return replace(base, case_id=case, case_key=case, execution=run, verdict=Verdict(verdict))
    records = [base, math("math-functions/sinf[run-default]", "1 ulp", "2 ulp"),
               math("math-functions/hypot[run-default]", "inf ulp", "2 ulp", "XFAIL"),
               math("math-intrinsics/cosf[run-default]", "absolute 3.5e-07", "absolute 3.589e-07"),
               math("math-intrinsics/fadd_rn[run-default]", "0 ulp", "0 ulp")]
    rows = page._accuracy(records)
    assert [r["case"].split("/")[1] for r in rows] == ["hypot[run-default]", "cosf[run-default]",
                                                       "sinf[run-default]", "fadd_rn[run-default]"]
    assert [r["share"] for r in rows] == ["past the bound", "98%", "50%", "0%"]
    html = page.render(records, summarize(records), read_cases(run_folder), loader.load().sections)
    assert "Math functions: the largest error found" in html and "1,000 of 1,083" in html
    assert "largest error found" not in page.render([base], summarize([base]), read_cases(run_folder),
                                                     loader.load().sections)
