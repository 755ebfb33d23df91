"""A rendered file as a fragment of a larger translation unit: analysed once, by one set of rules.

Batching (``compilers.batch``) and composition (``cases.compose``) put fragments side by side, each in
its own namespace. A fragment fits there only if its ``#include`` lines come first (they are hoisted to
the top of the shared file) and nothing in it needs global scope or changes the rest of the translation
unit: ``namespace std``, a std template specialised by its qualified name (``struct std::tuple_size<P>``),
a global qualifier (``::x``; not ``T::x``, ``f()::x`` or ``::operator new``), a module or import declaration,
``extern "C"``, an allocation or deallocation function declared outside every brace (a replacement, which may not
be declared in a namespace), ``#pragma`` (but ``#pragma unroll`` and
``nounroll``, which govern the loop after them, and ``#pragma nv_abi``, the function or call after it) or ``#undef``.
The macros it defines are undefined after it.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from suitegen.model import FROZEN, Case

INCLUDE = re.compile(r"^\s*#\s*include\b")
PLAIN = re.compile(r"^\s*(//.*)?$")  # a blank or comment-only line
# What needs global scope, each form behind a pattern that starts with a word (which the regex engine finds fast) and
# that it cannot match without: one pattern of them all, searched over a generated program's 14 kB, took 2 ms (most
# of them at each ``::``'s look-behind), and planning a nightly run parses 6,000 such files.
GLOBAL_SCOPE = tuple((re.compile(gate), re.compile(form, re.M)) for gate, form in (
    (r"namespace", r"namespace\s+std\b"),
    (r"std\s*::", r"\b(?:struct|class|union)\s+std\s*::"),
    (r"::", r"^\s*::(?!\s*operator\b)|(?<![\w:>)\]])::\s*(?!operator\b)\w"),
    (r"extern", r'extern\s+"C'),
    (r"#", r"#\s*(?:pragma(?!\s+(?:(?:no)?unroll|nv_abi)\b)|undef)"),
    *((word, rf"^\s*(?:export\s+)?{word}\b(?!\s*[(=\[.])") for word in ("module", "import"))))
DEFINE = re.compile(r"#[ \t]*define\s+(\w+)")  # where only blanks come before it on its line (``_defines``)
MAIN = re.compile(r"main\s*\(")  # ``main(`` where no word character comes before it (``_mains``)
PLAIN_MAIN = re.compile(r"^int\s+main\s*\(\s*(void)?\s*\)", re.M)
ARCH = re.compile(r"__CUDA_ARCH__")
INLINE_NAMESPACE = re.compile(r"inline\s+namespace")
ALLOCATION = re.compile(r"(?<![\w:])operator\s+(?:new|delete)\b")  # not ``::operator new``
COMMENTS_AND_LITERALS = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)


@dataclass(**FROZEN)
class Fragment:
    """One file's text split for splicing: its includes, its body, its macros, and what it needs."""

    lines: tuple[str, ...]  # the file's lines
    includes: tuple[str, ...]  # its #include lines (stripped), in order
    defines: tuple[str, ...]  # the macros it #defines
    late_include: bool  # an #include after other code: it cannot be hoisted
    global_scope: bool  # something that must stay at global scope or reaches into the rest of the unit
    mains: int  # how many times it names ``main(``
    plain_main: bool  # it defines ``int main()`` (or ``int main(void)``) at the start of a line
    arch_dependent: bool  # it tests ``__CUDA_ARCH__``
    inline_namespace: bool  # it declares an inline namespace

    @property
    def fits_namespace(self) -> bool:
        """Whether the fragment can sit in a namespace beside others (see the module's docstring)."""
        return not self.late_include and not self.global_scope

    @property
    def body(self) -> tuple[str, ...]:
        """Return its lines with the includes blanked (every other line keeps its number)."""
        return tuple("" if INCLUDE.match(line) else line for line in self.lines)

    @property
    def code(self) -> tuple[str, ...]:
        """Return its lines without the includes."""
        return tuple(line for line in self.lines if not INCLUDE.match(line))

    def enclose(self, namespace: str, line_file: str | None = None, note: str = "") -> list[str]:
        """Return the fragment in ``namespace``, then the #undef of its macros. With ``line_file`` its body
        follows ``#line 1 "line_file"``, so diagnostics name that file and the fragment's own lines;
        without it, its code (includes dropped). ``note`` ends the opening line as a comment."""
        inner = [f'#line 1 "{line_file}"', *self.body] if line_file else list(self.code)
        return [f"namespace {namespace} {{" + (f"  // {note}" if note else ""), *inner, f"}}  // {namespace}",
                *(f"#undef {macro}" for macro in self.defines)]


@functools.lru_cache(maxsize=8192)
def parse(text: str) -> Fragment:
    """Return the fragment of one file's text."""
    lines = tuple(text.splitlines())
    includes, late, seen_code = [], False, False
    for line in lines:
        if INCLUDE.match(line):
            late = late or seen_code
            includes.append(line.strip())
        elif not PLAIN.match(line):
            seen_code = True
    mains = _mains(text)
    return Fragment(lines=lines, includes=tuple(includes), defines=_defines(text), late_include=late,
                    global_scope=needs_global_scope(text), mains=mains,
                    plain_main=mains > 0 and PLAIN_MAIN.search(text) is not None,
                    arch_dependent=ARCH.search(text) is not None,
                    inline_namespace=INLINE_NAMESPACE.search(text) is not None)


def needs_global_scope(text: str) -> bool:
    """Whether a text holds something that must stay at global scope (see the module's docstring)."""
    return any(gate.search(text) and form.search(text) for gate, form in GLOBAL_SCOPE) or _declares_allocation(text)


def _declares_allocation(text: str) -> bool:
    """Whether a text names an allocation or deallocation function outside every brace: a replacement (or a new
    one), which may not be declared in a namespace."""
    if "operator" not in text:
        return False
    code = COMMENTS_AND_LITERALS.sub(" ", text)
    return any(code.count("{", 0, m.start()) == code.count("}", 0, m.start()) for m in ALLOCATION.finditer(code))


def _defines(text: str) -> tuple[str, ...]:
    """Return the macros a text ``#define``s, in order."""
    return tuple(m.group(1) for m in DEFINE.finditer(text)
                 if not text[text.rfind("\n", 0, m.start()) + 1:m.start()].strip())


def _mains(text: str) -> int:
    """Return how many times a text names ``main(`` as a word of its own."""
    return sum(1 for m in MAIN.finditer(text) if not m.start() or not (text[m.start() - 1].isalnum()
                                                                      or text[m.start() - 1] == "_"))


def fragments(case: Case) -> dict[str, Fragment]:
    """Return each of a case's files as a fragment, by file name."""
    return {name: parse(text) for name, text in case.files.items()}
