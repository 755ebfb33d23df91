"""A wrong program of one's own (``suitegen fuzz --reduce FILE``): what each build makes of it, and its reduction.

A program that checks its own results exits 0 when they are right (a reproducer of ``suitegen fuzz`` does, and prints
``OK`` or ``WRONG n``). Each build of ``--builds`` builds the file into a program, which runs: the builds whose
programs exit 0 are the right ones, the others the wrong. The file is then cut line by line (``textual.shrink``) to the
smallest text that still tells the first wrong build from the first right one (``Tells``), starting from its
shortest device form that does (``present.forms``, for a ``suitegen fuzz`` reproducer): the wrong build's program
prints something else than the right one's, the same way (a fault stays a fault, a wrong value a wrong value). A
line pass can make a program undefined (a value read before it is set, a function that flows off its end, a race),
and an undefined program tells builds apart for no fault of theirs, so no candidate is kept unless a second right
build (a witness: the least optimised of them) prints what the first does, the first prints the same on a second
run, neither faults, the first build warns of no undefined behaviour the original's did not (``UNDEFINED``), and no
function that the emitter writes loses its ``return``. After the cut the reproducer's own table of expected values (a
``suitegen fuzz`` reproducer's ``sg_expect``) is set to the right build's values, so that it prints ``OK`` there
again.

What is reported is checked: the reduced file is built and run again under both builds, twice, and compute-sanitizer
(where the toolkit has it) runs the original's and the reduced program's good builds under each of its tools, and their
bad builds under memcheck (``sanitizer``). A good build whose program races, reads memory out of bounds or unwritten,
or waits at a barrier not every thread reaches puts the program at fault, not the compiler: nothing is claimed.
"""
from __future__ import annotations

import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from suitegen import model
from suitegen.campaigns import triage
from suitegen.compilers import modules
from suitegen.execute import sanitizer
from suitegen.synth import present, textual

RUN_SECONDS = 60.0
OUTPUT = 1 << 20  # what is kept of a program's output: all of a reproducer's cells, each on a line of its own
# A reproducer's own table of expected values, and the check that prints the first four cells that differ from it.
TABLE = re.compile(r"(static const unsigned long long sg_expect\[(\d+)\] = \{)([^}]*)(\};)")
CHECK = "bad++ < 4)"
CELL = re.compile(r"^cell (\d+): expected \d+, got (\d+)$", re.M)
# A warning of nvcc's front end (or the host compiler's) that a candidate is undefined; others (a variable set but never
# used, say) come and go as lines are cut.
UNDEFINED = re.compile(r"used before its value is set|missing return statement|no return statement|uninitiali[sz]ed|"
                       r"shift count is (too large|negative)|out of range|division by zero|undefined", re.I)
WITNESSES = ("debug", "ptxas-O0", "cicc-O0", "maxrreg", "ptx-jit", "default")  # the least optimised first


@dataclass(frozen=True)
class Ran:
    """What one build made of a program: whether it built, its warnings (``triage.log_line``'s words), and how its
    program ended (``status``: its exit status; None where it did not build or was stopped) and what it printed."""

    build: str
    built: bool
    warnings: frozenset[str] = frozenset()
    status: int | None = None
    output: str = ""
    exe: Path | None = None

    @property
    def right(self) -> bool:
        """Whether its program says it is right: it exits 0."""
        return self.status == 0

    @property
    def faulted(self) -> bool:
        """Whether its program did not run to its end: a signal, the time limit, or a fault of its GPU work."""
        return self.built and (self.status is None or self.status < 0 or bool(triage.FAULT.search(self.output)))

    def said(self) -> str:
        """What it did, in a line."""
        if not self.built:
            return "did not build: " + triage.log_line(self.output, re.compile(r"error", re.I))
        if self.status is None:
            return f"stopped after {RUN_SECONDS:.0f} s"
        last = (self.output.strip().splitlines() or ["(nothing)"])[-1]
        return f"exit {self.status}: {last[:160]}"


def behave(toolchain, build, text: str, folder: Path) -> Ran:
    """Build ``text`` into a program under ``build`` (with its warnings) and run it."""
    exe, log = modules.build_program(toolchain, build, text, folder, warn=True)
    warnings = triage.diagnosed(log, ("warning",))
    if exe is None:
        return Ran(build=build.name, built=False, warnings=warnings, output=log)
    done = triage.run_program(exe, RUN_SECONDS)
    return Ran(build=build.name, built=True, warnings=warnings, status=done.returncode,
               output=done.output[-OUTPUT:], exe=exe)


def behave_under(campaign, names, text: str, folder: Path) -> dict[str, Ran]:
    """Build ``text`` under each of the campaign's builds ``names`` (each in ``folder``/its name) and run it, side by
    side; return what each made of it, by name."""
    names = list(names)
    return dict(zip(names, campaign.pool.map(
        lambda name: behave(campaign.tc, campaign.build(name), text, folder / name), names)))


@dataclass
class Tells:
    """Whether a candidate text still tells the wrong build from the right one the way the original does, and is
    defined as far as the right builds can tell (``witness``: a second right build, None where there is none)."""

    campaign: object
    good: object  # DeviceBuild
    witness: object | None
    bad: object
    first_good: Ran
    first_bad: Ran
    deadline: float
    no_return: frozenset[str] = frozenset()  # the original's non-void functions without a return
    keep: tuple[str, ...] = ()  # statements no candidate may lose (a cut could leave what they set undefined)

    def one(self, text: str) -> bool:
        c = self.campaign
        # a function that flows off its end is undefined where it is called: none may lose its return (one the original
        # has without a return, never called, may stay)
        if time.monotonic() > self.deadline or set(textual.missing_returns(text)) - self.no_return or any(
                k not in text for k in self.keep):
            return False
        folder = Path(tempfile.mkdtemp(prefix="w", dir=c.scratch))
        try:
            good = behave(c.tc, self.good, text, folder / "good")
            new = {w for w in good.warnings - self.first_good.warnings if UNDEFINED.search(w)}
            if not good.built or good.faulted or new or rerun(good) != good.output:
                return False
            bad = behave(c.tc, self.bad, text, folder / "bad")
            if not (bad.built and bad.faulted == self.first_bad.faulted and bad.output != good.output):
                return False
            # the witness last: most candidates have lost the bug by now, and need no third build
            witness = self.witness and behave(c.tc, self.witness, text, folder / "witness")
            return not witness or not witness.faulted and witness.output == good.output
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def __call__(self, batch: list[str]) -> list[bool]:
        return list(self.campaign.pool.map(self.one, batch))


def rerun(ran: Ran) -> str | None:
    """Return what a built program prints when run again (None where it was not built or did not finish)."""
    if ran.exe is None:
        return None
    done = triage.run_program(ran.exe, RUN_SECONDS)
    return None if done.timed_out else done.output[-OUTPUT:]


def refreshed(campaign, good, text: str) -> str | None:
    """Return a reproducer whose expected table holds the good build's values (where it is a ``suitegen fuzz``
    reproducer whose table the cut left stale), or None where the text is not one or the good build says nothing."""
    table = TABLE.search(text)
    if table is None or CHECK not in text:
        return None
    every = text.replace(CHECK, "bad++ < n)")  # the check prints every cell that differs from the table
    ran = behave(campaign.tc, good, every, Path(tempfile.mkdtemp(prefix="e", dir=campaign.scratch)))
    if not ran.built or ran.faulted:
        return None
    cells = [v.strip().removesuffix("ull") for v in table[3].split(",")]
    for index, value in CELL.findall(ran.output):
        if int(index) < len(cells):
            cells[int(index)] = value
    return text[:table.start(3)] + ", ".join(f"{v}ull" for v in cells) + text[table.end(3):]


def reduce_wrong(campaign, text: str, runs: dict[str, Ran], deadline: float, keep: tuple[str, ...] = ()) -> dict:
    """Reduce a program that some builds of ``runs`` get right and others wrong; return the finding: the good and bad
    builds, the reduced text, what each build did with it (twice), and compute-sanitizer's word on both (``keep``:
    statements every candidate keeps)."""
    builds = {name: campaign.build(name) for name in runs}
    good = next(r for r in runs.values() if r.right)
    bad = next(r for r in runs.values() if r.built and not r.right)
    check = {f"original {r.build}": sanitizer.judged(campaign.tc, r.exe, tools)
             for r, tools in ((good, sanitizer.RIGHT), (bad, sanitizer.WRONG))}
    if sanitizer.blames(check[f"original {good.build}"]):
        return {"kind": model.PROGRAM_FAULT, "good": good.build, "bad": bad.build, "sanitizer": check,
                "why": f"the {good.build} build's program is not sanitizer-clean: the program is at fault"}
    witness = next((builds[n] for n in WITNESSES if n != good.build and n in runs and runs[n].right), None)
    tells = Tells(campaign, builds[good.build], witness, builds[bad.build], good, bad, deadline,
                  frozenset(textual.missing_returns(text)), keep)
    text = present.shortest_kept(text, tells)  # its shortest device form that still tells the builds apart
    small = textual.shrink(text, tells, width=campaign.opts.jobs)
    small = refreshed(campaign, builds[good.build], small) or small
    again = []
    for k in range(2):  # the reduced file itself, built and run anew: twice (its builds side by side)
        folder = Path(tempfile.mkdtemp(prefix=f"again{k}", dir=campaign.scratch))
        again.append(behave_under(campaign, runs, small, folder))
    last = again[-1]
    check.update({f"reduced {name}": sanitizer.judged(campaign.tc, last[name].exe, tools)
                  for name, tools in ((good.build, sanitizer.RIGHT), (bad.build, sanitizer.WRONG))})
    # What is claimed is what a person sees who runs it: every build right on the original is right on it, both times,
    # and the wrong build is wrong both times.
    still = all(a[n].right for a in again for n, r in runs.items() if r.right) and all(
        a[bad.build].built and not a[bad.build].right for a in again)
    fault = sanitizer.blames(check[f"reduced {good.build}"])
    return {"kind": model.PROGRAM_FAULT if fault else "wrong-code", "good": good.build, "bad": bad.build,
            "witness": witness.name if witness else None,
            "wrong": sorted(n for n, r in last.items() if not r.right),
            "right": sorted(n for n, r in last.items() if r.right),
            "reproducer": small, "reproduces": still, "sanitizer": check,
            "said": {n: r.said() for n, r in last.items()},
            "printed": {n: (r.output.strip().splitlines() or ["(nothing)"])[-1] for n, r in last.items()},
            "varies": len({a[bad.build].output for a in again}) > 1,  # the wrong build's two runs printed apart
            "observed": [m.group(0) for m in CELL.finditer(last[bad.build].output)][:6] or
            [triage.log_line(last[bad.build].output, triage.FAULT)[:200] or last[bad.build].said()],
            "why": f"the {good.build} build's reduced program is not sanitizer-clean" if fault else ""}


def finding(campaign, source: Path, before: str, found: dict) -> dict:
    """Return a reduced file's finding as a campaign files one (what ``fuzz --releases`` ranges and ``fuzz_page``
    publishes): its stage and builds, what goes wrong, its reproducer and the commands that show it."""
    claimed = found["kind"] == "wrong-code" and found["reproduces"]
    f = {"kind": found["kind"] if claimed or found["kind"] != "wrong-code" else "not-reproduced",
         "source": str(source), "lines_before": before.count("\n"), "stage": triage.blame(
             set(found["wrong"]), set(found["right"])), "failing": found["wrong"], "passing": found["right"],
         "bad": found["bad"], "good": found["good"], "observed": found["observed"],
         "lines": found["reproducer"].count("\n"), "reproducer": found["reproducer"],
         "reproduces": found["reproduces"], "sanitizer": found["sanitizer"], "toolchain": campaign.tc.version_str,
         "commands": triage._commands(campaign, found["bad"], found["good"]), "why": found["why"],
         "shape": f"the file {source.name}",  # no model to draw a shape from: one file, one bug (unless a symptom)
         "origin": triage.file_origin(before)}  # the same text reduced again files under the same bug
    return dict(f, bucket=triage.bucket(f))


def report(source: Path, before: str, found: dict, runs: dict[str, Ran], builds: dict) -> str:
    """Return the finding as markdown a person can paste into a bug tracker."""
    def command(name: str, file: str) -> str:
        return f"nvcc {' '.join(builds[name].nvcc_flags())} {file} -o {file.removesuffix('.cu')}-{name}"
    lines = [f"# {source.name}: wrong under {', '.join(found['wrong']) or 'no build'}, right under "
             f"{', '.join(found['right']) or 'no build'}", "",
             f"Reduced from {before.count(chr(10))} to {found['reproducer'].count(chr(10))} lines "
             f"(`{source.stem}.reduced.cu`). Built and run again twice: "
             + ("every build right on the original is right on it both times, and the wrong one wrong."
                if found["reproduces"] else "**it does not show what the original showed; nothing is claimed.**")
             + (f" Each cut kept only where the {found['witness']} build printed what the {found['good']} build did."
                if found["witness"] else ""),
             "", "| build | the original | the reduced file |", "|---|---|---|"]
    lines += [f"| {n} | {runs[n].said()} | {found['said'].get(n, '')} |" for n in runs]
    lines += ["", "compute-sanitizer: " + (", ".join(f"{k}: {sanitizer.said(v)}" for k, v in found["sanitizer"].items()
                                                                 if v) or "not in this toolkit"), "", "```sh"]
    lines += [command(n, f"{source.stem}.reduced.cu") for n in (found["bad"], found["good"])]
    return "\n".join(lines + ["```", "", "```cuda", found["reproducer"].rstrip(), "```", ""])
