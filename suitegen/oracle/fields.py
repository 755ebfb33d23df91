"""The oracle's format as data: every field of a rule, a variant, a deviations file and a statement, with its
type, whether it is required and what it means. The loaders take their field sets from here, an unknown or
mistyped field's message quotes it, and ``docs/oracle-format.md`` is written from it (``reference``)."""
from __future__ import annotations

import functools
import itertools
import math
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from re import _compiler as sre_compile, _constants as sre, _parser as sre_parse
from typing import Iterable

from suitegen import procs
from suitegen.model import Compiler, Expect, Mode, Outcome, Phase

TYPES = {"string": str, "regex": str, "condition": str, "boolean": bool, "integer": int, "list of strings": list,
         "list of tables": list, "table": dict}


@dataclass(frozen=True, slots=True)
class Field:
    """One field of one table of the oracle's TOML files."""

    table: str  # rule, variant, deviations file, deviation, statement
    name: str
    type: str  # a key of TYPES, or "hook: KIND" (a hook's name, see suitegen rules --hooks), or "one of: ..."
    required: bool
    meaning: str

    @property
    def python_type(self) -> type:
        """The TOML value's Python type (a hook's name and a choice are strings)."""
        return TYPES.get(self.type, str)


RUN_STATUSES = ("failed", "crashed", "timed-out")  # a runtime deviation's run status
STATEMENT_KINDS = ("must", "must-not", "may", "undefined", "note")


def one_of(values) -> str:
    return "one of: " + ", ".join(getattr(v, "value", v) for v in values)


PHASES = "front-end, device-back-end, device-link, host-compiler, host-preprocess, link (or one stage: cicc, ptxas, ...)"
FIELDS: tuple[Field, ...] = (
    Field("rule", "id", "string", True, "the rule's name within its section: letters, digits and . _ -"),
    Field("rule", "statement", "string", True, "what the guide says, in our words, in one sentence"),
    Field("rule", "template", "string", False, "its program's template (under templates/); exactly one of template "
          "and templates"),
    Field("rule", "templates", "table", False, "file name -> template, for a program of several files"),
    Field("rule", "requires", "condition", False, "when the rule applies (std, arch, nvcc, clang, features)"),
    Field("rule", "note", "string", False, "which reading of the guide it takes, where the guide is ambiguous, "
          "and why"),
    Field("rule", "variant", "list of tables", True, "its variants ([[rule.variant]] tables)"),
    Field("rule", "construct", "regex", False, "the construct its negative side forbids: a positive variant must "
          "not contain it"),
    Field("rule", "edition", "string", False, "the guide edition its statement comes from (default: the seeds)"),
    Field("variant", "name", "string", True, "the variant's name, with {param} placeholders for its matrix"),
    Field("variant", "expect", one_of(Expect), False,
          "what must happen; exactly one of expect and predicate"),
    Field("variant", "predicate", "hook: predicate", False, "a function of the params and config that decides the "
          "expectation (where the guide's answer depends on the program)"),
    Field("variant", "params", "table", False, "template parameters"),
    Field("variant", "matrix", "table", False, "param -> list of values: one variant per combination"),
    Field("variant", "requires", "condition", False, "when the variant applies, beyond the rule's condition"),
    Field("variant", "flags", "list of strings", False, "nvcc flags the case is built with"),
    Field("variant", "mode", one_of(Mode), False, "how the case is built (default "
          "compile)"),
    Field("variant", "phase", f"one of: {PHASES}", False, "the phase a rejection or diagnostic must come from"),
    Field("variant", "diagnostic", "regex", False, "what a rejection's, warning's or diagnostic's message matches"),
    Field("variant", "line", "boolean", False, "whether the diagnostic must point at the marked line (default true)"),
    Field("variant", "observe", "string", False, "for a runtime variant: what the program checks and reports"),
    Field("variant", "note", "string", False, "why this variant, where it is not obvious"),
    Field("variant", "strategies", "table", False, "param -> hook: strategy, for drawn variants"),
    Field("variant", "check", "hook: check", False, "a fatbin variant's check of its module's results"),
    Field("variant", "value", "integer", False, "the nonzero value its use(out) must store in out[0]"),
    Field("deviations file", "when", "condition", True, "the toolchain range the file covers (nvcc==13.0, "
          "clang>=22 && clang<23)"),
    Field("deviations file", "compiler", one_of(Compiler), False, "the compiler whose items it covers "
          "(default nvcc)"),
    Field("deviations file", "deviation", "list of tables", False, "its deviations ([[deviation]] tables)"),
    Field("deviation", "rule", "string", True, "the rule's full id (section/id)"),
    Field("deviation", "variants", "list of strings", False, "globs over variant names (default all)"),
    Field("deviation", "observed", one_of(Outcome), True, "what the toolchain did"),
    Field("deviation", "phase", one_of(Phase), False, "where a rejection was seen: the stage that failed (a run "
          "batches the items it covers with that stage's rejections)"),
    Field("deviation", "diagnostic", "string", True, "the evidence, for people: what the toolchain printed"),
    Field("deviation", "match", "regex", False, "what a diagnostic must match for the deviation to show (needed "
          "unless observed is accepted)"),
    Field("deviation", "seen", "string", True, "the toolchain and date it was seen with"),
    Field("deviation", "when", "condition", False, "a narrower condition, within the file's"),
    Field("deviation", "run", one_of(RUN_STATUSES), False, "for a runtime case: its program's run "
          "status"),
    Field("deviation", "params", "table", False, "the case params it applies to (a subset)"),
    Field("deviation", "select", "hook: selector", False, "a test on the case's params"),
    Field("deviation", "note", "string", False, "what else is known"),
    Field("statement", "id", "string", True, "the statement's name within its section"),
    Field("statement", "seed", "string", False, "the seed document it comes from (one of seed and source)"),
    Field("statement", "source", "string", False, "a later source it comes from: the guide's edition and part "
                                                  "(one of seed and source)"),
    Field("statement", "text", "string", True, "the normative sentence, in our words"),
    Field("statement", "where", "string", False, "its section number in the guide"),
    Field("statement", "kind", one_of(STATEMENT_KINDS), False, "what kind of statement (default must)"),
    Field("statement", "rules", "list of strings", False, "the rules that test it"),
    Field("statement", "untested", "string", False, "why no rule can test it"),
    Field("statement", "when", "condition", False, "the toolkit range it applies to"),
    Field("statement", "example", "string", False, "\"error\" where its seed example marks its line an error"),
    Field("statement", "no_negative", "string", False, "why no negative variant traces an error example"),
)


RULE_DEFAULTS = ("mode", "flags", "phase", "diagnostic", "line")  # a rule's value is its variants' default
FIELDS += tuple(Field("rule", f.name, f.type, False, f"its variants' default: {f.meaning}")
                for f in FIELDS if f.table == "variant" and f.name in RULE_DEFAULTS)


def mistyped(raw: dict, table: str) -> tuple[str, str] | None:
    """Return (field, message) for the first field of ``raw`` whose value is not of its type, or None."""
    for f in FIELDS:
        value = raw.get(f.name) if f.table == table else None
        if value is not None and (not isinstance(value, f.python_type) or (f.type == "integer" and type(value) is bool)):
            return f.name, f"{f.name} is a {f.type.split(':')[0]}: {f.meaning}"
    return None


def unsafe(raw: dict, table: str) -> tuple[str, str] | None:
    """Return (field, message) for the first field of ``raw`` (its types already checked) whose value could run code
    or hang: flags outside ``flag_problem``'s set, a regex ``pattern_problem`` refuses; None if there is none."""
    for f in FIELDS:
        value = raw.get(f.name) if f.table == table else None
        if value is None:
            continue
        problem = (flag_problem(value) if f.name == "flags" else
                   pattern_problem(value) if f.type == "regex" else None)
        if problem is not None:
            return f.name, problem
    return None


# Flags reach a shell: nvcc runs its stages through ``sh -c``, so a flag is letters, digits and these marks only.
SAFE_FLAG = re.compile(r"[A-Za-z0-9_+=,./:-]+")
SAFE_FLAG_TEXT = "letters, digits and _ + = , . / : -"
# Options (of nvcc, or passed through it to the host compiler or linker) that run or load another program, read
# more options from a file, or write outside the build's folder: refused as a word of any flag, split at = and ,.
RUNS_OR_WRITES = frozenset({"-ccbin", "--compiler-bindir", "-run", "--run", "-run-args", "--run-args", "-optf",
                            "--options-file", "-o", "--output-file", "-odir", "--output-directory", "-keep-dir",
                            "--keep-dir", "-MF", "--dependency-output", "-wrapper", "-specs", "--specs", "-plugin",
                            "--plugin", "-load", "--ld-path"})
RUNS_OR_WRITES_GLUED = ("-B", "-fplugin", "-fpass-plugin", "-fuse-ld")


def flag_problem(flags: Iterable[str]) -> str | None:
    """Return why ``flags`` may not be handed to a toolchain (a character outside ``SAFE_FLAG``, or an option that
    runs a program or writes outside the build's folder), or None when every flag is safe.

    The one check of every way flags come in: oracle rule and variant flags, matrix profiles' flag sets, --flags."""
    if isinstance(flags, str):
        return f"flags is a list of strings, got {flags!r}"
    for flag in flags:
        if not isinstance(flag, str) or not SAFE_FLAG.fullmatch(flag):
            return f"flag {flag!r} is not {SAFE_FLAG_TEXT} (nvcc hands flags to a shell)"
        word = next((w for w in re.split("[=,]", flag) if w in RUNS_OR_WRITES or w.startswith(RUNS_OR_WRITES_GLUED)),
                    None)
        if word is not None:
            return (f"flag {flag!r}: {word!r} makes the toolchain run or load another program, read options from a "
                    "file or write outside its build folder")
    return None


# Regexes: every one in the oracle is checked at load (``pattern_problem``); those that judge a toolchain's output
# (a diagnostic's message, a program's output) are matched with ``search``.
MATCH_BUDGET = 1 << 24  # steps of Python's backtracking matcher a search may take in this process (~0.1 s)
MATCH_SECONDS = 10.0  # a search that could take more runs in a child process, killed after this long
CHECK_SIZE = 1 << 16  # the text size ``pattern_problem`` looks for exponential costs at
SEARCH_CHILD = ("import re, sys; text = open(sys.argv[3], encoding='utf-8').read(); "
                "sys.exit(0 if re.search(sys.argv[1], text, int(sys.argv[2])) else 1)")


class Unbounded(ValueError):
    """A regex whose matching time has no polynomial bound: a repeat of a part that matches in several ways."""


@functools.lru_cache(maxsize=4096)
def pattern_problem(pattern: str) -> str | None:
    """Return why a regex is refused (it does not compile, or it could take exponential time), or None.

    Python's ``re`` backtracks, and a pattern can make it run for ever: ``(a+)+Q`` or ``^(([a-z" ])+)+Q$`` take
    exponential time on a line of letters, and the matcher, in C, does not even see SIGTERM. Such a pattern repeats
    a part that can match the same text in more than one way (a nested quantifier, an optional part or an
    alternation inside a repeat): ``search_cost`` finds that in the parse tree, unless what follows inside the
    repeat tells the ways apart (``(\\w+::)*``). What is left is at worst polynomial, and ``search`` bounds it.
    """
    try:
        search_cost(pattern, CHECK_SIZE)
    except (re.error, TypeError, OverflowError, RecursionError) as exc:
        return f"not a valid regex: {exc}"
    except Unbounded as exc:
        return f"regex {pattern!r} could take exponential time: {exc}"
    return None


def search(pattern: str, text: str, flags: int = 0) -> bool:
    """Return whether ``pattern`` occurs in ``text`` (``re.search``), in bounded time.

    A search that ``search_cost`` bounds by ``MATCH_BUDGET`` steps (every one of a real diagnostic's) runs here;
    another (``a.*a.*a.*Q`` in a long text, or a pattern that was never checked) runs in a child process (``procs``:
    its own group, killed when the run stops) and is no match if it takes more than ``MATCH_SECONDS``."""
    if _within_budget(pattern, flags, 1 << len(text).bit_length()):
        return re.search(pattern, text, flags) is not None
    with tempfile.TemporaryDirectory(prefix="sg-search-") as folder:
        path = Path(folder) / "text"
        path.write_text(text, encoding="utf-8")
        done = procs.run([sys.executable, "-I", "-S", "-c", SEARCH_CHILD, pattern, str(int(flags)), str(path)],
                         timeout=MATCH_SECONDS, cwd=folder)
    return done.returncode == 0


@functools.lru_cache(maxsize=4096)
def _within_budget(pattern: str, flags: int, size: int) -> bool:
    """Return whether a search for ``pattern`` in ``size`` characters takes at most ``MATCH_BUDGET`` steps."""
    try:
        return search_cost(pattern, size, flags) <= MATCH_BUDGET
    except (re.error, Unbounded, TypeError, OverflowError, RecursionError):
        return False


@dataclass(frozen=True, slots=True)
class _Text:
    """What a cost is for: a text of ``size`` characters, searched with a pattern parsed with ``state``."""

    size: int
    state: sre_parse.State  # the whole pattern's groups and flags


def search_cost(pattern: str, size: int, flags: int = 0) -> float:
    """Return a bound on the steps of a backtracking search for ``pattern`` in ``size`` characters: the scan for a
    start, then from each start the pattern's ``_sequence`` work (raises re.error for an invalid regex, Unbounded
    for an exponential one)."""
    parsed = sre_parse.parse(pattern, flags)
    text = _Text(size, parsed.state)
    anything = (sre.IN, [(sre.CATEGORY, sre.CATEGORY_SPACE), (sre.CATEGORY, sre.CATEGORY_NOT_SPACE)])
    starts = [(sre.MIN_REPEAT, (0, sre.MAXREPEAT, sre_parse.SubPattern(parsed.state, [anything])))]
    return _sequence(starts + list(parsed), text, parsed.state.flags)[1]


def _sequence(items: list, text: _Text, flags: int) -> tuple[float, float]:
    """Return (ways, work) of a parsed sequence from one position: how many paths through it the matcher may try
    the rest of the pattern from, and how many steps trying them all takes."""
    ways, work = 1.0, 0.0
    for i, (op, av) in enumerate(items):
        item_ways, item_work = _item(op, av, text, flags)
        if item_ways > 1:
            item_ways = min(item_ways, _going_on(items[i], items[i + 1:], text, flags))
        work += ways * item_work
        ways *= item_ways
    return ways, max(work, 1.0)


def _going_on(item, rest: list, text: _Text, flags: int) -> float:
    """Return how many of an item's ways the rest of its sequence can go on from, where the rest starts with
    literal text (inf where it does not or the item is not a repeat): an optional part that cannot start as the
    rest does leaves one way for each of its own; a repeat of a character none of those texts starts with leaves
    one; another repeat, at most those texts' occurrences (each way ends at another position)."""
    after = _prefixes(rest, flags)
    if not after or item[0] not in (sre.MAX_REPEAT, sre.MIN_REPEAT):
        return math.inf
    low, high, body = item[1]
    if high == 1:
        apart = _apart(_prefixes(list(body), flags), after)
        return max(_sequence(list(body), text, flags)[0], 1.0) if apart else math.inf
    if all(_repeats_none_of(body, p[0], text, flags) for p in after):
        return 1.0
    if body.getwidth()[0] == 0:
        return math.inf
    return sum(float(max(text.size - len(p), 0) // _period(p) + 1) for p in after)


def _prefixes(items: list, flags: int) -> list[str]:
    """Return the literal texts every match of ``items`` starts with, one per alternative ([]: not known; case-folded
    under IGNORECASE)."""
    if not items:
        return []
    op, av = items[0]
    if op is sre.LITERAL:
        text = "".join(chr(v) for _, v in itertools.takewhile(lambda it: it[0] is sre.LITERAL, items))
        return [text.casefold() if flags & re.IGNORECASE else text]
    if op is sre.SUBPATTERN:
        return _prefixes(list(av[-1]), (flags | av[1]) & ~av[2])
    if op is sre.BRANCH:
        found = [_prefixes(list(alt), flags) for alt in av[1]]
        return [p for ps in found for p in ps] if all(found) else []
    return []


def _apart(these: list[str], those: list[str]) -> bool:
    """Return whether no text can start with one of ``these`` and one of ``those`` at once (False where either is
    not known)."""
    return bool(these and those) and all(not (a.startswith(b) or b.startswith(a)) for a in these for b in those)


def _period(literal: str) -> int:
    """Return a text's period: the least shift by which it overlaps itself (its length if none), so two of its
    occurrences start at least that far apart."""
    return next(p for p in range(1, len(literal) + 1) if literal[p:] == literal[:len(literal) - p])


def _repeats_none_of(body, char: str, text: _Text, flags: int) -> bool:
    """Return whether a repeat's ``body`` is one character that can never be ``char`` (in any case)."""
    if len(body) != 1 or body.getwidth() != (1, 1) or (flags & re.IGNORECASE and char.lower() != char.upper()):
        return False
    return sre_compile.compile(sre_parse.SubPattern(text.state, list(body)), flags).fullmatch(char) is None


def _alternatives(parts, text: _Text, flags: int) -> tuple[float, float]:
    """Return (ways, work) of alternatives: each is tried, and each that matches is a way on, unless they start
    with literal texts no two of which a text can start with (then at most one matches)."""
    parts = [list(p) for p in parts if p is not None]
    costs = [_sequence(p, text, flags) for p in parts]
    starts = [_prefixes(p, flags) for p in parts]
    exclusive = all(starts) and all(_apart(a, b) for i, a in enumerate(starts) for b in starts[i + 1:])
    ways = max(w for w, _ in costs) if exclusive else sum(w for w, _ in costs)
    return ways, sum(k for _, k in costs)


def _item(op, av, text: _Text, flags: int) -> tuple[float, float]:
    """Return (ways, work) of one parsed item (see ``_sequence``)."""
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        ways, work = _repeat(*av, text, flags)
        return (1.0 if op is sre.POSSESSIVE_REPEAT else ways), work  # a possessive repeat never gives back
    if op is sre.BRANCH:
        return _alternatives(av[1], text, flags)
    if op is sre.GROUPREF_EXISTS:
        return _alternatives(av[1:], text, flags)
    if op is sre.SUBPATTERN:
        _, add, drop, body = av
        return _sequence(list(body), text, (flags | add) & ~drop)
    if op is sre.ATOMIC_GROUP:  # once matched, never matched another way
        return 1.0, _sequence(list(av), text, flags)[1]
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        return 1.0, _sequence(list(av[1]), text, flags)[1]
    if op is sre.GROUPREF:  # compares the text a group matched
        return 1.0, float(text.size)
    return 1.0, 1.0  # one character, or one position (^, $, \b)


def _repeat(low: int, high: int, body, text: _Text, flags: int) -> tuple[float, float]:
    """Return (ways, work) of a repeat; raise Unbounded for one whose body can match in more than one way."""
    ways, work = _sequence(list(body), text, flags)
    if high <= 1:  # x? (or x{1}, x{0})
        return (1.0 + ways, 1.0 + work) if low < high else (ways, work) if high else (1.0, 1.0)
    if ways > 1:
        raise Unbounded(f"it repeats ({{{low},{'' if high == sre.MAXREPEAT else high}}}) a part that can match in "
                        "more than one way, as in (a+)+, (a|ab)* or (a?)*")
    if low == high:
        return 1.0, max(low, 1) * work
    times = min(high, text.size // max(body.getwidth()[0], 1))
    return float(max(times - low, 0) + 1), max(times, 1) * work


def keys(table: str) -> frozenset[str]:
    """Return the field names of one table."""
    return frozenset(f.name for f in FIELDS if f.table == table)


def reference() -> str:
    """Return the field reference as markdown (``docs/oracle-format.md``)."""
    out = ["# The oracle's format", "",
           "Written from `suitegen/oracle/fields.py` (`suitegen rules --format`): the loaders take their fields from "
           "the same table. How the fields work together is in [oracle.md](oracle.md).", ""]
    for table in dict.fromkeys(f.table for f in FIELDS):
        out += [f"## {table}", "", "| field | type | required | meaning |", "|---|---|---|---|"]
        out += [f"| `{f.name}` | {f.type} | {'yes' if f.required else ''} | {f.meaning} |"
                for f in FIELDS if f.table == table]
        out.append("")
    return "\n".join(out)
