"""The generated corpus of a run: ``count`` programs of a seed as cases, drawn in parallel and cached.

Drawing a program runs the model over every thread (about 0.07 s each on a GPU machine's core), so programs are
drawn in a process pool, in the background while a run loads its oracle (``Drawing``), and kept in the corpus
cache (``corpus_root``) under a key of the generator's code, the seed and the index. An entry is served only
where its key matches and its source hashes to the digest it recorded; anything else is drawn again.
"""
from __future__ import annotations

import concurrent.futures as cf
import hashlib
import multiprocessing as mp
import os
from pathlib import Path
from typing import Sequence

from suitegen.compilers.cache import read_keyed, write_keyed
from suitegen.model import CORPUS_SEED, Case, UsageError, digest
from suitegen.synth import corpus

__all__ = ["Drawing", "as_cases", "cases", "check_seed", "drawn"]


def check_seed(seed: str, what: str = "--generated-seed") -> str:
    """Return a corpus seed, or raise UsageError naming ``what``: it names rules and files, so it is a plain name."""
    if not isinstance(seed, str) or not CORPUS_SEED.fullmatch(seed):
        raise UsageError(f"{what} {seed!r}: expected letters, digits, '_', '.' or '-' (at most 40)")
    return seed


def corpus_root() -> Path:
    """Return the corpus cache's folder: ``$SUITEGEN_CORPUS_CACHE``, else the user's (``~/.cache/suitegen``, whatever
    ``$SUITEGEN_CACHE`` says: a run with a build cache of its own still takes the programs it drew before, which
    depend on their key alone)."""
    return Path(os.environ.get("SUITEGEN_CORPUS_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "suitegen", "generated"))


def _path(key: str) -> Path:
    return corpus_root() / key[:2] / f"{key}.json"


def _cached(key: str) -> corpus.Drawn | None:
    entry = read_keyed(_path(key), key)
    try:
        drawn = corpus.Drawn.from_json(entry["program"]) if entry else None
    except (KeyError, TypeError, ValueError):
        return None
    if drawn is None or entry.get("sha256") != hashlib.sha256(drawn.source.encode()).hexdigest():
        return None
    return drawn


def _draw_into_cache(seed: str, index: int, key: str) -> corpus.Drawn:
    drawn = corpus.draw(seed, index)
    write_keyed(_path(key), key, program=drawn.to_json(), sha256=hashlib.sha256(drawn.source.encode()).hexdigest())
    return drawn


def _served(seed: str, index: int, key: str, use_cache: bool) -> corpus.Drawn:
    """Return program ``index`` from the corpus cache where it holds it whole, else drawn (and cached)."""
    found = _cached(key) if use_cache else None
    if found is None or found.seed != seed or found.index != index:
        return _draw_into_cache(seed, index, key)
    return found


def _chunk(seed: str, pairs: list[tuple[int, str]], use_cache: bool) -> list[corpus.Drawn]:
    return [_served(seed, i, key, use_cache) for i, key in pairs]


class Drawing:
    """Programs of a corpus being served in the background: started at once (read from the corpus cache or drawn,
    in a process pool); ``result`` waits for them, ``cancel`` drops what has not started."""

    CHUNK = 8  # programs a task

    def __init__(self, seed: str, indices: Sequence[int], jobs: int | None = None, use_cache: bool = True):
        check_seed(seed)
        version = corpus.generator_version()
        pairs = [(i, digest("generated", version, seed, i, length=32)) for i in indices]
        chunks = [pairs[k:k + self.CHUNK] for k in range(0, len(pairs), self.CHUNK)]
        workers = max(1, min(jobs or os.cpu_count() or 2, len(chunks)))
        self._seed, self._use_cache, self._chunks = seed, use_cache, chunks
        self._pool = None if workers == 1 else cf.ProcessPoolExecutor(max_workers=workers,
                                                                      mp_context=mp.get_context("forkserver"))
        self._futures = [self._pool.submit(_chunk, seed, c, use_cache) for c in chunks] if self._pool else []

    def result(self) -> list[corpus.Drawn]:
        """Return the programs, in the order asked for."""
        try:
            if not self._pool:
                return [d for c in self._chunks for d in _chunk(self._seed, c, self._use_cache)]
            return [d for f in self._futures for d in f.result()]
        finally:
            self.cancel()

    def cancel(self) -> None:
        if self._pool:
            self._pool.shutdown(wait=False, cancel_futures=True)


def drawn(seed: str, indices: Sequence[int], jobs: int | None = None, use_cache: bool = True) -> list[corpus.Drawn]:
    """Return these programs of corpus ``seed``, in order, from the cache where it holds them."""
    return Drawing(seed, indices, jobs, use_cache).result()


def cases(seed: str, indices: Sequence[int], jobs: int | None = None, use_cache: bool = True) -> list[Case]:
    """Return these programs of the corpus as cases, in order."""
    return as_cases(drawn(seed, indices, jobs, use_cache))


def as_cases(programs: Sequence[corpus.Drawn]) -> list[Case]:
    """Return drawn programs as cases."""
    return [corpus.case(d) for d in programs]
