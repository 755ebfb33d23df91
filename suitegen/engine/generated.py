"""The generated corpus of a run: ``count`` programs of a seed as cases, drawn in parallel and cached.

Drawing a program runs the model over every thread (about 0.07 s each on a GPU machine's core), so programs are
drawn in a process pool, in the background while a run loads its oracle (``Drawing``), and kept in the data cache
(``resources.data_cache_root``) under a key of the generator's code, the seed and the index. An entry is served
only where its key matches and its source hashes to the digest it recorded; anything else is drawn again.
"""
from __future__ import annotations

import concurrent.futures as cf
import hashlib
import multiprocessing as mp
import os
import threading
from pathlib import Path
from typing import Sequence

from suitegen import resources
from suitegen.compilers.cache import read_keyed, write_keyed
from suitegen.model import CORPUS_SEED, Case, UsageError, digest
from suitegen.synth import corpus

__all__ = ["Drawing", "as_cases", "cases", "check_seed", "drawn"]


def check_seed(seed: str, what: str = "--generated-seed") -> str:
    """Return a corpus seed, or raise UsageError naming ``what``: it names rules and files, so it is a plain name."""
    if not isinstance(seed, str) or not CORPUS_SEED.fullmatch(seed):
        raise UsageError(f"{what} {seed!r}: expected letters, digits, '_', '.' or '-' (at most 40)")
    return seed


def _path(key: str) -> Path:
    return resources.data_cache_root() / key[:2] / f"{key}.json"


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


class Drawing:
    """Programs of a corpus being served in the background, started at once: read from the corpus cache in a thread,
    and those it does not hold drawn in a process pool (started only for them); ``result`` waits for them,
    ``cancel`` drops what has not started."""

    def __init__(self, seed: str, indices: Sequence[int], jobs: int | None = None, use_cache: bool = True):
        check_seed(seed)
        self._seed, self._indices, self._jobs, self._use_cache = seed, list(indices), jobs, use_cache
        self._lock = threading.Lock()
        self._pool: cf.ProcessPoolExecutor | None = None
        self._cancelled = False
        thread = cf.ThreadPoolExecutor(max_workers=1, thread_name_prefix="suitegen-corpus")
        self._future = thread.submit(self._serve)
        thread.shutdown(wait=False)

    def _serve(self) -> list[corpus.Drawn]:
        seed, version = self._seed, corpus.generator_version()
        keys = {i: digest("generated", version, seed, i, length=32) for i in self._indices}
        out = {i: _cached(k) if self._use_cache else None for i, k in keys.items()}
        missing = [i for i, d in out.items() if d is None or d.seed != seed or d.index != i]
        workers = max(1, min(self._jobs or os.cpu_count() or 2, len(missing)))
        if workers == 1:
            out.update({i: _draw_into_cache(seed, i, keys[i]) for i in missing})
        elif missing:
            with self._lock:
                if self._cancelled:
                    raise cf.CancelledError
                self._pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("forkserver"))
            with self._pool as pool:
                out.update(zip(missing, pool.map(_draw_into_cache, [seed] * len(missing), missing,
                                                 [keys[i] for i in missing], chunksize=8)))
        return [out[i] for i in self._indices]  # type: ignore[misc]

    def result(self) -> list[corpus.Drawn]:
        """Return the programs, in the order asked for."""
        return self._future.result()

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            if self._pool is not None:
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
