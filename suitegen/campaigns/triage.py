"""What a campaign does with a program that went wrong: confirm it alone, reduce it, blame a stage, file it.

A finding's signature is the set of build configs it fails under; the stage follows from which
optimisation levels mend it (right at ``-Xptxas -O0``: ptxas; right at ``-Xcicc -O0`` but wrong at
``-Xptxas -O0``: NVVM's optimiser; wrong only at ``-Xcicc -O0``: ptxas meeting unoptimised PTX;
wrong everywhere: the front end or NVVM's lowering, unless the host build disagrees with the model
too, which makes it a fault of the model and no compiler bug). The findings database keeps one
entry per bucket (kind, stage, signature, shape of the reduced program) and counts repeat hits.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import re
import shutil
import struct
import tempfile
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

from suitegen import procs, resources
from suitegen.compilers import cache, diagnostics, modules
from suitegen.execute import host_check, sanitizer
from suitegen.model import FILED, HARNESS, PROGRAM_FAULT, Compiler, UsageError, digest
from suitegen.report.diff import Entry
from suitegen.report.run_folder import new_run_id
from suitegen.synth import emit, ir, populate, present, reduce, textual


# The findings database every campaign of the default folders (``reports/fuzz/seed-S``, beside it) and every run
# files in, unless told another
DATABASE = resources.REPORTS / "fuzz" / "findings.json"


def host_status(run, program: ir.Program) -> str:
    """Return one program's status in a host run: undefined (UBSan named its lines), wrong, ok, or no-build."""
    if program.name in run.undefined_in or "?" in run.undefined_in:
        return "undefined"
    if run.wrong.get(program.name):
        return "wrong"
    return "ok" if run.undefined or run.ok else "no-build"


# What a program prints, or how it ends, when its GPU work faulted (the CUDA runtime's words) rather than computed: a
# reproducer prints "CUDA error: ..." (``emit.standalone``); a program of one's own may say it otherwise.
FAULT = re.compile(r"CUDA error|cudaError|illegal (memory access|instruction|address)|misaligned address|"
                   r"unspecified launch failure|invalid program counter", re.I)


def _bad(status: str) -> bool:
    """Whether a program's status under a build is a wrong result (a wrong value, or a run that faulted)."""
    return status == "wrong" or status.startswith("run-") or status == "undefined"


def blame(failing: set[str], passing: set[str]) -> str:
    """Return the stage a wrong result points at, from the builds it fails and passes under."""
    if not failing:
        return "none"
    if failing <= {"host-O0", "host-O2"}:
        return "host compiler"
    device = failing - {"host-O0", "host-O2"}
    if failing & {"host-O0", "host-O2"} and device:
        return "model (the host build disagrees too: a generator fault, not a compiler bug)"
    if device == {"ptx-jit"}:
        return "driver JIT (ptxas in the driver)"
    if device == {"debug"}:
        return "debug build (-G)"
    if device == {"maxrreg"}:
        return "register allocation under -maxrregcount"
    if "default" in device and "ptxas-O0" in passing:
        return "ptxas optimiser"
    if "default" in device and "cicc-O0" in passing:
        return "NVVM optimiser"
    if device <= {"cicc-O0", "debug"}:  # both hand ptxas NVVM's unoptimised PTX
        return "ptxas on unoptimised PTX"
    if passing & {"default", "ptxas-O0", "cicc-O0", "debug"}:
        return "optimisation-dependent (" + ", ".join(sorted(device)) + ")"
    return "front end or NVVM lowering (every device build)"


def shape(program: ir.Program) -> str:
    """Return a coarse fingerprint of a reduced program: the operations and types it still holds."""
    ops = Counter()
    for _, n in reduce.walk((program.body, program.funcs)):
        if isinstance(n, ir.Bin):
            ops[f"{n.op}:{n.type.name}"] += 1
        elif isinstance(n, (ir.Un, ir.Intrin)):
            ops[getattr(n, "op", None) or n.name] += 1
        elif isinstance(n, ir.Cast):
            ops[f"cast:{n.arg.type.name}>{n.type.name}"] += 1
    for c in program.comms:
        ops[c.kind] += 1
    return ",".join(sorted(ops))


class Tester:
    """Runs candidate programs under named builds (GPU) or host builds and says which are still wrong: those the bad
    build gets wrong, built again under the good build (only those), which gets them right. ``alone``: the bad build
    judges each candidate as its reproducer runs, a program built alone (a fault: see ``FaultTester``)."""

    def __init__(self, campaign, bad: str, good: str | None, alone: bool = False):
        self.c, self.bad, self.good, self.alone = campaign, bad, good, alone
        self.rounds = 0

    def _statuses(self, build_name: str, programs: list, expected: list) -> list[str]:
        c = self.c
        if self.alone and build_name == self.bad:
            return _each(c, lambda pe: self._alone(build_name, *pe), list(zip(programs, expected)))
        folder = Path(tempfile.mkdtemp(prefix="t", dir=c.scratch))  # investigations run side by side
        if build_name.startswith("host-"):
            run = host_check.run(emit.host_check(programs, expected), folder, build_name,
                                 host_check.HOST_BUILDS[build_name], cxx=getattr(c, "cxx", None))
            return [host_status(run, p) for p in programs]
        build = c.build(build_name)
        built = modules.build_module(c.tc, build, emit.source(programs), folder, timeout=600,
                                     use_cache=c.opts.use_cache)
        if not built.ok and len(programs) > 1 and not (built.crashed or built.timed_out):  # one candidate that
            # does not build must not sink the others (a crash or a hang is the compiler's: no more builds of it)
            half = len(programs) // 2
            return (self._statuses(build_name, programs[:half], expected[:half]) +
                    self._statuses(build_name, programs[half:], expected[half:]))
        if not built.ok:
            return ["no-module"]
        return c.run_module(built.module, programs, expected)

    def _alone(self, build_name: str, program: ir.Program, expected: list[int]) -> str:
        """Return one program's status built alone as a reproducer (``emit.standalone``) and run: a fault, or not."""
        built, said = run_alone(self.c, build_name, emit.standalone(program, expected))
        if FAULT.search(said):
            return "run-fault: " + log_line(said, FAULT)[:200]
        return "no fault" if built else "no-module"  # a wrong value instead is another bug

    def __call__(self, candidates: list) -> list[bool]:
        self.rounds += 1
        progs = [replace(p, name=f"c{k}") for k, p in enumerate(candidates)]
        expected = [reduce.expected(p) for p in progs]
        bad = self._statuses(self.bad, progs, expected)
        good = ["ok"] * len(progs)
        wrong = [k for k, status in enumerate(bad) if differs(status, "ok")]  # the good build judges only these
        if self.good and wrong:
            for k, status in zip(wrong, self._statuses(self.good, [progs[k] for k in wrong],
                                                       [expected[k] for k in wrong])):
                good[k] = status
        return [differs(b, g) for b, g in zip(bad, good)]


def differs(bad: str, good: str) -> bool:
    """Whether a program still shows its bug: wrong (or faulting) under the bad build, right under the good one."""
    return (bad == "wrong" or bad.startswith("run-")) and good == "ok"


class TextTester:
    """Says which texts of a wrong program (helpers and declarations, ``emit.reducible``) still show the bug,
    without the model: the good build must agree with a host build under UBSan (g++ ``-O0``, which must
    report nothing), and the bad build must differ from the good one. Each candidate builds on its own core."""

    def __init__(self, campaign, program: ir.Program, bad: str, good: str, deadline: float):
        self.c, self.p, self.bad, self.good, self.deadline = campaign, program, bad, good, deadline
        self.good_cells: dict[str, list[int]] = {}
        self.bad_cells: dict[str, list[int]] = {}
        self.why = ""  # why the last text judged was not interesting (read after a batch of one)
        self.whole = False  # the texts are of the campaign's layout (``emit.reducible(whole=True)``)

    def _gpu(self, build_name: str, text: str) -> list[int] | None:
        return run_cells(self.c, build_name, emit.alone(self.p, text, self.whole), self.p, use_cache=False)[2]

    def one(self, text: str) -> bool:
        if time.monotonic() > self.deadline:
            return False
        lost = textual.missing_return(text)
        if lost is not None:  # flowing off its end is undefined behaviour: no build's answer counts
            self.why = f"the non-void function {lost} lost its return"
            return False
        p = self.p
        host = host_check.values(emit.host_dump(p, text, self.whole),
                                 Path(tempfile.mkdtemp(prefix="h", dir=self.c.scratch)),
                                 host_check.HOST_BUILDS["host-O0"], cxx=getattr(self.c, "cxx", None))
        if host is None:
            self.why = "the host build failed, did not finish, or UBSan reported"
            return False
        good = self._gpu(self.good, text)
        body = None if good is None else [good[t * p.width + j] for t in range(p.lanes) for j in range(p.outputs)]
        if body != host:
            self.why = (f"the {self.good} build failed" if body is None else
                        f"the {self.good} build differs from the host at output "
                        f"{next(i for i, (a, b) in enumerate(zip(body, host)) if a != b)}")
            return False
        bad = self._differs(text, good)
        if bad is None:
            return False
        self.good_cells[text], self.bad_cells[text] = good, bad
        return True

    def _differs(self, text: str, good: list[int]) -> list[int] | None:
        """Return the bad build's cells where they differ from the good build's (else None, and ``why``)."""
        bad = self._gpu(self.bad, text)
        if bad is None or bad == good:
            self.why = f"the {self.bad} build " + ("failed" if bad is None else f"agrees with {self.good}")
            return None
        return bad

    def __call__(self, batch: list[str]) -> list[bool]:
        return _each(self.c, self.one, batch)


class FaultTester(TextTester):
    """A ``TextTester`` for a run that faults: the bad build is judged as its reproducer runs, a program built alone
    whose buffers are exactly as large as they must be (``emit.standalone``), since a stray access of a module the
    campaign's workers run may land in pooled memory and fault nowhere. The bad build must end in a CUDA error."""

    def _differs(self, text: str, good: list[int]) -> list[int] | None:
        built, said = run_alone(self.c, self.bad, emit.standalone(self.p, good, text, self.whole))
        if not FAULT.search(said):
            self.why = f"the {self.bad} build " + (f"does not fault ({log_line(said)[:80]})" if built else "failed")
            return None
        return []  # no cells: it faulted (the finding keeps what the campaign saw)


def run_program(exe: Path, timeout: float = 120.0) -> procs.Completed:
    """Run a reproducer built alone (in its own folder), as a person would, for at most ``timeout`` seconds (its work
    is the GPU's: it waits for no core)."""
    return procs.run((str(exe),), timeout=timeout, cwd=exe.parent, core=False)


def run_alone(campaign, build_name: str, source: str) -> tuple[bool, str]:
    """Build a reproducer's source alone under a named build and run it once; return whether it built and what it
    printed."""
    folder = Path(tempfile.mkdtemp(prefix="x", dir=campaign.scratch))
    exe, _ = modules.build_program(campaign.tc, campaign.build(build_name), source, folder)
    said = run_program(exe).output if exe else ""
    shutil.rmtree(folder, ignore_errors=True)
    return exe is not None, said


def reduce_text(tester: TextTester) -> dict:
    """Shrink a wrong program's text by lines and blocks (``textual.shrink``); return the text kept, the standalone
    reproducer, whose expected cells are the good build's, whether a fresh rerun still differs, and ``why`` it does
    not (only ``why`` when the unreduced text already shows nothing). The text starts as the program alone with the
    helpers it uses; where that shows nothing, as the campaign's file held it (``emit.reducible(whole=True)``)."""
    program = tester.p
    text = emit.reducible(program)
    if not tester([text])[0]:  # the short layout hides it: the campaign's own layout, where it showed
        why, tester.whole, text = tester.why, True, emit.reducible(program, whole=True)
        if not tester([text])[0]:
            return {"why": why}
    small = textual.shrink(text, tester, budget=2000, width=max(2, tester.c.opts.jobs),
                           around=emit.kernel(program, alone=not tester.whole))
    expected, observed = tester.good_cells[small], tester.bad_cells[small]
    tester.deadline = float("inf")
    again = tester([small])[0]
    return {"reproducer": emit.standalone(program, expected, small, tester.whole), "text": small,
            "reduced_still_differs": again,
            "why": "" if again else tester.why,
            "observed": [f"cell {i}: expected {w}, got {g}" for i, (w, g) in enumerate(zip(expected, observed))
                         if w != g][:6] or None}  # None: a fault, no cells


def _each(campaign, test, items: list) -> list[bool]:
    """Return ``test`` of each item, run side by side on the campaign's pool: its threads live as long as the
    campaign, and so do the GPU worker each thread starts (a pool per call would start new workers every time)."""
    return list(campaign.pool.map(test, items))


def statuses_alone(campaign, program: ir.Program, builds: list[str] | None = None) -> dict[str, str]:
    """Return the program's status under each of the campaign's builds (``builds``: these device builds instead),
    and under its host builds, built alone."""
    exp = reduce.expected(program)
    out = {}
    t = Tester(campaign, "default", None)
    if campaign.runner is not None:
        names = builds or [b.name for b in campaign.builds]
        out.update(zip(names, _each(campaign, lambda n: t._statuses(n, [program], [exp])[0], names)))
    if campaign.opts.host or campaign.runner is None:
        for h in campaign.opts.host_builds:
            out[h] = t._statuses(h, [program], [exp])[0]
    return out


def investigate(campaign, suspect: dict, deadline: float, program: ir.Program | None = None,
                later: float = 0.0) -> dict | None:
    """Confirm a wrong program alone, twice, then reduce it; return the finding (None if it did not repeat).
    ``program``: the program itself, where it is not the campaign's draw of ``suspect["index"]``; ``later``: the
    part of what is left when the line pass begins that the caller's own later pass takes (``file_pass``)."""
    o = campaign.opts
    program = program or populate.generate(o.seed, suspect["index"], o.policy)
    clock = [time.monotonic()]  # when each step ended: the finding says how long each took

    def lap() -> float:
        clock.append(time.monotonic())
        return round(clock[-1] - clock[-2], 1)
    first = statuses_alone(campaign, program)
    second = statuses_alone(campaign, program)
    failing = {b for b, s in first.items() if _bad(s)}
    if not failing or failing != {b for b, s in second.items() if _bad(s)}:
        kind = "flaky" if failing or any(_bad(s) for s in second.values()) else "not-reproduced"
        return {"kind": kind, "index": suspect["index"], "first": first, "second": second}
    undefined = sorted(b for b, s in first.items() if s == "undefined")
    if undefined:  # the host build's sanitizer names the program's own lines: a defect of the generator, not a finding
        return {"kind": PROGRAM_FAULT, "index": suspect["index"], "policy": program.policy, "seed": o.seed,
                "failing": sorted(failing), "undefined": undefined, "statuses": first,
                "why": f"UBSan reports undefined behaviour in the program under {', '.join(undefined)}: the generator "
                       "made a program its model does not define, a defect of suitegen's to fix, not a compiler's"}
    passing = {b for b, s in first.items() if s == "ok"}
    bad = "default" if "default" in failing else sorted(failing)[0]
    good = next((g for g in ("ptxas-O0", "cicc-O0", "default", "debug", "host-O0") if g in passing), None)
    tester = Tester(campaign, bad, good, alone=first[bad].startswith("run-"))  # a fault: judged as its file runs
    seconds = {"confirmed": lap()}
    small = program
    line_pass = campaign.runner is not None and good and "host-" not in bad + good  # a line pass follows
    now = time.monotonic()
    if o.reduce and now < deadline:  # the model's reducer first: half the time left (then the line and file passes)
        small = reduce.reduce(program, tester, deadline=now + (0.5 if line_pass else 1.0) * (deadline - now))
    exp = reduce.expected(small)
    seconds["model"] = lap()
    # the reduced form under every build the fuzzer knows (and the host builds): where it shows now
    rejudged = statuses_alone(campaign, small, campaign.every_build())
    if bad != "default" and _bad(rejudged.get("default", "")) and good and rejudged.get(good) == "ok":
        bad = "default"  # first seen under a flag, yet wrong at default flags too: a default-build bug, reported there
    again = differs(rejudged[bad], rejudged[good] if good else "ok")  # it must still differ
    seen = (failing, passing)  # as the campaign's builds saw the program it drew
    if again:  # the bug is what its reduced form does under every build: its stage and bucket follow from that
        failing = {b for b, st in rejudged.items() if _bad(st)}
        passing = {b for b, st in rejudged.items() if st == "ok"}
    stage = blame(failing, passing)
    observed = _observed(campaign, bad, small, exp)
    seconds["rejudged"] = lap()
    text = emit.standalone(small, exp) if not bad.startswith("host-") else emit.host_standalone(small, exp)
    size = (reduce.size(small.body) + reduce.size(small.funcs), text.count("\n"))
    line_result = "not run"
    if o.reduce and line_pass and time.monotonic() < deadline:  # line by line: the good build and UBSan judge
        judge = FaultTester if rejudged[bad].startswith("run-") else TextTester
        now = time.monotonic()  # what is left, but the later pass's part
        lines = reduce_text(judge(campaign, small, bad, good, now + (1.0 - later) * (deadline - now)))
        line_result = lines["why"] or "kept"
        if "reproducer" in lines and lines["reduced_still_differs"]:  # else the model's form stands
            text, observed = lines["reproducer"], lines["observed"] or observed
    seconds["lines"] = lap()
    final = final_form(campaign, text, bad, good, built=None if bad.startswith("host-") else
                       emit.standalone(small, exp, whole=True))
    text = final["reproducer"]
    if final["reproduces"] is False and again:  # the campaign's builds show it, no file built alone does
        return {"kind": HARNESS, "index": suspect["index"], "policy": program.policy, "seed": o.seed,
                "failing": sorted(failing), "standalone": final["standalone"], "reproducer": text,
                "observed": observed,
                "why": f"wrong under {bad} as the campaign builds and runs it (a module loaded by the GPU workers), "
                "right when built alone from a file and run, even from the campaign's own text of it: the difference "
                "lies in how the campaign builds or runs it, a question for suitegen first; not claimed as a compiler "
                "bug"}
    if "stack" in final:  # a fault: does the program itself overrun, built for the host under ASan and UBSan?
        final["sanitizer"]["host-asan"] = host_sanitized(campaign, small)
    said = final["sanitizer"]
    blamed = [b for b, blames in ((good, sanitizer.blames(said.get(good))),  # compute-sanitizer: by an error
                                  ("host-asan", said.get("host-asan") not in (None, "", "clean")))  # any word but clean
              if blames]
    if blamed:  # compute-sanitizer finds errors in the right build's program, or the host's sanitizers do
        return {"kind": PROGRAM_FAULT, "index": suspect["index"], "policy": program.policy, "seed": o.seed,
                "failing": sorted(failing), "undefined": blamed, "statuses": first, "sanitizer": final["sanitizer"],
                "reproducer": text, "why": f"the sanitizers find errors in the program ({', '.join(blamed)}): the "
                                          "program is at fault (a defect of suitegen's to fix), not a compiler"}
    return {"kind": "wrong-code", "index": suspect["index"], "policy": program.policy, "seed": o.seed,
            "failing": sorted(failing), "passing": sorted(passing), "stage": stage, "bad": bad, "good": good,
            "reduced_still_differs": again, "observed": observed, "size": size[0],
            "reduced": {"failing": sorted(b for b, st in rejudged.items() if _bad(st)),
                        "passing": sorted(b for b, st in rejudged.items() if st == "ok")},
            "seen": {"failing": sorted(seen[0]), "passing": sorted(seen[1])}, "targets": targets(campaign, rejudged),
            "original_size": reduce.size(program.body) + reduce.size(program.funcs),
            "lines": text.count("\n"), "lines_before_textual": size[1], "textual": line_result,
            "standalone": final["standalone"], "reproduces": final["reproduces"], "sanitizer": final["sanitizer"],
            "stack": final.get("stack"), "varies": final.get("varies", False), "seconds": dict(seconds, final=lap()),
            "reproducer": text, "shape": shape(small), "origin": program_origin(program),
            "tags": list(program.tags),
            "toolchain": campaign.tc.version_str, "commands": _commands(campaign, bad, good)}


def targets(campaign, statuses: dict[str, str]) -> dict[str, str]:
    """Return where a program was judged, by target: each device build's arch (SASS, or PTX the driver compiles)
    with the builds wrong and right there."""
    out: dict[str, list] = {}
    for name, status in statuses.items():
        if not name.startswith("host-"):
            b = campaign.build(name)
            where = b.arch + " SASS" if b.output == "cubin" else f"{b.target} PTX, compiled by the driver"
            out.setdefault(where, []).append(f"{name} {'wrong' if _bad(status) else status}")
    return {k: ", ".join(v) for k, v in out.items()}


def final_form(campaign, text: str, bad: str, good: str | None, built: str | None = None) -> dict:
    """Build the reproducer file and each of its shorter device forms (``present.forms``) alone under the bad and the
    good build, and run each program twice; keep the shortest form whose bad build prints what the file's does and
    whose good build prints ``OK``, every time (``built``: the program as the campaign's file held it, the last resort
    where the reduced file shows nothing); then run compute-sanitizer on the kept form's programs (``sanitizer``).
    Return the text kept, what each build printed last (``WRONG n`` / ``OK``), whether the file reproduced (both
    runs: the same cells wrong, ``same_wrong``), whether the wrong values varied between runs, and compute-sanitizer's
    word per build (empty where no GPU runs nvcc's builds)."""
    kept = {"reproducer": text, "standalone": {}, "reproduces": None, "sanitizer": {}}
    host = bad.startswith("host-")  # a host finding's reproducer is host C++: built by the host compiler, as is
    if host != (good or bad).startswith("host-") or not host and (campaign.runner is None
                                                                   or campaign.tc.kind is Compiler.NVRTC):
        return kept
    names = [n for n in (bad, good) if n]
    builds = {n: campaign.build(n) for n in names if not n.startswith("host-")}

    def runs(candidate: str) -> dict[str, tuple]:
        out = {}
        for name in names:
            folder = Path(tempfile.mkdtemp(prefix="s", dir=campaign.scratch))
            if host:  # built and run twice (no executable kept: compute-sanitizer is for device code)
                said = [host_check.run(candidate, folder / str(k), "repro", host_check.HOST_BUILDS[name],
                                       cxx=getattr(campaign, "cxx", None)).log.strip() for k in range(2)]
                out[name] = (folder, said)
                continue
            exe, log = modules.build_program(campaign.tc, builds[name], candidate, folder)
            out[name] = (exe, [run_program(exe).output.strip() for _ in range(2)] if exe else
                         [f"no program: {log[-200:]}"] * 2)
        return out
    candidates = [text] if host else [*present.forms(text), text, *([built] if built else [])]
    ran = list(campaign.pool.map(runs, candidates))
    itself = len(candidates) - 1 - bool(built)  # the reduced file itself: what its forms must print
    first = next((r[bad][1][0] for r in (ran[itself], ran[-1]) if r[bad][0] is not None
                  and not r[bad][1][0].endswith("OK")), ran[itself][bad][1][0])

    def holds(r: dict) -> bool:
        return (r[bad][0] is not None and all(same_wrong(o, first) for o in r[bad][1]) and not first.endswith("OK")
                and all(o.endswith("OK") for n in names[1:] for o in r[n][1]))
    at = next((i for i, r in enumerate(ran) if holds(r)), itself)
    chosen = ran[at]
    kept.update(reproducer=candidates[at], reproduces=holds(chosen),
                varies=len({o for r in ran if holds(r) for o in r[bad][1]}) > 1,
                standalone={n: (chosen[n][1][-1].splitlines() or ["(nothing)"])[-1] for n in names},
                sanitizer={} if host else {n: sanitizer.judged(campaign.tc, chosen[n][0],
                                                                sanitizer.WRONG if n == bad else sanitizer.RIGHT)
                                           for n in names})
    if not host and FAULT.search(first):  # a fault: how much stack the kernel needs, as ptxas says (the driver sizes it so)
        kept["stack"] = {n: stack_use(campaign, builds[n], candidates[at]) for n in names}
    return kept


def host_sanitized(campaign, program: ir.Program) -> str:
    """Return what AddressSanitizer and UBSan say of a program built for the host (``host-asan``) and run: "clean",
    or its first error."""
    exp = reduce.expected(program)
    run = host_check.run(emit.host_check([program], [exp]), Path(tempfile.mkdtemp(prefix="a", dir=campaign.scratch)),
                         "host-asan", host_check.HOST_BUILDS["host-asan"], cxx=getattr(campaign, "cxx", None))
    if run.undefined:
        return "errors: " + run.undefined[0][:200]
    return "clean" if run.ok and not run.wrong else f"did not run clean: {log_line(run.log)[:200]}"


def same_wrong(said: str, first: str) -> bool:
    """Whether a reproducer's run printed what its first run did: the same cells wrong, or the same fault; a wrong
    cell's value may vary from run to run (a compiler's code that reads what nothing wrote)."""
    return re.sub(r"got \d+", "got ?", said) == re.sub(r"got \d+", "got ?", first)


FRAME = re.compile(r"Function properties for (\S+)\n\s*(\d+) bytes stack frame")


def stack_use(campaign, build, text: str) -> str:
    """Return what ptxas says of the kernel's stack under ``build`` (``-Xptxas -v``): its own frame, its registers and
    cumulative stack size (which ptxas leaves out where recursion makes it unknown: the driver then gives each thread
    its default stack), and the largest frame among the functions it calls ("" where ptxas says nothing)."""
    folder = Path(tempfile.mkdtemp(prefix="v", dir=campaign.scratch))
    (folder / "repro.cu").write_text(text)
    argv = build.argv(campaign.tc, str(folder / "repro.cu"), str(folder / "repro.cubin"))
    log = procs.run((*argv, "-Xptxas", "-v"), timeout=600, cwd=folder).output
    frames = {name: int(size) for name, size in FRAME.findall(log)}
    kernel = next((n for n in frames if n.startswith("sg_k_")), None)
    if kernel is None:
        return ""
    used = re.search(rf"Compiling entry function '{kernel}'.*?(Used [^\n]*)", log, re.S)
    callees = max((v for n, v in frames.items() if n != kernel), default=0)
    return (f"kernel frame {frames[kernel]} bytes; {used.group(1).strip() if used else ''}"
            + ("" if used and "cumulative stack size" in used.group(1) else "; no cumulative stack size")
            + f"; largest callee frame {callees} bytes")


def investigate_crash(campaign, suspect: dict, deadline: float, program: ir.Program | None = None) -> dict:
    """Find which program of a file crashes a build, reduce it (each candidate built alone), and return the finding."""
    o = campaign.opts
    build = next(b for b in campaign.builds if b.name == suspect["build"])
    programs = [program or populate.generate(o.seed, suspect["index"], o.policy)]
    def crashes(programs_: list) -> list[bool]:
        def one(p):
            folder = Path(tempfile.mkdtemp(prefix="c", dir=campaign.scratch))
            built = modules.build_module(campaign.tc, build, emit.alone(p), folder, timeout=600,
                                         use_cache=False)
            return built.crashed
        return _each(campaign, one, programs_)

    culprits = [p for p, bad in zip(programs, crashes(programs)) if bad]  # alone, with only the helpers it uses
    if not culprits:
        return dict(suspect, kind="crash", stage=f"{build.name} (only with the whole file)", failing=[build.name],
                    passing=[], reproducer=None)
    small = culprits[0]
    if o.reduce and time.monotonic() < deadline:
        small = reduce.reduce(small, crashes, batch=max(2, o.jobs), deadline=deadline)
    text = emit.alone(small)
    if o.reduce and time.monotonic() < deadline:  # then line by line: a crash needs no model of the program
        text = shrink_crash(campaign, build, text, deadline)
    final = modules.build_module(campaign.tc, build, text, Path(tempfile.mkdtemp(prefix="f", dir=campaign.scratch)),
                                 timeout=600, use_cache=False)
    flags = " ".join(build.nvcc_flags())
    return {"kind": "crash", "index": int(small.name[1:]), "seed": o.seed, "policy": small.policy,
            "build": build.name, "failing": [build.name], "passing": [], "stage": f"compiler crash ({build.name})",
            "log": suspect["log"], "argv": suspect["argv"], "file": suspect["file"], "shape": shape(small),
            "size": reduce.size(small.body) + reduce.size(small.funcs),
            "original_size": reduce.size(culprits[0].body) + reduce.size(culprits[0].funcs),
            "lines": text.count("\n"), "reproducer": text, "toolchain": campaign.tc.version_str,
            "reduced_still_differs": final.crashed,
            "commands": [f"nvcc {flags} -{build.output} repro.cu -o repro.{build.output}   # crashes"]}


# A crash's line: what a crashed compiler prints (``diagnostics.CRASH_MARKERS``), or a stop of ours (``procs``).
CRASH_WORDS = re.compile("|".join(map(re.escape, diagnostics.CRASH_MARKERS))
                         + r"|assertion|aborted|killed after|terminated by signal", re.I)


def log_line(log: str, words: re.Pattern = re.compile(r"\S")) -> str:
    """Return the first line of a build's log that ``words`` finds (by default, the first that is not blank),
    with paths, addresses and numbers left out: what tells one build's failure from another's ("" where none).
    A campaign groups refusals by ``log_line`` of the error line nvcc printed first (``observe.first_error``)."""
    line = next((l for l in log.splitlines() if words.search(l)), "")
    return re.sub(r"\S*/\S*|0x[0-9a-f]+|\d+", "N", line.strip())[:200]


def crash_signature(log: str) -> str:
    """Return what tells one crash from another in a build's log: its first line naming a crash (``log_line``); a
    reduction keeps to the crash it started from, never sliding to another."""
    return log_line(log, CRASH_WORDS)


def diagnosed(log: str, severities: tuple[str, ...], leave: re.Pattern | None = None) -> frozenset[str]:
    """Return the diagnostics of these severities that a build's log holds (``log_line``'s words: numbers and paths
    left out), but for the lines ``leave`` finds."""
    return frozenset(log_line(line) for line in log.splitlines()
                     if (d := diagnostics.diagnostic(line, None)) is not None and d.severity in severities
                     and not (leave and leave.search(line)))


def crash_errors(log: str) -> frozenset[str]:
    """Return the errors a crashed build reported before its crash (``diagnosed``).
    A line-by-line reduction keeps to candidates that add none: one that drops a declaration and keeps its use crashes
    the front end, if at all, in its error recovery, and a compiler team gets a program that is not C++."""
    return diagnosed(log, ("error", "fatal"), CRASH_WORDS)


def shrink_crash(campaign, build, text: str, deadline: float, log: str | None = None) -> str:
    """Return the smallest text found, line by line (``textual.shrink``, candidates built side by side on the
    campaign's pool), on which ``build`` still crashes with the crash it crashes with on ``text``, reporting no error
    it did not report (``crash_errors``; ``log``: that build's log, where the caller has it; else ``text`` is built
    first), starting from its shortest device form that crashes so (``present.forms``)."""
    if log is None:
        first = modules.build_module(campaign.tc, build, text,
                                     Path(tempfile.mkdtemp(prefix="x", dir=campaign.scratch)), timeout=600,
                                     use_cache=False)
        if not first.crashed:
            return text
        log = first.log
    signature, errors = crash_signature(log), crash_errors(log)

    def still_crashes(candidate: str) -> bool:
        folder = Path(tempfile.mkdtemp(prefix="x", dir=campaign.scratch))
        built = modules.build_module(campaign.tc, build, candidate, folder, timeout=600, use_cache=False)
        return (time.monotonic() < deadline and built.crashed and crash_signature(built.log) == signature
                and crash_errors(built.log) <= errors)

    def judge(batch: list[str]) -> list[bool]:
        return _each(campaign, still_crashes, batch)
    text = present.shortest_kept(text, judge)  # device code alone first (a crash needs no host form)
    return textual.shrink(text, judge, width=campaign.opts.jobs)


def _observed(campaign, build_name: str, program: ir.Program, expected: list[int]) -> list[str]:
    """Return the first few cells where the bad build's run differs from the model, as text."""
    if build_name.startswith("host-") or campaign.runner is None:
        return []
    built, result, cells = run_cells(campaign, build_name, emit.source([program]), program,
                                     use_cache=campaign.opts.use_cache)
    if not built.ok:
        return [f"no module: {built.log[-300:]}"]
    if cells is None:
        return [f"the run failed: {result.detail}"]
    return [f"cell {i}: expected {w}, got {g}" for i, (w, g) in enumerate(zip(expected, cells)) if w != g][:6]


def run_cells(campaign, build_name: str, source: str, program: ir.Program, use_cache: bool):
    """Build ``source`` under a named build and launch ``program``'s kernel once on the GPU; return the build,
    the run (None if there was no module) and the kernel's buffer (None unless it ran to the end)."""
    build = campaign.build(build_name)
    built = modules.build_module(campaign.tc, build, source, Path(tempfile.mkdtemp(prefix="g", dir=campaign.scratch)),
                                 timeout=600, use_cache=use_cache)
    if not built.ok:
        return built, None, None
    result, outs = campaign.runner.cells(built.module, [emit.launch(program)])
    return built, result, None if outs is None else outs[0]


def _commands(campaign, bad: str, good: str | None) -> list[str]:
    """Return the exact commands that show a finding from its reproducer file ``repro.cu``."""
    out = []
    for name in (bad, good):
        if not name or name.startswith("host-"):
            continue
        b = campaign.build(name)
        flags = " ".join(b.nvcc_flags())
        out.append(f"nvcc {flags} repro.cu -o repro-{name} && ./repro-{name}   # {name}")
    if campaign.tc.kind is Compiler.NVRTC:  # the reproducer is a whole program: NVRTC compiles only device code
        out.insert(0, f"# found with NVRTC {campaign.tc.version_str} ({campaign.tc.nvcc}) building the kernels; "
                      "the reproducer is a whole program, so build it with nvcc of the same release:")
    return out


def bucket(finding: dict) -> str:
    """Return the key under which the database files a finding: what goes wrong (its stage, the builds that get it
    wrong, and its symptom where the wrong cells show one, else the shape of its reduced program; for a crash, the
    line that names it: reductions of one crash to different programs are one bug)."""
    crash = crash_signature(finding.get("log") or "") if finding.get("kind") == "crash" else ""
    what = crash or symptom(finding.get("observed") or []) or finding.get("shape")
    failing = finding.get("failing") or []
    core = [b for b in failing if b in CORE_BUILDS or b.startswith("host-")] or failing
    return digest(finding.get("kind"), finding.get("stage"), core, what, length=12)


def origin(finding: dict) -> str | None:
    """Return what a finding was reduced from, where that is known: the digest of its program's text (a campaign's or a
    run's generated program, ``program_origin``; a file of one's own, ``own_file.finding``), so that a later generator
    that draws another program for the same seed and index is not taken for it."""
    value = finding.get("origin")
    return value if isinstance(value, str) and value else None


def program_origin(program: ir.Program) -> str:
    """Return a generated program's origin: the digest of its text as a reproducer holds it."""
    return f"program {digest(emit.alone(program))}"


def file_origin(text: str) -> str:
    """Return a file of one's own's origin (``fuzz --reduce FILE``): the digest of its text before reduction."""
    return f"file {digest(text)}"


def _same_origin(entries: dict) -> dict[tuple, str]:
    """Return the bucket of each (origin, kind, stage) a database's entries were reduced from: reduced again (with
    another budget, or a later reducer) to another shape, the same program is still the same bug."""
    out: dict[tuple, str] = {}
    for key, e in entries.items():
        first = e.get("first") if isinstance(e, dict) else None
        if isinstance(first, dict):
            what = tuple(v if isinstance(v, str) else None for v in (first.get("kind"), first.get("stage")))
            for o in [origin(first), *(e.get("origins") or [])]:
                if isinstance(o, str) and o:
                    out.setdefault((o, *what), key)
    return out


# The builds a bucket names among those a finding fails under (the campaign's default builds, and the host's): a
# finding judged again under every build (debug, maxrreg, ptx-jit too) lands where one judged under these did
CORE_BUILDS = ("default", "ptxas-O0", "cicc-O0")


_CELL = re.compile(r"cell \d+: expected (\d+), got (\d+)$")


def symptom(observed: list[str]) -> str | None:
    """Name what every wrong cell shows, where one class of wrong value explains them all: a float's value stored
    as an integer (the bits ``1`` where ``1.0f`` is right), a 64-bit value with its high word set, or a run that
    fails with one CUDA error. Programs of one bug that reduce to different shapes share it."""
    failed = [o.split("CUDARuntimeError: ", 1)[-1].split(":")[0] for o in observed if o.startswith("the run failed")]
    if failed and len(failed) == len(observed):
        return f"fault:{failed[0]}"
    pairs = [tuple(int(v) for v in m.groups()) for o in observed if (m := _CELL.match(o))]
    if not pairs or len(pairs) != len(observed):
        return None
    if all(_as_integer(want) == got for want, got in pairs):
        return "float stored as its integer value"
    if all(want ^ got == 0xFFFFFFFF00000000 for want, got in pairs):
        return "high word set"
    if all(_sign_extended(want, got) for want, got in pairs):
        return "narrow value sign-extended"
    return None


def _sign_extended(want: int, got: int) -> bool:
    """Whether ``got`` is ``want``, an 8- or 16-bit value with its top bit set, sign-extended to 32 or 64 bits."""
    for bits in (8, 16):
        if want >> bits == 0 and want >> (bits - 1) & 1:
            wide = want - (1 << bits)  # negative
            if got in (wide & 0xFFFFFFFF, wide & 0xFFFFFFFFFFFFFFFF):
                return True
    return False


def _as_integer(bits: int) -> int | None:
    """The integer a float cell's value is (binary32 in the low word, else binary64), or None."""
    value = struct.unpack("<f", struct.pack("<I", bits))[0] if bits < 1 << 32 else \
        struct.unpack("<d", struct.pack("<Q", bits))[0]
    return int(value) if math.isfinite(value) and value == int(value) and value != 0 else None


def file_findings(db_path: Path, findings: list[dict], campaign: str, say=print,
                  known: Path | None = None) -> list[dict]:
    """Add findings to the database (under its lock: campaigns that end together keep each other's findings);
    return each with ``known`` set where its bucket was already there, or in the database ``known`` (read only). A
    damaged database is kept aside, and ``say`` is told."""
    before = _known_entries(known) if known is not None else {}
    with _held(db_path):
        db = _read_database(db_path, say)
        same = {**_same_origin(before), **_same_origin(db["findings"])}
        out = []
        for f in findings:
            key, o = bucket(f), origin(f)
            if key not in db["findings"] and key not in before:  # a new shape of a program already filed: that bug
                key = same.get((o, f.get("kind"), f.get("stage")), key)
            if o:  # another finding of this program in this call lands here too
                same.setdefault((o, f.get("kind"), f.get("stage")), key)
            entry = db["findings"].get(key)
            mark = f"{campaign}: {o}" if o else None
            if entry is not None and mark in entry.get("filed", []):  # this campaign's program, filed again (a rerun)
                out.append(dict(f, bucket=key, known=key in before or entry["campaigns"][:1] != [campaign],
                                hits=entry["hits"]))
                continue
            was = entry is not None or key in before
            if entry is None:
                entry = db["findings"][key] = {"first": f, "hits": 0, "campaigns": []}
            entry["hits"] += 1
            if mark:
                entry.setdefault("filed", []).append(mark)
            if campaign not in entry["campaigns"]:
                entry["campaigns"].append(campaign)
            if o and o != origin(entry["first"]) and o not in entry.setdefault("origins", []):
                entry["origins"].append(o)
            if f.get("program_id") and f["program_id"] not in entry.setdefault("programs", []):
                entry["programs"].append(f["program_id"])  # a run's generated program this finding explains
            out.append(dict(f, bucket=key, known=was, hits=entry["hits"]))
        data = json.dumps(db, indent=1).encode()
        cache.write_file(db_path, data)  # a temp file of its own, then a rename
        if db_path.read_bytes() != data:
            raise UsageError(f"{db_path}: the findings database could not be written (a full or read-only disk?)")
    return out


KNOWN_FILES = ("findings.json", "database.json")  # the files of a --known folder: databases, campaigns' findings


def known_buckets(path: Path) -> list[str]:
    """Return the buckets ``--known`` counts as known (``_known_entries``); raise UsageError where it is missing or
    damaged."""
    return list(_known_entries(path))


def _known_entries(path: Path) -> dict:
    """Return the entries of a findings database read only, by bucket; of a folder, those of every database under it
    and every bug of every campaign's ``findings.json`` there (``KNOWN_FILES``; the first entry of a bucket stands): a
    project's published findings (``benchmarks/findings/``) as a whole."""
    if not path.is_dir():
        return _database_entries(path)
    entries: dict = {}
    files = sorted(f for f in path.rglob("*.json") if f.name in KNOWN_FILES)
    for file in files:
        try:
            text = file.read_text()
            data = json.loads(text)
        except (OSError, ValueError) as exc:
            raise UsageError(f"--known {path}: {file} does not read back ({exc})") from None
        if isinstance(data, dict):
            for key, entry in _database_entries(file, text).items():
                entries.setdefault(key, entry)
        elif isinstance(data, list):  # a campaign's findings, each with its bucket
            for f in data:
                if isinstance(f, dict) and f.get("kind") in FILED and isinstance(f.get("bucket"), str):
                    entries.setdefault(f["bucket"], {"first": f, "hits": 1, "campaigns": [file.parent.name]})
    if not files:
        raise UsageError(f"--known {path}: no findings database or campaign findings under it "
                         f"({' or '.join(KNOWN_FILES)})")
    return entries


def _database_entries(path: Path, text: str | None = None) -> dict:
    """Return the entries of one findings database read only (``text``: its text, where it is read already), by
    bucket."""
    try:
        text = path.read_text() if text is None else text
    except OSError as exc:
        raise UsageError(f"--known {path}: {exc.strerror or exc}") from None
    why = _damage(text)
    if why is not None:
        raise UsageError(f"--known {path}: not a findings database ({why})")
    return json.loads(text)["findings"]


def read_findings(db_path: Path, say=print) -> dict:
    """Return the findings database (empty where there is none); a damaged one is kept aside now, and said
    (``file_findings`` would, when it next files)."""
    with _held(db_path):
        return _read_database(db_path, say)


@contextlib.contextmanager
def _held(db_path: Path):
    """Hold the database's lock (``findings.json.lock`` beside it) while the body reads, changes and writes it."""
    db_path.parent.mkdir(parents=True, exist_ok=True)
    with open(db_path.with_name(db_path.name + ".lock"), "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)  # closing the file releases it
        yield


def _read_database(db_path: Path, say) -> dict:
    """Return the database (empty where there is none); a damaged one is renamed aside, never overwritten, and
    ``say`` is told in one line."""
    try:
        text = db_path.read_text()
    except FileNotFoundError:
        return {"findings": {}}
    why = _damage(text)
    if why is None:
        return json.loads(text)
    aside = db_path.with_name(f"{db_path.name}.damaged-{new_run_id()}")
    os.replace(db_path, aside)
    say(f"fuzz: {db_path} is damaged ({why}): kept as {aside}, and a new database starts without its findings")
    return {"findings": {}}


def _damage(text: str) -> str | None:
    """Return what is wrong with a database's text, or None where it is whole and of its shape."""
    try:
        db = json.loads(text)
    except ValueError as exc:
        return f"not JSON: {exc}"
    if not isinstance(db, dict) or not isinstance(db.get("findings"), dict):
        return "not an object whose 'findings' is an object"
    for key, e in db["findings"].items():
        whole = isinstance(e, dict) and isinstance(e.get("first"), dict) and isinstance(e.get("campaigns"), list) \
            and type(e.get("hits")) is int and all(isinstance(e.get(k, []), list) and
                                                   all(isinstance(x, str) for x in e.get(k, []))
                                                   for k in ("programs", "origins", "filed"))
        if not whole:
            return f"entry {key!r} is not an object of 'first', 'hits' and 'campaigns'"
    return None


KERNEL = re.compile(r'extern "C" __global__ void (\w+)\(')  # a reproducer's kernel, which a module runs alone


def parse_reproducer(text: str) -> dict:
    """Return what a GPU reproducer launches and expects: kernel, blocks, threads and the expected cells."""
    kernel = KERNEL.search(text).group(1)
    launch = re.search(rf"{kernel}<<<(\d+), (\d+)>>>", text)
    table = text.split("sg_expect[", 1)[1].split("};", 1)[0] if "sg_expect[" in text else ""
    return {"kernel": kernel, "blocks": int(launch.group(1)) if launch else 1,
            "threads": int(launch.group(2)) if launch else 1,
            "expect": [int(x) for x in re.findall(r"(\d+)ull", table)]}


def release_records(campaign, toolchain, findings: list[dict], folder: Path) -> list[Entry]:
    """Return one diff entry per finding for one release (the run callback of ``history.releases``): a crash is
    built again; a wrong result is built and run on the GPU (without one it is not checked)."""
    return release_verdicts(campaign.runner, release_builds(campaign, toolchain, findings, folder))


def release_builds(campaign, toolchain, findings: list[dict], folder: Path) -> list[dict]:
    """Build each finding with one release: whether it crashed, what was built, and the build's name, target and
    flags. A wrong result's kernel is built as a module with its launch and expected cells (the reproducer's ``main``
    is host code, left out); a run that faults, or a file of one's own (``--reduce FILE``: its own check says what is
    right), is built whole, as its reproducer runs (``program``): a stray access of a module the runner loads may
    land in pooled memory."""
    out = []
    for f in findings:
        build = campaign.build(f.get("build") or f.get("bad"))
        where = Path(tempfile.mkdtemp(prefix="r", dir=folder))
        whole = f["kind"] == "wrong-code" and (bool(f.get("source")) or not KERNEL.search(f["reproducer"]) or
                                               any(FAULT.search(o) for o in f.get("observed") or []))
        record = {"bucket": f["bucket"], "kind": f["kind"], "build": build.name, "arch": build.arch,
                  "flags": list(build.flags), "program": whole}
        if whole:
            exe, log = modules.build_program(toolchain, build, f["reproducer"], where, timeout=600)
            out.append(dict(record, crashed=bool(CRASH_WORDS.search(log)), ok=exe is not None,
                            module=str(exe) if exe else None, launch=None))
            continue
        source = f["reproducer"]
        if f["kind"] == "wrong-code":
            source = source.split("#include <cstdio>\nstatic const unsigned long long sg_expect", 1)[0]
        built = modules.build_module(toolchain, build, source, where, timeout=600, use_cache=False)
        out.append(dict(record, crashed=built.crashed, ok=built.ok,
                        module=str(built.module) if built.ok and f["kind"] == "wrong-code" else None,
                        launch=parse_reproducer(f["reproducer"]) if f["kind"] == "wrong-code" else None))
    return out


def release_verdicts(runner, builds: list[dict]) -> list[Entry]:
    """Return the diff entries of one release's ``release_builds``: a crash's from its build; a wrong result's from its
    module run on the GPU (``runner``; without one, none), or its program run (it exits 0 where it is right)."""
    records = []
    for b in builds:
        if b["kind"] == "wrong-code" and runner is None:
            continue
        verdict, run = ("FAIL" if b["crashed"] else "PASS"), None
        if b["kind"] == "wrong-code" and not b["ok"] and not b["crashed"]:  # the release could not build it at all
            verdict = "UNRESOLVED"  # (13.0.48's wheel has no crt/link.stub, so builds no program): not judged
        elif b["kind"] == "wrong-code" and b["module"] and b.get("program"):
            done = run_program(Path(b["module"]).resolve())
            run = "ok" if done.returncode == 0 else "run-fault" if FAULT.search(done.output) else "wrong"
            verdict = "PASS" if run == "ok" else "FAIL"
        elif b["kind"] == "wrong-code" and b["module"]:
            want = b["launch"]
            result, outs = runner.cells(Path(b["module"]), [(want["kernel"], want["blocks"], want["threads"],
                                                             len(want["expect"]))])
            run = result.status.value
            verdict = "PASS" if outs is not None and outs[0] == want["expect"] else "FAIL"
        records.append(Entry(case_id=f"fuzz/{b['bucket']}", rule=f"fuzz/{b['bucket']}", section="fuzz", std="c++17",
                             arch=b["arch"], flags=tuple(b["flags"]), verdict=verdict,
                             outcome="crashed" if b["crashed"] else "accepted" if b["ok"] else "rejected", run=run))
    return records


def alike(findings: list[dict], ranges: dict[str, str]) -> dict[str, list[str]]:
    """Return, for each bug (one finding a bucket) that shares its kind, stage, the builds wrong on it, the class of
    its wrong values (``symptom``) and its release range with another, the others: reduced programs that differ, yet
    that no build, no release and no symptom tells apart (perhaps one bug). A crash is told apart by its own line."""
    groups: dict[tuple, list[str]] = {}
    for f in findings:
        b = f.get("bucket")
        if isinstance(b, str) and f.get("kind") != "crash" and "wrong in" in ranges.get(b, ""):  # a crash: its line
            group = groups.setdefault((f.get("kind"), f.get("stage"), tuple(sorted(f.get("failing") or ())),
                                       symptom(f.get("observed") or []), ranges[b]), [])
            if b not in group:
                group.append(b)
    return {b: [o for o in g if o != b] for g in groups.values() if len(g) > 1 for b in g}


def release_range(runs: list[tuple[str, list[Entry]]]) -> dict[str, str]:
    """Return each finding's release range from its verdicts in each release (oldest first): the first and last
    release where it is wrong and the first after that where it is right ("none yet" where none is), and the releases
    that could not build it (not judged)."""
    out = {}
    for bucket in dict.fromkeys(e.case_id.removeprefix("fuzz/") for _, entries in runs for e in entries):
        seen = [(v, e.verdict) for v, entries in runs for e in entries if e.case_id == f"fuzz/{bucket}"]
        wrong = [i for i, (_, verdict) in enumerate(seen) if verdict == "FAIL"]
        unjudged = [v for v, verdict in seen if verdict not in ("PASS", "FAIL")]
        not_judged = f"; not judged in {', '.join(unjudged)} (the release did not build it)" if unjudged else ""
        if not wrong:
            right = [v for v, verdict in seen if verdict == "PASS"]
            out[bucket] = (f"right in every release that built it ({right[0]} - {right[-1]})" if right else
                           "no release built it") + not_judged
            continue
        fixed = next((v for v, verdict in seen[wrong[-1] + 1:] if verdict == "PASS"), "none yet")
        before = seen[wrong[0] - 1] if wrong[0] else None  # the release before the first wrong one
        out[bucket] = f"wrong in {seen[wrong[0]][0]} - {seen[wrong[-1]][0]}" + \
            ("" if len(wrong) == wrong[-1] - wrong[0] + 1 else " (not in every release between)") + \
            f"; first fixed: {fixed}" + \
            (f"; right before, last in {before[0]}" if before and before[1] == "PASS" else "") + \
            not_judged
    return out
