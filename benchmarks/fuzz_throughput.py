"""Prints fuzz throughput: programs generated, built under each config, run and checked, per second.

    python benchmarks/fuzz_throughput.py [SECONDS] [--builds default,ptxas-O0,cicc-O0] [--host]

Runs one campaign of SECONDS (default 60) with a fresh seed and a private build cache (so nothing is a cache
hit), without reduction, and prints the rate. On a GPU machine every program runs on the GPU; without one,
they are built (crash hunting) and checked on the host.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

args = argparse.ArgumentParser()
args.add_argument("seconds", nargs="?", type=float, default=60.0)
args.add_argument("--builds", default="default,ptxas-O0,cicc-O0")
args.add_argument("--host", action="store_true")
opts = args.parse_args()
with tempfile.TemporaryDirectory() as tmp:
    env = dict(os.environ, SUITEGEN_CACHE=str(Path(tmp) / "cache"))
    out = Path(tmp) / "campaign"
    start = time.monotonic()
    cmd = [sys.executable, "-m", "suitegen", "fuzz", "--seed", f"bench-{int(time.time())}", "--budget",
           f"{opts.seconds}s", "--no-reduce", "--reduce-budget", "0", "--builds", opts.builds, "--out", str(out)]
    subprocess.run(cmd + (["--host"] if opts.host else []), env=env, check=False)
    wall = time.monotonic() - start
    t = json.loads((out / "campaign.json").read_text())["tally"]
    checked = max(t["ran"], t["host_checked"])
    print(f"fuzz throughput: {t['generated']} generated, {t['built']} built under {opts.builds}, "
          f"{t['ran']} run on the GPU, {t['host_checked']} checked on the host in {t['seconds']:.1f} s "
          f"(wall {wall:.1f} s): {checked / t['seconds']:.1f} programs/s end to end; {os.cpu_count()} cores")
