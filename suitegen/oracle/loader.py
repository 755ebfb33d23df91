"""The only reader of ``oracle/``: rules, section keys and known deviations, validated on load.

Layout::

    oracle/sections.toml           key -> guide section title
    oracle/<section-key>.toml      the rules of one section
    oracle/deviations/<toolchain>/<section-key>.toml   known deviations, per version range
"""
from __future__ import annotations

import hashlib
import itertools
import re
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Mapping

from suitegen import hooks, resources
from suitegen.model import (FILE_NAME, FINDINGS_SECTION, GENERATED_RULE, UsageError, FROZEN, NAME, PHASE_GROUPS, VARIANT_NAME, Compiler, Deviation, Expect, Expectation, Mode,
                            Outcome, Phase, Rule, Variant, safe_file_name)
from suitegen.oracle import conditions, fields

RULE_KEYS, VARIANT_KEYS, DEVIATION_KEYS = fields.keys("rule"), fields.keys("variant"), fields.keys("deviation")
RUN_STATUSES = fields.RUN_STATUSES
# Warnings about the test program's own scaffolding, never evidence of what a rule is about: a deviation that
# matched one would hold for as long as an unrelated line of the program drew it.
INCIDENTAL_WARNINGS = ('variable "x" was declared but never referenced', 'variable "x" was set but never used',
                       'parameter "x" was declared but never referenced', "unused variable 'x'")
SEED_EDITION = "seeds"  # a rule's statement comes from the source documents unless it names a later edition
# A generated program of the run's corpus (synth.corpus: not an oracle file's rule): a deviation may name one


class OracleError(UsageError):
    """A malformed oracle file; the message names the file, the rule and the field."""

    def __init__(self, file: Path | str, message: str, rule: str | None = None,
                 field: str | None = None):
        where = str(file) + (f": rule {rule!r}" if rule else "") + (f": field {field!r}" if field else "")
        super().__init__(f"{where}: {message}")
        self.file, self.rule, self.field = str(file), rule, field


@dataclass(**FROZEN)
class Oracle:
    """Everything under oracle/, validated."""

    root: Path
    sections: Mapping[str, str]
    rules: tuple[Rule, ...]
    deviations: tuple[Deviation, ...]
    content_hash: str = ""  # of every file under the root: which oracle a run was judged by

    def rule(self, rule_id: str) -> Rule:
        for r in self.rules:
            if r.id == rule_id:
                return r
        raise KeyError(rule_id)


def load(root: Path | str | None = None) -> Oracle:
    """Load and validate the oracle under ``root`` (default: the built-in oracle)."""
    root = Path(root) if root else resources.oracle_root()
    if not root.is_dir():
        raise OracleError(root, "oracle folder not found")
    sections = _load_sections(root / "sections.toml")
    rules: list[Rule] = []
    for path in sorted(root.glob("*.toml")):
        if path.name != "sections.toml":
            rules.extend(load_rules(path, sections))
    seen: dict[str, str] = {}
    for r in rules:
        if r.id in seen:
            raise OracleError(r.source_file, f"duplicate rule id (also in {seen[r.id]})", rule=r.id)
        seen[r.id] = r.source_file
    deviations: list[Deviation] = []
    for path in sorted((root / "deviations").rglob("*.toml")):
        deviations.extend(load_deviations(path, seen))
    return Oracle(root=root, sections=sections, rules=tuple(rules), deviations=tuple(deviations),
                  content_hash=content_hash(root))


def content_hash(root: Path) -> str:
    """Return a hash of every oracle file's path and bytes."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.toml")):
        h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def _read_toml(path: Path) -> dict:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise OracleError(path, f"not valid TOML: {exc}") from None
    except OSError as exc:
        raise OracleError(path, f"cannot read: {exc.strerror}") from None


def _load_sections(path: Path) -> dict[str, str]:
    data = _read_toml(path)
    table = data.get("sections")
    if not isinstance(table, dict) or not table:
        raise OracleError(path, "expected a [sections] table of key = title", field="sections")
    for key in table:
        if not NAME.fullmatch(key):
            raise OracleError(path, f"section key {key!r} is not a plain name ({NAME.pattern})", field="sections")
    return {str(k): str(v) for k, v in table.items()}


def load_rules(path: Path, sections: Mapping[str, str]) -> list[Rule]:
    """Load the rules of one section file."""
    data = _read_toml(path)
    section = data.get("section")
    if section != path.stem:
        raise OracleError(path, f"section must be {path.stem!r} (the file name), got {section!r}",
                          field="section")
    if section not in sections:
        raise OracleError(path, f"section {section!r} is not a key of sections.toml", field="section")
    extra = set(data) - {"section", "rule"}
    if extra:
        raise OracleError(path, f"unknown top-level keys {sorted(extra)}", field=sorted(extra)[0])
    raw_rules = data.get("rule", [])
    if not isinstance(raw_rules, list) or not raw_rules:
        raise OracleError(path, "expected at least one [[rule]]", field="rule")
    return [_rule(path, section, raw) for raw in raw_rules]


def _get(raw: Mapping, key: str, kind, path: Path, rule: str | None, default=None, required=False):
    if key not in raw:
        if required:
            raise OracleError(path, "missing required field", rule=rule, field=key)
        return default
    value = raw[key]
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise OracleError(path, f"expected {names}, got {type(value).__name__}", rule=rule, field=key)
    return value


def _condition(text, path, rule, field):
    if text is None:
        return None
    try:
        return conditions.parse(text)
    except conditions.ConditionError as exc:
        raise OracleError(path, str(exc), rule=rule, field=field) from None


def _typed(path: Path, rid: str | None, raw: Mapping, table: str) -> None:
    """Refuse a field whose value is not of the type the field table gives it, or could run code or hang (flags
    outside the safe set, a regex that does not compile or could take exponential time)."""
    wrong = fields.mistyped(dict(raw), table) or fields.unsafe(dict(raw), table)
    if wrong is not None:
        raise OracleError(path, wrong[1], rule=rid, field=wrong[0])


def _hook(path: Path, rid: str | None, where: str, kind: str, name, field: str) -> hooks.HookRef | None:
    """Return the hook a field names (None for none), resolved now: an unknown name is a load error (``where``
    says which variant or param named it)."""
    try:
        return hooks.resolve(kind, name)
    except hooks.UnknownHook as exc:
        raise OracleError(path, f"{where}{exc}", rule=rid, field=field) from None


def _rule(path: Path, section: str, raw: Mapping) -> Rule:
    short = _get(raw, "id", str, path, None, required=True)
    rid = f"{section}/{short}"
    if not NAME.fullmatch(short):
        # ids become file names, shell words and JUnit names: nothing in one may escape them
        raise OracleError(path, f"a rule id is letters, digits and . _ - ({NAME.pattern})", rule=rid, field="id")
    unknown = set(raw) - RULE_KEYS
    if unknown:
        raise OracleError(path, f"unknown field (known: {sorted(RULE_KEYS)})", rule=rid,
                          field=sorted(unknown)[0])
    _typed(path, rid, raw, "rule")
    statement = _get(raw, "statement", str, path, rid, required=True).strip()
    if not statement:
        raise OracleError(path, "statement is empty", rule=rid, field="statement")
    if ("template" in raw) == ("templates" in raw):
        raise OracleError(path, "give exactly one of template / templates", rule=rid, field="template")
    if "template" in raw:
        templates = {"main.cu": _get(raw, "template", str, path, rid)}
    else:
        templates = dict(_get(raw, "templates", dict, path, rid))
        if not templates or not all(isinstance(v, str) for v in templates.values()):
            raise OracleError(path, "templates maps file names to template paths", rule=rid,
                              field="templates")
    bad = [name for name in templates if not safe_file_name(name)]
    if bad:
        # a case's files are written into a scratch folder, a run folder's reproducers and a corpus
        raise OracleError(path, f"file name {bad[0]!r} is not a plain file name: relative, no folder or '..', "
                          f"letters, digits and . _ + - ({FILE_NAME.pattern})", rule=rid, field="templates")
    defaults = {k: raw[k] for k in fields.RULE_DEFAULTS if k in raw}
    raw_variants = _get(raw, "variant", list, path, rid, required=True)
    variants: list[Variant] = []
    for rv in raw_variants:
        variants.extend(_variants(path, rid, {**defaults, **rv}))
    names = [v.name for v in variants]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise OracleError(path, f"duplicate variant names {dupes}", rule=rid, field="variant")
    variants = [_with_twin(path, rid, v, variants) for v in variants]
    construct = _get(raw, "construct", str, path, rid) if "construct" in raw else ""  # a regex: _typed checked it
    return Rule(id=rid, section=section, statement=statement, templates=templates,
                variants=tuple(variants), requires=_condition(raw.get("requires"), path, rid, "requires"),
                source_file=str(path), note=str(raw.get("note", "")), construct=construct,
                edition=str(raw.get("edition", SEED_EDITION)))


def _variants(path: Path, rid: str, raw: Mapping) -> list[Variant]:
    if not isinstance(raw, dict):
        raise OracleError(path, "each [[rule.variant]] must be a table", rule=rid, field="variant")
    unknown = set(raw) - VARIANT_KEYS
    if unknown:
        raise OracleError(path, f"unknown variant field (known: {sorted(VARIANT_KEYS)})", rule=rid,
                          field=sorted(unknown)[0])
    _typed(path, rid, raw, "variant")
    name_fmt = _get(raw, "name", str, path, rid, required=True)
    params = _get(raw, "params", dict, path, rid, default={})
    matrix = _get(raw, "matrix", dict, path, rid, default={})
    for k, vals in matrix.items():
        if not isinstance(vals, list) or not vals:
            raise OracleError(path, f"matrix entry {k!r} must be a non-empty list", rule=rid, field="matrix")
    if ("expect" in raw) == ("predicate" in raw):
        raise OracleError(path, f"variant {name_fmt!r}: give exactly one of expect / predicate",
                          rule=rid, field="expect")
    predicate = _hook(path, rid, f"variant {name_fmt!r}: ", "predicate", raw.get("predicate"), "predicate")
    expectation = None if predicate else _expectation(path, rid, raw, None)
    if predicate and "phase" not in raw:
        raise OracleError(path, f"variant {name_fmt!r}: a predicate variant needs the phase and "
                          "diagnostic to expect when it says reject", rule=rid, field="phase")
    predicate_reject = _expectation(path, rid, {**raw, "expect": "reject"}, None) if predicate else None
    flags = tuple(_get(raw, "flags", list, path, rid, default=[]))
    mode_text = _get(raw, "mode", str, path, rid, default="compile")
    try:
        mode = Mode(mode_text)
    except ValueError:
        raise OracleError(path, f"unknown mode {mode_text!r} (known: {[m.value for m in Mode]})",
                          rule=rid, field="mode") from None
    if (expectation or predicate_reject).expect is Expect.RUNTIME and mode is Mode.COMPILE:
        raise OracleError(path, f"variant {name_fmt!r}: a runtime variant builds a program: "
                          "set mode = \"link\" or \"rdc-link\"", rule=rid, field="mode")
    if (mode is Mode.FATBIN) != ("check" in raw):
        raise OracleError(path, f"variant {name_fmt!r}: a fatbin variant names a check (and only a fatbin variant "
                          "does)", rule=rid, field="check")
    check = _hook(path, rid, f"variant {name_fmt!r}: ", "check", raw.get("check"), "check")
    value = _value(path, rid, name_fmt, raw, expectation, mode, predicate is not None)
    requires = _condition(raw.get("requires"), path, rid, "requires")
    strategies = {param: _hook(path, rid, f"variant {name_fmt!r}: {param!r}: ", "strategy", strat, "strategies")
                  for param, strat in _get(raw, "strategies", dict, path, rid, default={}).items()}
    for param in strategies:
        if param not in params and param not in matrix:
            raise OracleError(path, f"variant {name_fmt!r}: strategy for {param!r}, which has no default "
                              "value in params", rule=rid, field="strategies")
    out = []
    keys = list(matrix)
    for combo in itertools.product(*(matrix[k] for k in keys)) if keys else [()]:
        p = {**params, **dict(zip(keys, combo))}
        try:
            name = name_fmt.format(**p)
        except (KeyError, IndexError, ValueError) as exc:
            raise OracleError(path, f"variant name {name_fmt!r} names an unknown param: {exc}",
                              rule=rid, field="name") from None
        if not VARIANT_NAME.fullmatch(name):
            raise OracleError(path, f"variant name {name!r} is letters, digits and . _ + - ({VARIANT_NAME.pattern})",
                              rule=rid, field="name")
        out.append(Variant(name=name, params=p, expectation=expectation or predicate_reject,
                           predicate=predicate, requires=requires, flags=flags, mode=mode,
                           note=str(raw.get("note", "")), strategies=strategies, check=check,
                           value=value))
    return out


# What a diagnose variant's pattern must name where no valid-dialect twin can tell its diagnostic from one the
# program gets anyway: what is wrong (not allowed, removed, needs another dialect, ...), in every alternative.
# A deprecation never does: a deprecated construct is still valid.
WHAT_IS_WRONG = ("not allowed", "not permitted", "not valid", "invalid", "removed", "no longer", "nonstandard",
                 r"c\+\+", "cannot", "may not", "must", "requires", "exactly one", "incompatible", "narrow",
                 "no instance", "no match", "no member", "not a member", "no operator", "too many", "undefined",
                 "undeclared", "not declared", "does not have", "not a constant")
VALID_EXPECTS = (Expect.ACCEPT, Expect.RUNTIME, Expect.WARN)


def twin_of(variant: Variant, variants: Iterable[Variant]) -> Variant | None:
    """Return a diagnose variant's valid-dialect twin: a variant of its rule building the same program (same
    params, mode and flags) that is expected to compile under another condition; None if it has none."""
    for other in variants:
        if (other.predicate is None and other.expectation.expect in VALID_EXPECTS and other.requires is not None
                and other.params == variant.params and other.mode is variant.mode and other.flags == variant.flags
                and (variant.requires is None or other.requires.text != variant.requires.text)):
            return other
    return None


def alternatives(pattern: str) -> list[str]:
    """Return a regex's top-level alternatives (split at each | outside parentheses and brackets)."""
    out, depth, start, i = [], 0, 0, 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        depth += 1 if ch in "([" else -1 if ch in ")]" else 0
        if ch == "|" and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
        i += 1
    return [*out, pattern[start:]]


def names_what_is_wrong(pattern: str) -> bool:
    """Return whether every alternative of a diagnostic pattern names what is wrong, and none a deprecation."""
    if "deprecat" in pattern.lower() or fields.search(pattern, "deprecated", re.I):
        return False
    return all(any(word in alt.lower() for word in WHAT_IS_WRONG) for alt in alternatives(pattern))


def _with_twin(path: Path, rid: str, variant: Variant, variants: list[Variant]) -> Variant:
    """Return a diagnose variant with where its program is valid (its twin's condition); without a twin its
    pattern must name what is wrong."""
    if variant.expectation.expect is not Expect.DIAGNOSE:
        return variant
    twin = twin_of(variant, variants)
    if twin is not None:
        return replace(variant, valid_in=twin.requires)
    if not names_what_is_wrong(variant.expectation.diagnostic or ""):
        raise OracleError(path, f"variant {variant.name!r}: a diagnose variant with no valid-dialect twin (a variant "
                          "with the same params expected to compile under another condition) needs a pattern whose "
                          f"every alternative names what is wrong ({', '.join(WHAT_IS_WRONG)}), never a "
                          "deprecation", rule=rid, field="diagnostic")
    return variant


def _value(path: Path, rid: str, name: str, raw: Mapping, expectation: Expectation | None, mode: Mode,
           decided: bool) -> int | None:
    """Return a variant's value check: the nonzero int its value function stores in out[0] (out starts at 0,
    so 0 could not fail), for a variant expected to compile to an object (``decided``: where its predicate
    says the program is valid)."""
    value = raw.get("value")
    if value is None:
        return None
    if type(value) is not int or value == 0 or not -2**31 <= value < 2**31:
        raise OracleError(path, f"variant {name!r}: value must be a nonzero 32-bit int (out[0] starts at 0, "
                          "so 0 could not fail)", rule=rid, field="value")
    valid = decided or (expectation is not None and expectation.expect in (Expect.ACCEPT, Expect.WARN))
    if not valid or mode is not Mode.COMPILE:
        raise OracleError(path, f"variant {name!r}: a value check is for a variant expected to compile "
                          "(accept or warn) in mode compile", rule=rid, field="value")
    return value


def _expectation(path: Path, rid: str, raw: Mapping, forced: Expect | None) -> Expectation:
    text = raw.get("expect", "reject" if forced else None)
    try:
        expect = forced or Expect(text)
    except ValueError:
        raise OracleError(path, f"unknown expect {text!r} (known: {[e.value for e in Expect]})",
                          rule=rid, field="expect") from None
    phase = raw.get("phase")
    diagnostic = raw.get("diagnostic")
    if expect in (Expect.REJECT, Expect.DIAGNOSE):
        if phase not in PHASE_GROUPS:
            raise OracleError(path, f"a {expect.value} expectation needs a phase, one of {sorted(PHASE_GROUPS)}"
                              f" (got {phase!r})", rule=rid, field="phase")
    if expect in (Expect.REJECT, Expect.WARN, Expect.DIAGNOSE):
        if not isinstance(diagnostic, str) or not diagnostic:
            raise OracleError(path, "a reject, warn or diagnose expectation needs a diagnostic pattern",
                              rule=rid, field="diagnostic")
    observe = raw.get("observe")
    if expect is Expect.RUNTIME and not observe:
        raise OracleError(path, "a runtime expectation needs observe (what the program must report)",
                          rule=rid, field="observe")
    return Expectation(expect=expect, phase=phase if expect in (Expect.REJECT, Expect.DIAGNOSE) else None,
                       diagnostic=diagnostic if expect in (Expect.REJECT, Expect.WARN, Expect.DIAGNOSE) else None,
                       check_line=bool(raw.get("line", True)), observe=observe)


def _evidence(path: Path, rid: str, observed: Outcome, match: str, run: str) -> None:
    """Refuse a compile deviation whose evidence is not the rule's own: one seen with warnings, rejected or
    crashed needs a match naming that diagnostic, and no match may be an incidental warning."""
    if not run and observed is not Outcome.ACCEPTED and not match:
        raise OracleError(path, f"a deviation observed {observed.value!r} needs a match: the diagnostic that is its "
                          "evidence (one observed 'accepted' needs none: warnings do not change it)", rule=rid,
                          field="match")
    if match and any(fields.search(match, text) for text in INCIDENTAL_WARNINGS):
        raise OracleError(path, "match is an incidental warning (an unused variable or parameter), not the rule's "
                          "evidence", rule=rid, field="match")


def load_deviations(path: Path, rule_files: Mapping[str, str]) -> list[Deviation]:
    """Load one deviations file; every entry must name a known rule."""
    data = _read_toml(path)
    unknown = set(data) - fields.keys("deviations file")
    if unknown:
        raise OracleError(path, f"unknown field (known: {sorted(fields.keys('deviations file'))})",
                          field=sorted(unknown)[0])
    default_when = data.get("when")
    if not isinstance(default_when, str):
        raise OracleError(path, "a deviations file needs when = \"nvcc==X.Y\" (its toolchain range)",
                          field="when")
    try:  # a deviation is one compiler's: nvcc's never cover NVRTC's or clang's items, nor theirs nvcc's
        compiler = Compiler(data.get("compiler", "nvcc"))
    except ValueError:
        raise OracleError(path, f"compiler is one of {[c.value for c in Compiler]} (default nvcc)",
                          field="compiler") from None
    out = []
    for raw in data.get("deviation", []):
        rid = raw.get("rule")
        unknown = set(raw) - DEVIATION_KEYS
        if unknown:
            raise OracleError(path, f"unknown field (known: {sorted(DEVIATION_KEYS)})", rule=rid,
                              field=sorted(unknown)[0])
        _typed(path, rid, raw, "deviation")
        if rid not in rule_files and not (isinstance(rid, str) and GENERATED_RULE.fullmatch(rid)):
            raise OracleError(path, "deviation names an unknown rule", rule=rid, field="rule")
        try:
            observed = Outcome(raw.get("observed"))
        except ValueError:
            raise OracleError(path, f"observed must be one of {[o.value for o in Outcome]}",
                              rule=rid, field="observed") from None
        try:
            phase = Phase(raw["phase"]) if "phase" in raw else None
        except ValueError:
            raise OracleError(path, f"phase must be one of {[p.value for p in Phase]}", rule=rid, field="phase") from None
        if phase is not None and observed.accepted:
            raise OracleError(path, "phase says where a rejection was seen: an accepted item has none", rule=rid,
                              field="phase")
        for key in ("diagnostic", "seen"):
            if not isinstance(raw.get(key), str):
                raise OracleError(path, "missing or not a string", rule=rid, field=key)
        match = raw.get("match", "")  # a regex: _typed checked it
        _evidence(path, rid, observed, match, raw.get("run", ""))
        when_text = default_when if "when" not in raw else f"({default_when}) && ({raw['when']})"
        variants = raw.get("variants", ["*"])
        if not isinstance(variants, list):
            raise OracleError(path, "variants is a list of globs", rule=rid, field="variants")
        run = raw.get("run", "")
        if run and run not in RUN_STATUSES:
            raise OracleError(path, f"run must be one of {RUN_STATUSES}", rule=rid, field="run")
        select = _hook(path, rid, "", "selector", raw.get("select"), "select")
        params = raw.get("params", {})
        if not isinstance(params, dict):
            raise OracleError(path, "params is a table of the case params it applies to", rule=rid, field="params")
        out.append(Deviation(rule=rid, variants=tuple(variants), params=params, run=run, select=select,
                             when=_condition(when_text, path, rid, "when"), observed=observed,
                             diagnostic=raw["diagnostic"], seen=raw["seen"], match=match, note=raw.get("note", ""),
                             source_file=str(path), compiler=compiler, phase=phase))
    return out
