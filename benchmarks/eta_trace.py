"""Record a real run's units as a trace for the progress line's estimate (tests/test_progress.py replays it).

    python benchmarks/eta_trace.py TRACE.json [--note TEXT] -- --profile default --no-exec -j 2 --out DIR

Runs ``suitegen run`` with the given options in this process and writes, for every unit of work the run's
estimate was told about, its kind, its members and when it was planned, began and ended (seconds from the
estimate's start), with the machine, the command and ``-j``. A test replays the trace through
``progress.Estimate`` and checks its time left against the run's real end; no test runs a profile.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from suitegen.engine import progress  # noqa: E402
from suitegen.qualification import run
from suitegen.frontends import cli  # noqa: E402


class Recorder(progress.Estimate):
    """An estimate that also keeps every unit's kind, members and plan, begin and end times."""

    last: "Recorder | None" = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.origin = self.clock()
        self.units: list[list] = []  # [kind, members, planned, began, ended]
        self.open: dict = {}  # key -> index in units, while the unit is planned
        Recorder.last = self

    def _t(self) -> float:
        return round(self.clock() - self.origin, 3)

    def plan(self, key, kind: str, members: int) -> None:
        super().plan(key, kind, members)
        with self._lock:
            self.open[key] = len(self.units)
            self.units.append([kind, max(members, 1), self._t(), None, None])

    def begin(self, key) -> None:
        super().begin(key)
        with self._lock:
            if key in self.open:
                self.units[self.open[key]][3] = self._t()

    def end(self, key, finished: bool = True) -> None:
        super().end(key, finished)
        with self._lock:
            i = self.open.pop(key, None)
            if i is not None and finished:
                self.units[i][4] = self._t()


def machine() -> str:
    """Return this machine in words: processor, the cores this process may use, and the GPU if nvidia-smi names
    one."""
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.machine()) if Path("/proc/cpuinfo").exists() else ""
    gpu = os.popen("nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null").read().strip()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{cpu}, {cores} of {os.cpu_count()} cores" + (f", {gpu.splitlines()[0]}" if gpu else ", no GPU")


def trace_of(rec: Recorder, argv: list[str], note: str) -> dict:
    """Return the trace: the run's units (each planned, begun and finished) with what ran them."""
    kinds = sorted({u[0] for u in rec.units})
    done = [u for u in rec.units if u[3] is not None and u[4] is not None]
    return {"recorded": date.today().isoformat(), "machine": machine(), "note": note,
            "command": "suitegen run " + " ".join(argv), "jobs": rec.jobs, "kinds": kinds,
            "items": sum(u[1] for u in done), "end": max(u[4] for u in done),
            "units": [[kinds.index(k), m, p, b, e] for k, m, p, b, e in done]}


def split(args: list[str]) -> tuple[list[str], list[str]]:
    """Return (this script's arguments, ``suitegen run``'s): those before and after ``--``."""
    cut = args.index("--") if "--" in args else len(args)
    return args[:cut], args[cut + 1:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trace", type=Path)
    parser.add_argument("--note", default="")
    mine, argv = split(sys.argv[1:])
    opts = parser.parse_args(mine)
    run.Estimate = Recorder  # the run makes its estimate by this name
    start = time.monotonic()
    code = cli.main(["run", "-q", *argv])
    if Recorder.last is None or not Recorder.last.units:
        sys.exit(f"eta_trace: the run planned nothing (exit {code})")
    trace = trace_of(Recorder.last, argv, opts.note)
    opts.trace.write_text(json.dumps(trace, separators=(",", ":")) + "\n")
    print(f"eta_trace: {len(trace['units'])} units, {trace['items']} items, {trace['end']:.1f} s of units "
          f"({time.monotonic() - start:.1f} s in all), exit {code}: {opts.trace}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
