"""Generated programs as qualification cases: program ``i`` of a seed, self-checking, in section ``generated``.

The same seed and index give the same program on every machine and toolkit (``populate.generate``), so two
toolkits' runs line up program by program. Even-numbered programs are drawn valid in C++11, the others in
the newest dialect the generator uses; each case requires the oldest ``-std`` level its program is valid in.
A program prints every output cell that differs from the value the model computed when it was made
(``emit.standalone``, in the oracle's words: ``emit.as_case``), so it is judged like any runtime case.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from dataclasses import replace

from suitegen.model import (FROZEN, GENERATED_SECTION, Case, Expect, Expectation, Mode, Rule, Std, Variant, bad_field,
                            digest, strings, whole)
from suitegen.oracle import conditions
from suitegen.synth import emit, inject, populate, reduce
from suitegen.synth.policies import CORPUS_MIX

SECTION = GENERATED_SECTION
FILE = "generated.cu"
# Float arithmetic is built without contraction, so the model's IEEE results are the device's. Flags that let
# the compiler compute otherwise (fast math, flush to zero, approximate division and square root, contraction)
# make the model's exact values no promise: a program with float arithmetic is not judged under them.
EXACT_FLOAT = "!fast-math && !ftz && !approx-div && !approx-sqrt && !fmad"
BATCH = 64  # programs per module build in a run (a campaign's files hold 32): 256 programs built 64 a module
# cost 10% less than 32 a module, at default and under -Xptxas -O0 (measured here, one core)
OBSERVE = ("one launch; the host compares every output cell with the value the model computed when the program "
           "was generated, and prints the wrong ones")


@dataclass(**FROZEN)
class Kernel:
    """A generated program as a member of a module of several (``emit.module_source``): its namespace and kernel,
    the prelude's snippets it uses, its launch (kernel, blocks, threads, output cells) and the cells the model
    computed."""

    text: str
    helpers: tuple[str, ...]
    launch: tuple[str, int, int, int]
    expected: tuple[int, ...]

    def to_json(self) -> dict:
        return {"text": self.text, "helpers": list(self.helpers), "launch": list(self.launch),
                "expected": list(self.expected)}

    FIELDS = {"text": (lambda v: isinstance(v, str), "a string"), "helpers": (strings, "a list of strings"),
              "launch": (lambda v: isinstance(v, list) and len(v) == 4 and isinstance(v[0], str)
                         and all(whole(1)(x) for x in v[1:]), "a kernel's name, blocks, threads and cells"),
              "expected": (lambda v: isinstance(v, list) and all(whole(0)(x) for x in v), "a list of cells")}

    @classmethod
    def from_json(cls, data) -> "Kernel":
        """Read ``to_json``'s form back; raises TypeError on another shape."""
        why = bad_field(data, cls.FIELDS)
        if why is None and len(data["expected"]) != data["launch"][3]:
            why = "its expected cells are not as many as its launch's"
        if why:
            raise TypeError(f"kernel: {why}")
        return cls(text=data["text"], helpers=tuple(data["helpers"]), launch=tuple(data["launch"]),
                   expected=tuple(data["expected"]))


@dataclass(**FROZEN)
class Drawn:
    """One program of a corpus, as a case needs it (what a cache keeps)."""

    seed: str
    index: int
    source: str  # the self-checking .cu file
    std: str  # the oldest -std level it is valid in
    policy: str
    floating: bool  # it computes with float or double
    kernel: Kernel
    tags: tuple[str, ...] = ()  # the oracle rules its constructs exercise

    def to_json(self) -> dict:
        return {**{f: getattr(self, f) for f in self.__dataclass_fields__}, "kernel": self.kernel.to_json()}

    FIELDS = {**{name: (lambda v, kind=kind: isinstance(v, kind), words)
                 for name, kind, words in (("seed", str, "a string"), ("index", int, "a whole number"),
                                           ("source", str, "a string"), ("std", str, "a string"),
                                           ("policy", str, "a string"), ("floating", bool, "true or false"))},
              "tags": (lambda v: v is None or strings(v), "a list of strings")}

    @classmethod
    def from_json(cls, data: dict) -> "Drawn":
        """Read ``to_json``'s form back; raises TypeError or ValueError on another shape."""
        why = bad_field(data, cls.FIELDS)
        if why:
            raise TypeError(why)
        Std.parse(data["std"])
        return cls(**{k: data[k] for k in cls.FIELDS if k != "tags"}, tags=tuple(data.get("tags") or ()),
                   kernel=Kernel.from_json(data.get("kernel")))


def program(seed: str, index: int):
    """Return the model's program ``index`` of corpus ``seed`` (``ir.Program``): even ones valid in C++11."""
    return _generated(seed, index)[0]


def _generated(seed: str, index: int) -> tuple:
    return populate.generated(seed, index, std=Std.CXX11 if index % 2 == 0 else None, mix=CORPUS_MIX)


def draw(seed: str, index: int) -> Drawn:
    """Return program ``index`` of corpus ``seed`` (a pool task: about 0.06 s of the model's work)."""
    made, ran = _generated(seed, index)
    expected = reduce.expected(made, ran)
    kernel = Kernel(text=emit.namespace(made) + emit.kernel(made), helpers=tuple(sorted(emit.helpers([made]))),
                    launch=emit.launch(made), expected=tuple(expected))
    return Drawn(seed=seed, index=index, source=emit.as_case(emit.standalone(made, expected)),
                 std=populate.dialect(made).value, policy=made.policy,
                 floating=bool(re.search(r"\b(float|double)\b", emit.reducible(made))), kernel=kernel, tags=made.tags)


def rule_id(seed: str, index: int) -> str:
    return f"{SECTION}/{seed}.p{index}"


def case(d: Drawn) -> Case:
    """Return the qualification case of a drawn program: one runtime variant, built with ``-fmad=false``."""
    variant = Variant(name="run", params={}, expectation=Expectation(expect=Expect.RUNTIME, observe=OBSERVE),
                      flags=("-fmad=false",), mode=Mode.LINK, batch_limit=BATCH, kernel=d.kernel,
                      requires=conditions.parse(EXACT_FLOAT) if d.floating else None,
                      note="float arithmetic: not judged where flags let the compiler compute otherwise"
                      if d.floating else "")
    rule = Rule(id=rule_id(d.seed, d.index), section=SECTION, templates={}, variants=(variant,),
                statement=(f"Program {d.index} of generated corpus {d.seed!r} (policy {d.policy}): every output "
                           "cell equals the value the model computed when it was generated."),
                requires=conditions.parse(f"std>={d.std}"), source_file=f"<generated {d.seed}>",
                note="constructs: " + (", ".join(d.tags) or "plain arithmetic"), edition="generated")
    return Case(rule=rule, variant=variant, files={FILE: d.source}, violation_line=None)


def invalid_rule_id(seed: str, program: str, violation: str, context: str) -> str:
    """Return the rule id of program ``program``'s invalid form with this violation in this context."""
    return f"{SECTION}/{seed}.{program}-{violation}-{context}"


def _violations(oracle) -> list[str]:
    known = {r.id for r in oracle.rules}  # an oracle of one's own may lack the rule a violation stands beside
    return [v.name for v in inject.VIOLATIONS if v.rule in known]


def invalid_ids(seed: str, per_cell: int, oracle) -> list[str]:
    """Return the rule ids of ``invalid_cases``, in its order, without drawing or injecting any program."""
    return [invalid_rule_id(seed, f"p{k}", name, c) for name in _violations(oracle) for c in inject.CONTEXTS
            for k in range(per_cell)]


def invalid_cases(seed: str, per_cell: int, oracle) -> list[Case]:
    """Return the corpus's invalid programs: each violation of ``synth.inject`` in each context, ``per_cell``
    programs a cell, as cases judged like the hand-written negative they stand beside (its rule's expectation:
    rejected by its phase, with its diagnostic, at the violation's line, under its conditions)."""
    out = []
    violations = _violations(oracle)
    dialects = {k: populate.dialect(populate.generate(seed, k, mix=CORPUS_MIX)).value
                for k in range(per_cell)}  # matrix's programs
    for inv in inject.matrix(seed, per_cell, violations) if violations else ():
        violation = inject.BY_NAME[inv.violation]
        hand = oracle.rule(violation.rule)
        negative = next(v for v in hand.variants if v.name == violation.case)
        needs = [c.text for c in (hand.requires,) if c is not None] + [f"std>={dialects[int(inv.program[1:])]}"]
        variant = replace(negative, params={}, strategies={}, mode=Mode.COMPILE, valid_in=None,
                          note=f"{violation.name} in a {inv.context}, {inv.depth} calls deep")
        rule = Rule(id=invalid_rule_id(seed, inv.program, inv.violation, inv.context), section=SECTION,
                    templates={}, variants=(variant,), requires=conditions.parse(" && ".join(f"({n})" for n in needs)),
                    statement=(f"Program {inv.program} of generated corpus {seed!r} with one violation of "
                               f"{violation.rule} ({violation.name}) in a {inv.context}: rejected as the "
                               f"hand-written {violation.rule}[{violation.case}] is."),
                    source_file=f"<generated {seed}>", edition="generated", note=hand.note, judged_as=hand.id)
        out.append(Case(rule=rule, variant=variant, files={inv.file: inv.source}, violation_line=inv.line))
    return out


def generator_version() -> str:
    """Return a digest of the generator's code: what a cached program depends on besides its seed and index."""
    from pathlib import Path
    folder = Path(__file__).resolve().parent
    return digest(*(p.read_text() for p in sorted(folder.glob("*.py"))))
