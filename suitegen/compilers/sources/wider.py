"""A build for more targets whose accepted result stands for one target's."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Mapping

from suitegen import procs
from suitegen.compilers import artifacts, backends
from suitegen.compilers.sources.request import MODULE, Request, cached_result, write_files
from suitegen.model import CompileResult, Config


def answer(req: Request) -> CompileResult | None:
    """The cached accepted build of the same files for more targets (``from_wider``)."""
    if not (req.cached and req.store is None and req.wider):
        return None
    return from_wider(req.config, req.argv, req.wider, req.files, req.folder, req.timeout, req.image)


def from_wider(config: Config, argv: list[str], wide: list[str], files: Mapping[str, str | bytes], folder: Path,
               timeout: float, image: bool) -> CompileResult | None:
    """Return the result of ``argv`` taken from the cached accepted build of the same files for more targets
    (``wide``: ``-arch=sm_80`` within ``sm_80+sm_90``), where its backend says what ``argv``'s build would have
    printed (``Backend.narrowed``); else None. A wide build being made meanwhile is waited for. The result names
    the command that ran, and its object (checked when it was built) holds this build's target too. ``image``:
    the module ``argv``'s object would embed is built alone into ``folder / MODULE`` (``Backend.module_command``:
    the device side only); None where it cannot be."""
    backend = backends.of(config.toolchain.kind)
    hit = cached_result(config, wide, files)
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
    write_files(files, folder)
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
