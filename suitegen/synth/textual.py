"""Shrinks a reproducer's text line by line (delta debugging), after the generator's own reduction.

The generator's reducer only makes programs it can still model; this pass leaves the model behind, so
its test must need none: a compiler crash stays a crash whatever the program computes, and a wrong-code
test compares two builds with a host build under UBSan (``triage.TextTester``). ``ddmin`` is Zeller's
algorithm over lines; ``drop_blocks`` removes a braced block whole (a helper, a loop, a branch), which
single lines cannot do without breaking the syntax; ``simplify`` puts ``0`` for a parenthesised expression
(largest first), which lines cannot do at all: a generated statement is one line of nested expressions.
``shrink`` alternates the three until none helps.
The caller's ``interesting`` judges a batch of candidates at once (each one built on its own core), and
the first interesting candidate of a round, in order, is kept.
"""
from __future__ import annotations

import re
from typing import Callable

# A function definition as the emitter writes one: qualifiers, a return type, a name, parameters, "{" ending the line.
FUNCTION = re.compile(r"^(?:SG_HD|__device__|__host__|__global__|__noinline__|__forceinline__|static|inline|\s)+"
                      r"(?P<type>[A-Za-z_][\w\s:<>*&]*?)\s*\b(?P<name>\w+)\s*\([^;{}]*\)\s*\{\s*$")


def missing_return(text: str) -> str | None:
    """Return the name of a non-void function of ``text`` whose body holds no ``return`` (a candidate that flows off
    the end of one is undefined behaviour, whatever the builds print), or None where every one keeps its return."""
    return next(iter(missing_returns(text)), None)


def missing_returns(text: str) -> list[str]:
    """Return the names of the non-void functions of ``text`` whose bodies hold no ``return``, in order."""
    lines, out = text.splitlines(), []
    for i, line in enumerate(lines):
        m = FUNCTION.match(line)
        if m is None or m["type"].split()[-1] == "void":
            continue
        depth, body = line.count("{") - line.count("}"), []
        for later in lines[i + 1:]:
            depth += later.count("{") - later.count("}")
            body.append(later)
            if depth <= 0:
                break
        if not re.search(r"\breturn\b", "\n".join(body)):
            out.append(m["name"])
    return out


QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)+\'')  # a string or character literal


def _depth(line: str) -> int:
    """Return how many blocks a line opens less how many it closes (braces in literals left out)."""
    code = QUOTED.sub("", line)
    return code.count("{") - code.count("}")


def balanced(text: str) -> bool:
    """Whether ``text``'s braces pair up (outside its string and character literals): a text whose do not cannot
    build, and is not worth a build to learn it."""
    depth = 0
    for ch in QUOTED.sub("", text):
        depth += (ch == "{") - (ch == "}")
        if depth < 0:
            return False
    return depth == 0


def ddmin(text: str, interesting: Callable[[list[str]], list[bool]], budget: int = 400, width: int = 8) -> str:
    """Return the smallest text found, as lines of ``text``, that ``interesting`` still accepts
    (``budget``: candidates tried at most; ``width``: candidates judged per call)."""
    lines = text.splitlines(keepends=True)
    n, tries = 2, 0
    whole = balanced if balanced(text) else (lambda _: True)  # a text whose braces pair up only loses them whole
    while len(lines) >= 2 and tries < budget:
        size = max(1, len(lines) // n)
        chunks = [lines[i:i + size] for i in range(0, len(lines), size)]
        complements = [c for c in ("".join(x for j, c in enumerate(chunks) if j != k for x in c)
                                   for k in range(len(chunks))) if c and whole(c)]
        hit, judged = _first(complements, interesting, width, budget - tries)
        tries += len(judged)
        if hit is not None:
            lines, n = complements[hit].splitlines(keepends=True), max(n - 1, 2)
        elif n >= len(lines) or tries >= budget:
            break
        else:
            n = min(len(lines), n * 2)
    return "".join(lines)


def _blocks(lines: list[str]) -> list[tuple[int, int]]:
    """Return (first, last) line pairs of every block that opens on a line and closes on a later one."""
    out = []
    for i, line in enumerate(lines):
        depth = line.count("{") - line.count("}")
        if depth <= 0:
            continue
        for j in range(i + 1, len(lines)):
            depth += lines[j].count("{") - lines[j].count("}")
            if depth <= 0:
                out.append((i, j))
                break
    return out


def drop_blocks(text: str, interesting: Callable[[list[str]], list[bool]], budget: int = 400, width: int = 8) -> str:
    """Remove whole blocks (largest first), then unwrap blocks (their opening and closing lines only),
    while ``interesting`` still accepts the text."""
    tries = 0
    while tries < budget:
        lines = text.splitlines(keepends=True)
        spans = sorted(_blocks(lines), key=lambda ij: ij[0] - ij[1])
        candidates = ["".join(lines[:i] + lines[j + 1:]) for i, j in spans]
        candidates += ["".join(lines[:i] + lines[i + 1:j] + lines[j + 1:]) for i, j in spans
                       if lines[j].strip() == "}"]
        hit, judged = _first(candidates, interesting, width, budget - tries)
        tries += len(judged)
        if hit is None:
            return text
        text = candidates[hit]
    return text


# What may precede the opening parenthesis of an expression that a constant can stand for: not a name, a closing
# bracket or a template's ``>`` (a call's arguments, a declaration's parameters, ``if (...)``), nor ``/`` or ``%`` (a
# divisor of 0 would be undefined behaviour).
NOT_AN_OPERAND = re.compile(r"(?:[\w\])>]|[/%])\s*$")
# The type of a cast: ``(unsigned long long)``, ``(T)``, ``(const sg::vec<int, 4> *)``.
CAST = re.compile(r"^\s*(?:const\s+)?(?:[A-Za-z_]\w*(?:::|\s+))*[A-Za-z_]\w*(?:<[^()]*>)?\s*[*&]*\s*$")


SHORTEST = 7  # an expression shorter than ``(a + b)`` is not worth a build: putting 0 for it saves a few characters


def expressions(text: str) -> list[tuple[int, int]]:
    """Return the (first, last) offsets of ``text``'s parenthesised expressions that a constant may stand for,
    largest first, but for the shortest (``SHORTEST``)."""
    stack, out = [], []
    for k, ch in enumerate(text):
        if ch == "(":
            stack.append(k)
        elif ch == ")" and stack:
            i = stack.pop()
            if (k - i + 1 >= SHORTEST and not NOT_AN_OPERAND.search(text[max(0, i - 40):i])
                    and not CAST.match(text[i + 1:k])):
                out.append((i, k))
    return sorted(out, key=lambda ij: ij[0] - ij[1])


def simplify(text: str, interesting: Callable[[list[str]], list[bool]], budget: int = 400, width: int = 8,
             refused: set | None = None) -> str:
    """Put ``0`` for parenthesised expressions (largest first) while ``interesting`` still accepts the text; an
    expression refused once (here, or in an earlier call given the same ``refused``) is not tried again where its text
    and what is around it are the same."""
    tries, refused = 0, set() if refused is None else refused

    def seen(i: int, j: int) -> tuple[str, str, str]:  # an expression, and what is around it
        return text[max(0, i - 30):i], text[i:j + 1], text[j + 1:j + 31]
    while tries < budget:
        spans = [(i, j) for i, j in expressions(text) if seen(i, j) not in refused]
        candidates = [text[:i] + "0" + text[j + 1:] for i, j in spans]
        hit, judged = _first(candidates, interesting, width, budget - tries)
        tries += len(judged)
        refused.update(seen(i, j) for (i, j), ok in zip(spans, judged) if not ok)
        if hit is None:
            return text
        text = candidates[hit]
    return text


# What a declaration at namespace level declares: a macro's name, or the last name before its parameters, bounds,
# initialiser or body (``SG_HD unsigned sg_min_u(``, ``__device__ int t8[4] =``, ``struct sg_env {``).
MACRO = re.compile(r"^\s*#\s*define\s+(\w+)")
DECLARED = re.compile(r"(\w+)\s*(?:<[^<>()]*>\s*)?$")
OPENS_LEVEL = re.compile(r"\s*(namespace\b|extern \"C\"\s*\{)")  # a block whose contents are at namespace level
KEPT = {"main"}  # what a program needs whether or not its text names it again (and every __global__ function)


def _declared(line: str) -> str | None:
    """Return the name a namespace-level line declares (None: a directive, a closing brace, ...)."""
    macro = MACRO.match(line)
    if macro:
        return macro[1]
    if line.lstrip().startswith(("#", "}", "namespace", "extern \"C\" {", "using")) or "__global__" in line:
        return None
    head = re.sub(r"^\s*template\s*<[^<>]*(?:<[^<>]*>[^<>]*)*>\s*", "", line)
    head = re.split(r"[(\[={;]", head, maxsplit=1)[0]
    name = DECLARED.search(head)
    return name[1] if name and name[1] not in KEPT else None


def unused(text: str, around: str = "") -> str:
    """Return ``text`` without its namespace-level definitions (helpers, globals, macros, types) that nothing else in
    it or ``around`` it (the text a caller puts beside it, such as a kernel that calls it) names, until none is left:
    a generated reproducer's prelude holds every helper, its program a few."""
    while True:
        lines, items, k = text.splitlines(keepends=True), [], 0
        opened: list[bool] = []  # for each open block: whether it is a namespace's (what is in it is at its level)
        while k < len(lines):
            line, end = lines[k], k
            if all(opened) and (name := _declared(line)):
                inner = _depth(line)
                while inner > 0 and end + 1 < len(lines):
                    end += 1
                    inner += _depth(lines[end])
                items.append((name, k, end))
                k = end + 1
                continue
            level = bool(OPENS_LEVEL.match(line))
            for ch in QUOTED.sub("", line):
                if ch == "{":
                    opened.append(level)
                elif ch == "}" and opened:
                    opened.pop()
            k += 1
        drop = set()
        for name, first, last in items:
            rest = "".join(lines[:first] + lines[last + 1:]) + around
            if not re.search(rf"\b{re.escape(name)}\b", rest):
                drop.update(range(first, last + 1))
        if not drop:
            return text
        text = "".join(l for i, l in enumerate(lines) if i not in drop)


def drop_unused(text: str, interesting: Callable[[list[str]], list[bool]], around: str = "") -> str:
    """Remove every definition nothing names (``unused``) in one candidate, where ``interesting`` still accepts it."""
    smaller = unused(text, around)
    return smaller if smaller != text and interesting([smaller])[0] else text


def _first(candidates: list[str], interesting: Callable[[list[str]], list[bool]], width: int,
           most: int) -> tuple[int | None, list[bool]]:
    """Judge ``candidates`` in order, ``width`` at a time and ``most`` at the most, until one is accepted; return its
    index (None: none was) and the verdicts of those judged."""
    judged: list[bool] = []
    for start in range(0, min(len(candidates), max(0, most)), width):
        judged += interesting(candidates[start:min(start + width, most)])
        if any(judged[start:]):
            return start + judged[start:].index(True), judged
    return None, judged


def remembered(interesting: Callable[[list[str]], list[bool]]) -> Callable[[list[str]], list[bool]]:
    """Return ``interesting`` answering a text it has judged before from memory: the passes propose the same text
    again (a chunk of ddmin that drop_blocks also removes, a round that starts where the last ended), a fifth of
    all candidates in a textual reduction."""
    known: dict[str, bool] = {}

    def judge(batch: list[str]) -> list[bool]:
        new = [t for t in dict.fromkeys(batch) if t not in known]
        if new:
            known.update(zip(new, interesting(new)))
        return [known[t] for t in batch]
    return judge


def shrink(text: str, interesting: Callable[[list[str]], list[bool]], budget: int = 2000, width: int = 8,
           around: str = "") -> str:
    """Alternate ``drop_unused``, ``ddmin``, ``drop_blocks`` and ``simplify`` until none makes the text smaller; no
    text is judged twice (``remembered``). ``around``: the text the caller puts beside ``text`` (``unused``)."""
    interesting = remembered(interesting)
    refused: set = set()  # the expressions that could not be 0, kept from one round to the next
    while True:
        before = text
        text = drop_unused(text, interesting, around)
        text = drop_blocks(ddmin(text, interesting, budget, width), interesting, budget // 4, width)
        text = simplify(text, interesting, budget // 4, width, refused)
        if len(text) >= len(before):
            return text
