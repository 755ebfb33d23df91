"""A replayed build store's answer for a build it does not hold (a build it holds is the cache's: ``cached``)."""
from __future__ import annotations

from suitegen.compilers import cache
from suitegen.compilers.sources.request import Request
from suitegen.model import CompileResult, Diagnostic, Outcome, Phase


def answer(req: Request) -> CompileResult | None:
    """A replayed build store's answer for a build it does not hold: a toolchain error, never a compile here."""
    if req.store is not cache.Store.REPLAY:
        return None
    why = cache.unserved(req.key)
    return CompileResult(outcome=Outcome.TOOLCHAIN_ERROR, phase=None, exit_code=None,
                         diagnostics=(Diagnostic(severity="error", message=why, phase=Phase.NVCC),),
                         commands=(tuple(req.argv),), output=f"[suitegen] {why}\n", duration=0.0)
