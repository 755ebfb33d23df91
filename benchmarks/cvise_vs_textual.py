"""Our textual reducer against cvise, on the same wrong program and the same interestingness test (issue 41).

    python3 benchmarks/cvise_vs_textual.py OUT [--budget SECONDS]

The program is the textual reduction test's (``tests/test_fuzz.py``): the shortest of 40 bitwise programs of seed
"text" that a g++ turning `` ^ `` into `` | `` computes wrongly. The test is that test's ``HostTextTester``: the good
build agrees with g++ -O0 under UBSan, the bad build differs, and no non-void function lost its return. Three
reductions of the program's text (``emit.reducible``) are run one after another: ours (``triage.reduce_text``),
cvise alone from the same text, and cvise after ours; each prints its wall time, the candidates it had judged and
what is left (lines and tokens, blank lines and comments left out). cvise calls this script back with ``--judge FILE``
for each candidate and is stopped after ``--budget`` seconds (its file then holds the smallest text it had kept).
Needs cvise (Debian's package) and g++; no GPU.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]
SEED, POLICY, TRIES = "text", "bitwise", 40
TOKEN = re.compile(r"\w+|[^\s\w]")


def _tester(scratch: Path, deadline: float):
    """Return the test's HostTextTester for the shortest program that shows the fault, the program and its index
    (scratch: its builds' folder)."""
    import conftest  # noqa: F401  (registers the hooks, as the tests do)
    from test_fuzz import HostTextTester
    from suitegen.synth import emit, populate
    faulty = scratch / "g++"
    if not faulty.exists():
        faulty.write_text('#!/bin/sh\nfor a in "$@"; do case "$a" in *.cpp) sed -i "s/ \\^ / | /g" "$a";; esac; done\n'
                          f'exec {shutil.which("g++")} "$@"\n')
        faulty.chmod(0o755)
    campaign = SimpleNamespace(opts=SimpleNamespace(jobs=2), scratch=scratch, cxx=None, pool=ThreadPoolExecutor(2))
    chosen = os.environ.get("SG_PROGRAM")  # the judge's: the program found before, drawn alone
    indices = [int(chosen)] if chosen else sorted(range(TRIES), key=lambda i: emit.reducible(
        populate.generate(SEED, i, POLICY)).count("\n"))
    for i in indices:
        p = populate.generate(SEED, i, POLICY)
        if " ^ " not in emit.reducible(p):
            continue
        tester = HostTextTester(str(faulty), campaign, p, "bad", "good", deadline)
        if chosen or tester([emit.reducible(p)])[0]:
            return tester, p, i
    raise SystemExit("no program of the seed shows the planted fault")


def size(text: str) -> tuple[int, int]:
    """Lines and tokens of a text, blank lines and // comments left out."""
    code = [line.split("//")[0] for line in text.splitlines()]
    code = [line for line in code if line.strip()]
    return len(code), sum(len(TOKEN.findall(line)) for line in code)


def judge(path: str) -> int:
    """cvise's interestingness test: 0 where the candidate still shows the fault."""
    scratch = Path(os.environ["SG_SCRATCH"])
    with open(scratch / "judged", "a") as fh:
        fh.write("1\n")
    tester, _, _ = _tester(scratch, float("inf"))
    return 0 if tester([Path(path).read_text()])[0] else 1


def cvise(start: str, out: Path, budget: float, index: int) -> tuple[str, float, int]:
    """Run cvise on ``start`` for at most ``budget`` seconds; return what it kept, its wall time and candidates."""
    work = out / f"cvise-{time.time_ns()}"
    work.mkdir(parents=True)
    (work / "case.cu").write_text(start)
    script = work / "interesting.sh"
    script.write_text(f"#!/bin/sh\nexec {sys.executable} {Path(__file__).resolve()} --judge case.cu\n")
    script.chmod(0o755)
    env = dict(os.environ, SG_SCRATCH=str(out), SG_PROGRAM=str(index))
    (out / "judged").write_text("")
    began = time.monotonic()
    try:
        subprocess.run(["cvise", "--n", "2", "--timeout", "60", str(script), "case.cu"], cwd=work,
                       env=env, timeout=budget, capture_output=True)
    except subprocess.TimeoutExpired:
        pass
    return (work / "case.cu").read_text(), time.monotonic() - began, len((out / "judged").read_text().split())


def main(out: Path, budget: float) -> None:
    from suitegen.campaigns import triage
    from suitegen.synth import emit
    out.mkdir(parents=True, exist_ok=True)
    print(f"machine: {os.cpu_count()} cores; cvise: "
          f"{subprocess.run(['cvise', '--version'], capture_output=True, text=True).stdout.strip()}")
    tester, program, index = _tester(out, time.monotonic() + budget)
    start = emit.reducible(program)
    print(f"start: program {index} of seed {SEED!r} ({POLICY}), {size(start)[0]} lines, {size(start)[1]} tokens")
    judged = [0]
    one = tester.one
    tester.one = lambda text: (judged.__setitem__(0, judged[0] + 1), one(text))[1]
    began = time.monotonic()
    found = triage.reduce_text(tester)
    ours_wall = time.monotonic() - began
    ours = found["text"]
    (out / "ours.cu").write_text(ours)
    print(f"ours: {size(ours)[0]} lines, {size(ours)[1]} tokens, {judged[0]} candidates, {ours_wall:.0f} s")
    for name, text in (("cvise alone", start), ("cvise after ours", ours)):
        kept, wall, count = cvise(text, out, budget, index)
        (out / f"{name.replace(' ', '-')}.cu").write_text(kept)
        print(f"{name}: {size(kept)[0]} lines, {size(kept)[1]} tokens, {count} candidates, {wall:.0f} s"
              + (" (stopped at the budget)" if wall >= budget - 1 else ""))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--judge"]:
        raise SystemExit(judge(sys.argv[2]))
    args = sys.argv[1:]
    budget = float(args[args.index("--budget") + 1]) if "--budget" in args else 600.0
    main(Path(args[0]), budget)
