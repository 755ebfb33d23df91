"""Regenerate ``benchmarks/findings/`` from the tool's own output, with nothing written by hand.

    python benchmarks/findings_index.py [FOLDER]      # default: benchmarks/findings

Each campaign folder (a ``findings.json`` of findings, with the ``campaign.json`` of its state where it has one) gets
its page, ``findings.md`` and reproducer folders written again by ``fuzz_page.write``; ``README.md`` is an index: per
campaign its ``COMMANDS`` (what was run, as given), its last line and its table of distinct bugs; per ``fuzz --reduce``
folder each reduced file's first line and size; per findings database its buckets.
"""
import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from suitegen.report import fuzz_page  # noqa: E402


def campaign(folder: Path, root: Path) -> list[str]:
    findings = json.loads((folder / "findings.json").read_text())
    state = folder / "campaign.json"
    rel = folder.relative_to(root).as_posix() + "/"
    out = [f"## `{rel}`", ""]
    if (folder / "COMMANDS").is_file():
        out += ["```sh", (folder / "COMMANDS").read_text().rstrip(), "```", ""]
    if state.is_file():
        kept = json.loads(state.read_text())
        fuzz_page.write(folder, kept, findings)
        out += fuzz_page.header(kept, findings)[2:]  # what it checked, and its last line
    out += fuzz_page.table(findings, rel) + [""]
    if (folder / "releases.md").is_file():  # fuzz --releases over its findings
        out += ["Release ranges (`releases.md`):", "", "```", (folder / "releases.md").read_text().rstrip(), "```", ""]
    return out


def every_bug(root: Path) -> list[str]:
    """Return one table of every distinct bug of every campaign and reduced file here (a bucket is one bug across
    campaigns): its shortest reproducer (and the folder whose report it is), its release range (the shortest
    reproducer's, else another folder's, else its folder's ``releases.md``), and every folder that found it; not fixed
    yet first, then fixed, then the rest."""
    seen: dict[str, list[tuple[str, dict]]] = {}
    for path in sorted(root.rglob("findings.json")):
        data = json.loads(path.read_text())
        if isinstance(data, list):
            rel = path.parent.relative_to(root).as_posix() + "/"
            said = path.parent / "releases.md"  # an older campaign's ranges, said there and not in its findings
            ranges = dict(re.findall(r"^fuzz/(\w+): (.+)$", said.read_text(), re.M)) if said.is_file() else {}
            for key, f in fuzz_page.distinct_bugs(data).items():
                seen.setdefault(key, []).append((rel, f if f.get("releases") or key not in ranges
                                                 else dict(f, releases=ranges[key])))
    rows = []
    for key, found in seen.items():
        rel, best = min(found, key=lambda x: (x[1].get("lines") or 10 ** 6, x[0]))
        releases = best.get("releases") or next((f["releases"] for _, f in found if f.get("releases")), "-")
        what = fuzz_page.what_goes_wrong(best)
        order = 0 if "first fixed: none yet" in releases else 1 if "first fixed:" in releases else 2
        rows.append((order, key, f"| [`{key}`]({rel}repro/{key}/report.md) | {best.get('stage', '')} | {what} "
                                 f"| {', '.join(best.get('failing') or [])} | {best.get('lines', '-')} | {releases} "
                                 f"| {', '.join(sorted({r.rstrip('/') for r, _ in found}))} |"))
    return ([f"## Every distinct bug ({len(rows)})", "",
             "One row per bucket across the folders below (a findings database's bug that no folder holds is not "
             "here): its shortest reproducer, its release range, and where it was found. Not fixed by the newest "
             "release ranged first, then fixed, then the rest.", "",
             "| bug | stage | what goes wrong | wrong under | lines | releases | found in |",
             "|---|---|---|---|---|---|---|"]
            + [row for _, _, row in sorted(rows)] + [""])


def reduced(folder: Path, root: Path) -> list[str]:
    out = [f"## `{folder.relative_to(root).as_posix()}/` (`suitegen fuzz --reduce FILE`)", ""]
    for md in sorted(folder.glob("*.reduced.md")):
        text = md.read_text()
        size = re.search(r"Reduced from (\d+) to (\d+) lines", text)
        out.append(f"- [`{md.name}`]({md.relative_to(root).as_posix()}): {text.splitlines()[0].lstrip('# ')}"
                   + (f" ({size.group(1)} -> {size.group(2)} lines)" if size else ""))
    return out + [""]


def database(path: Path, root: Path) -> list[str]:
    entries = json.loads(path.read_text())["findings"]
    out = [f"## `{path.relative_to(root).as_posix()}` (a findings database)", "",
           "| bucket | kind | stage | lines | hits | campaigns |", "|---|---|---|---|---|---|"]
    out += [f"| `{k}` | {e['first']['kind']} | {e['first'].get('stage', '')} | {e['first'].get('lines', '')} "
            f"| {e['hits']} | {', '.join(e['campaigns'])} |" for k, e in entries.items()]
    return out + [""]


def main(root: Path) -> None:
    lines = ["# Compiler bugs `suitegen fuzz` found", "",
             "Written by `benchmarks/findings_index.py` from the folders here, each the tool's output as it left "
             "it; nothing here is edited by hand (a folder's `COMMANDS` says what was run). `earlier/` holds the "
             "reproducers of campaigns before 2026-11-30, whose databases were not kept.", ""]
    lines += every_bug(root)
    for path in sorted(root.rglob("*.json")):
        data = json.loads(path.read_text())
        if path.name == "findings.json" and isinstance(data, list):
            lines += campaign(path.parent, root)
        elif isinstance(data, dict) and "findings" in data:
            lines += database(path, root)
    for folder in sorted({md.parent for md in root.rglob("*.reduced.md")}):
        lines += reduced(folder, root)
    if (root / "earlier").is_dir():
        lines += ["## `earlier/`", ""] + [f"- `{p.name}`" for p in sorted((root / "earlier").iterdir())] + [""]
    (root / "README.md").write_text("\n".join(lines))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=Path(__file__).resolve().parent / "findings",
                        help="the findings folder (default: benchmarks/findings)")
    main(parser.parse_args().folder)
