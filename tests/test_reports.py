"""Run outputs: JUnit counts equal the summary, the page escapes everything, reproducers are complete."""
import json
import re
import shutil
import subprocess
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
    assert "verdict obtained from this item" in (run_folder / "index.html").read_text()


class _Cells(HTMLParser):
    def __init__(self):
        super().__init__()
        self.cells, self.scripts, self.imgs = [], 0, 0

    def handle_starttag(self, tag, attrs):
        cls = dict(attrs).get("class") or ""
        if tag == "td" and cls.startswith("v v-"):
            self.cells.append(cls.split("v-", 1)[1])
        self.scripts += tag == "script"
        self.imgs += tag == "img"


def test_page_escapes_and_counts(run_folder):
    page = (run_folder / "index.html").read_text()
    assert EVIL not in page and "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in page
    parsed = _Cells()
    parsed.feed(page)
    assert parsed.scripts == 1 and parsed.imgs == 0, "only our own script; no element from case text"
    summary = json.loads((run_folder / "summary.json").read_text())
    for verdict, n in summary["counts"].items():
        assert parsed.cells.count(verdict) == n


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(not CHROMIUM, reason="needs Debian's chromium (apt-get install chromium)")
def test_page_renders_in_headless_chromium(run_folder, tmp_path):
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                           "--no-first-run", "--disable-background-networking", "--disable-component-update",
                           "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
                           (run_folder / "index.html").as_uri()], capture_output=True, text=True, timeout=120)
    dom = proc.stdout
    assert "<table id=\"matrix\">" in dom, proc.stderr[-2000:]
    summary = json.loads((run_folder / "summary.json").read_text())
    for verdict, n in summary["counts"].items():
        assert len(re.findall(rf'<td class="v v-{verdict}"', dom)) == n
        assert f'id="count-{verdict}">{n}<' in dom
    assert "onerror=alert" not in dom.replace("onerror=alert(1)&gt;", "")
