"""Prints how big a run's page is and how fast it opens, at the run's size or scaled up to the nightly's.

    python benchmarks/page_scale.py RUN [--scale N]

Renders RUN's page from its records (``--scale N``: each record N times, under N different -std/arch/flag
configs, about the nightly profile's spread; the quick profile's 1,709 records times 22 are the nightly's
37,598), prints its size and render time, and, where Debian's chromium is installed, the time from navigation
to the load event in headless Chromium at 1,400 px (browser start not counted) and whether the page scrolls
sideways there.
"""
import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

STDS, ARCHS = ("c++11", "c++14", "c++17", "c++20"), ("sm_80", "sm_90", "compute_90", "sm_80+sm_90")
FLAGS = ((), ("--extended-lambda",), ("--expt-relaxed-constexpr",), ("-rdc=true",))


def scaled(records: list, n: int) -> list:
    out = []
    for k in range(n):
        std, arch, flags = STDS[k % 4], ARCHS[(k // 4) % 4], FLAGS[k // 16 % 4]
        for r in records:
            out.append(replace(r, config=replace(r.config, std=std, arch=arch, flags=flags),
                               config_id=f"{std}-{arch}{''.join(flags)}", config_key=f"{r.config_key}-{k}"))
    return out


def main() -> None:
    from suitegen.engine import hook_modules  # noqa: F401 - every hook registered before the oracle loads
    from suitegen.oracle import loader
    from suitegen.report import page
    from suitegen.report.run_folder import META, RESULTS, read_cases, read_records
    from suitegen.report.summary import summarize
    ap = argparse.ArgumentParser()
    ap.add_argument("run", type=Path)
    ap.add_argument("--scale", type=int, default=1)
    a = ap.parse_args()
    records = scaled(list(read_records(a.run / RESULTS)), a.scale)
    meta = json.loads((a.run / META).read_text())
    start = time.monotonic()
    html = page.render(records, summarize(records, meta), read_cases(a.run), loader.load().sections)
    seconds = time.monotonic() - start
    print(f"page: {len(records)} results, {len(html) / 1e6:.2f} MB, rendered in {seconds:.1f} s")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("no chromium here: load time not measured")
        return
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "index.html"
        f.write_text(html)
        dom = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1400,900",
                              f"--user-data-dir={tmp}/profile", "--virtual-time-budget=30000", "--dump-dom",
                              f.as_uri()], capture_output=True, text=True, timeout=300).stdout
    m = re.search(r'data-done="(\d+)" data-ms="(\d+)"', dom)
    if not m:
        print("chromium did not reach the load event")
        return
    print(f"chromium 1400 px: load event {m.group(2)} ms after navigation; scrollWidth {m.group(1)} px "
          f"({'no sideways scroll' if int(m.group(1)) <= 1400 else 'SCROLLS SIDEWAYS'})")


if __name__ == "__main__":
    main()
