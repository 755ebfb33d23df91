"""The oracle's format as data: every field of a rule, a variant, a deviations file and a statement, with its
type, whether it is required and what it means. The loaders take their field sets from here, an unknown or
mistyped field's message quotes it, and ``docs/oracle-format.md`` is written from it (``reference``)."""
from __future__ import annotations

from dataclasses import dataclass

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
    Field("statement", "seed", "string", True, "the source document it comes from"),
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
