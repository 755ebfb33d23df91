"""The run's progress line on the terminal (a line every 10% when not a terminal), with the time left
estimated from the work still planned, and what runs when nothing has finished for a while."""
from __future__ import annotations

import functools
import shutil
import sys
import threading
import time
from collections import Counter
from typing import Callable, Hashable, Mapping, TextIO


# What a unit costs on the reference machine, by its shape and build mode (a kind's first and last words: "batch
# nvcc compile" is ("batch", "compile")): (fixed seconds, seconds per member). Fitted through the units of a cold
# compile-only default run on 2 cores (benchmarks/eta_trace.py; tests/data/eta-default-2-cores.json). Only their
# ratios matter: the run's own units set the scale.
PRIORS: dict[tuple[str, str], tuple[float, float]] = {
    ("batch", "compile"): (0.6, 0.009), ("batch", "fatbin"): (0.6, 0.009), ("batch", "link"): (1.0, 0.009),
    ("batch", "rdc-link"): (1.9, 0.02), ("batch", "module"): (1.0, 0.03),  # generated programs: about 2 s a module of 32 here
    ("single", "compile"): (0.33, 0.0), ("single", "fatbin"): (0.25, 0.0), ("single", "link"): (0.7, 0.0),
    ("single", "rdc-link"): (0.85, 0.0),
}
# Reference seconds of the run's mean speed a kind's own speed is weighed against: a kind follows its own units
# once they cost more than this on the reference machine (some 20 single builds, or 5 batches).
PRIOR_WEIGHT = 8.0
# Single builds a batch is expected to leave per member (members it could not attribute with certainty, built
# again alone: 0.028 of the default profile's batched members in both recorded runs). Not learned as a run goes:
# reject batches come first and leave most of them, which would overcharge the accept batches after them.
LEFTOVERS = 0.03
KNOWN = 2.0  # reference seconds of finished units before the time left is said (a few units, not the first)


@functools.lru_cache(maxsize=None)
def prior(kind: str) -> tuple[float, float] | None:
    """Return a kind's reference cost (fixed seconds, seconds per member), or None for a kind PRIORS lacks."""
    words = kind.split()
    return PRIORS.get((words[0], words[-1])) if words else None


class Estimate:
    """The time left from the units still planned, each costing what its kind's reference cost says at the
    speed this run has shown.

    Batches make the flow of finished items lumpy (a batch of 256 lands at once, then nothing while the next
    builds), so items per second swing; the planned units do not. A unit of ``m`` members costs its kind's
    reference cost (``PRIORS``: a fixed part and a part per member; a kind it lacks costs one part per member)
    times the kind's speed: the seconds its finished units took over their reference cost, weighed against the
    run's mean speed (``PRIOR_WEIGHT``), so one early unit sets nothing alone. A kind with no prior and no
    finished unit costs the run's mean speed. A batch also costs the single builds it is expected to leave
    (``LEFTOVERS``). A resume starts from what its earlier legs saw. The pool runs ``jobs`` units at a time, or
    as many as it has been seen to run (units that wait on the GPU hold no core). Thread-safe: workers call
    ``begin`` and ``end``; ``tests/test_progress.py`` replays recorded runs through it.
    """

    def __init__(self, jobs: int = 1, clock: Callable[[], float] = time.monotonic,
                 costs: Mapping[str, list[float]] | None = None):
        self.jobs = max(jobs, 1)
        self.clock = clock
        self._lock = threading.Lock()
        self._planned: dict[Hashable, tuple[str, int]] = {}
        self._started: dict[Hashable, float] = {}
        self._kinds: dict[str, list[float]] = {}  # kind -> [seconds, members, units] of its finished units
        for kind, seen in (costs or {}).items():
            if len(seen) >= 3 or prior(kind) is None:  # an older run.json's entry lacks its units
                self._kinds[kind] = [float(seen[0]), float(seen[1]), float(seen[2]) if len(seen) >= 3 else 0.0]
        self._first: float | None = None  # when this leg's first unit began
        self._busy = 0.0  # unit-seconds of the units finished in this leg

    def plan(self, key: Hashable, kind: str, members: int) -> None:
        """Add a unit of work to what is left."""
        with self._lock:
            self._planned[key] = (kind, max(members, 1))

    def begin(self, key: Hashable) -> None:
        with self._lock:
            now = self.clock()
            self._started[key] = now
            self._first = now if self._first is None else self._first

    def end(self, key: Hashable, finished: bool = True) -> None:
        """A unit is done; ``finished``: it ran to the end (a unit cut short by a stop teaches nothing)."""
        with self._lock:
            kind, members = self._planned.pop(key, ("", 1))
            began = self._started.pop(key, None)
            if began is None:
                return
            seconds = max(self.clock() - began, 0.0)
            self._busy += seconds
            if finished and kind:
                seen = self._kinds.setdefault(kind, [0.0, 0.0, 0.0])
                seen[0] += seconds
                seen[1] += members
                seen[2] += 1

    def seconds_left(self) -> float | None:
        """Return the estimated seconds until every planned unit is done, or None before anything is known."""
        with self._lock:
            now = self.clock()
            mean = self._mean_speed(now)
            left, leftovers, speeds = [], 0.0, {}
            for key, (kind, members) in self._planned.items():
                if kind not in speeds:
                    speeds[kind] = (self._speed(kind, mean), self._leftovers(kind, mean))
                speed, per_member = speeds[kind]
                if speed is None:
                    return None
                cost = speed * self._reference(kind, members, 1)
                if key in self._started:  # running: what it still needs
                    cost = max(cost - (now - self._started[key]), 0.0)
                left.append(cost)
                leftovers += per_member * members
            at_once = self._concurrency(now)
        if not left:
            return 0.0
        # The pool runs ``at_once`` units at a time, and no sooner than its longest unit ends.
        return max((sum(left) + leftovers) / at_once, max(left))

    def running(self) -> list[tuple[str, int, float]]:
        """Return (kind, members, seconds so far) of each unit running now, longest running first."""
        with self._lock:
            now = self.clock()
            out = [(*self._planned.get(key, ("", 1)), now - began) for key, began in self._started.items()]
        return sorted(out, key=lambda r: -r[2])

    def costs(self) -> dict[str, list[float]]:
        """Return kind -> [seconds, members, units] seen so far (run.json keeps it for a resume's estimate)."""
        with self._lock:
            return {k: [round(s, 3), int(m), int(u)] for k, (s, m, u) in sorted(self._kinds.items())}

    def _reference(self, kind: str, members: float, units: float) -> float:
        """Return the reference cost of ``units`` units of a kind with ``members`` members in all."""
        fixed, per_member = prior(kind) or (0.0, 1.0)
        return fixed * units + per_member * members

    def _mean_speed(self, now: float) -> float | None:
        """Return the seconds units took per reference second, or None before KNOWN reference seconds finished.

        The finished units' reference cost against their seconds and the running units' seconds so far: early,
        only quick units have finished, and a long one still running is evidence too (without it an early
        estimate runs low and then rises)."""
        seconds = sum(s for s, _, _ in self._kinds.values())
        reference = sum(self._reference(k, m, u) for k, (_, m, u) in self._kinds.items())
        if reference < KNOWN:
            return None
        return (seconds + sum(now - began for began in self._started.values())) / reference

    def _speed(self, kind: str, mean: float | None) -> float | None:
        """Return a kind's seconds per reference second: its finished units' weighed against the run's ``mean``
        (``PRIOR_WEIGHT``), or its own alone where PRIORS lacks it; None before anything is known."""
        seconds, members, units = self._kinds.get(kind, (0.0, 0.0, 0.0))
        reference = self._reference(kind, members, units)
        if prior(kind) is None:
            return seconds / reference if reference > 0 else mean
        return None if mean is None else (seconds + PRIOR_WEIGHT * mean) / (reference + PRIOR_WEIGHT)

    def _leftovers(self, kind: str, mean: float | None) -> float:
        """Return the cost per member of the single builds a batch of a kind PRIORS knows is expected to leave."""
        words = kind.split()
        if not words or words[0] != "batch" or prior(kind) is None or mean is None:
            return 0.0
        single = " ".join(["single", *words[1:]])
        return LEFTOVERS * (self._speed(single, mean) or 0.0) * self._reference(single, 1, 1)

    def _concurrency(self, now: float) -> float:
        """Return how many units the pool runs at once: ``jobs``, or more where that many were seen at once on
        average (``jobs`` builds and the units that wait for the GPU meanwhile)."""
        if self._first is None or now - self._first <= 0:
            return self.jobs
        busy = self._busy + sum(now - began for began in self._started.values())
        return max(self.jobs, busy / (now - self._first))


REDRAW = 0.2  # seconds between two writes of the terminal line
WATCH = 1.0  # seconds between two looks at a run with nothing finished
QUIET = 10.0  # seconds with nothing finished before a terminal's line says what runs (then each WATCH)
QUIET_LOG = 60.0  # ... before a line says it when not a terminal (then one line per QUIET_LOG)
SHOWN = 3  # running units named on the line, the longest running first


class Progress:
    """A one-line progress bar on a terminal, a line every 10% otherwise; when nothing finishes for a while,
    the line says which units run and for how long (a thread looks every ``watch`` seconds)."""

    def __init__(self, total: int, stream: TextIO | None = None, enabled: bool = True,
                 estimate: Estimate | None = None, clock: Callable[[], float] = time.monotonic,
                 watch: float | None = WATCH):
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
        self._finished = self._said = self.start  # when an item last finished; when a quiet line was written
        self._write = threading.Lock()
        self._closed = threading.Event()
        self.watcher = threading.Thread(target=self._watch, args=(watch,), name="suitegen-progress", daemon=True)
        if self.enabled and watch:
            self.watcher.start()

    def update(self, verdict: str) -> None:
        """Count one finished item; write the line when it is due (on a terminal at most every ``REDRAW``
        seconds and at the end: the estimate walks every planned unit)."""
        self.done += 1
        self.counts[verdict] += 1
        if not self.enabled:
            return
        now, frac, last = self.clock(), self.done / self.total, self.done == self.total
        self._finished = now
        if self.tty and not last and now - self._drawn < REDRAW:
            return
        if not self.tty and int(frac * 10) == self._last_decile:
            return
        self._last_decile = int(frac * 10)
        rate = self.done / max(now - self.start, 1e-6)
        tally = " ".join(f"{k}={v}" for k, v in sorted(self.counts.items()))
        eta = "done" if last else f"ETA {self.eta()}"
        if self.tty:
            self._put(now, f"{rate:.1f}/s {eta} {tally}")
        else:
            self._put(now, f"({rate:.1f}/s, {eta}) {tally}")

    def tick(self) -> None:
        """Say what runs when no item has finished for ``QUIET`` seconds (``QUIET_LOG`` when not a terminal, and
        then once per ``QUIET_LOG``): the running units' kinds, sizes and times so far."""
        now = self.clock()
        quiet = now - self._finished
        if not self.enabled or self._closed.is_set() or self.done == self.total:
            return
        if quiet < QUIET or not self.tty and (quiet < QUIET_LOG or now - self._said < QUIET_LOG):
            return
        self._said = now
        running = self.estimate.running()
        names = ", ".join(f"{unit_words(kind, members)} {_clock(seconds)}" for kind, members, seconds in
                          running[:SHOWN]) + (f", {len(running) - SHOWN} more" if len(running) > SHOWN else "")
        news = f"nothing finished for {_clock(quiet)}; running: {names or 'nothing'}"
        self._put(now, f"ETA {self.eta()}; {news}" if self.tty else f"(ETA {self.eta()}) {news}")

    def eta(self) -> str:
        """Return the time left as m:ss (h:mm:ss), or '?' before enough units have finished."""
        left = self.estimate.seconds_left()
        return "?" if left is None else _clock(left)

    def close(self) -> None:
        self._closed.set()
        if self.enabled and self.tty:
            with self._write:
                self.stream.write("\n")
                self.stream.flush()

    def _put(self, now: float, text: str) -> None:
        """Write the line: on a terminal over the last one (bar, count, then ``text``, cut to the terminal's
        width), else a line of its own."""
        with self._write:
            self._drawn = now
            if self.tty:
                bar = "#" * int(30 * self.done / self.total)
                line = f"[{bar:<30}] {self.done}/{self.total} {text}"
                self.stream.write(f"\r{line[:shutil.get_terminal_size().columns - 1]}\x1b[K")
            else:
                self.stream.write(f"suitegen: {self.done}/{self.total} {text}\n")
            self.stream.flush()

    def _watch(self, every: float) -> None:
        while not self._closed.wait(every):
            self.tick()


def unit_words(kind: str, members: int) -> str:
    """Return a unit in words: its kind, and its members where it has several ("batch nvcc compile x512")."""
    return f"{kind} x{members}" if members > 1 else kind


def _clock(seconds: float) -> str:
    """Return seconds as h:mm:ss or m:ss."""
    s = int(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
