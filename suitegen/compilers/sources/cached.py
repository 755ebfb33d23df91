"""The build cache's result for the build asked."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from suitegen.compilers import artifacts, cache
from suitegen.compilers.sources.request import MODULE, Request
from suitegen.model import CompileResult


def answer(req: Request) -> CompileResult | None:
    """The cache's result, classified again from what the toolchain printed (a parser fix needs no rebuild), with
    its module and product where the caller needs them (a hit without them is built again)."""
    hit = cache.get(req.key) if req.key is not None else None
    if hit is None:
        return None
    hit = replace(req.backend.classify(list(hit.commands[0]), hit.exit_code, hit.output, hit.duration), cached=True)
    product = not req.cached or req.store is cache.Store.REPLAY
    return hit if _restored(req.key, req.argv, req.folder, hit, product=product, image=req.image) else None


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
