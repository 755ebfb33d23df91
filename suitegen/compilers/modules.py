"""Builds generated programs: one source file of many programs into one device module per build config.

This is the narrow interface ``suitegen fuzz`` uses from the compilers stage: a config is a name and its
flags; a build returns the module's path or why there is none. Modules are kept in the build cache
(keyed as every build is: toolchain fingerprint, command, source bytes, environment), so a rerun or a
resumed campaign rebuilds nothing. Each module is kept beside an entry that names its key and the sha256 of
its bytes; a module is served only where both match (another file's module, or a damaged one, is rebuilt).
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from suitegen import procs
from suitegen.compilers import artifacts, cache, diagnostics, nvrtc
from suitegen.model import FROZEN, Compiler, Toolchain, UsageError

BASE_FLAGS = ("-w", "-fmad=false")  # -fmad=false: float results are exactly IEEE (the model's)


@dataclass(**FROZEN)
class DeviceBuild:
    """One way of building generated programs: a name, its nvcc flags, and what it produces."""

    name: str
    flags: tuple[str, ...] = ()
    output: str = "cubin"  # "cubin" (SASS for ``arch``) or "ptx" (the driver JIT-compiles it when loading)
    arch: str = "sm_90"
    std: str = "c++17"

    @property
    def target(self) -> str:
        """The arch it builds for: ``arch`` for a cubin, its ``compute_XY`` for PTX."""
        return self.arch if self.output == "cubin" else f"compute_{self.arch.split('_')[1]}"

    def nvcc_flags(self) -> tuple[str, ...]:
        """Return the nvcc flags of this build (without the output kind, source and output)."""
        return (f"-std={self.std}", *BASE_FLAGS, f"-arch={self.target}", *self.flags)

    def argv(self, toolchain: Toolchain, source: str, out: str) -> list[str]:
        """Return the nvcc (or NVRTC) command that builds ``source`` into ``out``; raises ValueError for a
        build NVRTC has no option for."""
        target = self.target
        if toolchain.kind is Compiler.CLANG:
            raise UsageError(f"build {self.name}: suitegen fuzz builds with nvcc or NVRTC, not clang")
        if toolchain.kind is Compiler.NVRTC:
            flags = ["-Xptxas=-O0" if f == "-O0" and p == "-Xptxas" else f
                     for p, f in zip(("", *self.flags), self.flags) if f != "-Xptxas"]
            missing = [f for f in (*BASE_FLAGS, *flags) if f not in nvrtc.OPTIONS]
            if missing:
                raise UsageError(f"build {self.name}: NVRTC has no option for {' '.join(missing)}")
            return nvrtc.command(toolchain.nvcc, self.std, target, (*BASE_FLAGS, *flags), source, out)
        return [toolchain.nvcc, *self.nvcc_flags(), f"-{self.output}", source, "-o", out]


TARGET = re.compile(r"(sm|compute)_(\d+[a-z]?)")  # one real or virtual target: what one module build makes


def target_build(name: str, target: str, std: str, flags: Sequence[str]) -> DeviceBuild:
    """Return the build of generated programs for one nvcc target (``sm_90``: a cubin; ``compute_90``: PTX, which
    the driver JIT-compiles when loading), at ``std``, with ``flags`` (those ``BASE_FLAGS`` holds left out); raises
    ValueError for a target of another form."""
    m = TARGET.fullmatch(target)
    if m is None:
        raise ValueError(f"{target!r} is not one sm_XX or compute_XX target")
    return DeviceBuild(name=name, flags=tuple(f for f in flags if f not in BASE_FLAGS),
                       output="cubin" if m[1] == "sm" else "ptx", arch=f"sm_{m[2]}", std=std)


@dataclass(**FROZEN)
class Built:
    """What one build of a generated source did."""

    build: DeviceBuild
    module: Path | None  # None when nvcc made no module
    argv: tuple[str, ...]
    log: str
    seconds: float
    cached: bool = False
    crashed: bool = False  # the compiler crashed or hung: a finding of its own
    timed_out: bool = False  # it reached the timeout it was given (a hang, or the end of a campaign's budget)

    @property
    def ok(self) -> bool:
        return self.module is not None


def _blob(k: str, suffix: str) -> Path:
    """Return where the cache keeps a generated module: beside its key's entry, as it keeps a case's image."""
    return cache._path(k).with_suffix(f".{suffix}")


def _serve(k: str, build: DeviceBuild, argv: list[str], folder: Path, out: str) -> bool:
    """Put the module cached under ``k`` at ``folder/out``; return whether there was one whose entry names ``k``
    and its bytes' sha256, and which is whole (``artifacts.problem``)."""
    entry = cache.read_keyed(cache._path(k), k)
    try:
        data = _blob(k, build.output).read_bytes()
    except OSError:
        return False
    if entry is None or entry.get("module") != hashlib.sha256(data).hexdigest():
        return False
    (folder / out).write_bytes(data)
    return artifacts.problem(argv, folder, {}) is None


def _keep(k: str, build: DeviceBuild, data: bytes) -> None:
    """Cache a module under ``k``: its bytes, then the entry that names the key and their sha256."""
    cache.write_file(_blob(k, build.output), data)
    cache.write_keyed(cache._path(k), k, module=hashlib.sha256(data).hexdigest())


def build_module(toolchain: Toolchain, build: DeviceBuild, source: str, folder: Path, stem: str = "fuzz",
                 timeout: float = 300.0, use_cache: bool = True) -> Built:
    """Write ``source`` to ``folder/stem.cu`` and build it under ``build``; return the module or nvcc's words."""
    folder.mkdir(parents=True, exist_ok=True)
    name, out = f"{stem}.cu", f"{stem}.{build.name}.{build.output}"
    argv = build.argv(toolchain, name, out)
    k = cache.key(toolchain, argv, {name: source}) if use_cache or not cache.compilers_run() else None
    if k is not None and _serve(k, build, argv, folder, out):
        return Built(build=build, module=folder / out, argv=tuple(argv), log="", seconds=0.0, cached=True)
    if not cache.compilers_run():  # a replayed build store: what it does not hold is not built here
        return Built(build=build, module=None, argv=tuple(argv), log="not recorded in the build store", seconds=0.0)
    (folder / name).write_text(source)
    try:
        done = procs.run(argv, timeout=timeout, cwd=folder, env=None)
    except OSError as exc:
        return Built(build=build, module=None, argv=tuple(argv), log=f"cannot run {argv[0]}: {exc}", seconds=0.0)
    path = folder / out
    missing = artifacts.problem(argv, folder, {}) if done.returncode == 0 else None
    if done.returncode != 0 or missing:
        why = done.output if done.returncode else f"nvcc exited 0, but {missing}"
        crashed = done.timed_out or (done.returncode or 0) < 0 or diagnostics.parse(done.output).crash
        return Built(build=build, module=None, argv=tuple(argv), log=why, seconds=done.duration, crashed=crashed,
                     timed_out=done.timed_out)
    if k is not None:
        _keep(k, build, path.read_bytes())
    return Built(build=build, module=path, argv=tuple(argv), log=done.output, seconds=done.duration)


def build_program(toolchain: Toolchain, build: DeviceBuild, source: str, folder: Path,
                  timeout: float = 300.0, warn: bool = False) -> tuple[Path | None, str]:
    """Build ``source`` (a reproducer with its ``main``) into an executable under ``build``'s flags, with
    nvcc (``warn``: with its warnings, which ``BASE_FLAGS`` silence); return its path (None where it did not build)
    and nvcc's words."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "repro.cu").write_text(source)
    flags = [f for f in build.nvcc_flags() if not (warn and f == "-w")]
    argv = [toolchain.nvcc, *flags, "repro.cu", "-o", f"repro-{build.name}"]
    done = procs.run(argv, timeout=timeout, cwd=folder)
    return (folder / f"repro-{build.name}" if done.returncode == 0 else None), done.output[-2000:]
