"""Runs a compiler (its backend's command) on a case under a config and returns what happened; never judges."""
from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path
from typing import Mapping

from suitegen import procs
from suitegen.compilers import artifacts, backends, cache
from suitegen.compilers.sources import SOURCES
from suitegen.compilers.sources.here import run_build, without_evidence  # noqa: F401 - what a build is, for callers
from suitegen.compilers.sources.request import DLINK_LOG, DLINKED, MODULE, Request, one_at_a_time  # noqa: F401
from suitegen.model import Case, CompileResult, Config, Outcome, Phase

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
    (``sources.wider``; only where ``cached``, and nothing is written then).

    The result comes from the first of ``sources.SOURCES`` that answers.
    """
    k = cache.key(config.toolchain, argv, files) if cached or cache.store() else None
    # a second thread asking for a cached build takes the first one's result from the cache
    with one_at_a_time(k) if k is not None else nullcontext():
        return _build(config, argv, files, folder, timeout, cached, image, k, wider)


def _build(config: Config, argv: list[str], files: Mapping[str, str | bytes], folder: Path, timeout: float,
           cached: bool, image: bool, k: str | None, wider: list[str] | None = None) -> CompileResult:
    request = Request(config, argv, files, folder, timeout, cached, image, k, wider, cache.store())
    for source in SOURCES:  # the last, the build itself, always answers
        result = source(request)
        if result is not None:
            return result
    raise AssertionError("sources.SOURCES ends with the build itself (sources.here), which always answers")


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
