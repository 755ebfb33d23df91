"""Runs compute-sanitizer (memcheck, racecheck, synccheck, initcheck) on a sample of generated programs.

    python benchmarks/fuzz_sanitize.py [COUNT] [--seed S] [--out DIR]

The sample is COUNT programs (default 200) that use threads that talk: barrier phases on __shared__ memory,
atomics (block-level and global), warp operations, and tables in every memory space. They are built in files
of 40 with a host main that runs each kernel and checks its outputs, then each file runs under each tool.
Prints the programs' coverage, each tool's error count, and whether every output matched the model.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from suitegen.synth import emit, populate, reduce  # noqa: E402

args = argparse.ArgumentParser()
args.add_argument("count", nargs="?", type=int, default=200)
args.add_argument("--seed", default="sanitize")
args.add_argument("--out", default="/tmp/sg-sanitize")
opts = args.parse_args()
out = Path(opts.out)
out.mkdir(parents=True, exist_ok=True)
sample, i, uses = [], 0, Counter()
while len(sample) < opts.count:
    p = populate.generate(opts.seed, i, "atomics" if i % 2 else None)
    i += 1
    kinds = {c.kind for c in p.comms}
    if not (kinds & {"barrier", "uniform-barrier", "block-atomic", "section"}) or not (p.atomics or "block-atomic" in kinds):
        continue
    sample.append(p)
    uses.update(kinds)
    uses.update(t.space + (" (one slot per thread)" if t.writable else "") for t in p.tables)
    uses["global atomics"] += bool(p.atomics)
print(f"sample: {len(sample)} programs (of {i} drawn); uses: {dict(sorted(uses.items()))}")
tools = ("memcheck", "racecheck", "synccheck", "initcheck")
sanitizer = shutil.which("compute-sanitizer") or os.path.join(os.path.dirname(os.path.realpath(shutil.which("nvcc"))),
                                                             "compute-sanitizer")
totals, wrong = Counter(), 0
for k in range(0, len(sample), 40):
    part = sample[k:k + 40]
    exp = [reduce.expected(p) for p in part]
    src = out / f"s{k // 40}.cu"
    src.write_text(emit.source(part) + emit.checked_main(part, exp))
    exe = src.with_suffix(".out")
    subprocess.run(["nvcc", "-std=c++17", "-w", "-fmad=false", "-arch=sm_90", "-lineinfo", str(src), "-o", str(exe)],
                   check=True)
    plain = subprocess.run([str(exe)], capture_output=True, text=True)
    wrong += plain.returncode != 0
    for tool in tools:
        run = subprocess.run([sanitizer, "--tool", tool, str(exe)], capture_output=True, text=True)
        m = re.search(r"(?:ERROR SUMMARY: |RACECHECK SUMMARY: \d+ hazards displayed \()(\d+) error",
                      run.stdout + run.stderr)
        totals[tool] += int(m.group(1)) if m else 10**6
        if not m or int(m.group(1)):
            print(f"{src.name} {tool}:", (run.stdout + run.stderr)[-1500:])
print(f"compute-sanitizer on {len(sample)} programs: " + ", ".join(f"{t} {totals[t]} errors" for t in tools)
      + f"; files with a wrong output: {wrong}")
