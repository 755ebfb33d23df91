"""A content-addressed cache of build results, so a rerun, a resume or an oracle-only change recompiles nothing.

The key covers what can change a build's result: the toolchain's fingerprint (what nvcc really runs,
see ``toolchain.identity``), the exact command line, every source byte, and the environment nvcc
reads. Entries are written atomically and checked on read: an entry that is truncated, corrupt, of
another shape or filed under another key is a miss and is rebuilt. A different toolchain has a
different fingerprint, so it never hits old entries. An accepted result is kept only once its output
was found and of its format (``artifacts``), and the entry says what was found; a device module kept
beside it is served only where its bytes hash to the digest the entry recorded.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Mapping, Sequence

from suitegen.build.artifacts import FATBIN_MAGIC
from suitegen.build.toolchain import cache_root
from suitegen.model import CompileResult, Toolchain, digest

ENVIRONMENT = ("NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN")
# 2: modules of relocatable objects keep the kernels their host code does not launch; 3: NVRTC;
# 4: an accepted result records that its output was checked (``artifact``), a module its digest
FORMAT = 4


def key(toolchain: Toolchain, argv: Sequence[str], files: Mapping[str, str]) -> str:
    """Return the cache key of one build: toolchain, command (its nvcc named by fingerprint), sources, env."""
    env = {name: os.environ.get(name) for name in ENVIRONMENT}
    return digest(FORMAT, toolchain.fingerprint, list(argv[1:]), sorted(files.items()), env, length=40)


def _path(k: str) -> Path:
    return cache_root() / "builds" / k[:2] / f"{k}.json"


def _entry(k: str) -> dict | None:
    """Return the entry filed under ``k``, or None unless it is whole, of its shape and filed under ``k``."""
    try:
        data = json.loads(_path(k).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != k or not isinstance(data.get("result"), dict):
        return None
    if not all(isinstance(data.get(f), (str, type(None))) for f in ("artifact", "module")):
        return None
    return data


def get(k: str) -> CompileResult | None:
    """Return the cached result of a build, or None: never built, an entry that does not read back whole or
    belongs to another key, or an accepted result whose output was not checked when it was stored."""
    data = _entry(k)
    if data is None:
        return None
    try:
        result = replace(CompileResult.from_json(data["result"]), cached=True)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    if result.outcome.accepted and not data.get("artifact"):
        return None
    return result


def get_image(k: str) -> bytes | None:
    """Return the device module stored with a build, or None (none stored, not a whole fatbin, or not the
    bytes its entry recorded: another key's module)."""
    data = _entry(k)
    try:
        image = _path(k).with_suffix(".fatbin").read_bytes()
    except OSError:
        return None
    if data is None or data.get("module") != hashlib.sha256(image).hexdigest():
        return None
    return image if image.startswith(FATBIN_MAGIC) and len(image) >= 16 else None


def put(k: str, result: CompileResult, artifact: str | None = None, image: bytes | None = None) -> None:
    """Store a build's result (atomically: temp file, then rename); an unwritable cache only costs time.

    ``artifact``: what was found of an accepted build's output (see ``artifacts.checked``); an accepted
    result without it is not kept. ``image``: its device module, kept beside it with its digest.
    """
    if result.outcome.infrastructure or (result.outcome.accepted and not artifact):
        return  # a crash or a timeout may not repeat, and an acceptance needs its evidence: never serve them
    module = None
    if image is not None:
        _write(_path(k).with_suffix(".fatbin"), image)
        module = hashlib.sha256(image).hexdigest()
    _write(_path(k), json.dumps({"key": k, "result": result.to_json(), "artifact": artifact,
                                 "module": module}).encode())


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
