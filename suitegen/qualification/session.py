"""What the CLI and the pytest plugin share: load and probe once, then plan the (case, config) items."""
from __future__ import annotations

import difflib
import fnmatch
import itertools
import os
import sys
import tempfile
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Sequence

from suitegen import resources
from suitegen.compilers import archs, cache, observe, registry
from suitegen.compilers import features as features_mod
from suitegen.compilers import toolchain as tc_mod
from suitegen.cases.render import Renderer
from suitegen.engine import generated
from suitegen.engine import hook_modules  # noqa: F401 - every hook registered before the oracle loads
from suitegen.engine.options import RunOptions
from suitegen.execute import deferred
from suitegen.execute.fatbin import FatbinRunner
from suitegen.execute.gpus import GpuInfo, GpuPool, detect_gpu
from suitegen.execute.images import GPU_CC, compute_capability
from suitegen.model import Case, CompileResult, Compiler, Config, CorpusSpec, ObservedConfig, RuleRef, Std, Toolchain, UsageError, arch_number
from suitegen.oracle import loader as oracle_mod
from suitegen.oracle import conditions
from suitegen.oracle.conditions import Features
from suitegen.synth import corpus as generated_corpus


class Twins:
    """The twins of diagnose items that a run builds in batches (``item.twin_units``), by (case key, config key):
    an item whose twin a batch is building waits for that batch; one no batch holds gets None."""

    def __init__(self) -> None:
        self._ready: dict[tuple[str, str], threading.Event] = {}
        self._built: dict[tuple[str, str], CompileResult] = {}

    def expect(self, keys) -> None:
        """Note the twins a queued batch will build."""
        for key in keys:
            self._ready.setdefault(key, threading.Event())

    def put(self, keys, built: dict) -> None:
        """Keep what a batch built (``built``: the twins it attributed) and release the items waiting on ``keys``."""
        self._built.update(built)
        for key in keys:
            self._ready[key].set()

    def planned(self, key: tuple[str, str]) -> bool:
        """Whether a batch builds (or built) this twin."""
        return key in self._ready

    def get(self, key: tuple[str, str]) -> CompileResult | None:
        ready = self._ready.get(key)
        if ready is not None:
            ready.wait()
        return self._built.get(key)


@dataclass
class Session:
    """What is loaded and probed once per process: oracle, cases, toolchains, GPU, observed configs."""

    oracle: oracle_mod.Oracle
    cases: list[Case]
    toolchains: list[Toolchain]
    features: dict[str, Features]  # toolchain fingerprint -> detected features (probed ones as they come)
    gpu: GpuInfo
    options: RunOptions
    execution_skipped: str | None = None  # None: runtime cases are executed
    gpus: GpuPool | None = None
    fatbin: FatbinRunner | None = None
    twins: Twins = field(default_factory=Twins)
    # (toolchain fingerprint, expected diagnostic): errors a batch showed to stop that toolchain's build at the
    # first of them; members expected to be rejected with one go alone at once (``batch_units.run_batch``).
    stoppers: set[tuple[str, str]] = field(default_factory=set)
    checks: tuple = ()  # the profile's params over every check hook's (``Profile.checks``)

    def check(self, case: Case, prep):
        """Return a module-check case's check: its variant's hook on its params, the profile's ``checks`` over them,
        except where a recorded deviation of its run covers the prepared item (``expectations.Preparation.seen``): that
        keeps the rule's own params, so the run looks where the deviation was seen (a smaller sample may miss it)."""
        seen = any(d.run for d in prep.seen)
        return case.variant.check({**case.variant.params, **({} if seen else dict(self.checks))})

    def observed(self, config: Config, case: Case) -> ObservedConfig | None:
        """Return what a build of this case's kind under this config does (probed once, see build.observe);
        None for another compiler than nvcc, whose options name the dialect and target it compiles for."""
        if config.toolchain.kind is not Compiler.NVCC:
            return None
        return observe.observe(config.toolchain, config.std, config.arch, build_flags(config, case),
                               timeout=self.options.timeout)

    def unhonoured(self, config: Config, case: Case, observed: ObservedConfig | None = None) -> str | None:
        """Return how the toolchain departs from the config for this case (``observed``: its probe, where the caller
        has it), or None if it honours it."""
        if config.toolchain.kind is not Compiler.NVCC:
            return None
        return observe.mismatch(observed or self.observed(config, case), config.std, config.arch,
                                build_flags(config, case))

    def close(self) -> None:
        if self.fatbin is not None:
            self.fatbin.close()
        cache.leave_store()


def build_flags(config: Config, case: Case) -> tuple[str, ...]:
    """Return the flags a case is built with beyond -std and the arch: the config's, the case's, its mode's."""
    return (*config.flags, *case.variant.flags, *case.mode_flags)


class SelectionError(UsageError):
    """A ``--rules`` pattern that matches no rule (a typo must not run nothing and pass)."""


def rule_matches(rule, pattern: str) -> bool:
    """Whether a ``--rules`` glob matches a rule: its id, its section key, or (a pattern without a section)
    its name within the section."""
    return (fnmatch.fnmatchcase(rule.id, pattern) or fnmatch.fnmatchcase(rule.section, pattern)
            or ("/" not in pattern and fnmatch.fnmatchcase(rule.id.split("/", 1)[-1], pattern)))


def selection(rules, patterns: Sequence[str]) -> tuple[list, list[str]]:
    """Return the rules any glob matches (all rules if none given) and notes on bare names that match rules
    of several sections; raise SelectionError naming each glob that matches nothing, with close matches."""
    if not patterns:
        return list(rules), []
    notes, unmatched = [], []
    for pattern in patterns:
        hits = [r for r in rules if rule_matches(r, pattern)]
        if not hits:
            unmatched.append(pattern)
        bare = [r.id for r in hits if not fnmatch.fnmatchcase(r.id, pattern) and not fnmatch.fnmatchcase(r.section,
                                                                                                       pattern)]
        if len({rid.split("/", 1)[0] for rid in bare}) > 1:
            notes.append(f"--rules {pattern} names a rule in {len(bare)} sections; all are selected: {', '.join(bare)}")
    if unmatched:
        names = sorted({r.id for r in rules} | {r.section for r in rules} | {r.id.split("/", 1)[-1] for r in rules})
        raise SelectionError("; ".join(f"--rules {p!r} matches no rule or section" + _close(p, names)
                                       for p in unmatched))
    return [r for r in rules if any(rule_matches(r, p) for p in patterns)], notes


def _close(pattern: str, names: Sequence[str]) -> str:
    close = difflib.get_close_matches(pattern, names, n=5, cutoff=0.6)
    return f" (close: {', '.join(close)})" if close else " (suitegen rules lists them)"


def select_rules(rules, patterns: Sequence[str]):
    """Return the rules ``--rules`` selects (see ``selection``), saying on stderr where a bare name selected
    rules of several sections."""
    chosen, notes = selection(rules, patterns)
    for note in notes:
        print(f"suitegen: {note}", file=sys.stderr)
    return chosen


def load_rules(opts: RunOptions):
    """Load the oracle, select rules and check their templates; return (oracle, rules, renderer)."""
    orc = oracle_mod.load(opts.oracle)
    rules = select_rules(orc.rules, opts.rules)
    renderer = Renderer(opts.templates)
    renderer.check_templates(rules)
    return orc, rules, renderer


def load_cases(opts: RunOptions, corpus: CorpusSpec | None = None):
    """Load the oracle and render the selected rules' cases, then the generated corpus's selected programs (and its
    injected ones); raises on any malformed input."""
    orc, cases, drawing = _selected(opts, corpus)
    return orc, cases + _drawn(drawing)


def _selected(opts: RunOptions, corpus: CorpusSpec | None):
    """Return the oracle, the selected rules' cases (with the corpus's injected programs), and the drawing of the
    corpus's programs the selection holds (``_drawn`` takes them): started at once where ``--rules`` selects the
    whole corpus, so that the programs are drawn while the oracle loads and renders."""
    if corpus is None:
        orc, rules, renderer = load_rules(opts)
        return orc, renderer.render_all(rules), None
    early = _drawing(opts, corpus, range(corpus.count)) if not opts.rules else None
    try:
        orc = oracle_mod.load(opts.oracle)
        invalid, programs = _corpus_rules(orc, corpus)
        chosen = select_rules([*orc.rules, *programs.values(), *invalid.values()], opts.rules)
        rules = [r for r in chosen if r.section != generated_corpus.SECTION]
        renderer = Renderer(opts.templates)
        renderer.check_templates(rules)
        wanted = {r.id for r in chosen if r.section == generated_corpus.SECTION}
        return (orc, [*renderer.render_all(rules), *_invalid(orc, corpus, wanted & invalid.keys())],
                early or _drawing(opts, corpus, [i for i, rule in programs.items() if rule.id in wanted]))
    except BaseException:
        if early:
            early.cancel()
        raise


def _corpus_rules(orc, corpus: CorpusSpec) -> tuple[dict[str, RuleRef], dict[int, RuleRef]]:
    """Return the rules a corpus's injected programs stand for, by id, and for each of its programs the rule it
    stands for: none of them drawn yet (``_invalid``, ``_drawing``)."""
    ids = generated_corpus.invalid_ids(corpus.seed, corpus.invalid, orc) if corpus.invalid else []
    return ({rid: RuleRef(id=rid, section=generated_corpus.SECTION) for rid in ids},
            {i: RuleRef(id=generated_corpus.rule_id(corpus.seed, i), section=generated_corpus.SECTION)
             for i in range(corpus.count)})


def _invalid(orc, corpus: CorpusSpec, wanted: set[str]) -> list[Case]:
    """Return the corpus's injected programs whose rules are ``wanted``, in the corpus's order (none injected where
    none is wanted)."""
    return [c for c in generated_corpus.invalid_cases(corpus.seed, corpus.invalid, orc)
            if c.rule.id in wanted] if wanted else []


def corpus_cases(opts: RunOptions, orc, corpus: CorpusSpec) -> list[Case]:
    """Return the cases of a corpus that ``--rules`` selects (all where it names none): its injected programs, then
    its programs, drawn or from the corpus cache (the pytest plugin's generated items)."""
    def picked(rule) -> bool:
        return not opts.rules or any(rule_matches(rule, p) for p in opts.rules)
    invalid, programs = _corpus_rules(orc, corpus)
    drawn = _drawn(_drawing(opts, corpus, [i for i, rule in programs.items() if picked(rule)]))
    return [*_invalid(orc, corpus, {rid for rid, rule in invalid.items() if picked(rule)}), *drawn]


def _drawing(opts: RunOptions, corpus: CorpusSpec, programs: Sequence[int]) -> generated.Drawing | None:
    """Start serving these programs of the corpus (drawn, or from the corpus cache); None where there are none."""
    return generated.Drawing(corpus.seed, programs, use_cache=not opts.no_cache) if programs else None


def _drawn(drawing: generated.Drawing | None) -> list[Case]:
    """Return a drawing's programs as cases."""
    return generated.as_cases(drawing.result()) if drawing else []


def open_session(opts: RunOptions, cases: Sequence[Case] | None = None, corpus: CorpusSpec | None = None,
                 checks: tuple = ()) -> Session:
    """Load and validate everything, probe the toolchains and the GPU; raise before any compile.

    The probes (the toolchains, their features, the GPU) run beside the oracle's loading and rendering; an
    oracle error is still the one reported first. The feature probes may still run when this returns: only a
    question about a probed feature waits for them (``conditions.Features``)."""
    if opts.builds_to and opts.builds_from:
        raise UsageError("--builds-to and --builds-from exclude each other: record builds here, or run recorded ones")
    tempfile.tempdir = resources.scratch_root()  # every scratch folder of the run (None: tempfile's own choice)
    detecting = ThreadPoolExecutor(max_workers=4, thread_name_prefix="suitegen-features")
    wanted: Future = Future()  # the probed features the run's conditions name: probed as soon as it is known
    drawing = None  # the corpus's programs, served meanwhile (cancelled where the session cannot open)
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            gpu_probe = pool.submit(detect_gpu)
            probes = None if opts.builds_from else pool.submit(_probed, opts.nvcc, opts.toolchains, detecting, wanted)
            try:
                if cases is None:
                    orc, cases, drawing = _selected(opts, corpus)
                else:
                    orc = oracle_mod.load(opts.oracle)
                wanted.set_result(_named_features(orc, cases))
            finally:
                if not wanted.done():  # the oracle did not load: nothing is asked, nothing waits
                    wanted.set_result(frozenset())
            if opts.builds_from:  # the compilers are not here: their identities, features and builds are in the store
                cache.use_store(cache.Store.REPLAY, opts.builds_from)
                try:
                    toolchains = cache.load_toolchains(opts.builds_from, orc.content_hash)
                except ValueError:
                    cache.leave_store()
                    raise
                machine = {t.fingerprint: features_mod.machine_features(t) for t in toolchains}
            else:
                toolchains, machine = probes.result()
            gpu = gpu_probe.result()
        detecting.shutdown(wait=False)  # what it was given still runs
        cases = [*cases, *_drawn(drawing)]
    except BaseException:
        if drawing:
            drawing.cancel()
        raise
    if opts.builds_to:
        cache.use_store(cache.Store.RECORD, opts.builds_to)
        cache.save_toolchains(toolchains, orc.content_hash)
        for t in toolchains:
            features_mod.machine_features(t)  # every probe's answer into the store, for its replay
    cc = compute_capability(gpu.devices[0]) if gpu.available and gpu.devices else None
    here = ({"gpu"} if gpu.available or opts.builds_to else set()) | ({f"{GPU_CC}{cc[0]}.{cc[1]}"} if cc else set())
    features = {t.fingerprint: machine[t.fingerprint] | here for t in toolchains}
    skipped = None
    if opts.builds_to:  # planned as a GPU run would be, so that everything it needs is built; nothing runs here
        return Session(oracle=orc, cases=list(cases), toolchains=toolchains, features=features, gpu=gpu,
                       options=opts, execution_skipped=deferred.WHY, gpus=GpuPool(None, ("none",)),
                       fatbin=deferred.Deferred(), checks=checks)
    if opts.no_exec:
        skipped = "execution disabled (--no-exec)"
    elif not gpu.available:
        skipped = f"no GPU: {gpu.reason}"
    gpus = None if skipped else GpuPool(os.environ.get("CUDA_VISIBLE_DEVICES"), gpu.devices)
    return Session(oracle=orc, cases=list(cases), toolchains=toolchains, features=features, gpu=gpu,
                   options=opts, execution_skipped=skipped, gpus=gpus,
                   fatbin=FatbinRunner(gpus, opts.exec_timeout) if gpus else None, checks=checks)


def _probed(specs: Sequence[str], toolchains_file: str | None, detecting: ThreadPoolExecutor,
            wanted: Future) -> tuple[list[Toolchain], dict[str, Features]]:
    """Return the probed toolchains and each one's detected features (by fingerprint; the feature probes that
    ``wanted`` names run in ``detecting``, any other where it is first asked for)."""
    toolchains = probe_toolchains(specs, toolchains_file)
    return toolchains, {t.fingerprint: features_mod.machine_features(t, detecting, wanted) for t in toolchains}


def _named_features(orc: oracle_mod.Oracle, cases: Sequence[Case]) -> frozenset[str]:
    """Return the features that the conditions of the cases' rules and variants, and of the deviations, name."""
    rules = {c.rule.id: c.rule for c in cases}.values()
    return conditions.named_features([*(r.requires for r in rules), *(c.variant.requires for c in cases),
                                      *(d.when for d in orc.deviations)])


def probe_toolchains(specs: Sequence[str] = (), toolchains_file: str | None = None) -> list[Toolchain]:
    """Probe the toolchains named by --nvcc (paths or registered names) and a toolchains file."""
    entries: list[tuple[str, str, str | None]] = []
    if toolchains_file:
        entries += registry.read_toolchains_file(toolchains_file)
    for spec in specs:
        path = registry.resolve(spec)
        entries.append((spec if path != spec else "", path, None))
    if not entries:
        entries = [("", p, None) for p in tc_mod.discover([])]
    out = []
    for name, path, host in entries:
        (nvcc,) = tc_mod.discover([path])
        out.append(tc_mod.probe(nvcc, name=name, host_flags=["-ccbin", host] if host else ()))
    labels = [t.label for t in out]
    if len(set(labels)) < len(labels):  # same minor version twice: tell them apart by full version
        out = [replace(t, name=t.name or f"{t.kind.value}-{t.version_str}") for t in out]
    labels = [t.label for t in out]
    # same version twice (two wrappers, two installs): by fingerprint, so that JUnit names, history columns
    # and reproducer folders stay apart
    out = [replace(t, name=f"{t.label}-{t.fingerprint[:8]}") if labels.count(t.label) > 1 else t for t in out]
    fps = [t.fingerprint for t in out]
    if len(set(fps)) < len(fps):
        raise tc_mod.ToolchainError("the same toolchain was given twice (identical fingerprints)")
    return out


def configs_for(toolchains: Sequence[Toolchain], prof, check: bool = True) -> list[Config]:
    """Return the run matrix of a profile. Raises ValueError on a bad -std or arch: one that is not spelled
    as one, or (``check``: the toolchains are real ones) that a toolchain does not know."""
    std_levels = sorted({Std.parse(s) for s in prof.stds})
    for a in prof.archs:
        arch_number(a)
    if check:
        archs.check(toolchains, prof.archs)
    corpus = prof.generated
    out = []
    for t, s, a, fs in itertools.product(toolchains, std_levels, prof.archs, prof.flagsets):
        if not fs.takes(s.value, a):
            continue  # a flag set built under fewer dialects or targets
        takes = corpus is not None and corpus.takes(s.value, a)
        if fs.sections and set(fs.sections) <= {generated_corpus.SECTION} and not takes:
            continue  # a flag set of the corpus alone, outside its dialects and targets
        excluded = (() if takes or corpus is None else (generated_corpus.SECTION,)) + tuple(
            sec for n in prof.narrowed if not n.takes(s.value, a) for sec in n.sections) + prof.skipped
        out.append(Config(toolchain=t, std=s, arch=a, flags=fs.flags, sections=fs.sections, excluded=excluded))
    return out


def plan(cases: Sequence[Case], configs: Sequence[Config]) -> list[tuple[Case, Config]]:
    """Return every (case, config) item whose flag set applies to the case's section, in a stable order."""
    return [(c, cfg) for c in cases for cfg in configs if cfg.applies(c)]


def item_name(case: Case, config: Config, several_toolchains: bool = False) -> str:
    """Return an item's name: ``rule[variant,config]``, with the toolchain when a run has several."""
    parts = [case.variant.name, *([config.toolchain.label] if several_toolchains else []), config.id]
    return f"{case.rule.id}[{','.join(parts)}]"


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
