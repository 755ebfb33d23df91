"""Two trees' runs of one profile, one after another on this machine, each cold with its own cache: an A/B of a change.

    python benchmarks/ab.py --out DIR [--profile nightly] TREE_A TREE_B [-- extra suitegen run args]

A tree is a checkout (``git archive`` of a commit, or this one: ``.``). Runs go in the order given: on a shared
machine the second often runs slower, so swap them in a second invocation before trusting a small gain. Prints per
run its wall time, core-seconds, items/s and, from a trace of its children (``children.py``), the seconds of each
kind of child; then how many (case, config) verdicts differ between the two.
"""
from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from figures import differ, gpu_here, suitegen_run  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="where the run folders, caches and traces go")
    ap.add_argument("--profile", default="nightly")
    ap.add_argument("trees", nargs=2, metavar="TREE")
    ap.add_argument("extra", nargs="*", help="more `suitegen run` arguments (after --)")
    args = ap.parse_args()
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    print(f"machine: {platform.node()}, {os.cpu_count()} cores, GPU: {gpu_here() or 'none'}")
    runs = []
    for label, tree in zip("AB", args.trees):
        trace = out / f"trace-{label}.jsonl"
        trace.unlink(missing_ok=True)
        os.environ["SUITEGEN_TRACE_CHILDREN"] = str(trace)
        run = suitegen_run(Path(tree).resolve(), out / f"run-{label}", out / f"cache-{label}", "--profile",
                           args.profile, *args.extra)
        items = run["meta"]["legs"][-1]["items"]
        print(f"{label} ({tree}): {run['wall']:.1f} s wall, {run['cpu']:.0f} core-s, {items} items, "
              f"{items / run['wall']:.1f} items/s")
        print(subprocess.run([sys.executable, str(HERE / "children.py"), str(trace)], capture_output=True,
                             text=True).stdout)
        runs.append(run)
    print(f"A -> B: {differ(runs[0]['folder'], runs[1]['folder'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
