"""The run's progress line on the terminal (a line every 10% when not a terminal)."""
from __future__ import annotations

import sys
import time
from collections import Counter
from typing import TextIO


class Progress:
    """A one-line progress bar on a terminal, a line every 10% otherwise."""

    def __init__(self, total: int, stream: TextIO | None = None, enabled: bool = True):
        self.total, self.enabled = total, enabled and total > 0
        self.stream = stream or sys.stderr
        self.done = 0
        self.counts: Counter = Counter()
        self.start = time.monotonic()
        self.tty = self.stream.isatty()
        self._last_decile = -1

    def update(self, verdict: str) -> None:
        self.done += 1
        self.counts[verdict] += 1
        if not self.enabled:
            return
        frac = self.done / self.total
        rate = self.done / max(time.monotonic() - self.start, 1e-6)
        tally = " ".join(f"{k}={v}" for k, v in sorted(self.counts.items()))
        eta = f"ETA {_clock((self.total - self.done) / rate)}" if self.done < self.total else "done"
        if self.tty:
            bar = "#" * int(30 * frac)
            self.stream.write(f"\r[{bar:<30}] {self.done}/{self.total} {rate:.1f}/s {eta} {tally}\x1b[K")
            self.stream.flush()
        elif int(frac * 10) != self._last_decile:
            self._last_decile = int(frac * 10)
            self.stream.write(f"suitegen: {self.done}/{self.total} ({rate:.1f}/s, {eta}) {tally}\n")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    """Return seconds as h:mm:ss or m:ss."""
    s = int(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
