"""Run-matrix profiles, read from data (suitegen/matrix.toml or a file the user gives)."""
from __future__ import annotations

import shlex
import tomllib
from pathlib import Path

from suitegen import resources
from suitegen.model import FlagSet, Profile, Std, UsageError, arch_number


def load_profiles(path: Path | str | None = None) -> dict[str, Profile]:
    """Read and validate every profile of a matrix file; ValueError names the file and profile."""
    path = Path(path) if path else resources.matrix_file()
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path}: cannot read matrix file: {exc}") from None
    out = {}
    for name, raw in data.get("profile", {}).items():
        where = f"{path}: profile {name!r}"
        unknown = set(raw) - {"description", "std", "arch", "flagset"}
        if unknown:
            raise UsageError(f"{where}: unknown field {sorted(unknown)[0]!r}")
        try:
            stds = tuple(Std.parse(s).value for s in raw["std"])
            archs = tuple(raw["arch"])
            for a in archs:
                arch_number(a)
        except (KeyError, TypeError, ValueError) as exc:
            raise UsageError(f"{where}: {exc}") from None
        flagsets = tuple(FlagSet(flags=tuple(shlex.split(f.get("flags", ""))),
                                 sections=tuple(f.get("sections", ()))) for f in raw.get("flagset", [{}]))
        out[name] = Profile(name=name, stds=stds, archs=archs, flagsets=flagsets,
                            description=raw.get("description", ""))
    if not out:
        raise UsageError(f"{path}: no [profile.NAME] tables")
    return out


def profile(name: str, path: Path | str | None = None) -> Profile:
    profiles = load_profiles(path)
    if name not in profiles:
        raise UsageError(f"unknown profile {name!r} (known: {', '.join(sorted(profiles))})")
    return profiles[name]
