"""Run-matrix profiles, read from data (suitegen/matrix.toml or a file the user gives)."""
from __future__ import annotations

import shlex
import tomllib
from pathlib import Path

from suitegen import resources
from suitegen.oracle import fields
from suitegen.model import CorpusSpec, FlagSet, Narrowed, Profile, Std, UsageError, arch_number


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
        unknown = set(raw) - {"description", "std", "arch", "flagset", "generated", "narrow", "skip", "checks"}
        if unknown:
            raise UsageError(f"{where}: unknown field {sorted(unknown)[0]!r}")
        try:
            stds = tuple(Std.parse(s).value for s in raw["std"])
            archs = tuple(raw["arch"])
            for a in archs:
                arch_number(a)
        except (KeyError, TypeError, ValueError) as exc:
            raise UsageError(f"{where}: {exc}") from None
        flagsets = tuple(_flagset(f, f"{where}: flagset") for f in raw.get("flagset", [{}]))
        out[name] = Profile(name=name, stds=stds, archs=archs, flagsets=flagsets,
                            description=raw.get("description", ""), generated=_corpus(raw.get("generated"), where),
                            narrowed=tuple(_narrow(n, f"{where}: narrow") for n in raw.get("narrow", [])),
                            skipped=tuple(str(x) for x in raw.get("skip", ())),
                            checks=_checks(raw.get("checks", {}), f"{where}: checks"))
    if not out:
        raise UsageError(f"{path}: no [profile.NAME] tables")
    return out


def _corpus(raw, where: str) -> CorpusSpec | None:
    """Return a profile's ``[profile.NAME.generated]`` table (seed, count, and optionally std and arch)."""
    if raw is None:
        return None
    where = f"{where}: generated"
    unknown = set(raw) - {"seed", "count", "std", "arch", "invalid"} if isinstance(raw, dict) else {"(not a table)"}
    if unknown:
        raise UsageError(f"{where}: unknown field {sorted(unknown)[0]!r}")
    for name in ("count", "invalid"):
        value = raw.get(name, 0)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise UsageError(f"{where}: {name} must be a whole number >= 0, not {value!r}")
    from suitegen.engine.generated import check_seed
    check_seed(raw.get("seed"), f"{where}: seed")
    stds, archs = _axes(raw, where)
    return CorpusSpec(seed=raw["seed"], count=raw.get("count", 0), stds=stds, archs=archs, invalid=raw.get("invalid", 0))


CHECK_PARAMS = {"samples": int}  # what a profile may lay over the check hooks' params, and its type


def _checks(raw, where: str) -> tuple[tuple[str, object], ...]:
    """Return a ``[profile.NAME.checks]`` table: params laid over every check hook's own (``CHECK_PARAMS``), so a
    profile checks with fewer inputs than the rules give (``samples``: the math rules' seeded inputs)."""
    if not isinstance(raw, dict):
        raise UsageError(f"{where}: expected a table")
    for key, value in raw.items():
        kind = CHECK_PARAMS.get(key)
        if kind is None or not isinstance(value, kind) or isinstance(value, bool) or value <= 0:
            raise UsageError(f"{where}: {key} = {value!r}: expected one of {sorted(CHECK_PARAMS)}, "
                             "a whole number > 0")
    return tuple(sorted(raw.items()))


def _flagset(raw, where: str) -> FlagSet:
    """Return one ``[[profile.NAME.flagset]]`` table: flags, and the sections, dialects and targets they apply to."""
    if not isinstance(raw, dict) or set(raw) - {"flags", "sections", "std", "arch"}:
        raise UsageError(f"{where}: expected a table of flags, sections, std and arch")
    flags = tuple(shlex.split(raw.get("flags", "")))
    problem = fields.flag_problem(flags)
    if problem:
        raise UsageError(f"{where}: field 'flags': {problem}")
    stds, archs = _axes(raw, where)
    return FlagSet(flags=flags, sections=tuple(raw.get("sections", ())), stds=stds, archs=archs)


def _narrow(raw, where: str) -> Narrowed:
    """Return one ``[[profile.NAME.narrow]]`` table: sections, and the dialects and targets they are built under."""
    if not isinstance(raw, dict) or set(raw) - {"sections", "std", "arch"} or not raw.get("sections"):
        raise UsageError(f"{where}: expected a table of sections (required), std and arch")
    stds, archs = _axes(raw, where)
    return Narrowed(sections=tuple(raw["sections"]), stds=stds, archs=archs)


def _axes(raw: dict, where: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Return a table's ``std`` and ``arch`` lists (dialects spelled as -std values, targets checked), or raise
    UsageError naming ``where``."""
    try:
        stds = tuple(Std.parse(s).value for s in raw.get("std", ()))
        archs = tuple(raw.get("arch", ()))
        for a in archs:
            arch_number(a)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"{where}: {exc}") from None
    return stds, archs


def profile(name: str, path: Path | str | None = None) -> Profile:
    profiles = load_profiles(path)
    if name not in profiles:
        raise UsageError(f"unknown profile {name!r} (known: {', '.join(sorted(profiles))})")
    return profiles[name]
