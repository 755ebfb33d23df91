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
compiled: see ``compile.cached_build``). The toolchains' identities and feature answers are kept there too,
with the hash of the oracle the run was planned with. A store is input from elsewhere: a replay checks every
field of it, refuses a store of another oracle, and runs no program it names (``compilers_run``): what the store
did not record is unknown there.
"""
from __future__ import annotations

import enum
import hashlib
import json
import math
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Mapping, Sequence

from suitegen.compilers.artifacts import ELF_MAGIC, FATBIN_MAGIC
from suitegen.compilers.toolchain import cache_root
from suitegen.model import CompileResult, Compiler, Toolchain, UsageError, bad_field, digest, strings, whole
from suitegen.resources import write_file


class Store(enum.Enum):
    """How a run uses a build store (see the module docstring)."""

    RECORD = "record"
    REPLAY = "replay"


_store: Store | None = None
_before: list[str | None] = []  # the cache folder a store replaced
_damaged: list[str] = []  # what this process found damaged in the store in use (``unserved``)


def use_store(mode: Store, folder: Path | str) -> None:
    """Make ``folder`` this process's cache, in ``mode``, until ``leave_store``: every build, probe cache and
    lookup uses it."""
    global _store
    Path(folder).mkdir(parents=True, exist_ok=True)
    _damaged.clear()
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


def compilers_run() -> bool:
    """Return whether this process may run a compiler: not while it replays a build store, whose records are all
    it knows of its toolchains (what they do not hold is not known here, and no program a store names is run)."""
    return _store is not Store.REPLAY


FINGERPRINT = re.compile(r"[0-9a-f]{16,64}")  # what ``model.digest`` writes: a file name that stays in its folder
STORE_FILE = "store.json"  # the oracle a store was recorded with, filed under STORE_KEY
STORE_KEY = "suitegen build store"


def save_toolchains(toolchains: Sequence[Toolchain], oracle: str) -> None:
    """Keep in the store what a replay of it needs of a run's toolchains (their identities, for ``load_toolchains``,
    and the content hash of the ``oracle`` its builds were planned with; the caller then asks every feature probe
    (``features.machine_features``), whose answers go into the store's cache and are read back in a replay."""
    for tc in toolchains:
        write_file(cache_root() / "toolchains" / f"{tc.fingerprint}.json", json.dumps(tc.to_json()).encode())
    write_keyed(cache_root() / STORE_FILE, STORE_KEY, oracle=oracle)


def load_toolchains(folder: Path | str, oracle: str) -> list[Toolchain]:
    """Return the toolchains a build store was recorded with; raise UsageError if it was recorded with another
    ``oracle`` (its content hash) or none, or if it has no toolchain or one whose record is not whole."""
    recorded = read_keyed(Path(folder) / STORE_FILE, STORE_KEY) or {}
    if recorded.get("oracle") != oracle:
        said = f"oracle {recorded['oracle']}" if isinstance(recorded.get("oracle"), str) else "no oracle"
        raise UsageError(f"{folder} was recorded with {said}, and this run's oracle is {oracle}: record the store "
                         "with the oracle you run with (suitegen run --builds-to, with the same --oracle)")
    out = [_toolchain_record(path) for path in sorted((Path(folder) / "toolchains").glob("*.json"))]
    if not out:
        raise UsageError(f"{folder} holds no recorded toolchains (write one with suitegen run --builds-to)")
    return out


def _toolchain_record(path: Path) -> Toolchain:
    """Return the toolchain a store's record holds; raise UsageError naming the file and field where it is not
    whole: every field of its type, text printable, its fingerprint ``FINGERPRINT`` and its file's name."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise UsageError(f"unreadable toolchain record {path}: {exc}") from None
    why = bad_field(data, _TOOLCHAIN_FIELDS)
    if why:
        raise UsageError(f"toolchain record {path}: {why}"[:300])
    if data["fingerprint"] != path.stem:
        raise UsageError(f"toolchain record {path}: fingerprint {data['fingerprint']} filed under another name")
    return Toolchain.from_json(data)


def _text(value) -> bool:
    """Whether ``value`` is a string without control characters."""
    return isinstance(value, str) and value.isprintable()


def _list_of(value, ok) -> bool:
    """Whether ``value`` is a list each of whose items ``ok`` accepts."""
    return isinstance(value, list) and all(ok(v) for v in value)


def _command(value) -> bool:
    """Whether ``value`` is a command line: a list of one or more strings."""
    return strings(value) and value != []


TEXT = "printable text"
_TOOLCHAIN_FIELDS = {
    "nvcc": (lambda v: _text(v) and v != "", "a path"),
    "version": (lambda v: _list_of(v, whole(0)) and v != [], "a list of numbers"),
    "version_text": (_text, TEXT), "host_compiler": (_text, TEXT), "host_version": (_text, TEXT),
    "fingerprint": (lambda v: isinstance(v, str) and FINGERPRINT.fullmatch(v) is not None, "hex digits"),
    "name": (_text, TEXT), "kind": (lambda v: v in {c.value for c in Compiler}, "a compiler kind"),
    "cuda_version": (lambda v: _list_of(v, whole(0)), "a list of numbers"), "cuda_path": (_text, TEXT),
    "base_flags": (lambda v: _list_of(v, _text), "a list of flags")}  # name -> (whether a value is whole, words)


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
    """Return the entry filed under ``k``, or None unless it is whole (each field of its type: ``_whole``) and filed
    under ``k``."""
    data = read_keyed(_path(k), k)
    if data is None or not _whole(data.get("result")):
        return None
    if not all(isinstance(data.get(f), (str, type(None))) for f in ("artifact", "module", "product")):
        return None
    return data


def _whole(result) -> bool:
    """Whether a stored result has each field of ``CompileResult.to_json``'s form and type (at least one command)."""
    if not isinstance(result, dict):
        return False
    diagnostics, commands, seconds = result.get("diagnostics"), result.get("commands"), result.get("duration")
    return (isinstance(result.get("outcome"), str) and _maybe(result.get("phase"), str)
            and _maybe(result.get("exit_code"), int) and isinstance(result.get("output"), str)
            and isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and 0 <= seconds < math.inf
            and _list_of(commands, _command) and commands != []
            and _list_of(diagnostics, _whole_diagnostic))


def _whole_diagnostic(d) -> bool:
    """Whether a stored diagnostic has each field of ``Diagnostic.to_json``'s form and type."""
    return (isinstance(d, dict) and isinstance(d.get("severity"), str) and isinstance(d.get("message"), str)
            and isinstance(d.get("phase"), str) and _maybe(d.get("file"), str) and _maybe(d.get("line"), int)
            and _maybe(d.get("number"), str))


def _maybe(value, kind: type) -> bool:
    """Whether ``value`` is None or of ``kind`` (a bool is no int)."""
    return value is None or (isinstance(value, kind) and not isinstance(value, bool))


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


def unserved(k: str) -> str:
    """Return why the build store in use serves no build under ``k``: its entry is damaged (``_damage``), or none
    was recorded (saying so where this process found the store damaged: the batch build of an item built alone
    because of it, say)."""
    where, damage = cache_root(), _damage(k)
    if damage is not None:
        _damaged.append(damage)
        return f"{damage}, in the build store {where}: record the build again"
    seen = (f"; the store was damaged since it was recorded: {_damaged[0]}"
            + (f" (and {len(_damaged) - 1} more)" if len(_damaged) > 1 else "") if _damaged else "")
    return f"not in the build store {where}: this build was not recorded there (suitegen run --builds-to){seen}"


def _damage(k: str) -> str | None:
    """Return what is wrong with the entry under ``k`` where it is there but serves no build (not whole, or its
    product or module fails the digest it recorded); None where there is none."""
    entry = _path(k)
    if not entry.exists():
        return None
    if get(k) is None:
        return f"{entry} is not a whole entry (a field missing or of another type)"
    data = _entry(k)
    for name, suffix in (("product", ".product"), ("module", ".fatbin")):
        try:
            held = hashlib.sha256(entry.with_suffix(suffix).read_bytes()).hexdigest()
        except OSError:
            held = None
        if data.get(name) is not None and held != data[name]:
            return f"{entry.with_suffix(suffix)} fails its digest (not the bytes its entry recorded)"
    return f"{entry} kept no product or module of this build"


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


