"""The run's progress line on the terminal (a line every 10% when not a terminal), with the time left
estimated from the work still planned."""
from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from typing import Callable, Hashable, Mapping, TextIO


class Estimate:
    """The time left from the units still planned, each costing its members times its kind's cost per member.

    Batches make the flow of finished items lumpy (a batch of 256 lands at once, then nothing while the
    next builds), so items per second swing; the planned units do not. A kind's cost per member is
    learned from its finished units (a resume starts from what its earlier legs saw). A kind with none
    finished yet costs what a build of its size costs by a line fitted through every finished unit
    (a build's fixed part plus a part per member), or failing that the mean cost per member. Thread-safe:
    workers call ``begin`` and ``end``.
    """

    def __init__(self, jobs: int = 1, clock: Callable[[], float] = time.monotonic,
                 costs: Mapping[str, tuple[float, int]] | None = None):
        self.jobs = max(jobs, 1)
        self.clock = clock
        self._lock = threading.Lock()
        self._planned: dict[Hashable, tuple[str, int]] = {}
        self._started: dict[Hashable, float] = {}
        self._kinds: dict[str, list[float]] = {k: [float(s), float(m)] for k, (s, m) in (costs or {}).items()}
        self._units: list[tuple[int, float]] = []  # (members, seconds) of the units finished in this leg

    def plan(self, key: Hashable, kind: str, members: int) -> None:
        """Add a unit of work to what is left."""
        with self._lock:
            self._planned[key] = (kind, max(members, 1))

    def begin(self, key: Hashable) -> None:
        with self._lock:
            self._started[key] = self.clock()

    def end(self, key: Hashable, finished: bool = True) -> None:
        """A unit is done; ``finished``: it ran to the end (a unit cut short by a stop teaches nothing)."""
        with self._lock:
            kind, members = self._planned.pop(key, ("", 1))
            began = self._started.pop(key, None)
            if finished and began is not None and kind:
                seconds = max(self.clock() - began, 0.0)
                seen = self._kinds.setdefault(kind, [0.0, 0.0])
                seen[0] += seconds
                seen[1] += members
                self._units.append((members, seconds))

    def seconds_left(self) -> float | None:
        """Return the estimated seconds until every planned unit is done, or None before anything is known."""
        with self._lock:
            now = self.clock()
            left = []
            for key, (kind, members) in self._planned.items():
                cost = self._cost(kind, members)
                if cost is None:
                    return None
                if key in self._started:  # running: what it still needs
                    cost = max(cost - (now - self._started[key]), 0.0)
                left.append(cost)
        if not left:
            return 0.0
        # The pool runs ``jobs`` units at a time, and no sooner than its longest unit ends.
        return max(sum(left) / self.jobs, max(left))

    def costs(self) -> dict[str, list[float]]:
        """Return kind -> [seconds, members] seen so far (run.json keeps it for a resume's estimate)."""
        with self._lock:
            return {k: [round(s, 3), int(m)] for k, (s, m) in sorted(self._kinds.items())}

    def _cost(self, kind: str, members: int) -> float | None:
        seen = self._kinds.get(kind)
        if seen and seen[1]:
            return seen[0] / seen[1] * members
        line = _fit(self._units)
        if line is not None:
            return max(line[0] + line[1] * members, 0.0)
        total = [sum(v) for v in zip(*self._kinds.values())] if self._kinds else None
        return total[0] / total[1] * members if total and total[1] else None


def _fit(units: list[tuple[int, float]]) -> tuple[float, float] | None:
    """Return (fixed, per member) of the least-squares line through (members, seconds), or None when all
    units have one size."""
    if len({m for m, _ in units}) < 2:
        return None
    n = len(units)
    mx = sum(m for m, _ in units) / n
    my = sum(s for _, s in units) / n
    slope = sum((m - mx) * (s - my) for m, s in units) / sum((m - mx) ** 2 for m, _ in units)
    slope = max(slope, 0.0)
    return max(my - slope * mx, 0.0), slope


REDRAW = 0.2  # seconds between two writes of the terminal line


class Progress:
    """A one-line progress bar on a terminal, a line every 10% otherwise."""

    def __init__(self, total: int, stream: TextIO | None = None, enabled: bool = True,
                 estimate: Estimate | None = None, clock: Callable[[], float] = time.monotonic):
        self.total, self.enabled = total, enabled and total > 0
        self.stream = stream or sys.stderr
        self.done = 0
        self.counts: Counter = Counter()
        self.clock = clock
        self.estimate = estimate or Estimate(clock=clock)
        self.start = clock()
        self.tty = self.stream.isatty()
        self._last_decile = -1
        self._drawn = float("-inf")  # when the terminal line was last written

    def update(self, verdict: str) -> None:
        """Count one finished item; write the line when it is due (on a terminal at most every ``REDRAW``
        seconds and at the end: the estimate walks every planned unit)."""
        self.done += 1
        self.counts[verdict] += 1
        if not self.enabled:
            return
        now, frac, last = self.clock(), self.done / self.total, self.done == self.total
        if self.tty and not last and now - self._drawn < REDRAW:
            return
        if not self.tty and int(frac * 10) == self._last_decile:
            return
        self._drawn, self._last_decile = now, int(frac * 10)
        rate = self.done / max(now - self.start, 1e-6)
        tally = " ".join(f"{k}={v}" for k, v in sorted(self.counts.items()))
        eta = "done" if last else f"ETA {self.eta()}"
        if self.tty:
            bar = "#" * int(30 * frac)
            self.stream.write(f"\r[{bar:<30}] {self.done}/{self.total} {rate:.1f}/s {eta} {tally}\x1b[K")
        else:
            self.stream.write(f"suitegen: {self.done}/{self.total} ({rate:.1f}/s, {eta}) {tally}\n")
        self.stream.flush()

    def eta(self) -> str:
        """Return the time left as m:ss (h:mm:ss), or '?' before any unit has finished."""
        left = self.estimate.seconds_left()
        return "?" if left is None else _clock(left)

    def close(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    """Return seconds as h:mm:ss or m:ss."""
    s = int(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
