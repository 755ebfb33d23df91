"""The one registry of hooks: the Python functions that oracle files and the toolchain name.

Five kinds, one decorator each::

    @hooks.predicate            (params, env) -> Expect     a variant's ``predicate = "name"``
    @hooks.selector             params -> bool              a deviation's ``select = "name"``
    @hooks.strategy             () -> SearchStrategy        a variant's ``strategies = { hole = "name" }``
    @hooks.check                params -> DeviceCheck       a fatbin variant's ``check = "name"``
    @hooks.feature("has-x")     () -> CUDA source           a feature detected by compiling that source

The first four register a function under its ``__name__``; a feature is registered under the name
conditions use for it, and its docstring says what the feature means (``device_only=True``: its source is device
code, built only up to PTX where the compiler can). A name is registered once
per kind: a second function under the same name raises ValueError naming both places.

The oracle loader resolves every name an oracle file gives once, at load (``resolve``), into the
``HookRef`` the model holds: an unknown name is a load error, and nothing looks a name up later.

This module imports no other suitegen module. Which modules define hooks is decided at the top of the
pipeline, which imports them and then calls ``complete()``; a lookup before that raises Incomplete
rather than answer with hooks missing.
"""
from __future__ import annotations

import difflib
import re
import threading
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

KINDS = ("predicate", "selector", "strategy", "check", "feature")
PLURALS = {"predicate": "predicates", "selector": "selectors", "strategy": "strategies", "check": "checks",
           "feature": "features"}
FEATURE_NAME = re.compile(r"[a-z0-9][a-z0-9+\-_.]*")  # what a condition can spell as a feature


class Incomplete(RuntimeError):
    """A lookup before the top of the pipeline said every hook module is imported (a bug, not a user error)."""


class UnknownHook(LookupError):
    """A name no hook of its kind has; the message gives close names and the known ones."""


@dataclass(frozen=True, slots=True)
class HookRef:
    """A hook an oracle file names, resolved at load. Calling it calls the function; it compares, prints and
    serialises as its kind and name, so records, ids and keys stay what the name made them."""

    kind: str
    name: str
    fn: Callable = field(compare=False, repr=False)

    def __call__(self, *args):
        return self.fn(*args)

    def __str__(self) -> str:
        return self.name


class Hook(NamedTuple):
    """One registry row, as ``describe`` lists it."""

    kind: str
    name: str
    summary: str  # the first line of the docstring, or "" when there is none
    module: str


def _place(fn: Callable) -> str:
    """Return where a function is defined: module.qualname (file:line)."""
    code = getattr(fn, "__code__", None)
    where = f" ({code.co_filename}:{code.co_firstlineno})" if code is not None else ""
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}{where}"


def _summary(fn: Callable) -> str:
    doc = (getattr(fn, "__doc__", None) or "").strip()
    return doc.splitlines()[0].strip() if doc else ""


class Registry:
    """Hooks by kind and name. The module-level functions are one shared instance's methods."""

    def __init__(self):
        self._hooks: dict[str, dict[str, Callable]] = {k: {} for k in KINDS}
        self._complete = False
        self._lock = threading.Lock()

    def register(self, kind: str, name: str, fn: Callable) -> Callable:
        """Register ``fn`` as the ``kind`` hook ``name`` and return it unchanged."""
        table = self._hooks.get(kind)
        if table is None:
            raise ValueError(f"unknown hook kind {kind!r} (kinds: {', '.join(KINDS)})")
        if not callable(fn):
            raise TypeError(f"a {kind} hook must be a function, not {fn!r}")
        with self._lock:
            old = table.get(name)
            # The same definition again (its module imported a second time) replaces itself; anything else clashes.
            if old is not None and _place(old) != _place(fn):
                raise ValueError(f"{kind} {name!r} is registered twice: by {_place(old)} and by {_place(fn)}")
            table[name] = fn
        return fn

    def complete(self) -> None:
        """Say that every module defining hooks is imported: lookups may answer from now on."""
        self._complete = True

    def resolve(self, kind: str, name: str | None) -> HookRef | None:
        """Return the ``kind`` hook called ``name`` (None for None); UnknownHook gives close and known names."""
        table = self._table(kind)
        if name is None:
            return None
        fn = table.get(name)
        if fn is None:
            close = difflib.get_close_matches(str(name), table, n=3)
            hint = f"did you mean {' or '.join(map(repr, close))}? " if close else ""
            raise UnknownHook(f"unknown {kind} {name!r} ({hint}known: {sorted(table)})")
        return HookRef(kind, name, fn)

    def refs(self, kind: str) -> list[HookRef]:
        """Return the hooks of one kind, by name."""
        return [HookRef(kind, name, fn) for name, fn in sorted(self._table(kind).items())]

    def names(self, kind: str) -> list[str]:
        """Return the registered names of one kind, sorted."""
        return sorted(self._table(kind))

    def describe(self) -> list[Hook]:
        """Return every hook as (kind, name, first docstring line, module), by kind then name."""
        return [Hook(kind, ref.name, _summary(ref.fn), getattr(ref.fn, "__module__", "?"))
                for kind in KINDS for ref in self.refs(kind)]

    def _table(self, kind: str) -> dict[str, Callable]:
        """Return one kind's hooks, once the registry is complete."""
        if kind not in self._hooks:
            raise ValueError(f"unknown hook kind {kind!r} (kinds: {', '.join(KINDS)})")
        if not self._complete:
            raise Incomplete(f"{kind} hooks looked up before the registry was complete: the top of the pipeline "
                             "(the command line, the pytest plugin, a test's conftest) imports every module that "
                             "defines hooks, then calls hooks.complete()")
        return self._hooks[kind]


_registry = Registry()
complete, resolve, refs, names, describe = (_registry.complete, _registry.resolve, _registry.refs, _registry.names,
                                            _registry.describe)


def predicate(fn: Callable) -> Callable:
    """Register ``fn(params, env) -> Expect`` as the predicate ``fn.__name__``."""
    return _registry.register("predicate", fn.__name__, fn)


def selector(fn: Callable) -> Callable:
    """Register ``fn(params) -> bool`` as the deviation selector ``fn.__name__``."""
    return _registry.register("selector", fn.__name__, fn)


def strategy(fn: Callable) -> Callable:
    """Register ``fn() -> SearchStrategy`` as the hypothesis strategy ``fn.__name__``."""
    return _registry.register("strategy", fn.__name__, fn)


def check(fn: Callable) -> Callable:
    """Register ``fn(params) -> DeviceCheck`` as the device check ``fn.__name__``."""
    return _registry.register("check", fn.__name__, fn)


def feature(name: str, device_only: bool = False) -> Callable[[Callable], Callable]:
    """Return a decorator registering ``fn() -> CUDA source`` as the probe of feature ``name``.

    The feature is present when the source compiles (``device_only``: its device side, where the compiler can
    build that alone); the function's docstring says what it means.
    """
    if not isinstance(name, str) or not FEATURE_NAME.fullmatch(name):
        raise ValueError(f"feature name {name!r} cannot be written in a condition "
                         f"(lower case, digits, + - _ .)")

    def register(fn: Callable) -> Callable:
        fn.device_only = device_only
        return _registry.register("feature", name, fn)
    return register
