"""Which GPU targets a toolchain knows, asked once per fingerprint: a run is checked before it is planned.

nvcc lists them with ``--list-gpu-code`` (``sm_90``: real targets) and ``--list-gpu-arch`` (``compute_90``:
virtual ones); NVRTC with ``nvrtcGetSupportedArchs``. An arch of the matrix is one target or several joined
by ``+`` (``sm_80+sm_90``); a target may carry the ``a`` (arch-specific) or ``f`` (family) suffix, which the
lists do not spell out, so it counts as known where its plain target is listed. A toolchain that lists
nothing (an old or odd nvcc) is not checked here: the config probe still says what it did.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Sequence

from suitegen import procs
from suitegen.compilers import backends
from suitegen.compilers.cache import compilers_run
from suitegen.compilers.toolchain import PROBE_TIMEOUT, cache_root
from suitegen.model import Toolchain, UsageError

TARGET = re.compile(r"^(sm|compute|lto)_(\d+)([af]?)$")
LISTED = re.compile(r"\b(?:sm|compute)_\d+[af]?\b")


def _cache_file(toolchain: Toolchain) -> Path:
    return cache_root() / "archs" / f"{toolchain.fingerprint}.json"


def _read(path: Path, toolchain: Toolchain) -> frozenset[str] | None:
    """Return the targets an entry holds, or None unless it is whole and this toolchain's."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("fingerprint") != toolchain.fingerprint:
        return None
    found = data.get("targets")
    if not isinstance(found, list) or not all(isinstance(t, str) and LISTED.fullmatch(t) for t in found):
        return None
    return frozenset(found)


def _ask(toolchain: Toolchain) -> frozenset[str] | None:
    """Return the targets the toolchain lists (None: it could not be asked, so nothing is cached)."""
    if not compilers_run():
        return None  # replaying a build store: it did not record them
    found: set[str] = set()
    for command, words in backends.of(toolchain.kind).target_queries(toolchain):
        try:
            done = procs.run(command, timeout=PROBE_TIMEOUT)
        except OSError:
            return None
        if done.timed_out:
            return None
        if done.returncode == 0:
            found |= words(done.output)
    return frozenset(found)


def known(toolchain: Toolchain) -> frozenset[str]:
    """Return the targets a toolchain lists (``sm_90``, ``compute_90``), asked once per fingerprint (cached);
    empty where it lists none."""
    path = _cache_file(toolchain)
    found = _read(path, toolchain)
    if found is not None:
        return found
    found = _ask(toolchain)
    if found is None:
        return frozenset()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"fingerprint": toolchain.fingerprint, "targets": sorted(found)}))
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache only costs the question next time
    return found


def unknown(arch: str, targets: frozenset[str]) -> list[str]:
    """Return the targets of a matrix arch (``sm_80+sm_90a``) that are not among a toolchain's ``targets``."""
    out = []
    for target in arch.split("+"):
        m = TARGET.match(target.strip())
        if m is None:
            out.append(target)
            continue
        side, number, _ = m.groups()
        # a virtual target (compute_XX), or an LTO one (lto_XX), is built from a listed compute_XX
        if f"{'sm' if side == 'sm' else 'compute'}_{number}" not in targets:
            out.append(target)
    return out


def check(toolchains: Sequence[Toolchain], arch_list: Sequence[str]) -> None:
    """Raise ValueError naming each arch some toolchain does not know (a usage error: nothing is planned)."""
    problems = []
    for tc in toolchains:
        targets = known(tc)
        if not targets:
            continue
        for arch in arch_list:
            bad = unknown(arch, targets)
            if bad:
                real = sorted((t for t in targets if t.startswith("sm_")), key=lambda t: int(re.sub(r"\D", "", t)))
                problems.append(f"--arch {arch}: {tc.label} ({tc.nvcc}) does not know {', '.join(bad)} "
                                f"(it knows {', '.join(real)}, their compute_XX, and the a/f suffixes)")
    if problems:
        raise UsageError("; ".join(problems))
