"""Toolchain features detected by compiling a probe: each compiles iff the toolchain has the feature.

A probe is a function registered with ``@hooks.feature("name")`` that returns a small CUDA
source; its docstring says what the feature means. Conditions in oracle files name these
features (``requires = "has-int128"``); ``detected_features`` says which a toolchain has.
"""
from __future__ import annotations

import json
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from suitegen import hooks, procs
from suitegen.compilers import artifacts, backends
from suitegen.compilers.toolchain import PROBE_TIMEOUT, cache_root
from suitegen.model import Toolchain


@hooks.feature("has-nvfunctional")
def nvfunctional() -> str:
    """<nvfunctional> is available: nvstd::function can be used in device code."""
    return "#include <nvfunctional>\n__device__ int f() { nvstd::function<int()> g = [] { return 1; }; return g(); }\n"


@hooks.feature("has-int128")
def int128() -> str:
    """__int128 is supported in device code."""
    return "__device__ __int128 f(__int128 x) { return x * 3; }\n"


@hooks.feature("has-float128")
def float128() -> str:
    """__float128 is supported in host code compiled through nvcc."""
    return "__float128 f(__float128 x) { return x * 3; }\n"


@hooks.feature("has-libcudacxx")
def libcudacxx() -> str:
    """libcu++ (<cuda/atomic>) is available: cuda::atomic_thread_fence with a thread scope."""
    return ("#include <cuda/atomic>\n__device__ void f() { cuda::atomic_thread_fence(cuda::memory_order_seq_cst, "
            "cuda::thread_scope_device); }\n")


def _cache_file(toolchain: Toolchain) -> Path:
    return cache_root() / "features" / f"{toolchain.fingerprint}.json"


def _read_cache(path: Path, toolchain: Toolchain) -> frozenset[str] | None:
    """Return the features an entry holds, or None unless it reads back whole, is this toolchain's, and
    answers exactly today's probes with names among them."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    probes = sorted(hooks.names("feature"))
    if not isinstance(data, dict) or data.get("fingerprint") != toolchain.fingerprint or data.get("probes") != probes:
        return None
    found = data.get("features")
    if not isinstance(found, list) or not all(isinstance(f, str) and f in probes for f in found):
        return None
    return frozenset(found)


def detected_features(toolchain: Toolchain) -> frozenset[str]:
    """Return the probed features of a toolchain, compiling each probe once per fingerprint (cached).

    A probe that cannot start, fails, times out or leaves no object means the feature is absent. A cache
    entry that is not this toolchain's answer to today's probes is probed again. If the run is stopping,
    ``procs.Stopped`` propagates and nothing is cached.
    """
    cache = _cache_file(toolchain)
    cached = _read_cache(cache, toolchain)
    if cached is not None:
        return cached
    with tempfile.TemporaryDirectory(prefix="suitegen-probe-") as tmp:

        def present(probe: hooks.HookRef) -> bool:
            name, source = probe.name, probe()
            (Path(tmp) / f"{name}.cu").write_text(source)
            argv = backends.of(toolchain.kind).probe_command(toolchain, f"{name}.cu", f"{name}.o")
            try:
                done = procs.run(argv, timeout=PROBE_TIMEOUT, cwd=tmp)
            except OSError:
                return False
            return (not done.timed_out and done.returncode == 0
                    and artifacts.problem(argv, Path(tmp), {f"{name}.cu": source},
                                          backends.of(toolchain.kind).module_sections) is None)
        probes = hooks.refs("feature")
        with ThreadPoolExecutor(max_workers=max(1, len(probes))) as pool:  # all at once: the slowest sets the time
            found = {p.name for p, yes in zip(probes, pool.map(present, probes)) if yes}
    entry = {"fingerprint": toolchain.fingerprint, "probes": [p.name for p in probes],
             "features": sorted(found)}
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp_file = cache.with_suffix(f".{os.getpid()}.tmp")
        tmp_file.write_text(json.dumps(entry))
        os.replace(tmp_file, cache)
    except OSError:
        pass  # a read-only cache only costs the probes next time
    return frozenset(found)
