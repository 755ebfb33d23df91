"""The one registry of hooks: the Python functions that oracle files and the toolchain name.

Five kinds, one decorator each::

    @hooks.predicate            (params, env) -> Expect     a variant's ``predicate = "name"``
    @hooks.selector             params -> bool              a deviation's ``select = "name"``
    @hooks.strategy             () -> SearchStrategy        a variant's ``strategies = { hole = "name" }``
    @hooks.check                params -> DeviceCheck       a fatbin variant's ``check = "name"``
    @hooks.feature("has-x")     () -> CUDA source           a feature detected by compiling that source

The first four register a function under its ``__name__``; a feature is registered under the name
conditions use for it, and its docstring says what the feature means. A name is registered once
per kind: a second function under the same name raises ValueError naming both places.

Lookups (``get``, ``names``, ``describe``) fill the registry on first use by importing
``HOOK_MODULES``. This module imports nothing heavy and no other suitegen module, so importing it
is cheap and cannot cycle: the hook modules import it, never the other way round at import time.
"""
from __future__ import annotations

import importlib
import re
import threading
from typing import Callable, NamedTuple

KINDS = ("predicate", "selector", "strategy", "check", "feature")
PLURALS = {"predicate": "predicates", "selector": "selectors", "strategy": "strategies", "check": "checks",
           "feature": "features"}
HOOK_MODULES = ("suitegen.oracle.definitions", "suitegen.cases.strategies", "suitegen.execute.checks",
                "suitegen.compilers.features")
FEATURE_NAME = re.compile(r"[a-z0-9][a-z0-9+\-_.]*")  # what a condition can spell as a feature


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
    """Hooks by kind and name. The module-level functions use one shared instance."""

    def __init__(self, modules: tuple[str, ...] = ()):
        self._hooks: dict[str, dict[str, Callable]] = {k: {} for k in KINDS}
        self._modules = modules
        self._loaded = not modules
        self._loading = False
        self._lock = threading.RLock()

    def register(self, kind: str, name: str, fn: Callable) -> Callable:
        """Register ``fn`` as the ``kind`` hook ``name`` and return it unchanged."""
        table = self._table(kind)
        if not callable(fn):
            raise TypeError(f"a {kind} hook must be a function, not {fn!r}")
        with self._lock:
            old = table.get(name)
            # The same definition again (its module imported a second time) replaces itself; anything else clashes.
            if old is not None and _place(old) != _place(fn):
                raise ValueError(f"{kind} {name!r} is registered twice: by {_place(old)} and by {_place(fn)}")
            table[name] = fn
        return fn

    def get(self, kind: str, name: str) -> Callable:
        """Return the ``kind`` hook called ``name``; KeyError lists the known names."""
        table = self._table(kind)
        self._ensure_loaded()
        try:
            return table[name]
        except KeyError:
            raise KeyError(f"unknown {kind} {name!r} (known: {sorted(table)})") from None

    def names(self, kind: str) -> list[str]:
        """Return the registered names of one kind, sorted."""
        table = self._table(kind)
        self._ensure_loaded()
        return sorted(table)

    def describe(self) -> list[Hook]:
        """Return every hook as (kind, name, first docstring line, module), by kind then name."""
        self._ensure_loaded()
        return [Hook(kind, name, _summary(fn), getattr(fn, "__module__", "?"))
                for kind in KINDS for name, fn in sorted(self._hooks[kind].items())]

    def _table(self, kind: str) -> dict[str, Callable]:
        try:
            return self._hooks[kind]
        except KeyError:
            raise ValueError(f"unknown hook kind {kind!r} (kinds: {', '.join(KINDS)})") from None

    def _ensure_loaded(self) -> None:
        """Import the hook modules once, so that their decorators have run."""
        if self._loaded:
            return
        with self._lock:
            if self._loaded or self._loading:  # re-entered from a hook module's own import: use what is there
                return
            self._loading = True
            try:
                for module in self._modules:
                    importlib.import_module(module)
                self._loaded = True
            finally:
                self._loading = False


_registry = Registry(HOOK_MODULES)


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


def feature(name: str) -> Callable[[Callable], Callable]:
    """Return a decorator registering ``fn() -> CUDA source`` as the probe of feature ``name``.

    The feature is present when the source compiles; the function's docstring says what it means.
    """
    if not isinstance(name, str) or not FEATURE_NAME.fullmatch(name):
        raise ValueError(f"feature name {name!r} cannot be written in a condition "
                         f"(lower case, digits, + - _ .)")

    def register(fn: Callable) -> Callable:
        return _registry.register("feature", name, fn)
    return register


def get(kind: str, name: str) -> Callable:
    """Return the ``kind`` hook called ``name``; KeyError lists the known names."""
    return _registry.get(kind, name)


def names(kind: str) -> list[str]:
    """Return the registered names of one kind, sorted."""
    return _registry.names(kind)


def describe() -> list[Hook]:
    """Return every hook as (kind, name, first docstring line, module), by kind then name."""
    return _registry.describe()
