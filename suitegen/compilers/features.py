"""Toolchain features detected by compiling a probe: each compiles iff the toolchain has the feature.

A probe is a function registered with ``@hooks.feature("name")`` that returns a small CUDA
source; its docstring says what the feature means. A probe of device code alone is built only up to PTX
(``device_only``): ``<cuda/atomic>`` costs 1.9 s through the host compiler, 0.6 s without. Conditions in oracle files name these
features (``requires = "has-int128"``); ``probed_features`` says which of some a toolchain has, and ``Probed``
answers a run's questions, probing in the background the ones its conditions name.
"""
from __future__ import annotations

import json
import os
import platform
import tempfile
import threading
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from pathlib import Path
from typing import Iterable

from suitegen import hooks, procs
from suitegen.compilers import artifacts, backends
from suitegen.compilers.cache import compilers_run
from suitegen.compilers.toolchain import PROBE_TIMEOUT, cache_root
from suitegen.model import Toolchain
from suitegen.oracle.conditions import Features


@hooks.feature("has-nvfunctional")
def nvfunctional() -> str:
    """<nvfunctional> is available: nvstd::function can be used in device code."""
    return "#include <nvfunctional>\n__device__ int f() { nvstd::function<int()> g = [] { return 1; }; return g(); }\n"


@hooks.feature("has-int128", device_only=True)
def int128() -> str:
    """__int128 is supported in device code."""
    return "__device__ __int128 f(__int128 x) { return x * 3; }\n"


@hooks.feature("has-float128")
def float128() -> str:
    """__float128 is supported in host code compiled through nvcc."""
    return "__float128 f(__float128 x) { return x * 3; }\n"


@hooks.feature("has-libcudacxx", device_only=True)
def libcudacxx() -> str:
    """libcu++ (<cuda/atomic>) is available: cuda::atomic_thread_fence with a thread scope, in device code."""
    return ("#include <cuda/atomic>\n__device__ void f() { cuda::atomic_thread_fence(cuda::memory_order_seq_cst, "
            "cuda::thread_scope_device); }\n")


def _cache_file(toolchain: Toolchain) -> Path:
    return cache_root() / "features" / f"{toolchain.fingerprint}.json"


def _read_cache(path: Path, toolchain: Toolchain) -> dict[str, bool]:
    """Return the answers an entry holds that are this toolchain's to today's probes (by their source); an
    entry that does not read back whole holds none."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    answers = data.get("answers") if isinstance(data, dict) and data.get("fingerprint") == toolchain.fingerprint \
        else None
    if not isinstance(answers, dict):
        return {}
    probes = _probes()
    return {name: a["present"] for name, a in answers.items()
            if name in probes and isinstance(a, dict) and a.get("probe") == _probe_text(probes[name])
            and isinstance(a.get("present"), bool)}


def probed_features(toolchain: Toolchain, names: Iterable[str]) -> frozenset[str]:
    """Return which of the probed features ``names`` a toolchain has, compiling each probe once per fingerprint
    (cached, with the probe's source: a changed probe is probed again); those not cached run all at once.

    A probe that cannot start, fails, times out or leaves no object means the feature is absent. If the run is
    stopping, ``procs.Stopped`` propagates and nothing is cached.
    """
    refs = _probes()
    wanted = [n for n in dict.fromkeys(names) if n in refs]
    cache = _cache_file(toolchain)
    answers = _read_cache(cache, toolchain)
    todo = [refs[n] for n in wanted if n not in answers]
    if todo and compilers_run():  # replaying a build store: what it did not record is absent
        with tempfile.TemporaryDirectory(prefix="suitegen-probe-") as tmp:

            def present(probe: hooks.HookRef) -> bool:
                name, source = probe.name, probe()
                (Path(tmp) / f"{name}.cu").write_text(source)
                argv = backends.of(toolchain.kind).probe_command(toolchain, f"{name}.cu", probe.fn.device_only)
                try:
                    done = procs.run(argv, timeout=PROBE_TIMEOUT, cwd=tmp)
                except OSError:
                    return False
                return (not done.timed_out and done.returncode == 0
                        and artifacts.problem(argv, Path(tmp), {f"{name}.cu": source},
                                              backends.of(toolchain.kind).module_sections) is None)
            with ThreadPoolExecutor(max_workers=len(todo)) as pool:  # all at once: the slowest sets the time
                answers.update(zip((p.name for p in todo), pool.map(present, todo)))
        _write_cache(cache, toolchain, answers, refs)
    return frozenset(n for n in wanted if answers.get(n))


def _probes() -> dict[str, hooks.HookRef]:
    """Return today's feature probes by name."""
    return {p.name: p for p in hooks.refs("feature")}


def _probe_text(probe: hooks.HookRef) -> str:
    """Return what a cached answer names its probe by: its source, and the side it is built for."""
    return probe() + ("// device side only\n" if probe.fn.device_only else "")


def _write_cache(cache: Path, toolchain: Toolchain, answers: dict[str, bool], refs: dict[str, hooks.HookRef]) -> None:
    """Add ``answers`` to the cached entry as it is now: another process (an xdist worker) may have written
    answers of its own since this one read it, and keeps them."""
    answers = {**_read_cache(cache, toolchain), **answers}
    entry = {"fingerprint": toolchain.fingerprint,
             "answers": {n: {"probe": _probe_text(refs[n]), "present": yes} for n, yes in sorted(answers.items())}}
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp_file = cache.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        tmp_file.write_text(json.dumps(entry))
        os.replace(tmp_file, cache)
    except OSError:
        pass  # a read-only cache only costs the probes next time


def detected_features(toolchain: Toolchain) -> frozenset[str]:
    """Return every probed feature a toolchain has (``probed_features`` of all the probes)."""
    return probed_features(toolchain, hooks.names("feature"))


class Probed:
    """A toolchain's answers to the feature probes, as ``conditions.Features`` asks for them: the ones a run's
    conditions name (``wanted``, a pending set) are probed together in the background; any other is probed on its
    first asking. Each answer is probed once."""

    def __init__(self, toolchain: Toolchain, wanted: Future, probes: Executor):
        self.toolchain = toolchain
        self.together = probes.submit(self._together, wanted)
        self._lock = threading.Lock()
        self._others: dict[str, bool] = {}

    def _together(self, wanted: Future) -> tuple[frozenset[str], frozenset[str]]:
        """Return the named features, once known, and which of them the toolchain has."""
        asked = frozenset(wanted.result())
        return asked, probed_features(self.toolchain, asked)

    def __call__(self, name: str) -> bool:
        asked, present = self.together.result()
        if name in asked:
            return name in present
        with self._lock:  # one at a time: each is probed once
            if name not in self._others:
                self._others[name] = name in probed_features(self.toolchain, [name])
            return self._others[name]


def machine_features(toolchain: Toolchain, probes: Executor | None = None, wanted: Future | None = None) -> Features:
    """Return the detected features of this machine and toolchain (never set by the user): the platform's,
    the compiler's own (its backend's: the host compiler, for nvcc) and what its feature probes find
    (``features.detected_features``). Given ``probes`` and ``wanted`` (a pending set of the probed features a
    run's conditions name), those run there and this returns at once: a question about a probed feature waits
    for its probe, and one about a feature nobody named probes it then (``features.Probed``)."""
    feats = set()
    system = platform.system().lower()
    feats.add("windows" if system == "windows" else "linux" if system == "linux" else system)
    arch = platform.machine().lower()
    feats.add({"amd64": "x86_64", "arm64": "aarch64"}.get(arch, arch))
    backend = backends.of(toolchain.kind)
    feats |= backend.features(toolchain)
    if not backend.probes_features:
        return Features(feats)
    if probes is None or wanted is None:
        return Features(feats | detected_features(toolchain))
    return Features(feats, Probed(toolchain, wanted, probes))
