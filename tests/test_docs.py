"""The docs say how to use suitegen and how it works; measured figures live in benchmarks/RESULTS.md."""
import re

from conftest import REPO

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
# an A/B figure ("57.4 -> 53.7"), or core-seconds: a measurement, not how to use or how it works
MEASURED = re.compile(r"\d[\d,.]* ?-> ?\d|\bcore-s\b")


def test_measurements_live_in_benchmarks_not_in_the_docs():
    found = [f"{path.relative_to(REPO)}:{n}: {line.strip()}" for path in DOCS
             for n, line in enumerate(path.read_text().splitlines(), 1) if MEASURED.search(line)]
    assert not found, "move these to benchmarks/RESULTS.md:\n" + "\n".join(found)
    assert MEASURED.search((REPO / "benchmarks" / "RESULTS.md").read_text())


def test_every_relative_link_of_the_docs_leads_to_a_file():
    broken = []
    for path in [*DOCS, REPO / "benchmarks" / "RESULTS.md"]:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", path.read_text()):
            if not (path.parent / target).exists():
                broken.append(f"{path.relative_to(REPO)}: {target}")
    assert not broken, broken
