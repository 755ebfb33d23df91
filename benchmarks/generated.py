"""What the generated corpus costs a run: each profile with and without it, cold (a fresh cache each).

    python3 benchmarks/generated.py OUT [PROFILE[:with|:without] ...]        (default: quick)

For each profile prints the wall time with the corpus and without it (``--generated 0``), the generated
items, programs per second (the items over the difference of the two wall times), the share of generated
items that ran on the GPU, and their verdicts. Run it on the GPU machine; the machine is printed first.
``PROFILE:with`` or ``PROFILE:without`` runs one half (a device call has 10 minutes), printing its wall time and
items per second.
"""
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(out: Path, profile: str, *extra: str) -> tuple[float, list[dict]]:
    """Run one profile cold; return its wall time and its records."""
    env = dict(os.environ, SUITEGEN_CACHE=str(out / "cache"),
               PYTHONPATH=os.pathsep.join(filter(None, (str(REPO), os.environ.get("PYTHONPATH")))))
    out.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "suitegen", "run", "--profile", profile, "-q", "--out",
                           str(out / "run"), *extra], cwd=REPO, env=env, capture_output=True, text=True)
    wall = time.monotonic() - start
    (out / "log").write_text(done.stdout + done.stderr)
    subprocess.run(["rm", "-rf", str(out / "cache")])
    return wall, [json.loads(line) for line in (out / "run" / "results.jsonl").read_text().splitlines()]


def main(out: str, *profiles: str) -> None:
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                         text=True).stdout.strip() or "no GPU"
    print(f"machine: {os.cpu_count()} cores, {gpu}")
    for profile in profiles or ("quick",):
        if ":" in profile:
            profile, half = profile.split(":")
            wall, recs = run(Path(out) / profile / half, profile, *(("--generated", "0") if half == "without" else ()))
            gen = [r for r in recs if r["section"] == "generated"]
            ran = sum(1 for r in gen if r.get("execution"))
            print(f"{profile} {half} the corpus: {wall:.1f} s, {len(recs)} items ({len(recs) / wall:.1f} items/s); "
                  f"{len(gen)} generated items, {ran} ran on the GPU; verdicts {dict(Counter(r['verdict'] for r in recs))}")
            continue
        base = Path(out) / profile
        with_wall, recs = run(base / "with", profile)
        without_wall, others = run(base / "without", profile, "--generated", "0")
        gen = [r for r in recs if r["section"] == "generated"]
        ran = sum(1 for r in gen if r.get("execution"))
        extra = with_wall - without_wall
        print(f"{profile}: with the corpus {with_wall:.1f} s ({len(recs)} items), without {without_wall:.1f} s "
              f"({len(others)} items); {len(gen)} generated items, "
              f"{len(gen) / extra if extra > 0 else float('nan'):.1f} programs/s over the difference; "
              f"{ran} of {len(gen)} ran on the GPU ({100 * ran / max(1, len(gen)):.0f}%); "
              f"verdicts {dict(Counter(r['verdict'] for r in gen))}; whole run {dict(Counter(r['verdict'] for r in recs))}")


if __name__ == "__main__":
    main(*sys.argv[1:])
