"""``suitegen releases`` (alias ``bisect``): every release boundary in a range where a selected case's behaviour changed.

Every release in the range is installed (the same pinned install as ``toolchain add``) and run: behaviour
can change and change back, so a binary search could miss a flip; testing each release cannot. A change is
any difference in a (case, matrix point)'s verdict, outcome, phase, first diagnostic or run status.
"""
from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from suitegen.compilers import registry
from suitegen.compilers.toolchain import ToolchainError
from suitegen.model import Record, UsageError
from suitegen.report import diff

RELEASE = re.compile(r"\d+\.\d+\.\d+")  # how the package index spells an nvcc release: 13.0.88


def version_key(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def release(text: str) -> str:
    """Return ``text``, a release version (13.0.88); UsageError for another spelling."""
    if not RELEASE.fullmatch(text):
        raise UsageError(f"{text!r} is not a release version such as 13.0.88")
    return text


def release_range(low: str, high: str) -> tuple[str, str]:
    """Return the range from release ``low`` to ``high``, both checked (``release``) and in order; UsageError
    otherwise, before anything asks the package index."""
    release(low), release(high)
    if version_key(low) > version_key(high):
        raise UsageError(f"{low}..{high}: the range is empty ({low} comes after {high})")
    return low, high


def parse_range(text: str) -> tuple[str, str]:
    """Return (low, high) of ``LOW..HIGH``, or of one release ``V`` (``V..`` too): V to V (``release_range``)."""
    low, _, high = text.partition("..")
    return release_range(low, high or low)


def releases(low: str, high: str, runner=subprocess.run) -> list[str]:
    """Return the nvcc releases the package index has from ``low`` to ``high`` (inclusive), oldest first."""
    proc = runner([sys.executable, "-m", "pip", "index", "versions", registry.PACKAGE, "--disable-pip-version-check"],
                  capture_output=True, text=True)
    found = re.search(r"Available versions: (.*)", proc.stdout or "")
    if proc.returncode != 0 or not found:
        raise ToolchainError(f"cannot list {registry.PACKAGE} releases from the package index: "
                             + " / ".join((proc.stderr or proc.stdout or "").strip().splitlines()[-2:]))
    every = [v.strip() for v in found.group(1).split(",") if RELEASE.fullmatch(v.strip())]
    out = sorted((v for v in every if version_key(low) <= version_key(v) <= version_key(high)), key=version_key)
    if not out:
        raise ToolchainError(f"no {registry.PACKAGE} release from {low} to {high} (the index has {', '.join(every)})")
    return out


@dataclass(frozen=True)
class Boundary:
    """One (case, matrix point) whose behaviour differs between two neighbouring releases."""

    key: tuple  # case id, std, arch, flags
    before: str
    after: str
    old: dict  # diff.signature of each side
    new: dict

    def describe(self) -> str:
        changed = [f for f in diff.SIGNATURE if self.old.get(f) != self.new.get(f)]
        lines = [f"{self.key[0]} [{' '.join(k for k in self.key[1:] if k)}]: {self.before} -> {self.after} "
                 f"changed {', '.join(changed)}"]
        for side, sig in (("before", self.old), ("after", self.new)):
            lines.append(f"    {side}: {sig.get('verdict')} {sig.get('outcome')} {sig.get('phase') or ''} "
                         f"{'#' + str(sig['number']) + ' ' if sig.get('number') else ''}{sig.get('message') or ''}"
                         f"{' run ' + sig['run'] if sig.get('run') else ''}".rstrip())
        return "\n".join(lines)


def boundaries(runs: Sequence[tuple[str, Sequence[Record | diff.Entry]]]) -> list[Boundary]:
    """Return every change between neighbouring releases (``runs``: (version, records), oldest first)."""
    out = []
    for (v0, a), (v1, b) in zip(runs, runs[1:]):
        old = {e.key: e.signature() for e in map(diff.entry, a)}
        new = {e.key: e.signature() for e in map(diff.entry, b)}
        for k in sorted(old.keys() & new.keys()):
            if old[k] != new[k]:
                out.append(Boundary(key=k, before=v0, after=v1, old=old[k], new=new[k]))
    return out


def bisect(low: str, high: str, run: Callable[[str, Path], Sequence[Record | diff.Entry]], out: Path,
           add: Callable[[str], dict] = registry.add, listing=releases) -> tuple[list[str], list[Boundary], int]:
    """Install and run every release from ``low`` to ``high``; return the releases, the boundaries and how
    many items each release judged. ``run(toolchain name, folder)`` runs the selected cases and returns
    their records."""
    versions = listing(*release_range(low, high))
    runs = []
    for version in versions:
        name = add(version)["name"]
        runs.append((version, run(name, out / version)))
    return versions, boundaries(runs), len(runs[0][1]) if runs else 0
