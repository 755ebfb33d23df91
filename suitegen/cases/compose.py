"""Composes programs: strategy-driven variants and multi-rule translation units, reproducibly.

A corpus is every oracle variant once (systematic coverage), then ``count`` more cases drawn by
hypothesis under a fixed seed: variants whose holes have strategies, with fresh parameters (the
oracle's predicate decides their expectation), and compositions of several rules' valid programs
in one translation unit, plus at most one violation so a rejection stays attributable.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from hypothesis import HealthCheck, Phase, given
from hypothesis import seed as hyp_seed
from hypothesis import settings
from hypothesis import strategies as st

from suitegen.cases.fragment import parse
from suitegen.cases.render import CHECK_MARK, Renderer
from suitegen.model import Case, Expect, Expectation, Mode, Rule, UsageError, Variant, digest

DEFAULT_SEED = 20261121
COMPOSITION = Rule(id="composition/valid", section="composition",
                   statement="A translation unit that combines the valid programs of several rules still compiles.",
                   templates={}, variants=())


def generative(rules: Sequence[Rule]) -> list[tuple[Rule, Variant]]:
    """Return the variants whose holes name strategies."""
    return [(r, v) for r in rules for v in r.variants if v.strategies]


def composable(case: Case) -> bool:
    """Whether a case can be one fragment of a composed translation unit."""
    v = case.variant
    fixed = v.predicate is None and v.expectation.expect in (Expect.ACCEPT, Expect.REJECT)
    simple = (v.mode is Mode.COMPILE and not v.flags and v.requires is None and case.rule.requires is None
              and len(case.files) == 1)
    if v.expectation.expect is Expect.REJECT and (not v.expectation.check_line or case.violation_line is None):
        return False
    return fixed and simple and _fits(case.files[case.main_file])


def _fits(text: str) -> bool:
    """Whether a file can be a fragment of a composition: it fits a namespace as a batch member does (see
    ``cases.fragment``), names no ``main`` (a composition is one compile-only unit), and has none of what
    compositions have always left out: macros, tests of ``__CUDA_ARCH__``, inline namespaces."""
    f = parse(text)
    return f.fits_namespace and not (f.mains or f.defines or f.arch_dependent or f.inline_namespace)


def compose(fragments: Sequence[Case], violation: Case | None = None) -> Case:
    """Return one translation unit holding each fragment in its own namespace, plus the violation's."""
    parts = [(parse(c.files[c.main_file]), c, False) for c in fragments]
    parts += [(parse(violation.files[violation.main_file]), violation, True)] if violation else []
    includes = list(dict.fromkeys(line for frag, _, _ in parts for line in frag.includes))
    bodies = []
    for i, (frag, case, keep_mark) in enumerate(parts):
        lines = frag.enclose(f"sg_fragment_{i}", note=case.id)
        bodies += lines if keep_mark else [line.replace(CHECK_MARK, "") for line in lines]
    text = "\n".join(includes + [""] + bodies) + "\n"
    name = "composed-" + digest([f.key for f in fragments], violation.key if violation else None, length=10)
    if violation is None:
        variant = Variant(name=name, params={"fragments": [f.id for f in fragments]},
                          expectation=Expectation(expect=Expect.ACCEPT))
        rule = COMPOSITION
    else:
        # Keep the violation's own name first, so its rule's known deviations still select it.
        variant = replace(violation.variant, name=f"{violation.variant.name}.{name}",
                          params={**violation.variant.params, "fragments": [f.id for f in fragments]})
        rule = violation.rule
    line = next((i + 1 for i, t in enumerate(text.splitlines()) if CHECK_MARK in t), None)
    return Case(rule=rule, variant=variant, files={"main.cu": text}, violation_line=line)


def drawn_variant(rule: Rule, variant: Variant, params: dict) -> Variant:
    """Return a variant of a generative one with freshly drawn params, named by their hash."""
    merged = {**variant.params, **params}
    return replace(variant, name=f"{variant.name}.gen-{digest(rule.id, variant.name, merged, length=10)}",
                   params=merged, strategies={})


def case_strategy(renderer: Renderer, rules: Sequence[Rule], systematic: Sequence[Case]) -> st.SearchStrategy[Case]:
    """Return a strategy of drawn cases: generative variants first (simpler), then compositions."""
    gen = generative(rules)
    pos = [c for c in systematic if composable(c) and c.variant.expectation.expect is Expect.ACCEPT]
    neg = [c for c in systematic if composable(c) and c.variant.expectation.expect is Expect.REJECT]
    options = []
    if gen:
        # strategies are made once, here and below: hypothesis validates and labels a new strategy object at its first
        # draw (half of drawing a corpus's cases went to that)
        made = [{k: strategy() for k, strategy in sorted(variant.strategies.items())} for _, variant in gen]

        @st.composite
        def from_generative(draw):
            i = draw(st.sampled_from(range(len(gen))))
            (rule, variant), strategies = gen[i], made[i]
            params = {k: draw(strategy) for k, strategy in strategies.items()}
            return renderer.render(rule, drawn_variant(rule, variant, params))
        options.append(from_generative())
    if len(pos) >= 2:
        fragments = st.lists(st.sampled_from(pos), min_size=2, max_size=5, unique_by=lambda c: c.key)
        violation = st.none() | st.sampled_from(neg) if neg else None

        @st.composite
        def composition(draw):
            frags = draw(fragments)
            bad = draw(violation) if violation is not None else None
            return compose(frags, bad)
        options.append(composition())
    if not options:
        raise UsageError("nothing to draw from: no variant names strategies and fewer than two composable cases")
    return st.one_of(options)


def draw_cases(strategy: st.SearchStrategy[Case], seed: int, count: int) -> list[Case]:
    """Return ``count`` distinct cases drawn from ``strategy`` under ``seed``: same seed, same cases."""
    found: dict[str, Case] = {}
    for round_ in range(20):  # hypothesis may repeat itself; more rounds with derived seeds fill the count
        if len(found) >= count:
            break

        @hyp_seed(seed + round_)
        @settings(max_examples=max(10, 2 * (count - len(found))), database=None, phases=[Phase.generate],
                  deadline=None, suppress_health_check=list(HealthCheck), derandomize=False)
        @given(strategy)
        def collect(case):
            if len(found) < count:
                found.setdefault(case.key, case)

        collect()
    return sorted(found.values(), key=lambda c: c.key)


def corpus(renderer: Renderer, rules: Sequence[Rule], seed: int = DEFAULT_SEED, count: int = 0) -> list[Case]:
    """Return every variant of ``rules`` once, then ``count`` drawn cases (fewer only if the space is smaller)."""
    systematic = renderer.render_all(rules)
    if count <= 0:
        return systematic
    keys = {c.key for c in systematic}
    drawn = [c for c in draw_cases(case_strategy(renderer, rules, systematic), seed, count) if c.key not in keys]
    return systematic + drawn
