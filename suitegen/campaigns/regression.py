"""Saves a confirmed fuzz finding as an oracle case, so qualification keeps checking it on later toolkits.

A finding becomes a rule of section ``fuzz-findings`` with one runtime variant (the reproducer: every output
cell must equal its value under C++ semantics, as the model computed it), the reproducer as its template,
and a deviation for the releases and target where it was seen wrong. When a later toolkit fixes the bug
the deviation goes stale and the run says so (XPASS); the trace counts these rules apart from the guide's.
"""
from __future__ import annotations

import json
from pathlib import Path

from suitegen.model import FINDINGS_SECTION
from suitegen.synth import emit
from suitegen.model import UsageError

HEADER = f'''# Compiler bugs found by `suitegen fuzz`, kept as regression cases (`suitegen fuzz --save BUCKET`).
# Not statements of the guide: each rule's program is a reduced generated program whose every output cell
# has the value C++ semantics give it; the trace counts these rules apart.
section = "{FINDINGS_SECTION}"
'''


def _s(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a TOML basic string


def save(finding: dict, oracle_root: Path, templates_root: Path, when: str, seen: str,
         jit_when: str | None = None) -> list[Path]:
    """Write the rule, its template and its deviation; return the files written. ``when`` (a condition over
    nvcc versions) says where the default build's own SASS is wrong, which for a finding of another build,
    such as ``ptx-jit``, comes from its release range; ``jit_when`` where configs whose PTX this GPU's driver
    JIT-compiles (feature ``driver-jit``) were seen wrong too."""
    if finding.get("kind") != "wrong-code" or not finding.get("reproducer", "").endswith(emit.VERDICT_LINE):
        raise UsageError(f"finding {finding.get('bucket')}: only a wrong-code finding with a GPU reproducer "
                         "can become an oracle case")
    bucket = finding["bucket"]
    rules = oracle_root / f"{FINDINGS_SECTION}.toml"
    text = rules.read_text() if rules.exists() else HEADER
    if f'id = "{bucket}"' in text:
        raise UsageError(f"finding {bucket} is already a case in {rules}")
    template = templates_root / FINDINGS_SECTION / f"{bucket}.cu.j2"
    template.parent.mkdir(parents=True, exist_ok=True)
    template.write_text("{% raw %}" + emit.as_case(finding["reproducer"]) + "{% endraw %}\n")
    right = ", ".join(finding["passing"]) or "no build"
    statement = (f"Program {finding['index']} of fuzz seed {finding['seed']!r} (policy {finding['policy']}), reduced: "
                 f"every output cell has the value C++ semantics give it.")
    note = (f"A compiler bug, not a guide statement: {finding['stage']}; wrong under {', '.join(finding['failing'])}, "
            f"right under {right}, with nvcc {finding['toolchain']}. Built with -fmad=false, so float results "
            "are the IEEE ones the model computes.")
    text += (f"\n[[rule]]\nid = {_s(bucket)}\nstatement = {_s(statement)}\n"
             f"template = {_s(f'{FINDINGS_SECTION}/{bucket}.cu.j2')}\nmode = \"link\"\nflags = [\"-fmad=false\"]\n"
             f"requires = \"std>=c++17\"\nnote = {_s(note)}\n\n  [[rule.variant]]\n  name = \"run\"\n"
             "  expect = \"runtime\"\n  observe = \"one launch; the host compares every output cell with the value "
             "the model computed when the program was generated, and prints the wrong ones\"\n")
    rules.write_text(text)
    deviation = oracle_root / "deviations" / FINDINGS_SECTION / f"{bucket}.toml"
    deviation.parent.mkdir(parents=True, exist_ok=True)
    deviation.write_text(deviations(finding, when, seen, jit_when))
    return [rules, template, deviation]


def deviations(finding: dict, when: str, seen: str, jit_when: str | None = None) -> str:
    """Return a finding's deviations file: wrong where ``when`` holds for builds whose own SASS runs, and where
    ``jit_when`` holds for builds the driver JIT-compiles."""
    bucket, cells = finding["bucket"], "; ".join(finding.get("observed", []))
    entries = [(f"({when}) && !driver-jit", f"{cells} (the build's own SASS)", finding["stage"])]
    if jit_when:
        entries.append((f"({jit_when}) && driver-jit", f"{cells} (PTX the driver JIT-compiled)",
                        "configs without SASS for the GPU run PTX JIT-compiled by the driver, whose ptxas has the "
                        "bug too"))
    text = (f"# suitegen fuzz finding {bucket}: where it was seen wrong.\n"
            f"when = {_s(' || '.join(f'({w})' for w in [when, jit_when] if w))}\n")
    for cond, diagnostic, note in entries:
        text += (f"\n[[deviation]]\nrule = {_s(f'{FINDINGS_SECTION}/{bucket}')}\nvariants = [\"run\"]\n"
                 f"when = {_s(cond)}\nobserved = \"accepted\"\nrun = \"failed\"\nmatch = \"wrong cells\"\n"
                 f"diagnostic = {_s(diagnostic)}\nseen = {_s(seen)}\nnote = {_s(note)}\n")
    return text
