"""How batch members are named: member N sits in namespace ``sg_bN`` and its files under ``sg_bN/``.

A message may name a member by file (``sg_b3/main.cu``), by a demangled symbol (``sg_b3::f``) or by a
mangled one (``_ZN5sg_b31fEv``: the namespace's length, then its name, then the next name's length). The names
themselves (``member_name``, ``member_of``, ...) are the model's: the judge reads them from a diagnostic's file.
"""
from __future__ import annotations

import re

from suitegen.model import MEMBER_PREFIX as PREFIX, member_file, member_index, member_name, member_of  # noqa: F401

QUALIFIER = re.compile(rf"\b{PREFIX}\d+::")
FOLDER = re.compile(rf"\b{PREFIX}\d+/")
# demangled (group 1), or mangled with its length (group 2) and the digits after the prefix (group 3)
NAMED = re.compile(rf"\b{PREFIX}(\d+)::|(?<!\d)(\d{{1,2}}){PREFIX}(\d+)")


def mangled(index: int) -> str:
    """Return member ``index``'s namespace as a mangled name spells it (``5sg_b3``)."""
    name = member_name(index)
    return f"{len(name)}{name}"


def _mangled_split(m: re.Match) -> tuple[int, str] | None:
    """Return a mangled match's member index and the digits after it (the next name's length); None: unreadable."""
    digits = int(m.group(2)) - len(PREFIX)
    if digits < 1 or len(m.group(3)) < digits:
        return None
    return int(m.group(3)[:digits]), m.group(3)[digits:]


def mentioned(message: str) -> set[int] | None:
    """Return the members a message names by symbol (``sg_b3::f``, ``_ZN5sg_b31fEv``); None: unreadable."""
    found = set()
    for m in NAMED.finditer(message):
        if m.group(1) is not None:
            found.add(int(m.group(1)))
        else:
            split = _mangled_split(m)
            if split is None:
                return None
            found.add(split[0])
    return found


def named_member(message: str) -> int | None:
    """Return the one member a message names by symbol, or None."""
    found = mentioned(message)
    return found.pop() if found and len(found) == 1 else None


def unqualified(message: str) -> str:
    """Return a message without member qualifiers (``sg_b3::f`` reads ``f``), as a single build prints it."""
    return QUALIFIER.sub("", message)


def anonymous(text: str) -> str:
    """Return a text without which member it was: mangled member namespaces and member folders dropped."""
    def drop(m: re.Match) -> str:
        split = _mangled_split(m) if m.group(2) is not None else None
        return m.group() if split is None else split[1]
    return FOLDER.sub("", NAMED.sub(drop, text))
