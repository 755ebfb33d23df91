"""Shrinks a reproducer's text line by line (delta debugging), after the generator's own reduction.

The generator's reducer only makes programs it can still model; this pass leaves the model behind, so
its test must need none: a compiler crash stays a crash whatever the program computes, and a wrong-code
test compares two builds with a host build under UBSan (``triage.TextTester``). ``ddmin`` is Zeller's
algorithm over lines; ``drop_blocks`` removes a braced block whole (a helper, a loop, a branch), which
single lines cannot do without breaking the syntax, or keeps its body alone; the rewrites do what lines
cannot do at all, since a generated statement is one line of nested expressions: ``0`` for a parenthesised
expression (``zeroes``), an operand or a call's argument for what holds it (``operands``), a variable's value for
its one use (``inlined``), a one-line helper's expression for its calls (``helpers_inlined``); and a program's
wrapping unfolded where the text holds it (a file of one's own): a namespace's contents at namespace level
(``namespaces_unwrapped``), a ``void`` function's body for its one call (``calls_inlined``), a struct's members for
the reads of a variable set from a brace list (``members_inlined``). ``shrink`` alternates them until none helps.
The caller's ``interesting`` judges a batch of candidates at once (each one built on its own core), and
the first interesting candidate of a round, in order, is kept.
"""
from __future__ import annotations

import re
from functools import partial
from typing import Callable

from suitegen.synth import present

# A function definition as the emitter writes one: qualifiers, a return type, a name, parameters, "{" ending the line.
FUNCTION = re.compile(r"^(?:\s*template\s*<[^<>]*(?:<[^<>]*>[^<>]*)*>)?"
                      r"(?:SG_HD|__device__|__host__|__global__|__noinline__|__forceinline__|static|inline|\s)+"
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


def _depth(line: str) -> int:
    """Return how many blocks a line opens less how many it closes (braces in literals left out)."""
    code = present.QUOTED.sub("", line)
    return code.count("{") - code.count("}")


def balanced(text: str) -> bool:
    """Whether ``text``'s braces pair up (outside its string and character literals): a text whose do not cannot
    build, and is not worth a build to learn it."""
    depth = 0
    for ch in present.QUOTED.sub("", text):
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


FOR = re.compile(r"^(\s*)for \(([^;]*);")  # a loop's header, with what it declares
EMPTY_IF = re.compile(r"^(\s*)if \((.*)\) \{\s*$")  # an if whose body is on the lines that follow
STATEMENT = re.compile(r"^\s*(?:(?:if|for|while) \(|else\b|\{)")  # a block that is a statement, not a function's


def _unwrapped(lines: list[str], i: int, j: int) -> list[list[str]]:
    """Return the lines without the block ``i``..``j``'s braces but with what it holds: a branch's body (either
    branch's, where an ``else`` splits it; or the ``if`` without its ``else``), a loop's body once (its variable
    declared as its header sets it first); an empty ``if``'s condition as a statement of its own."""
    if lines[j].strip() != "}" or not STATEMENT.match(lines[i]):
        return []
    middle = [k for k in range(i + 1, j) if lines[k].strip() == "} else {" and
              sum(_depth(x) for x in lines[i:k]) == 1]
    if middle:
        k = middle[0]
        return [lines[:i] + lines[i + 1:k] + lines[j + 1:], lines[:i] + lines[k + 1:j] + lines[j + 1:],
                lines[:k] + [lines[k].replace("} else {", "}")] + lines[j + 1:]]
    loop = FOR.match(lines[i])
    head = [f"{loop[1]}{loop[2].strip()};\n"] if loop and loop[2].strip() else []
    empty = EMPTY_IF.match(lines[i]) if j == i + 1 else None  # its condition alone, still evaluated: one line
    return [lines[:i] + head + lines[i + 1:j] + lines[j + 1:]] + (
        [lines[:i] + [f"{empty[1]}(void)({empty[2]});\n"] + lines[j + 1:]] if empty else [])


def drop_blocks(text: str, interesting: Callable[[list[str]], list[bool]], budget: int = 400, width: int = 8) -> str:
    """Remove whole blocks (largest first), then unwrap blocks (``_unwrapped``), while ``interesting`` still accepts
    the text."""
    tries = 0
    while tries < budget:
        lines = text.splitlines(keepends=True)
        spans = sorted(_blocks(lines), key=lambda ij: ij[0] - ij[1])
        candidates = ["".join(lines[:i] + lines[j + 1:]) for i, j in spans]
        candidates += ["".join(u) for i, j in spans for u in _unwrapped(lines, i, j)]
        hit, judged = _first(candidates, interesting, width, budget - tries)
        tries += len(judged)
        if hit is None:
            return text
        text = candidates[hit]
    return text


# What may precede the opening parenthesis of an expression that a constant can stand for: not a name, a closing
# bracket or a template's ``>`` (a call's arguments, a declaration's parameters, ``if (...)``), nor ``/`` or ``%`` (a
# divisor of 0 would be undefined behaviour). A ``)`` that closes a cast's type is allowed (``_after_cast``).
NOT_AN_OPERAND = re.compile(r"(?:[\w\])>]|[/%]=?)\s*$")
DIVISOR = re.compile(r"[/%]=?\s*$")  # what a divisor follows: nothing inside it may be 0 or lose an operand
# The type of a cast: ``(unsigned long long)``, ``(T)``, ``(const sg::vec<int, 4> *)``.
CAST = re.compile(r"^\s*(?:const\s+)?(?:[A-Za-z_]\w*(?:::|\s+))*[A-Za-z_]\w*(?:<[^()]*>)?\s*[*&]*\s*$")
# A binary operator between an expression's two operands, as the emitter writes one (spaces either side).
BINARY = re.compile(r" (?:\|\||&&|==|!=|<=|>=|<<|>>|[-+*/%&|^<>]) ")
# A call whose arguments may stand for it: a name not after another name, ``.``, ``->`` or ``::`` (a declaration, a
# member), nor a keyword; ``operands`` also asks what comes before the name (``OPERATOR``).
CALL = re.compile(r"(?<![\w.>:])([A-Za-z_]\w*)\s*\(")
# What comes before an index or a shift count, whose mask (``% 4u``, ``& 31u``) keeps it in range: no operand of it
# is lifted out (a file of one's own has no UBSan to refuse the read out of bounds, or the shift past the width).
BOUNDED = re.compile(r"(?:\[|<<=?|>>=?)\s*$")
SHIFTED = re.compile(r"^\s*(?:<<|>>)")  # what follows a shifted value, whose cast sets the shift's width
GUARDED = re.compile(r"[/%\[]")  # what a conditional's branch (or ``&&``'s right side) may hold only under its guard
OPERATOR = ("(", ",", "=", "?", ":", "[", "!", "~", "+", "-", "*", "&", "|", "^", "<", ">")  # what an operand follows
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined", "alignof", "decltype", "static_assert"}

SHORTEST = 7  # an expression shorter than ``(a + b)`` is not worth a build: putting 0 for it saves a few characters


def _closing(text: str, i: int) -> int:
    """Return the offset of the bracket that closes the one at ``i`` (-1: none), as ``present.closing`` finds it."""
    try:
        return present.closing(text, i) - 1
    except ValueError:
        return -1


def _opening(text: str, k: int) -> int:
    """Return the offset of the ``(`` that the ``)`` at ``k`` closes (-1: none)."""
    depth = 0
    for i in range(k, -1, -1):
        depth += (text[i] == ")") - (text[i] == "(")
        if depth == 0:
            return i
    return -1


def _after_cast(text: str, i: int) -> bool:
    """Whether the parenthesis at ``i`` follows a cast's type: ``(unsigned)(...)``."""
    before = text[:i].rstrip()
    if not before.endswith(")"):
        return False
    start = _opening(before, len(before) - 1)
    return start >= 0 and bool(CAST.match(before[start + 1:-1])) and not NOT_AN_OPERAND.search(before[:start])


def _operand(text: str, i: int, k: int) -> bool:
    """Whether ``text[i:k + 1]``, in parentheses, is an operand something else may stand for."""
    return (not NOT_AN_OPERAND.search(text[max(0, i - 40):i]) or _after_cast(text, i)) and \
        not CAST.match(text[i + 1:k])


def _groups(code: str) -> tuple[list[bool], dict[int, tuple[int, bool]]]:
    """Match ``code``'s parentheses: return, for each offset, whether it lies in a divisor (``DIVISOR``: in the
    parentheses after a ``/`` or ``%``, in those of a cast's operand there, ``/ (int)(a - b)``, or within either), and
    each group by the offset of its ``)``: where its ``(`` is, and whether the group is in a divisor."""
    inside, stack, closed = [False] * len(code), [], {}
    for k, ch in enumerate(code):
        if ch == "(":
            before = code[:k].rstrip()
            cast = closed.get(len(before) - 1) if before.endswith(")") else None  # the operand of a cast in one
            stack.append((k, bool(stack and stack[-1][1]) or bool(DIVISOR.search(before[-3:]))
                          or bool(cast and cast[1] and CAST.match(code[cast[0] + 1:len(before) - 1]))))
            inside[k] = stack[-1][1]
        elif ch == ")" and stack:
            closed[k] = stack.pop()
            inside[k] = closed[k][1]
        else:
            inside[k] = bool(stack and stack[-1][1])
    return inside, closed


def _operands_in(code: str, closed: dict[int, tuple[int, bool]], shortest: int = 0) -> list[tuple[int, int]]:
    """Return the (first, last) offsets of the groups ``closed`` (``_groups`` of ``code``) that are operands
    (``_operand``) of ``shortest`` characters or more and in no divisor, largest first."""
    out = [(i, k) for k, (i, divisor) in closed.items()
           if k - i + 1 >= shortest and not divisor and _operand(code, i, k)]
    return sorted(out, key=lambda ij: ij[0] - ij[1])


def _spans(text: str, shortest: int = 0) -> list[tuple[int, int]]:
    """Return the (first, last) offsets of ``text``'s parenthesised operands of ``shortest`` characters or more,
    largest first (``_operands_in``); none in a string literal."""
    code = present.masked(text)
    return _operands_in(code, _groups(code)[1], shortest)


def expressions(text: str) -> list[tuple[int, int]]:
    """Return the (first, last) offsets of ``text``'s parenthesised expressions that a constant may stand for,
    largest first, but for the shortest (``SHORTEST``)."""
    return _spans(text, SHORTEST)


Edit = tuple[tuple[str, str, str, str], str]  # what an edit replaces, in context, with what; and the text it makes


def _edit(text: str, i: int, j: int, new: str) -> Edit:
    """Return the edit that puts ``new`` for ``text[i:j + 1]``, keyed by what it replaces and what is around it."""
    return (text[max(0, i - 30):i], text[i:j + 1], new, text[j + 1:j + 31]), text[:i] + new + text[j + 1:]


def zeroes(text: str) -> list[Edit]:
    """``0`` for each parenthesised expression, largest first."""
    return [_edit(text, i, j, "0") for i, j in expressions(text)]


def _top(inner: str, pattern: re.Pattern) -> list[re.Match]:
    """Return the matches of ``pattern`` in ``inner`` outside its brackets."""
    depth = [0] * (len(inner) + 1)
    for k, ch in enumerate(inner):
        depth[k + 1] = depth[k] + (ch in "([{") - (ch in ")]}")
    return [m for m in pattern.finditer(inner) if depth[m.start()] == 0 and depth[m.end()] == 0]


def _parts(inner: str) -> list[str]:
    """Return what may stand for ``(inner)``: a cast's operand, a conditional's branches, a binary operator's
    operands."""
    if inner.startswith("("):
        end = _closing(inner, 0)
        rest = inner[end + 1:].strip()
        if end > 0 and CAST.match(inner[1:end]) and rest:  # ``(T)(x)``: x; ``(T)a / b`` casts ``a`` alone: nothing
            return [rest] if rest.startswith("(") and _closing(rest, 0) == len(rest) - 1 else []
    asked = _top(inner, re.compile(r" \? "))
    if asked:
        colon = _top(inner[asked[0].end():], re.compile(r" : "))
        if colon:
            after = asked[0].end()
            branches = [inner[after:after + colon[0].start()], inner[after + colon[0].end():]]
            return [b for b in branches if not GUARDED.search(b)]  # ``b ? a / b : 0`` keeps its guard
        return []
    ops = _top(inner, BINARY)
    if len(ops) != 1:
        return []
    left, right = inner[:ops[0].start()], inner[ops[0].end():]
    return [left] + ([] if ops[0][0].strip() in ("&&", "||") and GUARDED.search(right) else [right])


def _grouped(part: str) -> str:
    """Return an expression in parentheses (as it is, where it already is in one pair)."""
    part = part.strip()
    return part if part.startswith("(") and _closing(part, 0) == len(part) - 1 else f"({part})"


def _cast(inner: str) -> bool:
    """Whether ``(inner)`` is a cast: ``(T)(x)``."""
    return inner.startswith("(") and bool(CAST.match(inner[1:max(0, _closing(inner, 0))]))


def operands(text: str) -> list[Edit]:
    """An operand for the expression it is part of (``_parts``), and a call's argument for the call, largest
    expression first: never in a divisor, an index or a shift count (``BOUNDED``), nor a shifted value's cast (it
    sets the shift's width), nor where a string literal is."""
    code, out = present.masked(text), []
    divisor, closed = _groups(code)
    for i, j in _operands_in(code, closed):
        inner = text[i + 1:j]
        if BOUNDED.search(code[max(0, i - 4):i]) or present.QUOTED.search(inner) or \
                SHIFTED.match(code[j + 1:]) and _cast(inner):
            continue
        out += [_edit(text, i, j, _grouped(part)) for part in _parts(inner)]
    for m in CALL.finditer(code):
        before = code[:m.start()].rstrip()
        if m[1] in KEYWORDS or BOUNDED.search(before) or DIVISOR.search(before) or divisor[m.start()] or \
                not (before.endswith(OPERATOR) or before.endswith("return")):
            continue
        end = _closing(code, m.end() - 1)
        if end > 0 and not present.QUOTED.search(text[m.start():end]):
            out += [_edit(text, m.start(), end, _grouped(a)) for a in present.split(text[m.end():end])]
    return sorted(out, key=lambda e: -len(e[0][1]))


# A local variable set once where it is declared: ``  unsigned v21 = (...);``.
LOCAL = re.compile(r"^[ \t]*(?:const\s+|constexpr\s+)?(?P<type>[A-Za-z_]\w*(?:\s+[A-Za-z_]\w*)*?)"
                   r"\s+(?P<name>[A-Za-z_]\w*)\s*=\s*(?P<init>[^;{}]+);[ \t]*\n", re.M)
WRITTEN = re.compile(r"^\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|^\s*(?:\+\+|--)")  # what follows a name that is written to
# What may change what an initial value reads, between it and its one read: a write through an index or a pointer,
# a barrier, an atomic, or a side effect (``++``, ``--``, an assignment).
MOVED_PAST = re.compile(r"\]\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|__syncthreads|__syncwarp|atomic|\*\s*\w+\s*=(?!=)")
SIDE_EFFECT = re.compile(r"\+\+|--|[^=!<>]=(?!=)")


def _written(name: str, text: str) -> bool:
    """Whether ``text`` assigns, increments or decrements ``name``."""
    n = re.escape(name)
    return bool(re.search(rf"\b{n}\b\s*(?:(?:[-+*/%&|^]|<<|>>)?=(?!=)|\+\+|--)|(?:\+\+|--)\s*{n}\b", text))


def inlined(text: str) -> list[Edit]:
    """A local variable's initial value for the one place that reads it, its declaration gone, where nothing between
    them may change what the value reads."""
    out = []
    for m in LOCAL.finditer(text):
        if m["type"] in KEYWORDS or m["type"].split()[0] in ("return", "goto", "case", "else", "typedef", "using"):
            continue
        rest = text[m.end():]
        uses = list(re.finditer(rf"\b{re.escape(m['name'])}\b", rest))
        if len(uses) != 1 or re.search(rf"\b{re.escape(m['name'])}\b", text[:m.start()]):
            continue
        u, between, init = uses[0], rest[:uses[0].start()], m["init"]
        if WRITTEN.match(rest[u.end():]) or between.rstrip().endswith(("&", "++", "--", ".")):
            continue
        # it is read where it was declared, as it was: not in a deeper block (a loop would read it again, later), not
        # past anything that may change what it reads, and it has no side effect of its own
        if _depth(between) != 0 or MOVED_PAST.search(between) or SIDE_EFFECT.search(init) or any(
                _written(n, between) for n in set(re.findall(r"[A-Za-z_]\w*", init))):
            continue
        init = m["init"].strip()
        value = init if init.startswith(f"(({m['type']})") and _closing(init, 0) == len(init) - 1 else \
            f"(({m['type']}){_grouped(init)})"
        key = (m.group(0), m["name"], value, rest[max(0, u.start() - 30):u.end() + 30])
        out.append((key, text[:m.start()] + rest[:u.start()] + value + rest[u.end():]))
    return out


# A helper of one line that returns an expression of its parameters:
# ``SG_HD int sg_min_i(int a, int b) { return ...; }``.
HELPER = re.compile(r"^[^\n(]*?\b(?P<name>\w+)\((?P<params>[^()]*)\)\s*\{\s*return (?P<expr>[^;{}]*);\s*\}[ \t]*\n",
                    re.M)


def helpers_inlined(text: str) -> list[Edit]:
    """A one-line helper's expression for each of its calls, its parameters replaced by the arguments (each converted
    to its parameter's type, and none with a side effect: it may be read twice), and the helper gone."""
    out = []
    for m in HELPER.finditer(text):
        declared = [p.strip() for p in m["params"].split(",") if p.strip()]
        params = [re.findall(r"\w+", p)[-1] for p in declared]
        types = [p[:p.rindex(name)].strip() for p, name in zip(declared, params)]
        rest, done = text[:m.start()] + text[m.end():], 0
        call = re.compile(rf"(?<![\w.>:]){re.escape(m['name'])}\s*\(")
        while (c := call.search(rest)) and done < 50:
            end = _closing(rest, c.end() - 1)
            args = rest[c.end():end]
            parts = present.split(args)
            values = [f"(({t}){_grouped(a)})" if t else _grouped(a) for t, a in zip(types, parts)]
            if end < 0 or len(parts) != len(params) or SIDE_EFFECT.search(args):  # an argument may be read twice
                break
            body = present.spelled(m["expr"], dict(zip(params, values)))  # not a member of the same name
            rest, done = rest[:c.start()] + _grouped(body) + rest[end + 1:], done + 1
        else:
            if done:
                out.append(((m.group(0), m["name"], "", ""), rest))
    return out


NAMESPACE = re.compile(r"^namespace (\w+) \{[ \t]*\n", re.M)
CLOSES = re.compile(r"^\}[ \t]*(?://[^\n]*)?\n")  # a namespace's closing line, perhaps with its comment


def namespaces_unwrapped(text: str, around: str = "") -> list[Edit]:
    """A namespace's contents at namespace level, its name's qualifiers gone (not where ``around`` names them)."""
    out = []
    for m in NAMESPACE.finditer(text):
        qualifier = re.compile(rf"(?<!::)\b{m[1]}::")
        lines, k, depth = text[m.end():].splitlines(keepends=True), 0, 1
        for k, line in enumerate(lines):
            depth += _depth(line)
            if depth == 0:
                break
        if depth != 0 or not CLOSES.match(lines[k]) or qualifier.search(around):
            continue
        inner = text[:m.start()] + "".join(lines[:k] + lines[k + 1:])
        out.append((("namespace", m[1], "", ""), qualifier.sub("", inner)))
    return out


def calls_inlined(text: str) -> list[Edit]:
    """A ``void`` function's body for its one call, a statement of its own, in a block that declares its parameters
    from the arguments, and the function gone. Not where it returns early or calls itself, where an argument names
    another parameter (the declarations would read each other), nor where the caller declares a name the body reads
    (it would read the caller's). A pointer or reference passed its own name needs no declaration where the body
    never sets it; any other parameter passed its own name is not inlined."""
    lines, out = text.splitlines(keepends=True), []
    for i, line in enumerate(lines):
        m = FUNCTION.match(line)
        if m is None or m["type"].split()[-1] != "void" or "__global__" in line or line.lstrip().startswith("template"):
            continue
        depth, j = _depth(line), i
        while depth > 0 and j + 1 < len(lines):
            j += 1
            depth += _depth(lines[j])
        body, rest = lines[i + 1:j], lines[:i] + lines[j + 1:]
        calls = [k for k, x in enumerate(rest) if re.search(rf"(?<![\w.>:]){m['name']}\s*\(", x)]
        call = re.match(rf"^(\s*){m['name']}\s*\((.*)\);\s*$", rest[calls[0]]) if len(calls) == 1 else None
        code = "".join(body)
        if call is None or re.search(rf"\breturn\b|\b{m['name']}\b", _without_lambdas(code)):
            continue
        params = line[line.index("(", m.start("name")) + 1:line.rindex(")")]
        declared = [d.strip() for d in params.split(",") if d.strip()]
        names = [(re.findall(r"\w+", d) or [""])[-1] for d in declared]
        args = present.split(call[2])
        if len(args) != len(names) or not all(names) or any(
                re.search(rf"\b{n}\b", a) and (n != own or a != own or not re.search(r"[*&]", d) or _written(own, code))
                for d, own, a in zip(declared, names, args) for n in names):
            continue
        top, level = 0, 0  # the caller: the namespace-level definition the call is in
        for k, x in enumerate(rest[:calls[0]]):
            top, level = (k if level == 0 else top), level + _depth(x)
        caller = "".join(rest[top:calls[0]])
        free = set(re.findall(r"(?<![\w.>])[A-Za-z_]\w*", code)) - set(names) - KEYWORDS  # not a member's name
        if any(re.search(rf"\b[A-Za-z_]\w*[\s*&]+{n}\s*(?:=|\[|;|,|\{{|\))", caller) for n in free):
            continue
        bound = [f"{call[1]}{d} = {a};\n" for d, n, a in zip(declared, names, args) if a != n]
        block = [f"{call[1]}{{\n", *bound, *body, f"{call[1]}}}\n"]
        out.append((("call", m["name"], "", ""), "".join(rest[:calls[0]] + block + rest[calls[0] + 1:])))
    return out


LAMBDA = re.compile(r"\]\s*\([^()]*\)\s*(?:->\s*[\w\s:<>*&]+)?\{")  # a lambda's head, to its body's brace


def _without_lambdas(text: str) -> str:
    """Return ``text`` with its lambdas' bodies emptied (a ``return`` there returns from the lambda alone)."""
    at = 0
    while (m := LAMBDA.search(text, at)) and (end := _closing(text, m.end() - 1)) > 0:
        text, at = text[:m.end()] + text[end:], m.end()
    return text


STRUCT = re.compile(r"^struct (?P<name>\w+) \{(?P<fields>[^{}]*)\};[ \t]*$", re.M)


def members_inlined(text: str) -> list[Edit]:
    """For a variable of a one-line struct set from a brace list where it is declared, and read only by its members:
    each member's value (as the member's type) for each read, the declaration gone; not where a value has a side
    effect, or where what it reads may change before the last read (``inlined``'s guards), nor where a member is
    set or the variable's address taken."""
    out = []
    for s in STRUCT.finditer(text):
        fields: dict[str, str] = {}
        for decl in (d.strip() for d in s["fields"].split(";") if d.strip()):
            names = [(re.findall(r"\w+", n) or [""])[-1] for n in decl.split(",")]
            kind = decl[:decl.rfind(names[0])].strip() if names[0] else ""
            fields.update((n, kind) for n in names)
        if "" in fields or not all(fields.values()):
            continue
        for d in re.finditer(rf"^[ \t]*(?:const\s+)?{s['name']}\s+(\w+)\s*=\s*\{{(.*)\}};[ \t]*\n", text, re.M):
            values = present.split(d[2])
            after = text[d.end():]
            uses = list(re.finditer(rf"(?<![\w.>]){d[1]}\b(\s*\.\s*(\w+))?", after))
            between = after[:uses[-1].start()] if uses else ""
            read = set(re.findall(r"(?<![\w.>])[A-Za-z_]\w*", d[2]))
            memory = re.search(r"[\[*]|\w\s*\(", d[2])  # a value that reads memory (or calls): a write may change it
            if len(values) != len(fields) or any(u[2] not in fields for u in uses) or \
                    re.search(rf"&\s*{d[1]}\b", after) or any(_written(f"{d[1]}.{f}", after) for f in fields) or \
                    SIDE_EFFECT.search(d[2]) or memory and MOVED_PAST.search(between) or \
                    any(_written(n, between) for n in read):
                continue
            value = dict(zip(fields, values))
            new = re.sub(rf"(?<![\w.>]){d[1]}\s*\.\s*(\w+)",
                         lambda u: f"(({fields[u[1]]}){_grouped(value[u[1]])})", after)
            out.append((("members", d[1], "", ""), text[:d.start()] + new))
    return out


def rewrite(text: str, propose: Callable[[str], list[Edit]], interesting: Callable[[list[str]], list[bool]],
            budget: int = 400, width: int = 8, refused: set | None = None) -> str:
    """Make the first of ``propose``'s edits that ``interesting`` accepts, again and again, until none is accepted or
    ``budget`` candidates were judged; an edit refused once (here, or in an earlier call given the same ``refused``)
    is not tried again where what it replaces, and what is around it, are the same."""
    tries, refused = 0, set() if refused is None else refused
    while tries < budget:
        edits = [(key, new) for key, new in propose(text) if key not in refused and new != text]
        hit, judged = _first([new for _, new in edits], interesting, width, budget - tries)
        tries += len(judged)
        refused.update(key for (key, _), ok in zip(edits, judged) if not ok)
        if hit is None:
            return text
        text = edits[hit][1]
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


EMPTY_CONDITIONAL = re.compile(r"^[ \t]*#[ \t]*if[^\n]*\n(?:[ \t]*#[ \t]*else[^\n]*\n)?[ \t]*#[ \t]*endif[^\n]*\n",
                               re.M)  # ``#if ... #endif`` with nothing between (an ``#else`` at most)


def unused(text: str, around: str = "") -> str:
    """Return ``text`` without its namespace-level definitions (helpers, globals, macros, types) that nothing else in
    it or ``around`` it (the text a caller puts beside it, such as a kernel that calls it) names, until none is left:
    a generated reproducer's prelude holds every helper, its program a few. A conditional left empty goes too."""
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
            for ch in present.QUOTED.sub("", line):
                if ch == "{":
                    opened.append(level)
                elif ch == "}" and opened:
                    opened.pop()
            k += 1
        drop = set()
        for name in dict.fromkeys(name for name, _, _ in items):  # a name defined twice (#if ... #else) is one
            own = {k for n, first, last in items if n == name for k in range(first, last + 1)}
            rest = "".join(line for k, line in enumerate(lines) if k not in own) + around
            if not re.search(rf"\b{re.escape(name)}\b", rest):
                drop |= own
        if not drop:
            return EMPTY_CONDITIONAL.sub("", text)
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
    """Alternate ``drop_unused``, ``ddmin``, ``drop_blocks`` and the rewrites (a program's wrapping unfolded: its
    namespace, a function called once, a struct's members; ``0`` for an expression, an operand for what holds it, a
    variable's value for its one use, a helper's expression for its calls) until none makes the
    text smaller; no text is judged twice (``remembered``). ``around``: the text the caller puts beside ``text``
    (``unused``)."""
    interesting = remembered(interesting)
    refused: set = set()  # the edits that were refused, kept from one round to the next
    while True:
        before = text
        text = drop_unused(text, interesting, around)
        text = drop_blocks(ddmin(text, interesting, budget, width), interesting, budget // 4, width)
        for propose in (partial(namespaces_unwrapped, around=around), calls_inlined, members_inlined, zeroes,
                        operands, inlined, helpers_inlined):
            text = rewrite(text, propose, interesting, budget // 4, width, refused)
        if len(text) >= len(before):  # a round that did not shrink it (a helper inlined may lengthen it)
            return min(text, before, key=len)
