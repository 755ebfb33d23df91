"""A reproducer as a compiler engineer reads it: device code only, our helpers put in place, the body in its kernel.

``emit.standalone`` writes a reproducer whose helpers carry a host form (``SG_DEV(device, host)``) and whose program
sits in a ``body`` function, so that one text serves the GPU builds and the host check that judges a reduction. Once
the reduction is over the host form has done its work. ``forms`` returns shorter texts of the same device meaning,
the shortest first; each is a rewrite that keeps what a device build computes:

- ``device_only``: the host arm of every ``SG_DEV`` and the macros go, and so do the host headers (guarded for NVRTC)
  and the helpers only the host arm called; ``__host__ __device__`` functions become ``__device__`` ones;
- ``inline_helpers``: a helper of ours whose body is ``return E;``, with each parameter read once in ``E`` and no
  ``?:``, ``&&`` or ``||`` there (so every argument is evaluated, once, as in a call), is put in place of its calls,
  each argument cast to its parameter's type and the result to the helper's;
- ``body_into_kernel``: ``body``'s statements take the place of its call, each parameter spelled by its argument.

A form is only a candidate: the campaign keeps it where its own builds still show the bug (``triage.final_form``),
and a reduction starts from the shortest its test keeps (``shortest_kept``).
"""
from __future__ import annotations

import re

GUARDED_HEADERS = re.compile(r"#ifndef __CUDACC_RTC__\n(?:#include <\w+>\n)+#endif\n")
MACROS = re.compile(r"#define SG_HD [^\n]*\n|#ifdef __CUDA_ARCH__\n#define SG_DEV\(device, host\) device\n#else\n"
                    r"#define SG_DEV\(device, host\) host\n#endif\n")
HELPER = re.compile(r"^(?:SG_HD|__device__ __forceinline__) [\w ]+?\b(sg_\w+)\(", re.M)  # a helper's definition
ONE_LINE = re.compile(r"__device__ __forceinline__ ([\w ]+?) (sg_\w+)\(([^()]*)\) \{ return (.*); \}\n")
OPEN, CLOSE = "([{", ")]}"
QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)+\'')  # a string or character literal


def masked(text: str) -> str:
    """Return ``text`` with its string and character literals' contents blanked (the same length): a bracket or comma
    inside one is no expression's."""
    return QUOTED.sub(lambda m: m[0][0] + " " * (len(m[0]) - 2) + m[0][-1], text)


def closing(text: str, at: int) -> int:
    """Return the index just past the bracket that closes the one at ``at`` (brackets of every kind nest)."""
    depth = 0
    for i in range(at, len(text)):
        if text[i] in OPEN:
            depth += 1
        elif text[i] in CLOSE:
            depth -= 1
            if depth == 0:
                return i + 1
    raise ValueError(f"unbalanced text from offset {at}")


def arguments(text: str, at: int) -> tuple[list[str], int]:
    """Return the arguments of the call whose ``(`` is at ``at`` (``split``), and the index past it."""
    end = closing(masked(text), at)
    return split(text[at + 1:end - 1]), end


def split(args: str) -> list[str]:
    """Return a call's arguments (its text between the parentheses), split at its top-level commas (not a literal's),
    each stripped."""
    code, out, depth, start = masked(args), [], 0, 0
    for i, ch in enumerate(code):
        if ch in OPEN:
            depth += 1
        elif ch in CLOSE:
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(args[start:i].strip())
            start = i + 1
    out.append(args[start:].strip())
    return [a for a in out if a]


def calls(text: str, name: str) -> list[int]:
    """Return where each call of ``name`` opens its ``(`` (not a longer name, not a member)."""
    return [m.end() - 1 for m in re.finditer(rf"(?<![\w.]){re.escape(name)}\s*\(", text)]


def device_only(text: str) -> str:
    """Drop the host arm of every ``SG_DEV``, its macros, the guarded host headers and what only the host used."""
    text = MACROS.sub("", GUARDED_HEADERS.sub("", text))
    for at in reversed(calls(text, "SG_DEV")):
        args, end = arguments(text, at)
        text = text[:at - len("SG_DEV")] + args[0] + text[end:]
    text = re.sub(r"__host__ __device__ +", "__device__ ", text)  # the program's own functions too: no host side
    return drop_unused(text.replace("SG_HD ", "__device__ __forceinline__ "))


def definitions(text: str) -> list[tuple[str, int, int]]:
    """Return each helper definition's name and span (from its line's start past its closing brace and newline)."""
    out = []
    for m in HELPER.finditer(text):
        end = closing(text, text.index("{", m.end()))
        out.append((m[1], m.start(), end + 1 if text[end:end + 1] == "\n" else end))
    return out


def drop_unused(text: str) -> str:
    """Drop the definitions of helpers nothing else names, until none is left."""
    while True:
        spans = definitions(text)
        outside = "".join(text[e:s] for (_, _, e), (_, s, _) in zip([("", 0, 0), *spans], [*spans, ("", len(text), 0)]))
        dead = [(s, e) for name, s, e in spans if not re.search(rf"(?<![\w.]){name}\b", outside)
                and not any(re.search(rf"(?<![\w.]){name}\b", text[s2:e2]) for n2, s2, e2 in spans if n2 != name)]
        if not dead:
            return text
        for s, e in reversed(dead):
            text = text[:s] + text[e:]


def inline_helpers(text: str) -> str:
    """Put each one-expression helper (``ONE_LINE``, defined once, every parameter read once, unconditionally) in
    place of its calls, until none is left; then drop the helpers nothing calls."""
    while True:
        names = [n for n, _, _ in definitions(text)]
        for m in ONE_LINE.finditer(text):
            ret, name, params, body = m.groups()
            params = [p.strip().rsplit(" ", 1) for p in params.split(",") if p.strip()]
            uses = [len(re.findall(rf"(?<![\w.]){p[1]}\b", body)) for p in params]
            if names.count(name) != 1 or any(u != 1 for u in uses) or re.search(r"\?|&&|\|\|", body):
                continue
            rest = text[:m.start()] + text[m.end():]
            if not calls(rest, name):
                continue
            for at in reversed(calls(rest, name)):
                args, end = arguments(rest, at)
                put = spelled(body, {pname: f"(({ptype})({arg}))" for (ptype, pname), arg in zip(params, args)})
                rest = rest[:at - len(name)] + f"(({ret})({put}))" + rest[end:]
            text = text[:m.start()] + m.group(0) + rest[m.start():]
            break
        else:
            return tidy(drop_unused(text))


def spelled(text: str, names: dict[str, str]) -> str:
    """Put each of ``names`` (a name, not a longer one, a member after ``.`` or ``->``, nor a name qualified by ``::``)
    as its text, all at once: an argument's text is never read again for another parameter's name."""
    if not names:
        return text
    pattern = re.compile(r"(?<![\w.])(?<!->)(?<!::)(" + "|".join(map(re.escape, names)) + r")\b")
    return pattern.sub(lambda m: names[m[1]], text)


CAST = re.compile(r"\(\(([\w ]+)\)\(")


def tidy(text: str) -> str:
    """Write ``((T)(((T)(x))))`` as ``((T)(x))`` and ``((T)((x)))`` as ``((T)(x))``: casts the inlining doubled."""
    at = 0
    while m := CAST.search(text, at):
        inner_at = m.end() - 1
        end = closing(text, inner_at)
        inner = text[inner_at + 1:end - 1]
        same = CAST.match(inner)
        if text[end:end + 1] == ")" and (same and same[1] == m[1] and closing(inner, same.end() - 1) + 1 == len(inner)
                                         or inner.startswith("(") and closing(inner, 0) == len(inner)):
            text = text[:inner_at + 1] + (inner[len(same[0]) - 1:-1] if same and same[1] == m[1] else inner[1:-1]) \
                + text[end - 1:]
            continue
        at = m.start() + 1
    return text


BODY = re.compile(r"^__device__ void body\(([^)]*)\) \{\n(.*?)^\}\n", re.M | re.S)


def body_into_kernel(text: str) -> str:
    """Put ``body``'s statements where the kernel calls it, each parameter spelled by its argument (parenthesised)."""
    m = BODY.search(text)
    found = calls(text[m.end():], "body") if m else []
    if not m or len(found) != 1 or re.search(r"\breturn\s*;", m[2]) or "namespace" in text:
        return text
    params = [p.strip().rsplit(" ", 1)[1].lstrip("*") for p in m[1].split(",")]
    rest = text[m.end():]
    args, end = arguments(rest, found[0])
    statements = spelled(m[2], {name: f"({arg})" for name, arg in zip(params, args) if name != arg})
    start = found[0] - len("body")
    stop = end + 1 if rest[end:end + 1] == ";" else end
    line_start = rest.rfind("\n", 0, start) + 1
    head = rest[line_start:start]
    if head.strip().endswith("{"):  # a kernel on one line: ``... { body(o); }`` becomes a block of lines
        tail = rest[stop:].lstrip(" ")
        rest = rest[:start].rstrip(" ") + "\n" + statements + tail
    else:
        rest = rest[:line_start] + statements + rest[stop:].lstrip(" ").removeprefix("\n")
    text = text[:m.start()] + rest
    sg_t = re.search(r"^  const unsigned sg_t = [^\n]*\n", text, re.M)
    if sg_t and len(re.findall(r"\bsg_t\b", text)) == 1:
        text = text[:sg_t.start()] + text[sg_t.end():]
    return text


def forms(text: str) -> list[str]:
    """Return the shorter device-only forms of a reproducer, the shortest first (none where nothing changes)."""
    try:
        device = device_only(text)
        inlined = inline_helpers(device)
        candidates = [body_into_kernel(inlined), inlined, body_into_kernel(device), device]
    except ValueError:  # brackets that do not pair: not a text emit wrote
        return []
    out = []
    for c in sorted(candidates, key=lambda c: (c.count("\n"), len(c))):
        if c != text and c not in out and c.count("\n") <= text.count("\n"):
            out.append(c)
    return out


def shortest_kept(text: str, judge) -> str:
    """Return the shortest form of ``text`` that ``judge`` keeps (it takes a list of texts and returns a bool for
    each, as a reducer's interestingness test does), else ``text`` itself: where a reduction starts."""
    candidates = forms(text)
    return next((f for f, ok in zip(candidates, judge(candidates) if candidates else []) if ok), text)
