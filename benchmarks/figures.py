"""Every figure of the run-time issue (24) on this machine, in one invocation, ending with one table.

    python benchmarks/figures.py [--out DIR] [--reference-tree DIR] [--only NAME ...]

With a GPU here (runs execute):
  nightly     the nightly profile with execution, cold private cache: wall, items/s;
  quick-ref   the quick profile with execution, batched and cold, beside the reference path (``--batch off
              --no-cache``, from ``--reference-tree``: a checkout of the reference commit, default this tree),
              each with its own cache: walls, and how many (case, config) verdicts differ;
  shard-ref   the same for nightly shard 1/8;
Without one (a CI-like machine):
  quick-cold  the quick profile cold beside the reference path: walls and core-seconds, with their ratios;
  default     the default profile cold: wall, items/s;
Both:
  page        the page of the largest run made here: size, and the load event in headless Chromium at 1,400 px
              (where Debian's chromium is installed), and whether it scrolls sideways.
Each run's folder is kept under ``--out``; the machine (cores, GPU) heads the table. With a GPU the four take about
12 minutes on an H100; where a command may run only 10, start it detached (``setsid nohup ... &``) and read its
table when it ends.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from suitegen.report.run_folder import RESULTS, read_records  # noqa: E402


def suitegen_run(tree: Path, out: Path, cache: Path, *args: str) -> dict:
    """Run ``suitegen run`` from ``tree`` as a child; return its wall time, core-seconds and run.json."""
    env = dict(os.environ, SUITEGEN_CACHE=str(cache), PYTHONPATH=os.pathsep.join(
        [str(tree), *filter(None, [os.environ.get("PYTHONPATH")])]))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "suitegen", "run", "-q", "--out", str(out), *args], cwd=tree,
                          env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        sys.exit(f"figures: suitegen run {' '.join(args)} exited {done.returncode}: {done.stderr[-2000:]}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return {"wall": wall, "cpu": cpu, "meta": json.loads((out / "run.json").read_text()), "folder": out}


def differ(a: Path, b: Path) -> str:
    """Say how many (case, config) verdicts differ between two runs, over the items both hold: a shard of a batched
    run and one of the reference path hold different items (a shard is cut by units, and batching makes them)."""
    va = {(r.case_id, r.config_id): r.verdict for r in read_records(a / RESULTS)}
    vb = {(r.case_id, r.config_id): r.verdict for r in read_records(b / RESULTS)}
    both = va.keys() & vb.keys()
    count = sum(va[k] != vb[k] for k in both)
    held = "" if both == va.keys() == vb.keys() else f" of the {len(both)} items both hold ({len(va)} and {len(vb)})"
    return f"{count} verdicts differ{held}"


def gpu_here() -> str | None:
    from suitegen.execute.gpus import detect_gpu
    info = detect_gpu()
    return "; ".join(info.devices) if info.available else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--reference-tree", type=Path, default=ROOT)
    ap.add_argument("--only", nargs="*", default=None, help="the figures to make (their names above)")
    a = ap.parse_args()
    out = a.out or Path(tempfile.mkdtemp(prefix="suitegen-figures-"))
    out.mkdir(parents=True, exist_ok=True)
    gpu = gpu_here()
    names = a.only or (["nightly", "quick-ref", "shard-ref", "page"] if gpu else ["quick-cold", "default", "page"])
    rows: list[tuple[str, str]] = []
    largest = None

    def beside_reference(name: str, *args: str) -> None:
        new = suitegen_run(ROOT, out / name, out / f"{name}-cache", *args)
        ref = suitegen_run(a.reference_tree, out / f"{name}-reference", out / f"{name}-reference-cache", *args,
                           "--batch", "off", "--no-cache")
        n = new["meta"]["items_this_run"]
        rows.append((f"{name}: batched, cold",
                     f"{n} items, wall {new['wall']:.1f} s, core-s {new['cpu']:.0f}, {n / new['wall']:.1f} items/s"))
        rows.append((f"{name}: reference path",
                     f"wall {ref['wall']:.1f} s, core-s {ref['cpu']:.0f}; ratio wall {ref['wall'] / new['wall']:.1f}x, "
                     f"core-s {ref['cpu'] / max(new['cpu'], 1e-9):.1f}x; "
                     f"{differ(ref['folder'], new['folder'])}"))
        if largest is not None and ref["folder"] != largest:  # the nightly made here holds every item of a shard
            rows.append((f"{name}: reference vs {largest.name}", differ(ref["folder"], largest)))

    for name in names:
        if name == "nightly":
            r = suitegen_run(ROOT, out / name, out / f"{name}-cache", "--profile", "nightly")
            n = r["meta"]["items_this_run"]
            rows.append(("nightly with execution, cold", f"{n} items, wall {r['wall']:.1f} s (run "
                         f"{r['meta']['wall_seconds']} s), {n / r['wall']:.1f} items/s, core-s {r['cpu']:.0f}"))
            largest = r["folder"]
        elif name == "quick-ref":
            beside_reference(name, "--profile", "quick")
        elif name == "shard-ref":
            beside_reference(name, "--profile", "nightly", "--shard", "1/8")
        elif name == "quick-cold":
            beside_reference(name, "--profile", "quick", "--no-exec")
        elif name == "default":
            r = suitegen_run(ROOT, out / name, out / f"{name}-cache", "--profile", "default")
            n = r["meta"]["items_this_run"]
            rows.append(("default profile, cold", f"{n} items, wall {r['wall']:.1f} s ({r['wall'] / 60:.1f} min), "
                         f"{n / r['wall']:.1f} items/s, core-s {r['cpu']:.0f}"))
            largest = largest or r["folder"]
        elif name == "page":
            folder = largest or next((out / n for n in ("nightly", "default", "shard-ref", "quick-ref", "quick-cold")
                                      if (out / n / RESULTS).exists()), None)
            if folder is None:
                rows.append(("page", "no run made here to measure"))
                continue
            done = subprocess.run([sys.executable, str(HERE / "page_scale.py"), str(folder)], capture_output=True,
                                  text=True)
            rows.append((f"page of {folder.name}", " ".join(done.stdout.split())[-400:] or done.stderr[-400:]))
        else:
            sys.exit(f"figures: no figure named {name!r}")
    print(f"\nfigures on {platform.node()}: {os.cpu_count()} cores; GPU: {gpu or 'none'}; run folders under {out}")
    for what, figure in rows:
        print(f"  {what:34} {figure}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
