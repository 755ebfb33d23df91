"""How one item alone is built: ways behind one interface (``ItemBuild``), a module each (``front_end_only``,
``whole_build``), tried in the order ``item.BUILDS`` states; the first whose build decides gives the item's record.
A new way is a module with its ``ItemBuild`` and one line in ``item.BUILDS``."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from suitegen.judge.behaviour import AfterBuild
from suitegen.judge.expectations import Preparation
from suitegen.model import CompileResult, Verdict

# What a build must leave for what runs after it: its device module, or (not from the cache, which keeps
# no products) its object or program.
NEEDS_MODULE = (AfterBuild.LOAD, AfterBuild.DEVICE_VALUE)
NEEDS_PRODUCT = (AfterBuild.HOST_VALUE, AfterBuild.PROGRAM, AfterBuild.MODULE_CHECK)


@dataclass(frozen=True, kw_only=True, slots=True)
class ItemBuild:
    """One way to build an item alone: whether it is tried for a prepared item, its build into a scratch folder
    (``(options, case, config, preparation, folder)``: the run's options; None: it made nothing that decides), and
    the verdicts it may decide with (None: any; with another the item is built the next way)."""

    tried: Callable[[Preparation], bool]
    build: Callable[..., CompileResult | None]
    decides: tuple[Verdict, ...] | None = None
