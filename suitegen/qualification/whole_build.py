"""An item's whole build, its own command: tried for every item, and it always decides (for an item the judge settled
before the build, nothing is built). Through the build cache where nothing runs its product."""
from __future__ import annotations

from pathlib import Path

from suitegen.compilers.compile import compile_case
from suitegen.judge.expectations import Preparation
from suitegen.model import Case, CompileResult, Config
from suitegen.qualification.builds import NEEDS_MODULE, NEEDS_PRODUCT, ItemBuild


def build(options, case: Case, config: Config, prep: Preparation, folder: Path) -> CompileResult:
    """The whole build (its device module left in ``folder`` where what runs after it needs it)."""
    return compile_case(case, config, folder, timeout=options.timeout,
                        cached=prep.after not in NEEDS_PRODUCT and not options.no_cache,
                        image=prep.after in NEEDS_MODULE)


WAY = ItemBuild(tried=lambda prep: True, build=build)
