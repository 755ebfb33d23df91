"""Compare two runs item by item: every (case, config) verdict, for proving a change leaves verdicts alone.

    python3 benchmarks/compare_verdicts.py REFERENCE_RUN NEW_RUN [--common]

A run is its folder or its results file (``results.jsonl``, gzipped or not, as the GPU machine's runs come back).
Prints how many items each run has, how many verdicts differ (and the first 20), and exits 1 if any do, or if a
run holds no item (nothing compared proves nothing). An item one
run lacks differs, unless ``--common``: then only the items both runs hold are compared, and how many each holds
alone is said (a change that adds rules, compared with the commit before it).
"""
import gzip
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from suitegen.report.run_folder import RESULTS, read_records  # noqa: E402


def verdicts(run: str) -> dict:
    path = Path(run) / RESULTS if Path(run).is_dir() else Path(run)
    if path.suffix == ".gz":
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / RESULTS).write_bytes(gzip.decompress(path.read_bytes()))
            return verdicts(tmp)
    return {(r.case_id, r.config_id): (r.verdict.value, r.reason[:160]) for r in read_records(path)}


def main(a: str, b: str, common: bool = False) -> int:
    ref, new = verdicts(a), verdicts(b)
    keys = ref.keys() & new.keys() if common else ref.keys() | new.keys()
    differ = sorted(k for k in keys if ref.get(k, ("missing",))[0] != new.get(k, ("missing",))[0])
    alone = (f" ({len(ref.keys() - new.keys())} only in the first, {len(new.keys() - ref.keys())} only in the second, "
             f"{len(keys)} compared)") if common else ""
    print(f"{a}: {len(ref)} items; {b}: {len(new)} items{alone}; {len(differ)} verdicts differ")
    for k in differ[:20]:
        print(f"  {k[0]} [{k[1]}]: {ref.get(k, ('missing', ''))} -> {new.get(k, ('missing', ''))}")
    if not ref or not new:
        print("a run without items: nothing was compared")
    return 1 if differ or not ref or not new else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3], common="--common" in sys.argv[3:]))
