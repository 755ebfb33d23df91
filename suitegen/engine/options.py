"""The one options layer: ``suitegen run`` and the pytest plugin take the same options, spelled
``--std`` on the command line and ``--suitegen-std`` under pytest, and resolve them to the same
matrix. Stdlib only: the plugin imports this in every pytest session.
"""
from __future__ import annotations

import shlex
from dataclasses import dataclass, replace
from typing import Any, Iterable, Sequence

PLUGIN_PREFIX = "suitegen-"


@dataclass(frozen=True, kw_only=True, slots=True)
class Option:
    """One option: its name (``exec-timeout``), how it is given, and which front-ends take it."""

    name: str
    help: str
    action: str = "store"  # store, append, store_true
    type: Any = None
    default: Any = None
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    commands: frozenset[str] = frozenset({"run", "plugin"})

    @property
    def dest(self) -> str:
        return self.name.replace("-", "_")


MATRIX = frozenset({"run", "plugin", "generate", "explore"})
OPTIONS: tuple[Option, ...] = (
    Option(name="nvcc", action="append", default=[], metavar="PATH",
           help="nvcc to test: a path or a registered name such as nvcc-13.5.37 (repeatable); "
                "default: CUDA_HOME, CUDA_PATH, then PATH", commands=MATRIX | {"rules"}),
    Option(name="toolchains", metavar="FILE", help="toolchains file: name = \"path\" per line", commands=MATRIX),
    Option(name="profile", metavar="NAME", help="matrix profile: quick, default, nightly (see --matrix)",
           commands=MATRIX | {"rules"}),
    Option(name="matrix", metavar="FILE", help="matrix profiles file (default: the built-in one)",
           commands=MATRIX | {"rules"}),
    Option(name="std", action="append", metavar="LIST", commands=MATRIX,
           help="-std levels, comma-separated (overrides the profile's)"),
    Option(name="arch", action="append", metavar="LIST", commands=MATRIX,
           help="arch targets, comma-separated: sm_90, compute_90 (PTX only), sm_80+sm_90 (overrides the profile's)"),
    Option(name="flags", action="append", metavar="FLAGS", commands=MATRIX,
           help="an extra flag set, e.g. '--extended-lambda' (repeatable: one config each; replaces the profile's)"),
    Option(name="rules", action="append", default=[], metavar="PATTERN", commands=MATRIX | {"rules"},
           help="glob over rule ids and section keys (repeatable)"),
    Option(name="oracle", metavar="DIR", help="oracle folder (default: the built-in oracle)",
           commands=MATRIX | {"rules", "report"}),
    Option(name="templates", metavar="DIR", help="templates folder (default: the built-in templates)",
           commands=MATRIX | {"rules"}),
    Option(name="timeout", type=float, help="seconds per compile (default 120)"),
    Option(name="exec-timeout", type=float, help="seconds per program run on the GPU (default 60)"),
    Option(name="no-exec", action="store_true", default=False, help="compile only; never run on a GPU"),
    Option(name="batch", choices=("on", "off"), help="build compile-only cases of one config in shared "
           "translation units (default on); off: every item alone, the reference path"),
    Option(name="no-cache", action="store_true", default=False,
           help="build everything again: neither read nor fill the build cache"),
    Option(name="builds-to", metavar="DIR", help="build everything a GPU run needs (programs, modules) and keep "
           "it in DIR with the toolchains' identities; nothing runs here: carry DIR to a GPU machine"),
    Option(name="builds-from", metavar="DIR", help="take every build from DIR (written by --builds-to) instead of "
           "compiling, and run them here: for a compiler this machine lacks"),
    Option(name="allow-xpass", action="store_true", default=False,
           help="report XPASS (a known deviation that no longer shows) without failing: for exploratory runs"),
)


@dataclass(frozen=True, kw_only=True, slots=True)
class RunOptions:
    """The options every front-end resolves in the same way."""

    nvcc: tuple[str, ...] = ()
    toolchains: str | None = None
    profile: str | None = None
    matrix: str | None = None
    std: tuple[str, ...] = ()
    arch: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    oracle: str | None = None
    templates: str | None = None
    timeout: float = 120.0
    exec_timeout: float = 60.0
    no_exec: bool = False
    batch: str | None = None  # on (None) or off
    no_cache: bool = False
    builds_to: str | None = None
    builds_from: str | None = None
    allow_xpass: bool = False


def to_json(opts: RunOptions) -> dict:
    """Return the options as JSON (a run.json's ``spec``)."""
    return {name: list(v) if isinstance(v, tuple) else v for name in RunOptions.__dataclass_fields__
            for v in [getattr(opts, name)]}


def from_json(data: dict) -> RunOptions:
    """Read ``to_json``'s form back (fields it lacks keep their defaults; unknown ones are ignored)."""
    fields = RunOptions.__dataclass_fields__
    return RunOptions(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k in fields})


def given(opts: RunOptions, saved: RunOptions) -> RunOptions:
    """Return ``opts`` with every option it leaves at its default taken from ``saved`` (a resumed run)."""
    default = RunOptions()
    return replace(opts, **{k: getattr(saved, k) for k in RunOptions.__dataclass_fields__
                            if getattr(opts, k) == getattr(default, k)})


def add_arguments(parser, command: str) -> None:
    """Add the options ``command`` takes to an argparse parser."""
    for opt in OPTIONS:
        if command in opt.commands:
            parser.add_argument(f"--{opt.name}", **_kwargs(opt))


def add_pytest_options(group) -> None:
    """Add the plugin's options (``--suitegen-NAME``) to a pytest option group."""
    for opt in OPTIONS:
        if "plugin" in opt.commands:
            group.addoption(f"--{PLUGIN_PREFIX}{opt.name}", dest=f"suitegen_{opt.dest}", **_kwargs(opt))


def _kwargs(opt: Option) -> dict:
    kw: dict[str, Any] = {"action": opt.action, "help": opt.help, "default": opt.default}
    if opt.action != "store_true":
        kw["metavar"] = opt.metavar or opt.name.upper()
        if opt.type is not None:
            kw["type"] = opt.type
        if opt.choices is not None:
            kw["choices"] = list(opt.choices)
    return kw


def from_namespace(ns, prefix: str = "") -> RunOptions:
    """Return RunOptions from an argparse namespace (``prefix=''``) or pytest's (``'suitegen_'``)."""
    values = {}
    for opt in OPTIONS:
        if not hasattr(ns, prefix + opt.dest):
            continue
        value = getattr(ns, prefix + opt.dest)
        values[opt.dest] = tuple(value or ()) if opt.action == "append" else value
    return RunOptions(**{k: v for k, v in values.items() if v is not None})


def parse_list(values: Iterable[str] | None, default: Sequence[str]) -> list[str]:
    """Split comma-separated, repeatable option values into one de-duplicated list."""
    out: list[str] = []
    for value in values or ():
        for part in value.split(","):
            part = part.strip()
            if part and part not in out:
                out.append(part)
    return out or list(default)


def resolve_profile(opts: RunOptions, base=None):
    """Return the matrix the options ask for.

    The named profile (default 'default'; a corpus's own matrix when no profile is named and ``base``
    is given), with ``--std`` / ``--arch`` replacing its dialects and targets and ``--flags`` its flag sets.
    """
    from suitegen.engine import matrix
    from suitegen.model import FlagSet
    prof = base if base is not None and not opts.profile else matrix.profile(opts.profile or "default", opts.matrix)
    flagsets = prof.flagsets
    if opts.flags:
        flagsets = tuple(FlagSet(flags=tuple(shlex.split(f))) for f in opts.flags)
    return replace(prof, stds=tuple(parse_list(opts.std, prof.stds)), archs=tuple(parse_list(opts.arch, prof.archs)),
                   flagsets=flagsets)
