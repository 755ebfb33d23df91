"""Benchmark: the same items three ways, on this machine, in one invocation.

    python benchmarks/throughput.py --profile quick [--rules PATTERN ...] [-j N] [--keep DIR]

1. reference: every item built alone (``--batch off --no-cache``);
2. batched, cold cache (a fresh, private cache folder);
3. batched, warm cache (the same folder again).

It prints wall time, core-seconds (the CPU time of every process the run started), items/s and the
ratios against the reference, how many items were built alone in the batched run and why, how many
nvcc builds each way ran, and the number of (case, config) verdicts that differ between 1 and 2 (and
2 and 3): each must be 0.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from figures import suitegen_run  # noqa: E402
from suitegen.model import Alone, Batched, Record  # noqa: E402
from suitegen.report.run_folder import RESULTS, read_records  # noqa: E402


def run(name: str, argv: list[str], cache: Path, out: Path) -> dict:
    """Run one suitegen run as a child (``figures.suitegen_run``); return its wall time, core-seconds and records."""
    done = suitegen_run(ROOT, out, cache, *argv)
    return {"name": name, "wall": done["wall"], "cpu": done["cpu"], "records": list(read_records(out / RESULTS))}


def builds(records: list[Record]) -> int:
    """Return how many nvcc builds ran: one per batch (those that attributed nobody too), one per item
    built alone (cache hits: none)."""
    batches, alone = set(), 0
    for r in records:
        if not r.observed or r.observed.cached:
            continue  # a rerun takes the batches it tried from the cache as well
        if isinstance(r.batch, Batched):
            batches.add(r.batch.id)
        else:
            batches.update(r.batch.tried if isinstance(r.batch, Alone) else ())
            alone += 1
    return len(batches) + alone


def differences(a: list[Record], b: list[Record]) -> int:
    va = {(r.case_id, r.config_key): r.verdict for r in a}  # by id: a template edit keeps it
    vb = {(r.case_id, r.config_key): r.verdict for r in b}
    return sum(va.get(k) != vb.get(k) for k in va.keys() | vb.keys())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", metavar="DIR", help="keep the three run folders here")
    parser.add_argument("--reference", metavar="DIR", help="take the reference from an earlier run of this "
                        "script (its reference/ folder and timing.json) instead of running it again")
    args, passthrough = parser.parse_known_args()
    root = Path(args.keep or tempfile.mkdtemp(prefix="suitegen-throughput-"))
    root.mkdir(parents=True, exist_ok=True)
    cache = Path(tempfile.mkdtemp(prefix="suitegen-cache-"))
    env = dict(os.environ, SUITEGEN_CACHE=str(cache))
    # The feature and config probes are cached per toolchain: fill them first so no way pays for them.
    subprocess.run([sys.executable, "-m", "suitegen", "run", "--list", *passthrough], env=env,
                   stdout=subprocess.DEVNULL, check=True)
    if args.reference:
        saved = json.loads((Path(args.reference) / "timing.json").read_text())
        records = list(read_records(Path(args.reference) / "reference" / RESULTS))
        ref = {"name": "reference (saved)", "wall": saved["wall"], "cpu": saved["cpu"], "records": records}
    else:
        ref = run("reference", [*passthrough, "--batch", "off", "--no-cache"], cache, root / "reference")
        (root / "timing.json").write_text(json.dumps({"wall": ref["wall"], "cpu": ref["cpu"]}))
    cold = run("batched, cold cache", [*passthrough, "--batch", "on"], cache, root / "cold")
    warm = run("batched, warm cache", [*passthrough, "--batch", "on"], cache, root / "warm")
    n = len(ref["records"])
    print(f"throughput: {' '.join(passthrough)} on {platform.node()} ({os.cpu_count()} cores), {n} items")
    for r in (ref, cold, warm):
        print(f"  {r['name']:<22} wall {r['wall']:8.1f} s ({ref['wall'] / r['wall']:5.1f}x)   core-s "
              f"{r['cpu']:8.1f} ({ref['cpu'] / max(r['cpu'], 1e-9):5.1f}x)   {n / r['wall']:7.2f} items/s   "
              f"nvcc builds {builds(r['records'])}")
    alone = collections.Counter(r.batch.why.split(":")[0] if isinstance(r.batch, Alone) else "not batched (mode, files or scope; a "
                                "rejection by the host compiler or linker)"
                                for r in cold["records"] if not isinstance(r.batch, Batched) and r.observed)
    built = sum(1 for r in cold["records"] if r.observed)
    print(f"  fallback: {sum(alone.values())} of {built} built items were built alone in the batched run")
    for why, count in alone.most_common():
        print(f"    {count:5}  {why}")
    print(f"  verdict differences: reference vs batched {differences(ref['records'], cold['records'])}, "
          f"cold vs warm {differences(cold['records'], warm['records'])}")
    print(f"  run folders: {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
