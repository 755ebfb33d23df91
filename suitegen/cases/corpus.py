"""Materialised suites: cases written as .cu files with a manifest.json, and read back."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Callable, Sequence

from suitegen import hooks
from suitegen.model import Case, Config, Expect, Expectation, FlagSet, Mode, Profile, Rule, UsageError, Variant, safe_file_name
from suitegen.oracle import conditions

MANIFEST = "manifest.json"
FORMAT = 1


def slug(case: Case) -> str:
    """Return a file-system-safe folder name for a case, unique through its key."""
    base = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{case.rule.id}.{case.variant.name}").strip("_")
    return f"{base[:80]}-{case.key[:8]}"


def _expectation_json(exp: Expectation) -> dict:
    return {"expect": exp.expect.value, "phase": exp.phase, "diagnostic": exp.diagnostic,
            "check_line": exp.check_line, "observe": exp.observe}


def manifest_entry(case: Case, folder: str, configs: Sequence[Config],
               command_for: Callable[[Case, Config], list[str]] | None = None) -> dict:
    """Return the manifest entry of one case: enough to rerun and judge it without suitegen."""
    v = case.variant
    return {
        "id": case.id, "key": case.key, "dir": folder, "files": list(case.files),
        "rule": case.rule.id, "section": case.rule.section, "statement": case.rule.statement,
        "variant": v.name, "params": v.params, "predicate": v.predicate.name if v.predicate else None,
        "expectation": _expectation_json(v.expectation),
        "violation_line": case.violation_line,
        "requires": [c.text for c in (case.rule.requires, v.requires) if c is not None],
        "flags": list(v.flags), "mode": v.mode.value, "check": v.check.name if v.check else None, "value": v.value,
        "configs": [{"std": c.std.value, "arch": c.arch, "flags": list(c.flags),
                     **({"command": _plain(command_for(case, c))} if command_for else {})}
                    for c in configs if c.applies(case)],
    }


def _plain(argv: list[str]) -> list[str]:
    return [Path(argv[0]).name, *argv[1:]]


def write_corpus(cases: Sequence[Case], out: Path | str, configs: Sequence[Config] = (),
                 extra: dict | None = None, command_for: Callable[[Case, Config], list[str]] | None = None) -> Path:
    """Write cases under ``out`` (replacing it) with a manifest; same cases give the same bytes.

    ``command_for`` gives each (case, config)'s build command, recorded so a corpus reruns without suitegen.
    """
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    entries = []
    for case in sorted(cases, key=lambda c: (c.id, c.key)):
        folder = slug(case)
        (out / folder).mkdir()
        for name, text in case.files.items():
            (out / folder / name).write_text(text)
        entries.append(manifest_entry(case, folder, configs, command_for))
    manifest = {"format": FORMAT, **(extra or {}), "cases": entries}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return out / MANIFEST


def read_corpus_profile(manifest_path: Path | str):
    """Return the matrix a corpus was generated for, as a profile (None if it names no configs)."""
    entries = json.loads(Path(manifest_path).read_text())["cases"]
    configs = [c for e in entries for c in e["configs"]]
    if not configs:
        return None
    ordered = lambda key: tuple(dict.fromkeys(key(c) for c in configs))
    # a flag set listed by some entries only applies to their sections (the math flag sets), else to every one
    sections = {f: {e["section"] for e in entries if any(tuple(c["flags"]) == f for c in e["configs"])}
                for f in ordered(lambda c: tuple(c["flags"]))}
    every = {e["section"] for e in entries}
    return Profile(name="corpus", stds=ordered(lambda c: c["std"]), archs=ordered(lambda c: c["arch"]),
                   flagsets=tuple(FlagSet(flags=f, sections=() if secs == every else tuple(sorted(secs)))
                                  for f, secs in sections.items()))


def read_corpus(manifest_path: Path | str) -> list[Case]:
    """Read a corpus back into cases, from its manifest and the files beside it."""
    path = Path(manifest_path)
    data = json.loads(path.read_text())
    if data.get("format") != FORMAT:
        raise UsageError(f"{path}: unknown corpus format {data.get('format')!r}")
    cases = []
    for e in data["cases"]:
        bad = [n for n in (e["dir"], *e["files"]) if not safe_file_name(n)]
        if bad:  # the manifest is data: a name in it must not lead outside the corpus
            raise UsageError(f"{path}: case {e.get('id')!r}: {bad[0]!r} is not a plain file name")
        exp = e["expectation"]
        requires = " && ".join(f"({t})" for t in e["requires"]) or None
        try:
            predicate, check = hooks.resolve("predicate", e["predicate"]), hooks.resolve("check", e.get("check"))
        except hooks.UnknownHook as exc:
            raise UsageError(f"{path}: case {e.get('id')!r}: {exc}") from None
        variant = Variant(
            name=e["variant"], params=e["params"], predicate=predicate,
            expectation=Expectation(expect=Expect(exp["expect"]), phase=exp["phase"],
                                    diagnostic=exp["diagnostic"], check_line=exp["check_line"],
                                    observe=exp["observe"]),
            requires=conditions.parse(requires) if requires else None,
            flags=tuple(e["flags"]), mode=Mode(e["mode"]), check=check, value=e.get("value"))
        rule = Rule(id=e["rule"], section=e["section"], statement=e["statement"],
                    templates={n: "" for n in e["files"]}, variants=(variant,), source_file=str(path))
        files = {n: (path.parent / e["dir"] / n).read_text() for n in e["files"]}
        cases.append(Case(rule=rule, variant=variant, files=files, violation_line=e["violation_line"]))
    return cases
