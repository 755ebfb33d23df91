"""Compare two runs item by item: every (case, config) verdict, for proving a change leaves verdicts alone.

    python3 benchmarks/compare_verdicts.py REFERENCE_RUN NEW_RUN [--common]

Prints how many items each run has, how many verdicts differ (and the first 20), and exits 1 if any do. An item one
run lacks differs, unless ``--common``: then only the items both runs hold are compared, and how many each holds
alone is said (a change that adds rules, compared with the commit before it).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from suitegen.report.run_folder import RESULTS, read_records  # noqa: E402


def verdicts(folder: str) -> dict:
    return {(r.case_id, r.config_id): (r.verdict.value, r.reason[:160]) for r in read_records(Path(folder) / RESULTS)}


def main(a: str, b: str, common: bool = False) -> int:
    ref, new = verdicts(a), verdicts(b)
    keys = ref.keys() & new.keys() if common else ref.keys() | new.keys()
    differ = sorted(k for k in keys if ref.get(k, ("missing",))[0] != new.get(k, ("missing",))[0])
    alone = (f" ({len(ref.keys() - new.keys())} only in the first, {len(new.keys() - ref.keys())} only in the second, "
             f"{len(keys)} compared)") if common else ""
    print(f"{a}: {len(ref)} items; {b}: {len(new)} items{alone}; {len(differ)} verdicts differ")
    for k in differ[:20]:
        print(f"  {k[0]} [{k[1]}]: {ref.get(k, ('missing', ''))} -> {new.get(k, ('missing', ''))}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3], common="--common" in sys.argv[3:]))
