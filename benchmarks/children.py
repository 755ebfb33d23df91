"""What a run's child processes were and how long each kind took, from a trace of every child.

    SUITEGEN_TRACE_CHILDREN=trace.jsonl suitegen run ...
    python benchmarks/children.py trace.jsonl      (or trace.jsonl.gz)

Each child is put in one kind by its command: a batch build, a single build (whole, or only up to the
device front end), a host-value link, a device link, a config or feature probe, a program run (a batch's
members together, or one program), a host-value run. Per kind: how many, their seconds in all (a
compiler's are its core-seconds: its stages run one after another), the mean, and how those seconds fall
over the run's tenths (so the tail of a run shows what it waits for).
"""
from __future__ import annotations

import collections
import gzip
import json
import os
import sys
from pathlib import Path


def kind(child: dict) -> str:
    argv, cwd = child["argv"], child.get("cwd") or ""
    tool = Path(argv[0]).name
    if cwd.startswith("suitegen-observe-"):
        return "config probe"  # its dry run, and the preprocessor stages it runs
    if tool in ("nvcc", "clang++", "clang++-22") or tool.startswith("clang"):
        if "--dryrun" in argv:
            return "dry run (stages listed)"
        if "-dlink" in argv:
            return "device link"
        if any(a.startswith("sg_value_main.") for a in argv):
            return "host-value link"
        if cwd.startswith("suitegen-feature") or cwd.startswith("suitegen-probe"):
            return "feature probe"
        if "batch.cu" in argv:
            return "batch build"
        if "-ptx" in argv or "-fatbin" in argv and "-gencode" in argv:
            return "single build, front end only"
        return "single build"
    if tool == "sg_value.out":
        return "host-value run"
    if "gpu_worker" in " ".join(argv):
        return "GPU worker"
    if tool.startswith("batch") or len(argv) > 1 and all(a.isdigit() for a in argv[1:]):
        return "program run, batch members"
    return "program run, single" if tool.endswith(".out") or tool in ("a.out", "main") else f"other ({tool})"


def main(path: str) -> None:
    text = gzip.decompress(Path(path).read_bytes()).decode() if path.endswith(".gz") else Path(path).read_text()
    children = [json.loads(line) for line in text.splitlines() if line.strip()]
    if not children:
        print("no children traced")
        return
    t0 = min(c["start"] for c in children)
    span = max(c["end"] for c in children) - t0 or 1.0
    count: collections.Counter = collections.Counter()
    secs: collections.Counter = collections.Counter()
    tenths: dict[str, list[float]] = collections.defaultdict(lambda: [0.0] * 10)
    for c in children:
        k = kind(c)
        count[k] += 1
        secs[k] += c["end"] - c["start"]
        for i in range(10):  # the part of this child inside each tenth of the run
            lo, hi = t0 + span * i / 10, t0 + span * (i + 1) / 10
            tenths[k][i] += max(0.0, min(hi, c["end"]) - max(lo, c["start"]))
    print(f"{len(children)} children over {span:.1f} s (first start to last end)")
    print(f"{'kind':32} {'count':>6} {'seconds':>9} {'mean s':>7}   busy children per tenth of the run")
    for k, s in secs.most_common():
        per = " ".join(f"{v / (span / 10):4.1f}" for v in tenths[k])
        print(f"{k:32} {count[k]:6} {s:9.1f} {s / count[k]:7.2f}   {per}")


if __name__ == "__main__":
    try:
        main(sys.argv[1])
    except BrokenPipeError:  # read by a pipe that closed early (``| head``): end quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)
