"""A content-addressed cache of build results, so a rerun, a resume or an oracle-only change recompiles nothing.

The key covers what can change a build's result: the toolchain's fingerprint (what nvcc really runs,
see ``toolchain.identity``), the exact command line, every source byte, and the environment nvcc
reads. Entries are written atomically and checked on read: a truncated or corrupt entry is a miss
and is rebuilt. A different toolchain has a different fingerprint, so it never hits old entries.
"""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Mapping, Sequence

from suitegen.build.toolchain import cache_root
from suitegen.model import CompileResult, Toolchain, digest

ENVIRONMENT = ("NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN")
FATBIN_MAGIC = b"\x50\xed\x55\xba"  # the first bytes of a fatbin image
FORMAT = 3  # 2: modules of relocatable objects keep the kernels their host code does not launch; 3: NVRTC


def key(toolchain: Toolchain, argv: Sequence[str], files: Mapping[str, str]) -> str:
    """Return the cache key of one build: toolchain, command (its nvcc named by fingerprint), sources, env."""
    env = {name: os.environ.get(name) for name in ENVIRONMENT}
    return digest(FORMAT, toolchain.fingerprint, list(argv[1:]), sorted(files.items()), env, length=40)


def _path(k: str) -> Path:
    return cache_root() / "builds" / k[:2] / f"{k}.json"


def get(k: str) -> CompileResult | None:
    """Return the cached result of a build, or None (never built, or an entry that does not read back whole)."""
    try:
        data = json.loads(_path(k).read_text())
        if data.get("key") != k:
            return None
        return replace(CompileResult.from_json(data["result"]), cached=True)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def get_image(k: str) -> bytes | None:
    """Return the device module stored with a build, or None (none stored, or not a whole fatbin)."""
    try:
        data = _path(k).with_suffix(".fatbin").read_bytes()
    except OSError:
        return None
    return data if data.startswith(FATBIN_MAGIC) and len(data) >= 16 else None


def put_image(k: str, data: bytes) -> None:
    """Store a build's device module beside its result (atomically)."""
    _write(_path(k).with_suffix(".fatbin"), data)


def put(k: str, result: CompileResult) -> None:
    """Store a build's result (atomically: temp file, then rename); an unwritable cache only costs time."""
    if result.outcome.infrastructure:
        return  # a crash or a timeout may not repeat: never serve it again
    _write(_path(k), json.dumps({"key": k, "result": result.to_json()}).encode())


def _write(path: Path, data: bytes) -> None:
    """Write a file atomically (temp file, then rename); an unwritable cache only costs time."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError:
        if tmp:
            Path(tmp).unlink(missing_ok=True)
