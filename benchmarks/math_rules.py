"""What the math rules cost: one cold run of them alone, its wall time, and the inputs checked per second.

    python3 benchmarks/math_rules.py OUT [RUN_FOLDER]

Runs ``suitegen run --profile nightly --std c++17 --arch sm_90 --rules 'math-*'`` with a fresh cache under OUT (or,
given RUN_FOLDER, reads a run made before), then prints the machine, the wall time, the items, the inputs
checked (each record's "over N of M inputs") and inputs per second, and the verdicts. Run it on the GPU machine.
"""
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main(out: str, run: str | None = None) -> None:
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                             text=True).stdout.strip() or "no GPU"
    except OSError:
        gpu = "no GPU (nvidia-smi is not on PATH)"
    print(f"machine: {os.cpu_count()} cores, {gpu}")
    wall = None
    if run is None:
        run = str(Path(out) / "run")
        env = dict(os.environ, SUITEGEN_CACHE=str(Path(out) / "cache"),
                   PYTHONPATH=os.pathsep.join(filter(None, (str(REPO), os.environ.get("PYTHONPATH")))))
        start = time.monotonic()
        subprocess.run([sys.executable, "-m", "suitegen", "run", "--profile", "nightly", "--std", "c++17", "--arch",
                        "sm_90", "--rules", "math-*", "-q", "--out", run], cwd=REPO, env=env, capture_output=True)
        wall = time.monotonic() - start
    recs = [json.loads(line) for line in (Path(run) / "results.jsonl").read_text().splitlines()]
    if wall is None:
        wall = json.loads((Path(run) / "run.json").read_text())["legs"][-1]["wall_seconds"]
    checked = sum(int(m[1].replace(",", "")) for r in recs
                  for m in [re.search(r"of ([\d,]+) inputs", (r.get("execution") or {}).get("detail", ""))] if m)
    print(f"math rules: {wall:.1f} s, {len(recs)} items, {checked:,} inputs checked ({checked / wall:,.0f} inputs/s); "
          f"verdicts {dict(Counter(r['verdict'] for r in recs))}")


if __name__ == "__main__":
    main(*sys.argv[1:])
