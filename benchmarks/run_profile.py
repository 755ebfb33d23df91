"""Benchmark: one whole `suitegen run` of a matrix profile; prints wall time and items per second.

    python benchmarks/run_profile.py --profile quick [-j N] [--out DIR] [any other suitegen run options]

The run folder is kept (its run.json holds the same numbers), so verdicts can be compared with
`suitegen diff` between an optimised and a reference run.
"""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path


def main() -> int:
    args = sys.argv[1:]
    if "--out" in args:
        out = Path(args[args.index("--out") + 1])
    else:
        out = Path(tempfile.mkdtemp(prefix="suitegen-bench-")) / "run"
        args += ["--out", str(out)]
    argv = [sys.executable, "-m", "suitegen", "run", "-q", *args]
    proc = subprocess.run(argv)
    meta = json.loads((out / "run.json").read_text())
    summary = json.loads((out / "summary.json").read_text())
    print(f"\nbenchmark: {' '.join(sys.argv[1:]) or '(defaults)'} on {platform.node()} "
          f"({os.cpu_count()} cores; {meta['gpu']['devices'] or 'no GPU'})")
    print(f"  {meta['items_this_run']} items in {meta['wall_seconds']} s: {meta['items_per_second']} items/s, "
          f"-j {meta['jobs']}; verdicts {summary['counts']}")
    print(f"  run folder: {out}")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
