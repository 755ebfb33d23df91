"""Compilers as backends: what suitegen asks of a compiler, and which module answers for each ``Compiler``.

A backend says how one case (or a batch of cases) is built under a config and what that writes, how
to read what the compiler printed, what it cannot judge and why, and how to probe it. Everything
else (the cache, batching's attribution, the judge, execution) is the same for every compiler.

- nvcc: ``build.nvcc``
- NVRTC: ``build.nvrtc`` (device code only, one file, one process per build)
- clang: ``build.clang`` (LLVM's CUDA support, against a CUDA install)
"""
from __future__ import annotations

import functools
import importlib
from pathlib import Path
from typing import Callable, Iterable, Mapping, Protocol, Sequence

from suitegen.model import Case, CompileResult, Compiler, Config, Mode, Toolchain

MODULES = {Compiler.NVCC: "suitegen.compilers.nvcc", Compiler.NVRTC: "suitegen.compilers.nvrtc",
           Compiler.CLANG: "suitegen.compilers.clang"}


class Backend(Protocol):
    """One compiler, as the compilers stage drives it (each module in ``MODULES`` has a ``BACKEND``)."""

    kind: Compiler
    batches: bool  # whether cases of one config may share a translation unit (``build.batch``)
    probes_features: bool  # whether the feature probes (``probe_command`` builds) tell what it has
    same_messages: bool  # its diagnostics are worded as the oracle's (nvcc's front end); else judged by
    # outcome, phase and line only
    refusal: tuple[str, str] | None  # (words, reason): a diagnostic with the words says the compiler cannot build
    # an item's code at all (NVRTC's host code): the item is UNSUPPORTED for the reason; None for none
    module_sections: tuple[str, ...]  # an object whose sources have device code holds one (see ``artifacts``)

    def owns(self, path: str) -> bool:
        """Whether a toolchain path names this compiler."""

    def probe(self, path: str, name: str = "", host_flags: Iterable[str] = ()) -> Toolchain:
        """Probe the compiler at ``path``; raise ``toolchain.ToolchainError`` if it is unusable."""

    def build_command(self, config: Config, mode: Mode, flags: Sequence[str], files: Sequence[str],
                      out: str) -> list[str]:
        """Return the command that builds ``files`` (the main file first) in a scratch folder into ``out``:
        an object (``COMPILE``), a device module (``FATBIN``) or a program; ``flags``: the case's and its
        mode's nvcc flags, beyond the config's."""

    def front_end_command(self, config: Config, mode: Mode, flags: Sequence[str], files: Sequence[str]) -> list[str] | None:
        """Return a command that runs the build's stages only up to its device front end (for a build expected
        to be rejected there), or None where the compiler has none that runs the same front end."""

    def first_front_end(self, result: CompileResult) -> bool:
        """Whether a short build (``front_end_command``) that its front end rejected stopped at the first
        front end a full build runs (so the full build would stop there too, its host side passing)."""

    def sibling_command(self, toolchain: Toolchain, argv: Sequence[str]) -> list[str] | None:
        """Return another build command that runs the first stages of ``argv`` alike, so that where the other one
        was rejected within them, ``argv`` is rejected the same way (``compile.cached_build``); or None."""

    def stopped_in_shared_stages(self, toolchain: Toolchain, argv: Sequence[str], sibling: Sequence[str],
                                 output: str, files: Mapping[str, str | bytes]) -> bool:
        """Whether the build of ``sibling`` (``sibling_command``) of ``files``, which printed ``output``, stopped
        within the stages, from the first, that it runs just as ``argv`` does."""

    def narrowed(self, toolchain: Toolchain, argv: Sequence[str], wide: Sequence[str], files: Mapping[str, str | bytes],
                 output: str) -> str | None:
        """Return what the build of ``argv`` would print, taken from the ``output`` of an accepted build of the same
        ``files`` by ``wide``, which runs all its stages alike and more (the same build for more targets); or None
        where that is not certain (``compile.cached_build``)."""

    def module_command(self, argv: Sequence[str]) -> list[str] | None:
        """Return the command that makes only the device module an accepted build of ``argv`` embeds, byte for byte
        (``module``), or None where there is none."""

    def output(self, mode: Mode, config: Config) -> str:
        """Return the file name a build of this mode writes."""

    def classify(self, argv: list[str], returncode: int, text: str, duration: float) -> CompileResult:
        """Turn the compiler's exit status and output into a CompileResult."""

    def out_of_scope(self, case: Case, config: Config) -> str | None:
        """Return why this compiler cannot judge an item (UNSUPPORTED), or None."""

    def module(self, argv: list[str], folder: Path, timeout: float) -> bytes | None:
        """Return the loadable device module of an accepted build of ``argv`` in ``folder`` (a fatbin,
        cubin or PTX), or None where it made none (writing why to ``compile.DLINK_LOG`` if it knows)."""

    def features(self, toolchain: Toolchain) -> frozenset[str]:
        """Return the condition features this compiler has on this machine (beyond the platform's), as known
        without building anything: the feature probes (``features.detected_features``) add theirs where
        ``probes_features``."""

    def probe_command(self, toolchain: Toolchain, source: str, device_only: bool = False) -> list[str]:
        """Return a plain C++17 compile (``-c``) of a feature probe into a file named after it, the compiler's
        defaults otherwise (``device_only``: the device side alone, where the compiler builds it so)."""

    def target_queries(self, toolchain: Toolchain) -> list[tuple[list[str], Callable[[str], set[str]]]]:
        """Return the commands that list the targets it builds for, each with the reader of its output
        (which gives ``sm_XX`` and ``compute_XX`` names)."""


class OneProcess:
    """What a compiler that runs every stage in one process (NVRTC, clang) answers for nvcc's stage shortcuts: no
    short front-end build, and no build that shares another's stages or runs for more targets."""

    def front_end_command(self, config: Config, mode: Mode, flags: Sequence[str], files: Sequence[str]) -> None:
        return None

    def first_front_end(self, result: CompileResult) -> bool:
        return False

    def sibling_command(self, toolchain: Toolchain, argv: Sequence[str]) -> None:
        return None

    def stopped_in_shared_stages(self, toolchain: Toolchain, argv: Sequence[str], sibling: Sequence[str],
                                 output: str, files: Mapping[str, str | bytes]) -> bool:
        return False

    def narrowed(self, toolchain: Toolchain, argv: Sequence[str], wide: Sequence[str], files: Mapping[str, str | bytes],
                 output: str) -> None:
        return None

    def module_command(self, argv: Sequence[str]) -> None:
        return None


@functools.cache
def of(kind: Compiler) -> Backend:
    """Return the backend of a compiler kind."""
    return importlib.import_module(MODULES[kind]).BACKEND


def owning(path: str) -> Backend:
    """Return the backend whose compiler a toolchain path names (nvcc, asked last, claims the rest)."""
    return next(of(kind) for kind in (Compiler.NVRTC, Compiler.CLANG, Compiler.NVCC) if of(kind).owns(path))


def output_path(case: Case, config: Config, folder: Path) -> Path:
    """Return where a case's build writes its product in ``folder``."""
    return folder / of(config.toolchain.kind).output(case.variant.mode, config)


def front_end_command(case: Case, config: Config) -> list[str] | None:
    """Return the command that builds one case only up to its device front end, or None (see ``Backend``)."""
    return of(config.toolchain.kind).front_end_command(config, case.variant.mode,
                                                       (*case.variant.flags, *case.mode_flags), list(case.files))


def command(case: Case, config: Config) -> list[str]:
    """Return the command that builds one case in its scratch folder (its files as they are named)."""
    backend = of(config.toolchain.kind)
    mode = case.variant.mode
    return backend.build_command(config, mode, (*case.variant.flags, *case.mode_flags), list(case.files),
                                 backend.output(mode, config))
