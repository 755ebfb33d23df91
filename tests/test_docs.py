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


def test_the_layouts_tree_names_every_package_and_module():
    """docs/layout.md's tree follows the code: each folder of the package is an entry, and names each of its
    modules."""
    text = (REPO / "docs" / "layout.md").read_text()
    entries = dict(re.findall(r"^  (\w+)/ +(.*(?:\n {18}.*)*)", text, re.M))
    missing = []
    for folder in sorted(p for p in (REPO / "suitegen").iterdir() if (p / "__init__.py").exists()):
        described = entries.get(folder.name)
        if described is None:
            missing.append(f"{folder.name}/ (no entry)")
            continue
        missing += [f"{folder.name}/{m.stem}" for m in sorted(folder.glob("*.py"))
                    if m.stem != "__init__" and not re.search(rf"\b{m.stem}\b", described)]
    assert not missing, "docs/layout.md does not name: " + ", ".join(missing)


def test_the_route_names_modules_that_exist():
    """docs/running.md's route of one item names the modules the code has."""
    text = (REPO / "docs" / "running.md").read_text()
    route = text[text.index("## One item's route through the code"):]
    route = route[:route.index("\n## ", 4)] if "\n## " in route[4:] else route
    named = set(re.findall(r"`((?:\w+/)+)(\w+)`", route))
    assert len(named) >= 8
    gone = [f"{a}{b}" for a, b in sorted(named) if not (REPO / "suitegen" / a / f"{b}.py").exists()]
    assert not gone, gone


def test_the_current_edition_inventory_names_every_oracle_section():
    """docs/current-edition.md maps the current edition's subsections to the oracle's sections; each key of
    oracle/sections.toml appears there at least once."""
    import tomllib

    keys = tomllib.loads((REPO / "oracle" / "sections.toml").read_text())["sections"]
    text = (REPO / "docs" / "current-edition.md").read_text()
    missing = [key for key in keys if not re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", text)]
    assert not missing, "docs/current-edition.md does not name: " + ", ".join(missing)
