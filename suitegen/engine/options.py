"""The one options layer: ``suitegen run`` and the pytest plugin take the same options, spelled
``--std`` on the command line and ``--suitegen-std`` under pytest, and resolve them to the same
matrix. Stdlib only: the plugin imports this in every pytest session.
"""
from __future__ import annotations

import argparse
import math
import shlex
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Sequence

PLUGIN_PREFIX = "suitegen-"


def _bounded(text: str, kind, low, words: str, above: bool = False):
    """Return ``text`` read as ``kind`` where it is finite and at least ``low`` (``above``: more than ``low``),
    else raise the argparse error that says ``words``."""
    try:
        value = kind(text)
    except ValueError:
        value = math.nan
    ok = math.isfinite(value) and (value > low if above else value >= low)
    if not ok:
        raise argparse.ArgumentTypeError(f"{text!r}: expected {words}")
    return value


def count(text: str) -> int:
    """Return a whole number of at least 1 (an argparse type: ``-j``, ``--per-file``)."""
    return _bounded(text, int, 1, "a whole number, at least 1")


def whole(text: str) -> int:
    """Return a whole number, 0 or more (an argparse type: ``--generated``, where 0 turns the corpus off)."""
    return _bounded(text, int, 0, "a whole number, 0 or more")


def seconds(text: str) -> float:
    """Return a number of seconds above 0 (an argparse type: ``--timeout``)."""
    return _bounded(text, float, 0.0, "a number of seconds above 0", above=True)


def budget(text: str) -> float:
    """Return a number of seconds, 0 or more (an argparse type: ``--reduce-budget``, where 0 turns a step off)."""
    return _bounded(text, float, 0.0, "a number of seconds, 0 or more")


def word(text: str) -> str:
    """Return a value that is not blank (an argparse type: ``--seed``)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"{text!r}: expected a value, not nothing")
    return text


def checked(check: Callable[[str], Any]) -> Callable[[str], str]:
    """Return an argparse type that gives a value as written once ``check`` takes it; the ValueError ``check``
    raises (a UsageError is one) is the message argparse prints after the option's name."""
    def typed(text: str) -> str:
        try:
            check(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return text
    typed.__name__ = check.__name__
    return typed


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
    Option(name="timeout", type=seconds, help="seconds per compile (default 120)"),
    Option(name="exec-timeout", type=seconds, help="seconds per program run on the GPU (default 60)"),
    Option(name="no-exec", action="store_true", default=False, help="compile only; never run on a GPU"),
    Option(name="batch", choices=("on", "off"), help="build compile-only cases of one config in shared "
           "translation units (default on); off: every item alone, the reference path"),
    Option(name="no-cache", action="store_true", default=False,
           help="build everything again: neither read nor fill the build cache"),
    Option(name="builds-to", metavar="DIR", help="build everything a GPU run needs (programs, modules) and keep "
           "it in DIR with the toolchains' identities; nothing runs here: carry DIR to a GPU machine"),
    Option(name="builds-from", metavar="DIR", help="take every build from DIR (written by --builds-to) instead of "
           "compiling, and run them here: for a compiler this machine lacks"),
    Option(name="generated", type=whole, metavar="N", help="generated programs in the run (default: the profile's; "
           "0: none): programs 0..N-1 of the corpus seed, each judged against the model that made it"),
    Option(name="generated-seed", metavar="SEED", help="the generated corpus's seed (default: the profile's); "
           "one seed gives the same programs on every machine and toolkit"),
    Option(name="reduce-budget", type=budget, metavar="SECONDS", commands=frozenset({"run"}),
           help="seconds the run spends, after its items, confirming and reducing the generated programs that went "
                "wrong (default 180; 0: none); each reduced reproducer lands in the item's repro/ folder"),
    Option(name="findings", metavar="FILE", commands=frozenset({"run"}),
           help="the findings database a run's wrong generated programs are filed in and matched against; a "
                "program a known finding explains is XFAIL (default: reports/fuzz/findings.json, the campaigns')"),
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
    generated: int | None = None  # the corpus's size (None: the profile's)
    generated_seed: str | None = None
    reduce_budget: float = 180.0
    findings: str | None = None  # None: the campaigns' database (``run_findings.database``)


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


# What a resumed run may give anew: how it builds and reports, not what it judges. Every other option is the run's
# own, so an option added later is one a resume keeps unless it is named here.
HOW = frozenset({"timeout", "exec_timeout", "batch", "no_cache", "allow_xpass", "reduce_budget", "findings"})


def selection(opts: RunOptions) -> dict:
    """Return the options that choose what a run judges (all but ``HOW``): name -> value, None where ``opts``
    leaves it at its default."""
    default = RunOptions()
    return {k: None if getattr(opts, k) == getattr(default, k) else getattr(opts, k)
            for k in RunOptions.__dataclass_fields__ if k not in HOW}


def conflicts(given: dict, saved: dict) -> list[str]:
    """Return each option that ``given`` (name -> value, None: not given) sets to another value than ``saved``
    has, in words: ``--std c++20 (the run's: none)``."""
    return [f"--{k.replace('_', '-')} {_shown(v)} (the run's: {_shown(saved.get(k))})"
            for k, v in given.items() if v is not None and v != saved.get(k)]


def _shown(value: Any) -> str:
    """Return an option's value in words: a list comma-separated, a switch on or off, nothing as none."""
    if isinstance(value, (tuple, list)):
        return ",".join(map(str, value)) or "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    return "none" if value is None else str(value)


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
        from suitegen.model import UsageError
        from suitegen.oracle.fields import flag_problem
        flagsets = tuple(FlagSet(flags=tuple(shlex.split(f))) for f in opts.flags)
        problem = next((p for fs in flagsets if (p := flag_problem(fs.flags))), None)
        if problem:
            raise UsageError(f"--flags: {problem}")
    return replace(prof, stds=tuple(parse_list(opts.std, prof.stds)), archs=tuple(parse_list(opts.arch, prof.archs)),
                   flagsets=flagsets, generated=_corpus(opts, prof))


def _corpus(opts: RunOptions, prof):
    """Return the generated corpus the options ask for: the profile's, with ``--generated``/``--generated-seed``
    for its size and seed; ``--std``/``--arch`` replace its dialects and targets as they do the profile's. A run of
    an oracle of one's own (``--oracle``) judges its rules alone unless ``--generated`` asks for programs."""
    from suitegen.engine.generated import check_seed
    from suitegen.model import CorpusSpec
    spec = prof.generated or CorpusSpec()
    spec = replace(spec, count=spec.count if opts.generated is None else opts.generated,
                   seed=check_seed(opts.generated_seed) if opts.generated_seed is not None else spec.seed,
                   stds=() if opts.std else spec.stds, archs=() if opts.arch else spec.archs)
    if opts.generated == 0 or (opts.oracle and opts.generated is None):
        spec = replace(spec, count=0, invalid=0)
    return spec if spec.count or spec.invalid else None
