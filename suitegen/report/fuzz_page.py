"""Writes a fuzz campaign's report: a self-contained page of findings by class, and one folder per reproducer."""
from __future__ import annotations

import html
import json
import statistics
from pathlib import Path

from suitegen.execute import sanitizer
from suitegen.model import FILED, HARNESS, PROGRAM_FAULT


def distinct_bugs(findings: list[dict]) -> dict[str, dict]:
    """Return the distinct bugs among a campaign's filed findings, by bucket, each its shortest reproducer's finding:
    two reductions of one bug land in one bucket. A bug is known where its first finding was (the database held its
    bucket before this campaign filed it)."""
    out: dict[str, dict] = {}
    for f in findings:
        if f["kind"] in FILED and f.get("bucket"):
            first = out.setdefault(f["bucket"], f)
            if f.get("reproducer") and (f.get("lines") or 0) < (first.get("lines") or 0):
                out[f["bucket"]] = dict(f, known=first.get("known"))
    return out


def headline(wrong: int, findings: list[dict]) -> str:
    """Return a campaign's last word: its wrong programs, its distinct bugs (new and known), refusals, and what it
    does not claim."""
    bugs = distinct_bugs(findings)
    ours = sum(f["kind"] == PROGRAM_FAULT for f in findings)
    unclaimed = sum(f["kind"] == HARNESS for f in findings)
    return (f"{wrong} wrong programs, {len(bugs)} distinct bugs ({sum(bool(f.get('known')) for f in bugs.values())} "
            f"of them known), {sum(f['kind'] == 'build' for f in findings)} kinds of refusal of valid programs"
            + (f"; {ours} programs at fault themselves (undefined behaviour: suitegen's defect, not a finding)"
               if ours else "")
            + (f"; {unclaimed} wrong only as the campaign runs them (right as a file built alone: not claimed)"
               if unclaimed else ""))


def reproducers(findings: list[dict]) -> str | None:
    """Return what a compiler engineer is handed, in a line: the distinct bugs' reproducers (each the whole file), how
    many reproduce built alone twice (a crash: built again), how many of those that run are clean under the
    sanitizers that judged the program (compute-sanitizer on the right build, the host's ASan and UBSan; the wrong
    build's own fault aside; none judged is not clean), how many are ranged over releases. None where no bug has a
    reproducer."""
    bugs = [f for f in distinct_bugs(findings).values() if f.get("reproducer")]
    if not bugs:
        return None
    lines = sorted(f["reproducer"].count("\n") for f in bugs)
    run = [f for f in bugs if f["kind"] != "crash"]

    def clean(f: dict) -> bool:
        bad = str(f.get("bad") or "")
        judged = [v for b, v in (f.get("sanitizer") or {}).items() if b != bad and not b.endswith(f" {bad}")]
        return bool(judged) and all(sanitizer.clean(v) for v in judged)
    return (f"Reproducers of the {len(bugs)} distinct bugs: median {statistics.median(lines):g} lines, at most "
            f"{lines[-1]} (each the whole file); "
            f"{sum(f.get('reproduces', f.get('reduced_still_differs')) is True for f in bugs)} reproduce built alone "
            f"twice, {sum(clean(f) for f in run)} of the {len(run)} that run are clean under the sanitizers, "
            f"{sum(bool(f.get('releases')) for f in bugs)} are ranged over releases" +
            (f", {alike} of them alike in stage, builds and releases (perhaps fewer bugs)" if
             (alike := sum(bool(f.get("alike")) for f in bugs)) else ""))


def write(out: Path, state: dict, findings: list[dict]) -> Path:
    """Write ``findings.json``, ``repro/<bucket>/``, ``findings.md`` (the distinct bugs, a table to publish as it is)
    and ``index.html`` under ``out``; return the page."""
    (out / "findings.json").write_text(json.dumps(findings, indent=1))
    (out / "findings.md").write_text("\n".join(header(state, findings) + table(findings)) + "\n")
    for f in distinct_bugs(findings).values():  # a bug's shortest reproducer (those not claimed stay in findings.json)
        if f.get("reproducer"):
            folder = out / "repro" / f["bucket"]
            folder.mkdir(parents=True, exist_ok=True)
            suffix = "cpp" if str(f.get("bad", "")).startswith("host-") else "cu"
            (folder / f"repro.{suffix}").write_text(f["reproducer"])
            (folder / "README.txt").write_text(_readme(f))
            (folder / "report.md").write_text(_markdown(f, suffix))
    page = out / "index.html"
    page.write_text(_page(state, findings))
    return page


def _readme(f: dict) -> str:
    return (f"{f['kind']}: {f['stage']}\nwrong under: {', '.join(f['failing'])}; right under: "
            f"{', '.join(f['passing']) or 'none'}\ntoolchain: nvcc {f['toolchain']}\n"
            f"{_origin(f)}\n"
            + "".join(f"  {o}\n" for o in f.get("observed", []))
            + (f"the reduced program under every build: {_rejudged(f)}\n" if f.get("reduced") else "")
            + "".join(f"the reproducer built alone under {b} prints: {r}\n" for b, r in f.get("standalone", {}).items())
            + "\n" + "\n".join(f.get("commands", [])) + "\n")


def _origin(f: dict) -> str:
    """Where a finding's program came from, and how far it was reduced."""
    if f.get("source"):  # a file of one's own (``fuzz --reduce FILE``)
        return f"the file {f['source']}, reduced from {f['lines_before']} to {f['lines']} lines"
    return (f"program {f['index']} of seed {f['seed']!r} (policy {f['policy']}), reduced from "
            f"{f['original_size']} to {f['size']} nodes ({f['lines']} lines)")


def _rejudged(f: dict) -> str:
    """Where a finding's reduced program is wrong and where right, judged again under every build."""
    return (f"wrong under {', '.join(f['reduced']['failing']) or 'none'}; "
            f"right under {', '.join(f['reduced']['passing']) or 'none'}")


def _markdown(f: dict, suffix: str) -> str:
    """Return a finding as markdown to paste into a bug tracker: what goes wrong, where, how to see it, the source."""
    if f["kind"] == "crash":
        title = f"{f['stage']}: the compiler crashes on a {f['lines']}-line program (nvcc {f['toolchain']})"
        what = [f"The build crashes: `{(f.get('log') or '').strip().splitlines()[-1] if f.get('log') else ''}`"]
    else:
        title = (f"{f['stage']}: wrong result under {', '.join(f['failing'])}, right under "
                 f"{', '.join(f['passing']) or 'no build'} (nvcc {f['toolchain']})")
        what = ["Expected and observed values (the first cells that differ):", "",
                *(f"- {o}" for o in f.get("observed", []) or ["(not recorded)"])]
    builds = [f"- wrong under: {', '.join(f['failing'])}; right under: {', '.join(f.get('passing') or []) or 'none'}"]
    if f.get("reduced"):
        builds.append(f"- the reduced program, judged again under every build: {_rejudged(f)}")
    builds += [f"- built alone under {b}, the reproducer prints: {r}" for b, r in f.get("standalone", {}).items()]
    if f.get("reproduces") is not None:
        builds.append("- built alone and run twice under each build: " +
                      ("the same cells wrong both times" if f["reproduces"] else "it does not show the bug")
                      + ("; their values varied from run to run" if f.get("varies") else ""))
    if f.get("seen"):
        builds.append(f"- as the campaign built the program it drew: wrong under {', '.join(f['seen']['failing'])}; "
                      f"right under {', '.join(f['seen']['passing']) or 'none'}")
    builds += [f"- target {t}: {v}" for t, v in (f.get("targets") or {}).items()]
    builds += [f"- {'AddressSanitizer and UBSan, host' if b == 'host-asan' else 'compute-sanitizer, ' + b} "
               f"build: {shown(b, r)}" for b, r in (f.get("sanitizer") or {}).items() if r]
    builds += [f"- ptxas -v on the kernel, {b} build: {r}" for b, r in (f.get("stack") or {}).items() if r]
    if f.get("releases"):
        builds.append(f"- releases: {f['releases']}")
    if f.get("alike"):
        builds.append(f"- the same stage, builds and releases as {', '.join(f['alike'])}: perhaps one bug, whose "
                      "reduced programs differ")
    return "\n".join([f"# {title}", "", *what, "", "## Builds", "", *builds, "", "## Reproduce", "", "```sh",
                      *f.get("commands", []), "```", "", f"## Source (`repro.{suffix}`, {f['lines']} lines)", "",
                      "```cuda" if suffix == "cu" else "```cpp", f["reproducer"].rstrip(), "```", ""])


def header(state: dict, findings: list[dict]) -> list[str]:
    """Return the markdown lines that head a campaign's ``findings.md``: its title, what it checked, its last line."""
    t = state["tally"]
    rate = t["generated"] / t["seconds"] if t["seconds"] else 0.0
    handed = reproducers(findings)
    last = [headline(t["wrong"], findings) + ".", ""] + ([handed + ".", ""] if handed else [])
    if state.get("source"):  # a file of one's own
        return [f"# suitegen fuzz --reduce {state['source']}: nvcc {state['toolchain']}", "",
                f"Judged under {', '.join(state['builds'])}.", "", *last]
    if state.get("programs") and not t["generated"]:  # ``--programs``: no campaign, chosen programs of a seed
        return [f"# suitegen fuzz, seed {state['seed']}: nvcc {state['toolchain']}", "",
                f"Programs {', '.join(map(str, state['programs']))} of the seed confirmed and reduced "
                f"(`--programs`, no campaign); builds {', '.join(state['builds'])}.", "", *last]
    return [f"# suitegen fuzz, seed {state['seed']}: nvcc {state['toolchain']}", "",
            f"Builds {', '.join(state['builds'])}; policy {state.get('policy') or 'each program draws one'}. "
            f"{t['generated']} programs, {t['ran']} run on the GPU, {t['host_checked']} checked on the host, in "
            f"{t['seconds']:.0f} s of checking ({rate:.1f} programs/s).", "", *last]


def shown(build: str, word: str) -> str:
    """A sanitizer's word on a finding's build as a report shows it: the host's as it is, compute-sanitizer's with its
    tools (``sanitizer.said``)."""
    return word if build == "host-asan" else sanitizer.said(word)


def what_goes_wrong(f: dict) -> str:
    """A bug in a table cell: a crash's last line, else the first wrong cells."""
    if f["kind"] == "crash" and f.get("log"):
        return "crash: " + f["log"].strip().splitlines()[-1][:80]
    return "; ".join(f.get("observed") or [])[:120]


def table(findings: list[dict], folder: str = "") -> list[str]:
    """Return the markdown rows of a campaign's distinct bugs (links to ``folder``/repro/): what goes wrong, where, its
    reproducer's size, whether it reproduced alone and what the sanitizers said, its release range; then what it does
    not claim."""
    lines = ["| bug | | stage | what goes wrong | wrong under | right under | lines | alone, twice | sanitizers "
             "| releases |", "|---|---|---|---|---|---|---|---|---|---|"]
    for key, f in distinct_bugs(findings).items():
        what = what_goes_wrong(f)
        where = f.get("reduced") or f
        clean = ", ".join(f"{b}: {shown(b, r)}" for b, r in (f.get("sanitizer") or {}).items() if r) or "-"
        alone = {True: "yes", False: "no"}.get(f.get("reproduces"), "-")
        lines.append(f"| [`{key}`]({folder}repro/{key}/report.md) | {'known' if f.get('known') else 'new'} "
                     f"| {f['stage']} | {what} | {', '.join(where['failing'])} | {', '.join(where.get('passing') or []) or '-'} "
                     f"| {f.get('lines', '-')} | {alone} | {clean} | {f.get('releases') or '-'} |")
    others = [f for f in findings if f["kind"] not in (*FILED, "build", "repeat")]
    if others:
        lines += ["", "Not claimed:", ""]
        lines += [f"- program {f.get('index')}: {f['kind']}" + (f": {f['why']}" if f.get("why") else "")
                  for f in others]
    return lines


def _page(state: dict, findings: list[dict]) -> str:
    t = state["tally"]
    rows = []
    order = {"wrong-code": 0, "crash": 1, "build": 2, "repeat": 3, "flaky": 4}
    for f in sorted(findings, key=lambda f: (order.get(f["kind"], 9), f.get("stage", ""))):
        if f["kind"] == "wrong-code":
            head = (f"{'known' if f.get('known') else 'new'} · {html.escape(f['stage'])} · wrong under "
                    f"{html.escape(', '.join(f['failing']))} · "
                    f"{html.escape(Path(f['source']).name) if f.get('source') else 'program ' + str(f['index'])} · "
                    f"{f['lines']} lines")
            body = (f"<pre>{html.escape(_readme(f))}</pre><pre>{html.escape(f['reproducer'])}</pre>")
        elif f["kind"] in ("crash", "build"):
            head = f"{f['kind']} · build {html.escape(f['build'])} · file {f['file']}" + (
                f" · {f['count']} programs refused alike (first: {', '.join(map(str, f['programs'][:5]))})"
                if f.get("count", 1) > 1 else "")
            body = f"<pre>{html.escape(' '.join(f['argv']))}\n\n{html.escape(f['log'])}</pre>"
        elif f["kind"] == "repeat":
            head = f"{f['count']} more programs wrong under {html.escape(', '.join(f['failing']))} (not reduced)"
            body = ""
        else:
            head = f"{f['kind']} · program {f.get('index')}"
            body = f"<pre>{html.escape(json.dumps(f, indent=1))}</pre>"
        rows.append(f"<details><summary>{head}</summary>{body}</details>")
    summary = (f"seed {html.escape(str(state['seed']))} · nvcc {html.escape(state['toolchain'])} · builds "
               f"{html.escape(', '.join(state['builds']))} · {t['generated']} programs, {t['ran']} run on the GPU, "
               f"{t['host_checked']} checked on the host, {t['seconds']:.0f} s · {t['wrong']} wrong, "
               f"{t['build_failures']} build failures")
    return ("<!doctype html><meta charset=utf-8><title>suitegen fuzz</title><style>body{font:14px sans-serif;"
            "max-width:1100px;margin:1em auto}pre{background:#f6f6f6;padding:.5em;overflow-x:auto}"
            "summary{cursor:pointer;padding:.2em}</style><h1>suitegen fuzz</h1>"
            f"<p>{summary}</p><p>{html.escape(headline(t['wrong'], findings))}. "
            f"{html.escape(reproducers(findings) or '')}</p>"
            f"<h2>Findings ({len(findings)})</h2>" + ("".join(rows) or "<p>none</p>"))
