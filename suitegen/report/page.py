"""The feature-matrix page: one self-contained HTML file, everything from outside escaped."""
from __future__ import annotations

import html
import json
from collections import Counter, defaultdict
from typing import Mapping, Sequence

from suitegen.judge.behaviour import sentence
from suitegen.model import Verdict
from suitegen.report.repro import obtained

VERDICT_ORDER = [v.value for v in Verdict]
STYLE = """
body{font:13px system-ui,sans-serif;margin:1em 2em;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}
th.sec{background:#eef;font-size:14px}td.case{font-family:monospace;white-space:nowrap}
td.v{cursor:pointer;text-align:center;font-weight:600}
.v-PASS{background:#c8f0c8}.v-FAIL{background:#f6a5a5}.v-XFAIL{background:#f8e08e}
.v-XPASS{background:#9fd3f7}.v-UNSUPPORTED{background:#e4e4e4;color:#666}.v-UNRESOLVED{background:#d6a8f0}
.v-none{background:#fff;color:#aaa}
#detail{position:fixed;right:0;top:0;bottom:0;width:45%;overflow:auto;background:#fafafa;
 border-left:2px solid #888;padding:1em;display:none}
pre{background:#fff;border:1px solid #ddd;padding:.5em;overflow:auto;white-space:pre-wrap}
.hidden{display:none}
"""
SCRIPT = """
function show(id,src){var d=document.getElementById('detail');d.innerHTML='';
 [id,src].forEach(function(x){var t=document.getElementById(x);if(t)d.appendChild(t.content.cloneNode(true));});
 d.style.display='block';}
function hideDetail(){document.getElementById('detail').style.display='none';}
function applyFilters(){var s=document.getElementById('f-section').value;
 var v=document.getElementById('f-verdict').value;
 document.querySelectorAll('#matrix tbody tr').forEach(function(tr){
  var okS=!s||tr.dataset.section===s;var okV=!v||tr.classList.contains('sec')||
   (' '+tr.dataset.verdicts+' ').indexOf(' '+v+' ')>=0;
  tr.classList.toggle('hidden',!(okS&&okV));});}
"""


def esc(value) -> str:
    return html.escape(str(value), quote=True)


def _config_label(r: dict) -> tuple:
    cfg = r["config"]
    return (cfg["toolchain"], cfg["fingerprint"], cfg["std"], cfg["arch"], " ".join(cfg["flags"]))


def _column_title(col: tuple, several: bool) -> str:
    toolchain, fp, std, arch, flags = col
    parts = ([f"{toolchain} ({fp[:8]})"] if several else []) + [std, arch] + ([flags] if flags else [])
    return " ".join(parts)


def _sources(case: Mapping | None, anchor: str) -> str:
    """Return the template holding a case's files, shared by all of its cells."""
    if not case:
        return f'<template id="{anchor}"><p>(sources not recorded)</p></template>'
    flags = " ".join(case.get("flags", []))
    parts = [f"<h4>{esc(name)}</h4><pre>{esc(text)}</pre>" for name, text in case["files"].items()]
    return f'<template id="{anchor}">' + (f"<p>case flags: {esc(flags)}</p>" if flags else "") + "".join(parts) \
        + "</template>"


def _detail(r: dict, anchor: str) -> str:
    obs = r.get("observed") or {}
    parts = [f"<h3>{esc(r['case_id'])}</h3>", f"<p><b>{esc(r['verdict'])}</b>: {esc(r['reason'])}</p>",
             f"<p>config: {esc(r['config_id'])} on {esc(r['config']['toolchain'])} "
             f"{esc(r['config']['nvcc_version'])} (fingerprint {esc(r['config']['fingerprint'])})</p>",
             f"<p>expected: <code>{esc(json.dumps(r['expected']))}</code></p>"]
    if obs:
        parts.append(f"<p>observed: {esc(obs.get('outcome'))} in {esc(obs.get('phase'))}, "
                     f"exit {esc(obs.get('exit_code'))}; verdict obtained {esc(obtained(r))}</p>")
        parts.append("<h4>command</h4><pre>" + esc("\n".join(" ".join(c) for c in obs.get("commands", [])))
                     + "</pre>")
        diags = "\n".join(f"{d['severity']}: {d.get('file') or ''}({d.get('line') or ''}) [{d['phase']}] "
                          f"{d['message']}" for d in obs.get("diagnostics", []))
        parts.append("<h4>diagnostics</h4><pre>" + esc(diags or "(none)") + "</pre>")
    if r.get("execution"):
        ex = r["execution"]
        parts.append(f"<h4>execution on {esc(ex['gpu'])}</h4><pre>{esc(ex['status'])}: {esc(ex['detail'])}\n"
                     f"{esc(ex['output'])}</pre>")
    seen = r.get("observed_config")
    if seen:
        sides = f"host __cplusplus {seen['host_cplusplus']}, device {seen['device_cplusplus']}, " \
                f"__CUDA_ARCH__ {seen['cuda_arch']}, module {seen['targets']}, macros {seen['macros']}"
        parts.append("<h4>what the build did under this config</h4><pre>"
                     + esc(seen["error"] or sides) + "".join(esc(f"\n{w}") for w in seen["warnings"]) + "</pre>")
    if r.get("behaviour"):
        b = r["behaviour"]
        parts.append(f"<p>behaviour: {esc(b['check'])} ({esc(b['what'])}): "
                     f"{'ran' if b['ran'] else 'did not run'}"
                     + (f"; the driver loaded {esc(b['loaded'])}" if b.get("loaded") else "") + "</p>")
    if r.get("deviation"):
        parts.append(f"<h4>known deviation</h4><pre>{esc(json.dumps(r['deviation'], indent=1))}</pre>")
    return f'<template id="{anchor}">' + "".join(parts) + "</template>"


def render(records: Sequence[dict], summary: Mapping, cases: Mapping[str, Mapping],
           sections: Mapping[str, str]) -> str:
    """Return the page for one run: summary, differences between toolchains, then the matrix."""
    several = len({r["config"]["fingerprint"] for r in records}) > 1
    columns = sorted({_config_label(r) for r in records})
    col_index = {c: i for i, c in enumerate(columns)}
    rows: dict[tuple, dict] = defaultdict(dict)
    for r in records:
        rows[(r["section"], r["case_id"])][col_index[_config_label(r)]] = r
    order = {k: i for i, k in enumerate(sections)}
    details: list[str] = []
    out = [f"<!doctype html><html><head><meta charset='utf-8'><title>suitegen {esc(summary.get('run_id', ''))}"
           f"</title><style>{STYLE}</style></head><body>",
           f"<h1>suitegen feature matrix <small>{esc(summary.get('run_id', ''))}</small></h1>",
           _summary_block(summary), _differences(rows, columns, several)]
    out.append(_filters(sorted({s for s, _ in rows}, key=lambda s: (order.get(s, 1e9), s))))
    out.append("<table id='matrix'><thead><tr><th>case</th>"
               + "".join(f"<th>{esc(_column_title(c, several))}</th>" for c in columns) + "</tr></thead><tbody>")
    current = None
    for (section, case_id) in sorted(rows, key=lambda k: (order.get(k[0], 1e9), k[0], k[1])):
        if section != current:
            current = section
            tally = Counter(r["verdict"] for (s, _), cells in rows.items() if s == section for r in cells.values())
            counts = ", ".join(f"{v} {tally[v]}" for v in VERDICT_ORDER if tally[v])
            out.append(f"<tr class='sec' data-section='{esc(section)}'><th class='sec' colspan='{len(columns) + 1}'>"
                       f"{esc(section)}: {esc(sections.get(section, ''))} ({esc(counts)})</th></tr>")
        cells = rows[(section, case_id)]
        verdicts = " ".join(sorted({r["verdict"] for r in cells.values()}))
        first = next(iter(cells.values()))
        statement = (cases.get(first["case_key"]) or {}).get("statement", "")
        src = f"s{len(details)}"
        details.append(_sources(cases.get(first["case_key"]), src))
        out.append(f"<tr data-section='{esc(section)}' data-verdicts='{esc(verdicts)}'>"
                   f"<td class='case' title='{esc(statement)}'>{esc(case_id)}</td>")
        for i in range(len(columns)):
            r = cells.get(i)
            if r is None:
                out.append("<td class='v v-none'>-</td>")
                continue
            anchor = f"d{len(details)}"
            details.append(_detail(r, anchor))
            out.append(f"<td class='v v-{esc(r['verdict'])}' title='{esc(r['reason'][:300])}' "
                       f"onclick=\"show('{anchor}','{src}')\">{esc(r['verdict'])}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    out.append("<div id='detail' onclick='if(event.target===this)hideDetail()'></div>")
    out.extend(details)
    out.append(f"<script>{SCRIPT}</script></body></html>")
    return "\n".join(out)


def _summary_block(summary: Mapping) -> str:
    counts = summary.get("counts", {})
    cells = "".join(f"<td class='v-{esc(v)}'>{esc(v)} <b id='count-{esc(v)}'>{esc(counts.get(v, 0))}</b></td>"
                    for v in VERDICT_ORDER)
    tcs = "".join(f"<li>{esc(t['label'])} {esc(t['version'])} at {esc(t['nvcc'])}; host {esc(t['host_version'])};"
                  f" fingerprint {esc(t['fingerprint'])}</li>" for t in summary.get("toolchains", []))
    gpu = summary.get("gpu") or {}
    gpu_text = "; ".join(gpu.get("devices") or []) or f"none ({gpu.get('reason', '')})"
    return (f"<table id='summary'><tr>{cells}</tr></table>"
            f"<p>{esc(summary.get('results', 0))} results, {esc(summary.get('cases', 0))} cases, "
            f"{esc(summary.get('configs', 0))} configs. Started {esc(summary.get('started', ''))}, "
            f"wall {esc(summary.get('wall_seconds', ''))} s. GPU: {esc(gpu_text)}. "
            f"Execution: {esc(summary.get('execution', ''))}.</p>"
            + (f"<p id='behaviour'>{esc(sentence(summary['behaviour']))}.</p>" if "behaviour" in summary else "")
            + f"<ul>{tcs}</ul>")


def _differences(rows, columns, several: bool) -> str:
    if not several:
        return ""
    diffs = []
    by_setting = defaultdict(list)
    for i, c in enumerate(columns):
        by_setting[c[2:]].append(i)  # same std, arch, flags on different toolchains
    for (section, case_id), cells in sorted(rows.items()):
        for setting, idxs in by_setting.items():
            got = [(columns[i][0], cells[i]["verdict"]) for i in idxs if i in cells]
            if len({v for _, v in got}) > 1:
                diffs.append(f"<tr><td class='case'>{esc(case_id)}</td><td>{esc(' '.join(setting))}</td>"
                             + "".join(f"<td class='v-{esc(v)}'>{esc(t)}: {esc(v)}</td>" for t, v in got) + "</tr>")
    body = "".join(diffs) or "<tr><td>no verdict differs between the toolchains</td></tr>"
    return f"<h2>Differences between toolchains ({len(diffs)})</h2><table id='differences'>{body}</table>"


def _filters(section_keys) -> str:
    sec = "".join(f"<option value='{esc(s)}'>{esc(s)}</option>" for s in section_keys)
    ver = "".join(f"<option value='{esc(v)}'>{esc(v)}</option>" for v in VERDICT_ORDER)
    return (f"<p>section <select id='f-section' onchange='applyFilters()'><option value=''>all</option>{sec}</select>"
            f" verdict <select id='f-verdict' onchange='applyFilters()'><option value=''>all</option>{ver}"
            f"</select></p>")
