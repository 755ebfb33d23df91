"""Where a run's time went, from its records: build seconds (batched or alone, by config) and GPU checks.

    python benchmarks/where_time_goes.py RUN_FOLDER [RUN_FOLDER ...]

A batch member's build duration is its share of the batch build, so the build sums are nvcc core-seconds
(nvcc's stages run one after another). Builds of batches whose members were all built again alone are not
in the records and not counted. Checks: the seconds each GPU (or host) run took, by behaviour check.
"""
from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from suitegen.model import Alone, Batched  # noqa: E402
from suitegen.report.run_folder import RESULTS, read_records  # noqa: E402


def main(folders: list[str]) -> None:
    build: collections.Counter = collections.Counter()
    items: collections.Counter = collections.Counter()
    runs: collections.Counter = collections.Counter()
    count: collections.Counter = collections.Counter()
    why: collections.Counter = collections.Counter()
    wall = 0.0
    for folder in folders:
        records = read_records(Path(folder) / RESULTS)
        meta = Path(folder) / "run.json"
        if meta.exists():
            wall += json.loads(meta.read_text()).get("wall_seconds") or 0.0
        for r in records:
            cfg = r.config
            key = (f"{cfg.std} {cfg.arch} {' '.join(cfg.flags)}".strip(),
                   ("batch" if isinstance(r.batch, Batched) else "alone") if r.observed else "not built")
            items[key] += 1
            if r.observed:
                build[key] += r.duration
            if isinstance(r.batch, Alone):
                why[r.batch.why.split(':')[0]] += 1  # without what the batch saw
            if r.execution:
                check = r.behaviour.check if r.behaviour else "runtime"
                runs[check] += r.execution.duration
                count[check] += 1
    print(f"{sum(items.values())} items; run wall {wall:.1f} s" if wall else f"{sum(items.values())} items")
    print(f"{'config':36} {'how':10} {'items':>7} {'build core-s':>13}")
    for key in sorted(items, key=lambda k: -build[k]):
        print(f"{key[0]:36} {key[1]:10} {items[key]:7} {build[key]:13.1f}")
    for how in ("batch", "alone"):
        print(f"total {how}: {sum(v for k, v in items.items() if k[1] == how)} items, "
              f"{sum(v for k, v in build.items() if k[1] == how):.1f} build core-s")
    print("built alone because: " + "; ".join(f"{n} {w}" for w, n in why.most_common(8)))
    print("GPU/host checks: " + "; ".join(f"{c}: {count[c]} runs, {s:.1f} s" for c, s in runs.most_common()))


if __name__ == "__main__":
    main(sys.argv[1:])
