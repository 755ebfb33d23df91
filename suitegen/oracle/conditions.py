"""Boolean conditions over parameters and features, e.g. ``std>=c++17 && !windows``.

Parameters are compared (``std``, ``arch``, ``nvcc``); features are present or not
(detected ones like ``linux`` or ``host-gcc``, probed ones like ``has-int128``, and flags like
``extended-lambda``).
Expressions are parsed when the oracle loads, so a typo fails at once.
"""
from __future__ import annotations

import functools
import operator
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable

from suitegen import hooks
from suitegen.model import FROZEN, Compiler, Std, UsageError, arch_number

# nvcc flags that switch a feature on; the feature is what conditions name.
FLAG_FEATURES = {
    "--extended-lambda": "extended-lambda",
    "--expt-extended-lambda": "extended-lambda",
    "--expt-relaxed-constexpr": "relaxed-constexpr",
    "-rdc=true": "rdc",
    "--relocatable-device-code=true": "rdc",
    "-dc": "rdc",
    "--no-host-device-initializer-list": "no-host-device-initializer-list",
    "--no-host-device-move-forward": "no-host-device-move-forward",
    "-Werror=deprecated-declarations": "werror-deprecated",
    "-Wno-deprecated-declarations": "no-deprecated-warnings",
    # flags that let float arithmetic differ from IEEE operations rounded to nearest
    "-use_fast_math": "fast-math",
    "--use_fast_math": "fast-math",
    "-ftz=true": "ftz",
    "--ftz=true": "ftz",
    "-prec-div=false": "approx-div",
    "--prec-div=false": "approx-div",
    "-prec-sqrt=false": "approx-sqrt",
    "--prec-sqrt=false": "approx-sqrt",
    "-fmad=true": "fmad",
    "--fmad=true": "fmad",
    "-fmad=false": "no-fmad",
    "--fmad=false": "no-fmad",
    # code generation: unoptimised device code
    "-G": "device-debug",
    "--device-debug": "device-debug",
    "-Xptxas=-O0": "ptxas-o0",
}
PAIRED_FLAG_FEATURES = {("-Xptxas", "-O0"): "ptxas-o0"}  # an option and its value as two words

# Features that are not probed: the platform, the host compiler, a GPU, and what flags switch on.
FIXED_FEATURES = frozenset({
    "linux", "windows", "x86_64", "aarch64",
    "host-gcc", "host-clang", "host-msvc", "host-icc",
    "gpu", "whole-program",
    "nvrtc",  # the toolchain is NVRTC (device code compiled at run time), not nvcc
    "clang",  # the toolchain is clang (LLVM's CUDA support), not nvcc
    "ptx-only",  # every target of the arch is compute_XX: no SASS, so no ptxas and no device link at build time
    "driver-jit",  # this machine's GPU runs no SASS target of the arch: its driver JIT-compiles the PTX
    "in-context",  # a generated program holding the rule's violation inside other code (synth/inject)
    *FLAG_FEATURES.values(), *PAIRED_FLAG_FEATURES.values(),
})

OPS: dict[str, Callable] = {
    ">=": operator.ge, "<=": operator.le, "==": operator.eq,
    "!=": operator.ne, ">": operator.gt, "<": operator.lt,
}
PARAMETERS = ("std", "arch", "nvcc", "clang")
TOKEN = re.compile(r"\s*(&&|\|\||!=|>=|<=|==|[!()<>]|[A-Za-z0-9_.+\-]+)")


@functools.cache
def known_features() -> frozenset[str]:
    """Return every feature a condition may name: the fixed ones and the probed ones (``@hooks.feature``)."""
    return FIXED_FEATURES | frozenset(hooks.names("feature"))


class Features(frozenset):
    """The features a condition sees: the ones known now and, for the probed ones (``@hooks.feature``), a
    toolchain's answer that may still be coming (``probed``: name -> whether it has it). Asking for a probed
    feature waits for its probe; no other question does, so a run's first builds start beside the probes, and
    only the items whose conditions ask for a probed feature wait for it. Iterating gives the known ones only."""

    probed: Callable[[str], bool] | None

    def __new__(cls, known: Iterable[str] = (), probed: Callable[[str], bool] | None = None):
        self = super().__new__(cls, known)
        self.probed = probed
        return self

    def __contains__(self, name) -> bool:
        if self.probed is not None and name in known_features() and name not in FIXED_FEATURES:
            return self.probed(name)
        return frozenset.__contains__(self, name)

    def __or__(self, other) -> "Features":
        return Features(frozenset(self) | frozenset(other), self.probed)

    def __reduce__(self):
        probed = known_features() - FIXED_FEATURES
        return Features, (frozenset(self) | {n for n in probed if self.probed is not None and self.probed(n)},)


class ConditionError(UsageError):
    """A condition expression that does not parse."""


@dataclass(**FROZEN)
class Env:
    """What a condition is evaluated against: one config on one machine."""

    std: Std
    arch: str
    nvcc: tuple[int, ...]  # the CUDA release: nvcc's or NVRTC's, or the install clang compiles against
    features: frozenset[str] = field(default_factory=frozenset)  # a ``Features`` where probes may still run
    compiler: Compiler = Compiler.NVCC
    clang: tuple[int, ...] = ()  # clang's own version, where the compiler is clang


def unmet(case, env: Env) -> str | None:
    """Return why ``env`` does not meet a case's conditions (its rule's ``requires``, then its variant's), or None."""
    for cond in (case.rule.requires, case.variant.requires):
        if cond is not None and not cond(env):
            return f"requires {cond.text}"
    return None


def flag_features(flags) -> set[str]:
    """Return the features that a list of nvcc flags switches on."""
    flags = list(flags)
    found = {FLAG_FEATURES[f] for f in flags if f in FLAG_FEATURES}
    found |= {PAIRED_FLAG_FEATURES[pair] for pair in zip(flags, flags[1:]) if pair in PAIRED_FLAG_FEATURES}
    if "rdc" not in found:
        found.add("whole-program")
    return found


def parse_version(text: str) -> tuple[int, ...]:
    """Return a version tuple from '13.0' or '13.0.88'."""
    try:
        return tuple(int(p) for p in text.strip().split("."))
    except ValueError:
        raise ConditionError(f"bad version {text!r}") from None


def _compare_versions(op: str, have: tuple[int, ...], want: tuple[int, ...]) -> bool:
    # '13.0' names every 13.0.x: compare only as many components as the condition gives. A version the
    # env lacks (``clang`` where the compiler is not clang) satisfies no comparison.
    return bool(have) and OPS[op](have[: len(want)], want)


@dataclass(**FROZEN)
class Condition:
    """A parsed condition; ``text`` is kept for messages and reports, ``features`` are the ones it names."""

    text: str
    evaluate: Callable[[Env], bool]
    features: frozenset[str] = frozenset()

    def __call__(self, env: Env) -> bool:
        return self.evaluate(env)


@functools.lru_cache(maxsize=4096)
def parse(text: str) -> Condition:
    """Parse a condition expression, raising ConditionError that quotes it (a parsed one is kept: every generated
    program of a corpus names one of a few)."""
    tokens = _tokenize(text)
    pos = 0
    named: set[str] = set()

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take(expected=None):
        nonlocal pos
        tok = peek()
        if tok is None or (expected and tok != expected):
            raise ConditionError(f"in condition {text!r}: expected {expected or 'more'}, got {tok!r}")
        pos += 1
        return tok

    def p_or():
        left = p_and()
        while peek() == "||":
            take()
            right = p_and()
            left = (lambda a, b: lambda env: a(env) or b(env))(left, right)
        return left

    def p_and():
        left = p_not()
        while peek() == "&&":
            take()
            right = p_not()
            left = (lambda a, b: lambda env: a(env) and b(env))(left, right)
        return left

    def p_not():
        if peek() == "!":
            take()
            inner = p_not()
            return lambda env: not inner(env)
        return p_atom()

    def p_atom():
        tok = take()
        if tok == "(":
            inner = p_or()
            take(")")
            return inner
        if peek() in OPS:
            return _comparison(text, tok, take(), take())
        if tok in PARAMETERS or not re.fullmatch(r"[a-z0-9][a-z0-9+\-_.]*", tok):
            raise ConditionError(f"in condition {text!r}: {tok!r} is not a feature")
        if tok not in known_features():
            raise ConditionError(f"in condition {text!r}: unknown feature {tok!r} "
                                 f"(known: {', '.join(sorted(known_features()))})")
        named.add(tok)
        return lambda env: tok in env.features

    fn = p_or()
    if peek() is not None:
        raise ConditionError(f"in condition {text!r}: unexpected {peek()!r}")
    return Condition(text=text, evaluate=fn, features=frozenset(named))


def named_features(conditions: Iterable) -> frozenset[str]:
    """Return the features a collection of conditions (None where there is none) name."""
    return frozenset(name for c in conditions if c is not None for name in c.features)


def _tokenize(text: str) -> list[str]:
    tokens, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise ConditionError(f"in condition {text!r}: cannot read {text[pos:]!r}")
        tokens.append(m.group(1))
        pos = m.end()
    if not tokens:
        raise ConditionError("empty condition")
    return tokens


def _comparison(text: str, name: str, op: str, value: str):
    cmp = OPS[op]
    try:
        if name == "std":
            want = Std.parse(value)
            return lambda env: cmp(env.std, want)
        if name == "arch":
            num = arch_number(value) if not value.isdigit() else int(value)
            return lambda env: cmp(arch_number(env.arch), num)
        if name in ("nvcc", "clang"):
            ver = parse_version(value)
            return lambda env: _compare_versions(op, getattr(env, name), ver)
    except ValueError as exc:
        raise ConditionError(f"in condition {text!r}: {exc}") from None
    raise ConditionError(f"in condition {text!r}: {name!r} cannot be compared "
                         f"(parameters: {', '.join(PARAMETERS)})")
