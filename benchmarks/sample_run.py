"""Where a run's threads spend their time, and how busy the machine's cores are, sampled while it runs.

    python benchmarks/sample_run.py [--every 0.05] -- run --profile nightly --shard 2/8 --out OUT

Runs ``suitegen`` with the arguments after ``--`` in this process. Every ``--every`` seconds it notes, for
each thread, the innermost suitegen frame it is in (or the library call it waits in), and how busy the
cores were over the last second (from /proc/stat). It prints, by 10% of the run, the cores' use and the
threads' states, then the frames seen most. A thread waiting on a child process (a compiler, a program)
is a "child of" its caller; one doing Python work holds or waits for the interpreter lock.
"""
from __future__ import annotations

import argparse
import collections
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def cpu_times() -> tuple[int, int]:
    """Return (busy, total) jiffies of all cores."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def where(frame) -> str:
    """Return a thread's state: the innermost suitegen function it is in (past ``procs``: a wait on a child
    names who started it), with the call it waits in."""
    inner, child = frame.f_code.co_name, False
    while frame is not None:
        name = frame.f_code.co_filename
        if name.endswith("/suitegen/procs.py"):
            child = True
        elif "/suitegen/" in name:
            return (f"{'child of ' if child else ''}{Path(name).parent.name}/{Path(name).stem}."
                    f"{frame.f_code.co_name} [{inner}]")
        frame = frame.f_back
    return f"[{inner}]"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--every", type=float, default=0.05)
    ap.add_argument("argv", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    argv = a.argv[1:] if a.argv[:1] == ["--"] else a.argv
    samples: list[tuple[float, float, list[str]]] = []
    done = threading.Event()

    def sample() -> None:
        me = threading.get_ident()
        last, last_t, busy = cpu_times(), time.monotonic(), 0.0
        while not done.wait(a.every):
            now = time.monotonic()
            if now - last_t >= 1.0:
                cur = cpu_times()
                busy = (cur[0] - last[0]) / max(cur[1] - last[1], 1)
                last, last_t = cur, now
            states = [where(f) for t, f in sys._current_frames().items() if t != me]
            samples.append((now, busy, states))

    threading.Thread(target=sample, daemon=True).start()
    from suitegen.frontends import cli
    start = time.monotonic()
    try:
        code = cli.main(argv)
    finally:
        done.set()
    wall = time.monotonic() - start
    print(f"\nsample_run: exit {code}, {wall:.1f} s, {len(samples)} samples", file=sys.stderr)
    for k in range(10):
        part = [s for s in samples if k / 10 <= (s[0] - start) / wall < (k + 1) / 10]
        if not part:
            continue
        states = collections.Counter(st.split(" ")[0] for s in part for st in s[2])
        n = len(part)
        top = ", ".join(f"{name} {count / n:.1f}" for name, count in states.most_common(4))
        print(f"{k * 10:3d}-{k * 10 + 10}%: cores {100 * sum(s[1] for s in part) / n:3.0f}% busy; "
              f"threads (mean count): {top}", file=sys.stderr)
    total = collections.Counter(st for s in samples for st in s[2])
    print("most seen:", file=sys.stderr)
    for name, count in total.most_common(15):
        print(f"  {count / len(samples):6.2f}  {name}", file=sys.stderr)


if __name__ == "__main__":
    main()
