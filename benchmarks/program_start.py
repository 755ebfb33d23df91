"""What one GPU program's process costs: start-up, a CUDA context, one kernel, exit.

    python benchmarks/program_start.py [-n 32] [-j 16] [--arch sm_90]

Builds a program that launches one empty kernel and prints a result line, then runs it ``-n`` times one
after another and ``-n`` times ``-j`` at once, and prints the mean wall time per run both ways (with the
same program given ``--members K``: K kernels in one process, for the cost of a member in a shared one).
Another process holds a CUDA context meanwhile, as the GPU worker does during a run.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

PROGRAM = r"""
#include <cstdio>
#include <cstdlib>
__global__ void k(int *p) { if (p) *p = 1; }
#include <unistd.h>
int main(int argc, char **argv) {
  if (argc > 2) { cudaFree(0); sleep(atoi(argv[2])); return 0; }  // hold a context for argv[2] seconds
  int n = argc > 1 ? atoi(argv[1]) : 1;
  for (int i = 0; i < n; ++i) { k<<<1, 1>>>(nullptr); if (cudaDeviceSynchronize() != cudaSuccess) return 1; }
  printf("SUITEGEN-RESULT: PASS\n");
  return 0;
}
"""


def timed(argv: list[str]) -> float:
    start = time.monotonic()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=32)
    ap.add_argument("-j", type=int, default=os.cpu_count())
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--members", type=int, default=64)
    a = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="program-start-"))
    (folder / "p.cu").write_text(PROGRAM)
    subprocess.run(["nvcc", f"-arch={a.arch}", "p.cu", "-o", "p"], cwd=folder, check=True)
    prog = str(folder / "p")
    timed([prog])  # the first run pays for the driver's start where nothing else holds the GPU
    # During a run the GPU worker holds a context all along, so the driver stays up: so does this holder.
    holder = subprocess.Popen([prog, "0", "600"])
    time.sleep(2)
    seq = [timed([prog]) for _ in range(a.n)]
    start = time.monotonic()
    with ThreadPoolExecutor(a.j) as pool:
        par = list(pool.map(lambda _: timed([prog]), range(a.n)))
    par_wall = time.monotonic() - start
    many = timed([prog, str(a.members)])
    holder.kill()
    print(f"one program process, {a.n} runs one after another: {1000 * sum(seq) / a.n:.0f} ms each "
          f"(min {1000 * min(seq):.0f}, max {1000 * max(seq):.0f})")
    print(f"{a.n} runs {a.j} at once: {par_wall:.2f} s wall, {1000 * par_wall / a.n:.0f} ms per run; "
          f"each took {1000 * sum(par) / a.n:.0f} ms")
    print(f"{a.members} kernels in one process: {1000 * many:.0f} ms")


if __name__ == "__main__":
    main()
