"""Benchmark: how long generating a corpus takes (every variant once plus COUNT drawn cases).

    python benchmarks/generate.py [--count 700] [--seed 11] [--repeat 3]
"""
from __future__ import annotations

import argparse
import statistics
import time

from suitegen.cases.compose import corpus
from suitegen.cases.render import Renderer
from suitegen.engine import hook_modules  # noqa: F401 - every hook registered before the oracle loads
from suitegen.oracle import loader


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=700)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rules = loader.load().rules
    times, size = [], 0
    for _ in range(args.repeat):
        start = time.perf_counter()
        size = len(corpus(Renderer(), rules, seed=args.seed, count=args.count))
        times.append(time.perf_counter() - start)
    best, median = min(times), statistics.median(times)
    print(f"generate: {size} cases (count {args.count}, seed {args.seed}); best {best:.2f}s, median {median:.2f}s "
          f"over {args.repeat}; {size / best:.0f} cases/s")


if __name__ == "__main__":
    main()
