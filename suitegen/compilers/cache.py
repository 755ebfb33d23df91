"""A content-addressed cache of build results, so a rerun, a resume or an oracle-only change recompiles nothing.

The key covers what can change a build's result: the toolchain's fingerprint (what nvcc really runs,
see ``toolchain.identity``), the exact command line, every source byte, and the environment nvcc
reads. Entries are written atomically and checked on read: an entry that is truncated, corrupt, of
another shape or filed under another key is a miss and is rebuilt. A different toolchain has a
different fingerprint, so it never hits old entries. An accepted result is kept only once its output
was found and of its format (``artifacts``), and the entry says what was found; a device module kept
beside it is served only where its bytes hash to the digest the entry recorded.

A build store is a cache folder of its own that also keeps each build's product (its object or program):
``record`` fills one on a machine with the compiler (every build is kept, product and module included),
and ``replay`` serves every build from one on a machine without it (a build not in the store is not
compiled: see ``compile.cached_build``). The toolchains' identities are kept there too.
"""
from __future__ import annotations

import enum
import hashlib
import json
import os
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Mapping, Sequence

from suitegen.compilers.artifacts import ELF_MAGIC, FATBIN_MAGIC
from suitegen.compilers.toolchain import cache_root
from suitegen.model import CompileResult, Toolchain, UsageError, digest


class Store(enum.Enum):
    """How a run uses a build store (see the module docstring)."""

    RECORD = "record"
    REPLAY = "replay"


_store: Store | None = None
_before: list[str | None] = []  # the cache folder a store replaced


def use_store(mode: Store, folder: Path | str) -> None:
    """Make ``folder`` this process's cache, in ``mode``, until ``leave_store``: every build, probe cache and
    lookup uses it."""
    global _store
    Path(folder).mkdir(parents=True, exist_ok=True)
    _before.append(os.environ.get("SUITEGEN_CACHE"))
    os.environ["SUITEGEN_CACHE"] = str(Path(folder).resolve())
    _store = mode


def leave_store() -> None:
    """Go back to the cache ``use_store`` replaced (nothing if no store is in use)."""
    global _store
    if _store is None:
        return
    previous = _before.pop()
    if previous is None:
        os.environ.pop("SUITEGEN_CACHE", None)
    else:
        os.environ["SUITEGEN_CACHE"] = previous
    _store = None


def store() -> Store | None:
    """Return the mode of the build store in use, or None for the plain cache."""
    return _store


def save_toolchains(toolchains: Sequence[Toolchain]) -> None:
    """Keep the identities of a run's toolchains in the store, for ``load_toolchains`` on another machine."""
    for tc in toolchains:
        write_file(cache_root() / "toolchains" / f"{tc.fingerprint}.json", json.dumps(tc.to_json()).encode())


def load_toolchains(folder: Path | str) -> list[Toolchain]:
    """Return the toolchains a build store was recorded with; raise ValueError if it has none or one is unreadable."""
    out = []
    for path in sorted((Path(folder) / "toolchains").glob("*.json")):
        try:
            out.append(Toolchain.from_json(json.loads(path.read_text())))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise UsageError(f"unreadable toolchain record {path}: {exc}") from None
    if not out:
        raise UsageError(f"{folder} holds no recorded toolchains (write one with suitegen run --builds-to)")
    return out

ENVIRONMENT = ("NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN")
# 2: modules of relocatable objects keep the kernels their host code does not launch; 3: NVRTC;
# 4: an accepted result records that its output was checked (``artifact``), a module its digest
FORMAT = 4


def key(toolchain: Toolchain, argv: Sequence[str], files: Mapping[str, str | bytes]) -> str:
    """Return the cache key of one build: toolchain, command (its nvcc named by fingerprint), inputs, env
    (an input given as bytes, an object say, by its digest)."""
    env = {name: os.environ.get(name) for name in ENVIRONMENT}
    inputs = sorted((n, t if isinstance(t, str) else hashlib.sha256(t).hexdigest()) for n, t in files.items())
    return digest(FORMAT, toolchain.fingerprint, list(argv[1:]), inputs, env, length=40)


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
    if not all(isinstance(data.get(f), (str, type(None))) for f in ("artifact", "module", "product")):
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
    # a fatbin, or a cubin (NVRTC's, clang's device-only build) or PTX
    return image if image.startswith((FATBIN_MAGIC, ELF_MAGIC, b"//")) and len(image) >= 16 else None


def get_product(k: str) -> bytes | None:
    """Return the product (object or program) a build store kept with a build, or None (none kept, or not the
    bytes its entry recorded)."""
    data = _entry(k)
    try:
        product = _path(k).with_suffix(".product").read_bytes()
    except OSError:
        return None
    return product if data is not None and data.get("product") == hashlib.sha256(product).hexdigest() else None


def put(k: str, result: CompileResult, artifact: str | None = None, image: bytes | None = None,
        product: bytes | None = None, any_outcome: bool = False) -> None:
    """Store a build's result (atomically: temp file, then rename); an unwritable cache only costs time.

    ``artifact``: what was found of an accepted build's output (see ``artifacts.checked``); an accepted
    result without it is not kept. ``image``: its device module, and ``product`` (a build store's) its
    object or program, each kept beside it with its digest. ``any_outcome``: a build store keeps a crash or a
    timeout too (it records what happened; a cache serves only what repeats).
    """
    if (result.outcome.infrastructure and not any_outcome) or (result.outcome.accepted and not artifact):
        return  # a crash or a timeout may not repeat, and an acceptance needs its evidence: never serve them
    digests = {}
    for name, data in (("module", image), ("product", product)):
        if data is not None:
            write_file(_path(k).with_suffix(".fatbin" if name == "module" else ".product"), data)
            digests[name] = hashlib.sha256(data).hexdigest()
    write_file(_path(k), json.dumps({"key": k, "result": result.to_json(), "artifact": artifact,
                                 "module": digests.get("module"), "product": digests.get("product")}).encode())


def read_keyed(path: Path, key) -> dict | None:
    """Return a small entry ``write_keyed`` wrote for ``key`` (a probe's answer, say); None where it is missing,
    corrupt, or filed for another key."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("key") == key else None


def write_keyed(path: Path, key, **fields) -> None:
    """Write a small entry for ``key`` (see ``read_keyed``), atomically."""
    write_file(path, json.dumps({"key": key, **fields}).encode())


def write_file(path: Path, data: bytes) -> None:
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
