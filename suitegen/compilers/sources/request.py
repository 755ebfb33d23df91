"""One build asked of the sources (``Request``), and what they share: the products a build leaves in its folder, a
wait while another thread makes the same build, a cached result of another build, writing a build's files."""
from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from suitegen.compilers import backends, cache
from suitegen.model import CompileResult, Config

MODULE = "module.fatbin"
DLINKED = "dlink.o"
DLINK_LOG = "dlink.log"  # what nvcc -dlink said when it made no module


@dataclass(frozen=True)
class Request:
    """One build asked for: what ``cached_build`` was given, its cache key and the build store's mode."""

    config: Config
    argv: list[str]
    files: Mapping[str, str | bytes]
    folder: Path
    timeout: float
    cached: bool
    image: bool
    key: str | None
    wider: list[str] | None
    store: "cache.Store | None"

    @property
    def backend(self) -> backends.Backend:
        return backends.of(self.config.toolchain.kind)


def cached_result(config: Config, argv: list[str], files: Mapping[str, str | bytes]) -> CompileResult | None:
    """Return the cached result of another build of ``files``, waiting for it where a thread is making it."""
    k = cache.key(config.toolchain, argv, files)
    with one_at_a_time(k):
        return cache.get(k)


def write_files(files: Mapping[str, str | bytes], folder: Path) -> None:
    """Write a build's files (text, or bytes: an object) into its folder."""
    for name, text in files.items():
        (folder / name).write_text(text) if isinstance(text, str) else (folder / name).write_bytes(text)


_flight_lock = threading.Lock()
_flights: dict[str, list] = {}  # key -> [its lock, how many threads hold or wait for it]


@contextmanager
def one_at_a_time(key: str):
    """Let one thread at a time through for ``key`` (a build's cache key): the others wait for it to finish."""
    with _flight_lock:
        entry = _flights.setdefault(key, [threading.Lock(), 0])
        entry[1] += 1
    try:
        with entry[0]:
            yield
    finally:
        with _flight_lock:
            entry[1] -= 1
            if not entry[1]:
                del _flights[key]
