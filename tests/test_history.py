"""The support table across toolchains: statuses, changes between neighbouring versions, page and markdown."""
import re
import subprocess
from dataclasses import replace

import pytest
from test_reports import CHROMIUM

from suitegen.model import Diagnostic, Observed, Outcome, Phase, Verdict
from suitegen.report import history
from suitegen.report.history import build, render_markdown, render_page, status

from conftest import EVIL, a_record


def rec(version, rule, verdict, config="c++17,sm_90", reason="r", compiler="nvcc"):
    bad = Diagnostic(severity="error", message=f"bad {EVIL}", phase=Phase.CUDAFE)
    return a_record(config=replace(a_record().config, toolchain=f"{compiler}-{version}", nvcc_version=version),
                    section=rule.split("/")[0], rule=rule, verdict=Verdict(verdict), case_id=f"{rule}[v]",
                    config_id=config, reason=reason,
                    observed=Observed(outcome=Outcome.REJECTED, phase=Phase.CUDAFE, exit_code=2, diagnostics=(bad,),
                                      commands=(("nvcc", "-c", "main.cu"),)))


RECORDS = [
    rec("13.0.88", "demo/a", "PASS"), rec("13.0.88", "demo/a", "XFAIL", "c++20,sm_90"),
    rec("13.5.37", "demo/a", "PASS"), rec("13.5.37", "demo/a", "FAIL", "c++20,sm_90", reason=EVIL),
    rec("13.2.51", "demo/a", "PASS"), rec("13.2.51", "demo/a", "XFAIL", "c++20,sm_90"),
    rec("13.0.88", "demo/b", "UNSUPPORTED"), rec("13.2.51", "demo/b", "PASS"), rec("13.5.37", "demo/b", "PASS"),
]


def test_cell_status_from_verdict_counts():
    assert status({}) == "none" and status({"UNSUPPORTED": 2}) == "unsupported"
    assert status({"PASS": 2, "UNSUPPORTED": 1}) == "pass" and status({"XFAIL": 1}) == "deviation"
    assert status({"PASS": 1, "XFAIL": 1}) == "mixed"
    assert all(status({"PASS": 5, v: 1}) == "fail" for v in ("FAIL", "XPASS", "UNRESOLVED"))


def test_columns_are_versions_in_order_and_changes_come_between_neighbours():
    table = build(RECORDS, ["demo"])
    assert [v for _, v in table.columns] == ["13.0.88", "13.2.51", "13.5.37"], "by version, not by name"
    assert [(r.section, r.rule) for r in table.rows] == [("demo", None), ("demo", "demo/a"), ("demo", "demo/b")]
    changes = {(row.rule, table.columns[b][1]) for row, a, b in table.changes()}
    assert changes == {("demo/a", "13.5.37"), ("demo/b", "13.2.51")}
    md = render_markdown(table)
    assert md.index("Changes between neighbouring versions") < md.index("## Support")
    assert "- `demo/a`: nvcc-13.2.51 13.2.51 mixed -> nvcc-13.5.37 13.5.37 fail" in md
    assert "| `a` | partial (PASS 1, XFAIL 1) | partial (PASS 1, XFAIL 1) | FAIL (PASS 1, FAIL 1) |" in md


def test_the_page_escapes_and_shows_evidence_failures_first():
    page = render_page(build(RECORDS, ["demo"]))
    assert EVIL not in page and "&lt;/script&gt;" in page
    first = page.index("<details><summary>FAIL</summary>")
    assert page.index("FAIL demo/a[v] [c++20,sm_90]", first) < page.index("PASS demo/a[v] [c++17,sm_90]", first)
    assert page.count('class="change"') == 2


@pytest.mark.skipif(not CHROMIUM, reason="needs Debian's chromium (apt-get install chromium)")
def test_the_page_renders_in_headless_chromium(tmp_path):
    path = tmp_path / "history.html"
    path.write_text(render_page(build(RECORDS, ["demo"])))
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", path.as_uri()],
                          capture_output=True, text=True, timeout=120)
    dom = proc.stdout
    assert '<table id="history">' in dom, proc.stderr[-2000:]
    assert len(re.findall(r'<td class="s-fail">', dom)) == 2, "demo/a and its section on 13.5"
    assert len(re.findall(r'<li class="change">', dom)) == 2
    assert "onerror=alert" not in dom.replace("onerror=alert(1)&gt;", "")
    assert history.MARK["mixed"] in dom


def test_history_collects_existing_runs(run_folder, tmp_path, capsys):
    from suitegen.frontends.cli import main
    out = tmp_path / "history"
    assert main(["history", str(run_folder), "--out", str(out)]) == 0
    assert "1 toolchains" in capsys.readouterr().out
    md = (out / "history.md").read_text()
    assert "**demo**" in md and "| `no-long-double` |" in md
    assert '<table id="history">' in (out / "history.html").read_text()


def test_explain_bisects_each_change_between_two_nvcc_releases_only(tmp_path, monkeypatch):
    from suitegen.frontends import cli
    calls = []

    def fake_bisect(pattern, low, high, std, arch, flags, out):
        calls.append((pattern, low, high, std, arch))
        return f"boundary of {pattern} in {low}..{high}"

    monkeypatch.setattr(cli, "_bisect", fake_bisect)
    nvrtc = rec("13.5.37", "demo/b", "FAIL", compiler="nvrtc")
    md = cli._explain(build(RECORDS + [nvrtc]), tmp_path)  # every record under c++17, sm_90
    assert calls == [("demo/a", "13.2.51", "13.5.37", "c++17", "sm_90"), ("demo/b", "13.0.88", "13.2.51", "c++17", "sm_90")]
    assert "### `demo/a`: 13.2.51 -> 13.5.37" in md and "boundary of demo/b in 13.0.88..13.2.51" in md
    monkeypatch.setattr(cli, "_bisect", lambda *a: pytest.fail("nothing to bisect"))
    assert "No change between two nvcc releases." in cli._explain(build(RECORDS[:2]), tmp_path)


def test_dialect_rows_say_which_std_levels_each_release_honours(tmp_path):
    records = [replace(r, config=replace(r.config, nvcc=f"/tc/{r.config.nvcc_version}/nvcc", host_compiler="g++"))
               for r in RECORDS]
    table = build(records)
    history.dialects(table, records, lambda nvcc: {"c++17": None, "c++23": None if "13.5" in nvcc else "ignored <x>"})
    assert history.dialect_rows(table) == [("c++17", ["yes", "yes", "yes"]),
                                           ("c++23", ["no: ignored <x>", "no: ignored <x>", "yes"])]
    assert "| c++23 | no: ignored <x> | no: ignored <x> | yes |" in render_markdown(table)
    assert "no: ignored &lt;x&gt;" in render_page(table), "escaped"


def test_nvrtc_columns_come_last_and_are_compared_with_nvcc_of_their_release():
    nvrtc = [rec("13.0.88", "demo/a", v, config=c, compiler="nvrtc") for v, c in (("PASS", "c++17,sm_90"),
                                                                                  ("FAIL", "c++20,sm_90"))]
    table = build(RECORDS + nvrtc)
    assert table.columns[-1] == ("nvrtc-13.0.88", "13.0.88") and [v for _, v in table.columns[:3]] == [
        "13.0.88", "13.2.51", "13.5.37"]
    assert table.pairs() == [(0, 1), (1, 2), (0, 3)], "never NVRTC 13.0 against nvcc 13.5"
    assert ("demo/a", 0, 3) in {(row.rule, a, b) for row, a, b in table.changes()}
    assert "- `demo/a`: nvcc-13.0.88 13.0.88 mixed -> nvrtc-13.0.88 13.0.88 fail" in render_markdown(table)
