"""Runs a compiler (its backend's command) on a case under a config and returns what happened; never judges."""
from __future__ import annotations

import threading
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping

from suitegen import procs
from suitegen.compilers import artifacts, backends, cache
from suitegen.model import Case, CompileResult, Config, Diagnostic, Outcome, Phase

DEFAULT_TIMEOUT = 120.0


def compile_case(case: Case, config: Config, folder: Path, timeout: float = DEFAULT_TIMEOUT,
                 cached: bool = False, image: bool = False) -> CompileResult:
    """Write a case into ``folder`` (a private scratch folder), compile it there and classify the outcome.

    ``cached``: take the result from the build cache when it has it (nothing is written or built then,
    so only for builds whose product nobody runs), and store a fresh one. ``image``: also leave the
    object's device module in ``folder / MODULE`` (see ``cached_build``).
    """
    argv = backends.command(case, config)
    return cached_build(config, argv, dict(case.files), folder, timeout, cached, image)


FRONT_END = Phase.CICC  # where a build's device front end rejects (nvcc's cicc)


def front_end_build(case: Case, config: Config, folder: Path, timeout: float = DEFAULT_TIMEOUT,
                    cached: bool = False) -> CompileResult | None:
    """Build a case only up to its device front end, for an item expected to be rejected there: its result
    where that front end rejected it (``stopped_at_front_end``), else None (no short command, or it got past:
    build it whole). Where the cache has the full build, None: it serves that."""
    argv = backends.front_end_command(case, config)
    if argv is None or (cached and cache.get(cache.key(config.toolchain, backends.command(case, config), case.files))):
        return None  # no short command, or the full build's result is in the cache already
    result = cached_build(config, argv, dict(case.files), folder, timeout, cached)
    return result if stopped_at_front_end(config, result) else None


def stopped_at_front_end(config: Config, result: CompileResult) -> bool:
    """Whether a build only up to the device front end (one item's or a batch's) stands for the full build: it
    stopped at its first cicc. nvcc stops at its first failing stage, so a full build that cicc rejects ran the
    host side's preprocessor and cudafe++ first, and nothing after cicc; with several targets, a later one's cicc
    ran after the first one's ptxas in the full build."""
    return (result.outcome is Outcome.REJECTED and result.phase is FRONT_END
            and backends.of(config.toolchain.kind).first_front_end(result))


def cached_build(config: Config, argv: list[str], files: Mapping[str, str | bytes], folder: Path, timeout: float,
                 cached: bool, image: bool = False, wider: list[str] | None = None) -> CompileResult:
    """Return the result of building ``files`` (text, or bytes: an object) with ``argv`` in ``folder``, through
    the build cache if asked.

    A build that exits 0 is accepted only where its output is there and of its format (see ``artifacts``);
    otherwise it is a toolchain error saying what is missing. ``image``: for an accepted build, also write
    its device module (the fatbin image the object or program embeds, byte for byte what ``nvcc -fatbin``
    writes) to ``folder / MODULE``; the cache keeps it beside the result, so a hit still has it.

    With a build store (``cache.store``) every build goes through it: recorded with its product, or replayed
    (its product and module written to ``folder``; one not recorded is a toolchain error, never compiled).

    ``wider``: the same build for more targets, whose accepted result in the cache may stand for this one's
    (``from_wider``; only where ``cached``, and nothing is written then).
    """
    k = cache.key(config.toolchain, argv, files) if cached or cache.store() else None
    # a second thread asking for a cached build takes the first one's result from the cache
    with one_at_a_time(k) if k is not None else nullcontext():
        return _build(config, argv, files, folder, timeout, cached, image, k, wider)


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


def _build(config: Config, argv: list[str], files: Mapping[str, str | bytes], folder: Path, timeout: float,
           cached: bool, image: bool, k: str | None, wider: list[str] | None = None) -> CompileResult:
    request = Request(config, argv, files, folder, timeout, cached, image, k, wider, cache.store())
    for source in SOURCES:  # the last, the build itself, always answers
        result = source(request)
        if result is not None:
            return result
    raise AssertionError("compile.SOURCES ends with built_here, which always answers")


def from_cache(req: Request) -> CompileResult | None:
    """The cache's result, classified again from what the toolchain printed (a parser fix needs no rebuild), with
    its module and product where the caller needs them (a hit without them is built again)."""
    hit = cache.get(req.key) if req.key is not None else None
    if hit is None:
        return None
    hit = replace(req.backend.classify(list(hit.commands[0]), hit.exit_code, hit.output, hit.duration), cached=True)
    product = not req.cached or req.store is cache.Store.REPLAY
    return hit if _restored(req.key, req.argv, req.folder, hit, product=product, image=req.image) else None


def from_store(req: Request) -> CompileResult | None:
    """A replayed build store's answer for a build it does not hold: a toolchain error, never a compile here."""
    if req.store is not cache.Store.REPLAY:
        return None
    why = cache.unserved(req.key)
    return CompileResult(outcome=Outcome.TOOLCHAIN_ERROR, phase=None, exit_code=None,
                         diagnostics=(Diagnostic(severity="error", message=why, phase=Phase.NVCC),),
                         commands=(tuple(req.argv),), output=f"[suitegen] {why}\n", duration=0.0)


def from_sibling(req: Request) -> CompileResult | None:
    """A cached build's sibling's rejection within the stages they share (``sibling_rejection``)."""
    return sibling_rejection(req.config, req.argv, req.files) if req.cached and req.store is None else None


def from_wider_build(req: Request) -> CompileResult | None:
    """The cached accepted build of the same files for more targets (``from_wider``)."""
    if not (req.cached and req.store is None and req.wider):
        return None
    return from_wider(req.config, req.argv, req.wider, req.files, req.folder, req.timeout, req.image)


def built_here(req: Request) -> CompileResult:
    """The build itself: run, its output checked (``artifacts``), its module taken where asked, and kept in the
    cache (and a recording build store, with its product)."""
    backend = req.backend
    _write(req.files, req.folder)
    result = run_build(req.argv, req.folder, req.timeout, backend)
    found = None
    if result.outcome.accepted:
        missing = artifacts.problem(req.argv, req.folder, req.files, backend.module_sections)
        result = without_evidence(result, missing) if missing else result
        found = None if missing else artifacts.checked(req.argv, req.files, backend.module_sections)
    data = backend.module(req.argv, req.folder, req.timeout) if req.image and result.outcome.accepted else None
    if data is not None:
        (req.folder / MODULE).write_bytes(data)
    if req.key is not None:
        out = req.folder / (artifacts.output_of(req.argv) or "")
        recording = req.store is cache.Store.RECORD
        product = out.read_bytes() if recording and found and out.is_file() else None
        cache.put(req.key, result, artifact=found, image=data, product=product, any_outcome=recording)
    return result


# Where a build's result comes from, tried in this order: the first that answers gives it. The cache, a replayed
# build store (which builds nothing), a sibling target's rejection, a wider build's acceptance, the build itself.
SOURCES = (from_cache, from_store, from_sibling, from_wider_build, built_here)


def sibling_rejection(config: Config, argv: list[str], files: Mapping[str, str | bytes]) -> CompileResult | None:
    """Return the result of ``argv`` taken from the cached result of its sibling (``Backend.sibling_command``: the
    ``-arch=sm_90`` build of a ``-arch=compute_90`` one, the ``-arch=compute_80 -ptx`` build of a short build for
    sm_80 and sm_90), where that build was rejected within the stages the two
    run alike (so it printed all ``argv`` would print, and stopped where ``argv`` would stop); else None. A sibling
    being built meanwhile is waited for."""
    backend = backends.of(config.toolchain.kind)
    sibling = backend.sibling_command(config.toolchain, argv)
    if sibling is None:
        return None
    hit = _cached(config, sibling, files)
    if hit is None or hit.outcome is not Outcome.REJECTED:
        return None
    if not backend.stopped_in_shared_stages(config.toolchain, argv, sibling, hit.output, files):
        return None
    return replace(backend.classify(argv, hit.exit_code, hit.output, hit.duration), cached=True)


def from_wider(config: Config, argv: list[str], wide: list[str], files: Mapping[str, str | bytes], folder: Path,
               timeout: float, image: bool) -> CompileResult | None:
    """Return the result of ``argv`` taken from the cached accepted build of the same files for more targets
    (``wide``: ``-arch=sm_80`` within ``sm_80+sm_90``), where its backend says what ``argv``'s build would have
    printed (``Backend.narrowed``); else None. A wide build being made meanwhile is waited for. The result names
    the command that ran, and its object (checked when it was built) holds this build's target too. ``image``:
    the module ``argv``'s object would embed is built alone into ``folder / MODULE`` (``Backend.module_command``:
    the device side only); None where it cannot be."""
    backend = backends.of(config.toolchain.kind)
    hit = _cached(config, wide, files)
    if hit is None or not hit.outcome.accepted:
        return None
    text = backend.narrowed(config.toolchain, argv, wide, files, hit.output)
    if text is None:
        return None
    result = backend.classify(argv, hit.exit_code, text, hit.duration)
    if not result.outcome.accepted or image and not _module_alone(backend, argv, files, folder, timeout):
        return None
    return replace(result, cached=True, commands=(tuple(wide),))


def _module_alone(backend: backends.Backend, argv: list[str], files: Mapping[str, str | bytes], folder: Path,
                  timeout: float) -> bool:
    """Build only the device module ``argv``'s accepted build embeds (``Backend.module_command``) into
    ``folder / MODULE``; return whether it is there."""
    command = backend.module_command(argv)
    if command is None:
        return False
    _write(files, folder)
    try:
        done = procs.run(command, timeout=timeout, cwd=folder)
        data = (folder / artifacts.output_of(command)).read_bytes() if done.returncode == 0 and not done.timed_out \
            else b""
    except OSError:
        return False
    if not data.startswith(artifacts.FATBIN_MAGIC):
        return False
    (folder / MODULE).write_bytes(data)
    return True


def _cached(config: Config, argv: list[str], files: Mapping[str, str | bytes]) -> CompileResult | None:
    """Return the cached result of another build of ``files``, waiting for it where a thread is making it."""
    k = cache.key(config.toolchain, argv, files)
    with one_at_a_time(k):
        return cache.get(k)


def _write(files: Mapping[str, str | bytes], folder: Path) -> None:
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


def _restored(k: str, argv: list[str], folder: Path, hit: CompileResult, product: bool, image: bool) -> bool:
    """Write a cache hit's module (``image``) and product (``product``) into ``folder`` where an accepted build
    needs them; return False where one is needed and not kept."""
    if not hit.outcome.accepted:
        return True
    if image:
        stored = cache.get_image(k)
        if stored is None:
            return False
        (folder / MODULE).write_bytes(stored)
    if product:
        kept = cache.get_product(k)
        if kept is None:
            return False
        out = folder / artifacts.output_of(argv)
        out.write_bytes(kept)
        out.chmod(0o755)
    return True


def without_evidence(result: CompileResult, missing: str) -> CompileResult:
    """Return an accepted result whose output is missing or malformed as what it is: a toolchain error (never
    a verdict on the code), with a diagnostic saying what is missing."""
    why = f"exit status 0, but no evidence of acceptance: {missing}"
    diag = Diagnostic(severity="error", message=why, phase=Phase.NVCC)
    return replace(result, outcome=Outcome.TOOLCHAIN_ERROR, phase=Phase.NVCC, diagnostics=(diag, *result.diagnostics),
                   output=f"{result.output}\n[suitegen] {why}\n")


MODULE = "module.fatbin"
DLINKED = "dlink.o"
DLINK_LOG = "dlink.log"  # what nvcc -dlink said when it made no module


def module_image(binary: Path) -> bytes | None:
    """Return the device module an object or program embeds (its .nv_fatbin section), or None."""
    out = binary.with_suffix(".nv_fatbin")
    try:
        done = procs.run(("objcopy", "-O", "binary", "--only-section=.nv_fatbin", str(binary), str(out)),
                         timeout=60, cwd=binary.parent)
        data = out.read_bytes() if done.returncode == 0 and out.exists() else b""
    except OSError:
        return None
    return data if data.startswith(artifacts.FATBIN_MAGIC) else None


def run_build(argv: list[str], cwd: Path, timeout: float, backend: backends.Backend) -> CompileResult:
    """Run one build command (never through a shell) and classify what it did."""
    try:
        done = procs.run(argv, timeout=timeout, cwd=cwd)
    except OSError as exc:
        return CompileResult(outcome=Outcome.TOOLCHAIN_ERROR, phase=Phase.NVCC, exit_code=None,
                             diagnostics=(), commands=(tuple(argv),),
                             output=f"cannot run {argv[0]}: {exc.strerror or exc}", duration=0.0)
    if done.timed_out:  # what it printed before it was killed, in the stage it had reached
        text = done.output + f"\n[suitegen] killed after {timeout:g}s\n"
        return replace(backend.classify(argv, 1, text, done.duration), outcome=Outcome.TIMED_OUT, exit_code=None)
    return backend.classify(argv, done.returncode, done.output, done.duration)
