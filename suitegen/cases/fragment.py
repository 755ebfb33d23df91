"""A rendered file as a fragment of a larger translation unit: analysed once, by one set of rules.

Batching (``compilers.batch``) and composition (``cases.compose``) put fragments side by side, each in
its own namespace. A fragment fits there only if its ``#include`` lines come first (they are hoisted to
the top of the shared file) and nothing in it needs global scope or changes the rest of the translation
unit: ``namespace std``, a std template specialised by its qualified name (``struct std::tuple_size<P>``),
a global qualifier (``::x``; not ``T::x``, ``f()::x`` or ``::operator new``), a module or import declaration,
``extern "C"``, ``#pragma`` or ``#undef``. The macros it defines are undefined after it.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from suitegen.model import FROZEN, Case

INCLUDE = re.compile(r"^\s*#\s*include\b")
PLAIN = re.compile(r"^\s*(//.*)?$")  # a blank or comment-only line
GLOBAL_SCOPE = re.compile(r"namespace\s+std\b|\b(?:struct|class|union)\s+std\s*::|^\s*::(?!\s*operator\b)"
                          r"|(?<![\w:>)\]])::\s*(?!operator\b)\w|extern\s+\"C|#\s*(pragma|undef)"
                          r"|^\s*(?:export\s+)?(?:module|import)\b(?!\s*[(=\[.])", re.M)
DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)", re.M)
MAIN = re.compile(r"\bmain\s*\(")
PLAIN_MAIN = re.compile(r"^int\s+main\s*\(\s*(void)?\s*\)", re.M)
ARCH = re.compile(r"__CUDA_ARCH__")
INLINE_NAMESPACE = re.compile(r"inline\s+namespace")


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
    return Fragment(lines=lines, includes=tuple(includes), defines=tuple(DEFINE.findall(text)), late_include=late,
                    global_scope=GLOBAL_SCOPE.search(text) is not None, mains=len(MAIN.findall(text)),
                    plain_main=PLAIN_MAIN.search(text) is not None, arch_dependent=ARCH.search(text) is not None,
                    inline_namespace=INLINE_NAMESPACE.search(text) is not None)


def fragments(case: Case) -> dict[str, Fragment]:
    """Return each of a case's files as a fragment, by file name."""
    return {name: parse(text) for name, text in case.files.items()}
