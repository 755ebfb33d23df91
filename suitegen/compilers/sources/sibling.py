"""A sibling target's rejection, within the stages the two builds run alike."""
from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from suitegen.compilers import backends
from suitegen.compilers.sources.request import Request, cached_result
from suitegen.model import CompileResult, Config, Outcome


def answer(req: Request) -> CompileResult | None:
    """A cached build's sibling's rejection within the stages they share (``sibling_rejection``)."""
    return sibling_rejection(req.config, req.argv, req.files) if req.cached and req.store is None else None


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
    hit = cached_result(config, sibling, files)
    if hit is None or hit.outcome is not Outcome.REJECTED:
        return None
    if not backend.stopped_in_shared_stages(config.toolchain, argv, sibling, hit.output, files):
        return None
    return replace(backend.classify(argv, hit.exit_code, hit.output, hit.duration), cached=True)
