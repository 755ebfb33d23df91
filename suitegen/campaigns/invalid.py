"""Builds generated programs with one injected violation and judges nvcc's answer to each.

An injected program (``synth.inject``) must be rejected with its rule's diagnostic, by the rule's phase,
at the violation's line. Beside each rule the hand-written negative case that does the same thing
(``Violation.case``) is built with the same command, so the summary can list every place where nvcc's
verdict in a generated context differs from its verdict on the hand-written case: a diagnostic lost
inside an instantiation, a lambda or a call chain, or attributed to another line.
"""
from __future__ import annotations

import concurrent.futures as cf
import os
import re
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path, PurePath

from suitegen import procs
from suitegen.compilers import diagnostics
from suitegen.cases.render import Renderer
from suitegen.model import FROZEN, PHASE_GROUPS, Diagnostic, Expectation, UsageError
from suitegen.oracle import fields, loader
from suitegen.synth import inject as inj

FLAGS = ("-std=c++17", "-arch=sm_90")
TIMEOUT = 300.0


@dataclass(**FROZEN)
class Outcome:
    """What nvcc did with one source, judged against one expectation."""

    verdict: str  # PASS or FAIL
    what: str  # "rejected at the line", "accepted", "other line", "other message", "crash", "timeout"
    detail: str  # the first relevant diagnostic, as "[phase] file(line): message"
    command: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...] = ()


@dataclass(**FROZEN)
class Result:
    """One injected program's outcome, with the hand-written case's outcome for the same violation."""

    invalid: inj.Invalid
    outcome: Outcome
    handwritten: Outcome

    @property
    def differs(self) -> bool:
        return self.outcome.verdict != self.handwritten.verdict


def expectation(oracle, violation: inj.Violation) -> Expectation:
    """Return the expectation of the hand-written negative variant the violation stands beside."""
    rule = oracle.rule(violation.rule)
    variant = next((v for v in rule.variants if v.name == violation.case), None)
    if variant is None or variant.expectation.expect.value != "reject":
        raise UsageError(f"{violation.name}: rule {violation.rule} has no rejected variant {violation.case!r}")
    return variant.expectation


def decide(out: procs.Completed, exp: Expectation, file: str, line: int | None) -> Outcome:
    """Return PASS when the build was rejected with the expected diagnostic, phase and line; else FAIL and why."""
    cmd = out.argv
    if out.timed_out:
        return Outcome(verdict="FAIL", what="timeout", detail="", command=cmd)
    parsed = diagnostics.parse(out.output)
    diags = parsed.diagnostics
    errors = [d for d in diags if d.severity in ("error", "fatal")]
    if parsed.crash:
        return Outcome(verdict="FAIL", what="crash", detail=_show(errors or diags), command=cmd, diagnostics=diags)
    if out.returncode == 0:
        warned = [d for d in diags if fields.search(exp.diagnostic or "", d.message, re.I)]
        return Outcome(verdict="FAIL", what="accepted", detail=_show(warned), command=cmd, diagnostics=diags)
    groups = PHASE_GROUPS[exp.phase] if exp.phase else None
    ours = [d for d in errors if fields.search(exp.diagnostic or "", d.message, re.I)
            and (groups is None or d.phase in groups)]
    here = [d for d in ours if line is None or d.line is None
            or (PurePath(d.file or "").name == file and d.line == line)]
    if here:
        return Outcome(verdict="PASS", what="rejected at the line", detail=_show(here), command=cmd, diagnostics=diags)
    if ours:
        return Outcome(verdict="FAIL", what="other line", detail=_show(ours), command=cmd, diagnostics=diags)
    return Outcome(verdict="FAIL", what="other message", detail=_show(errors), command=cmd, diagnostics=diags)


def _show(diags) -> str:
    if not diags:
        return "no diagnostic"
    d = diags[0]
    where = f"{PurePath(d.file).name}({d.line}): " if d.file else ""
    return f"[{d.phase.value}] {where}{d.message}"


def compile_source(text: str, nvcc: str = "nvcc", file: str = "main.cu", flags=FLAGS,
                   timeout: float = TIMEOUT) -> procs.Completed:
    """Compile one translation unit with ``nvcc -v -c`` in a scratch folder and return what it did."""
    with tempfile.TemporaryDirectory(prefix="sg-invalid-") as tmp:
        Path(tmp, file).write_text(text)
        argv = [nvcc, "-v", "-c", *flags, file, "-o", "main.o"]
        return procs.run(argv, timeout=timeout, cwd=tmp)


def judge(invalids, nvcc: str = "nvcc", jobs: int | None = None, oracle=None, templates=None,
          flags=FLAGS) -> list[Result]:
    """Build every injected program and each violation's hand-written case in parallel; return one Result per program."""
    oracle = oracle or loader.load()
    renderer = Renderer(templates)
    names = sorted({i.violation for i in invalids})
    exps = {n: expectation(oracle, inj.BY_NAME[n]) for n in names}
    jobs = jobs or os.cpu_count() or 2
    with cf.ThreadPoolExecutor(jobs) as pool:
        hand_futures = {}
        for n in names:
            v = inj.BY_NAME[n]
            rule = oracle.rule(v.rule)
            case = renderer.render(rule, next(x for x in rule.variants if x.name == v.case))
            hand_futures[n] = (pool.submit(compile_source, case.files[case.main_file], nvcc, case.main_file, flags),
                               case)
        futures = [pool.submit(compile_source, i.source, nvcc, i.file, flags) for i in invalids]
        hand = {}
        for n, (fut, case) in hand_futures.items():
            hand[n] = decide(fut.result(), exps[n], case.main_file, case.violation_line)
        return [Result(invalid=i, outcome=decide(f.result(), exps[i.violation], i.file, i.line),
                       handwritten=hand[i.violation]) for i, f in zip(invalids, futures)]


def summary(results) -> dict:
    """Return counts per rule x context (PASS and FAIL, FAIL by what nvcc did) and where context changed nvcc's verdict.

    ``differs`` lists each (rule, violation, context) whose verdicts differ from the hand-written case's,
    with one example program each.
    """
    counts: dict[tuple[str, str], Counter] = defaultdict(Counter)
    seen = {}
    for r in results:
        key = (r.invalid.rule, r.invalid.context)
        counts[key][r.outcome.verdict] += 1
        if r.outcome.verdict == "FAIL":
            counts[key][f"FAIL:{r.outcome.what}"] += 1
        if r.differs:
            k = (r.invalid.rule, r.invalid.violation, r.invalid.context)
            if k not in seen:
                seen[k] = {"rule": r.invalid.rule, "violation": r.invalid.violation, "context": r.invalid.context,
                           "handwritten": f"{r.handwritten.verdict} ({r.handwritten.what})",
                           "in_context": f"{r.outcome.verdict} ({r.outcome.what}): {r.outcome.detail}",
                           "example": f"{r.invalid.seed} line {r.invalid.line} depth {r.invalid.depth}",
                           "programs": 0}
            seen[k]["programs"] += 1
    return {"counts": {f"{rule} | {ctx}": dict(c) for (rule, ctx), c in sorted(counts.items())},
            "differs": list(seen.values())}


def table(results) -> str:
    """Return the counts as a markdown table: one row per rule, one column per context (PASS/total)."""
    cells: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    for r in results:
        cells[r.invalid.rule][r.invalid.context][r.outcome.verdict] += 1
    contexts = [c for c in inj.CONTEXTS if any(c in row for row in cells.values())]
    lines = ["| rule | " + " | ".join(contexts) + " |", "|---|" + "---|" * len(contexts)]
    for rule in sorted(cells):
        row = cells[rule]
        lines.append(f"| {rule} | " + " | ".join(
            f"{row[c]['PASS']}/{sum(row[c].values())}" for c in contexts) + " |")
    return "\n".join(lines)


def campaign(seeds, per_cell: int = 1, nvcc: str = "nvcc", jobs: int | None = None, violations=None,
             contexts=inj.CONTEXTS, oracle=None) -> list[Result]:
    """Return the judged results of every violation x context, ``per_cell`` programs per seed in each."""
    invalids = [i for seed in seeds for i in inj.matrix(seed, per_cell, violations, contexts)]
    return judge(invalids, nvcc=nvcc, jobs=jobs, oracle=oracle)
