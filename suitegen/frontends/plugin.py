"""pytest plugin: each (case, config) is one item, judged by the same engine as ``suitegen run``.

Opt in with ``pytest --suitegen [ORACLE_DIR or rule files]`` (the built-in oracle when no path
names one), or collect a materialised corpus with ``pytest generated/<name>`` (its manifest.json).
The options are ``suitegen run``'s, spelled ``--suitegen-NAME``. Every pytest session in the
environment loads this module, so it imports only pytest and the options layer here; the engine
is imported when a session uses suitegen.
"""
from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path

import pytest

from suitegen.cases.corpus import MANIFEST
from suitegen.engine import options

SECTIONS = "sections.toml"  # marks an oracle folder
MARKER = "suitegen_gpu"
_STOPPING_CHILDREN = False  # whether a session of this process uses suitegen: a stop then kills its children


def pytest_addoption(parser):
    group = parser.getgroup("suitegen", "CUDA C++ conformance suites")
    group.addoption("--suitegen", action="store_true", help="collect the oracle's rule files as tests (the "
                    "built-in oracle, or the oracle folder or rule files given as paths)")
    group.addoption("--suitegen-out", metavar="DIR", help="also append records to DIR/results.jsonl (a run "
                    "folder this session holds while it runs)")
    options.add_pytest_options(group)


def _active(config) -> bool:
    """Whether this session uses suitegen (decided once, in pytest_configure)."""
    return getattr(config, "_suitegen_active", False)


def _collects_corpus(config) -> bool:
    return any(Path(a.split("::")[0]).joinpath(MANIFEST).exists() or a.endswith(MANIFEST) for a in config.args)


def pytest_configure(config):
    config._suitegen_active = bool(config.getoption("suitegen", False)) or _collects_corpus(config)
    if not _active(config):
        return
    global _STOPPING_CHILDREN
    _STOPPING_CHILDREN = True
    if threading.current_thread() is threading.main_thread():  # a scheduler's SIGTERM stops it as Ctrl-C does
        config._suitegen_signals = {s: signal.signal(s, _interrupted) for s in (signal.SIGTERM, signal.SIGHUP)
                                    if signal.getsignal(s) == signal.SIG_DFL}
    config.addinivalue_line("markers", f"{MARKER}: a suitegen item that runs a program on a GPU")
    worker = getattr(config, "workerinput", {}).get("workerid")
    if worker:
        # Pin before anything initialises CUDA; programs this worker runs inherit the choice.
        from suitegen.execute.gpus import detect_gpu, pin_worker_gpu
        gpu = detect_gpu()
        pinned = pin_worker_gpu(worker, os.environ.get("CUDA_VISIBLE_DEVICES"), len(gpu.devices))
        if gpu.available and pinned is not None:
            os.environ["CUDA_VISIBLE_DEVICES"] = pinned
    elif config.getoption("suitegen_out"):
        from suitegen.report.run_folder import RunFolderBusy, RunLock
        out = config.getoption("suitegen_out")
        try:  # the controller holds the run folder; its xdist workers append under it
            config._suitegen_lock = RunLock(out, "pytest --suitegen").acquire()
        except RunFolderBusy as exc:
            raise pytest.UsageError(f"suitegen: {exc}") from None
        except OSError as exc:
            raise pytest.UsageError(f"suitegen: --suitegen-out {out}: cannot write there ({exc.strerror})") from None
    if config.getoption("suitegen"):
        config._suitegen_oracle = _oracle_dir(config)
        if config.args_source is not pytest.Config.ArgsSource.ARGS:
            config.args[:] = [config._suitegen_oracle]  # no path given: collect the oracle itself


def _oracle_dir(config) -> str:
    """Return the one oracle folder of this session: the paths given, else --suitegen-oracle, else the built-in."""
    named = config.getoption("suitegen_oracle")
    found = set()
    if config.args_source is pytest.Config.ArgsSource.ARGS:
        for arg in config.args:
            path = Path(arg.split("::")[0])
            folder = path if path.is_dir() else path.parent
            if (folder / SECTIONS).exists():
                found.add(str(folder.resolve()))
    if named:
        found.add(str(Path(named).resolve()))
    if len(found) > 1:
        raise pytest.UsageError(f"suitegen: one session runs one oracle, not {', '.join(sorted(found))}")
    if found:
        return found.pop()
    from suitegen import resources
    return str(resources.oracle_root())


def pytest_sessionstart(session):
    """Open the engine session and plan the oracle's matrix before collection, so that a bad option (a missing
    nvcc, an unknown -std or arch) is one usage error, not one collection error per oracle file."""
    config = session.config
    if _active(config):
        _session(config)
        if config.getoption("suitegen"):
            _configs(config, None)


def _interrupted(signum, frame):
    """SIGTERM or SIGHUP (a farm's time limit, a closed terminal): the session stops as on Ctrl-C, so pytest still
    writes its summary and its JUnit file (``pytest_keyboard_interrupt`` stops the compiles under way)."""
    raise KeyboardInterrupt(f"stopped by {signal.Signals(signum).name}")


def pytest_keyboard_interrupt(excinfo):
    """A stopped suitegen session leaves no compile or run of its own behind (each runs in a process group of its
    own, which a terminal's Ctrl-C does not reach)."""
    if _STOPPING_CHILDREN:
        from suitegen import procs
        procs.stop_all()


def pytest_unconfigure(config):
    for s, handler in getattr(config, "_suitegen_signals", {}).items():
        signal.signal(s, handler)
    from_session = getattr(config, "_suitegen_session", None)
    if from_session is not None:
        from_session.close()
    lock = getattr(config, "_suitegen_lock", None)
    if lock is not None:
        lock.release()


def pytest_report_header(config):
    if not _active(config):
        return None
    s = _session(config)
    tcs = ", ".join(f"{t.label} {t.version_str} ({t.fingerprint})" for t in s.toolchains)
    gpu = "execution skipped: " + s.execution_skipped if s.execution_skipped else \
        "executing on " + "; ".join(s.gpu.devices)
    return [f"suitegen: {tcs}", f"suitegen: {gpu}"]


def pytest_collection_modifyitems(session, config, items):
    """A --suitegen-rules pattern that matches no collected rule is a usage error (a typo must not pass)."""
    patterns = config.getoption("suitegen_rules", None) if _active(config) else None
    if not patterns:
        return
    from suitegen.qualification.session import SelectionError, selection
    try:
        _, config._suitegen_notes = selection(list(config.__dict__.get("_suitegen_rules_seen", {}).values()),
                                              patterns)
    except SelectionError as exc:
        raise pytest.UsageError(f"suitegen: {exc}") from None


def pytest_report_collectionfinish(config, start_path, items):
    return [f"suitegen: {note}" for note in getattr(config, "_suitegen_notes", ())]


def pytest_collect_file(file_path: Path, parent):
    if not _active(parent.config):
        return None
    if file_path.name == MANIFEST:
        try:
            data = json.loads(file_path.read_text())
        except (OSError, ValueError):
            return None
        if isinstance(data, dict) and "format" in data and "cases" in data:
            return CorpusFile.from_parent(parent, path=file_path)
    if (file_path.suffix == ".toml" and parent.config.getoption("suitegen", False)
            and str(file_path.parent.resolve()) == parent.config._suitegen_oracle):
        return (GeneratedFile if file_path.name == SECTIONS else SectionFile).from_parent(parent, path=file_path)
    return None


def _session(config):
    """Return this process's engine session (toolchains and GPU probed once per xdist worker)."""
    from dataclasses import replace

    from suitegen import resources
    from suitegen.compilers.toolchain import ToolchainError
    from suitegen.qualification import unit_kinds  # noqa: F401 - every unit kind registered before units are formed
    from suitegen.qualification.session import open_session
    from suitegen.oracle.loader import OracleError
    session = getattr(config, "_suitegen_session", None)
    if session is None:
        opts = options.from_namespace(config.option, prefix="suitegen_")
        oracle = getattr(config, "_suitegen_oracle", None)
        if oracle == str(resources.oracle_root()):
            oracle = None  # the built-in oracle, as ``suitegen run`` has it (its profile's generated corpus too)
        try:
            session = config._suitegen_session = open_session(replace(opts, oracle=oracle or opts.oracle), cases=[],
                                                              checks=options.resolve_profile(opts).checks)
        except (ToolchainError, OracleError, ValueError) as exc:
            raise pytest.UsageError(f"suitegen: {exc}") from None
    return session


def _configs(config, base) -> list:
    """Return the configs of this session's matrix on ``base`` (a corpus's own matrix; None: the profile's), planned
    once per base; a bad -std or arch is a usage error."""
    from suitegen.qualification.session import configs_for
    planned = config.__dict__.setdefault("_suitegen_configs", {})
    if base not in planned:
        session = _session(config)
        try:
            planned[base] = configs_for(session.toolchains, options.resolve_profile(session.options, base))
        except ValueError as exc:
            raise pytest.UsageError(f"suitegen: {exc}") from None
    return planned[base]


class _SuiteFile(pytest.File):
    def _cases(self) -> list:
        raise NotImplementedError

    def _base_profile(self):
        return None

    def collect(self):
        from suitegen.qualification.batch_units import batch_id
        from suitegen.qualification.item import units
        from suitegen.qualification.session import item_name, plan, rule_matches
        session = _session(self.config)
        found = self._cases()
        # every rule collected, for the check that each --suitegen-rules pattern matched one of them
        self.config.__dict__.setdefault("_suitegen_rules_seen", {}).update({c.rule.id: c.rule for c in found})
        patterns = session.options.rules
        cases = [c for c in found if not patterns or any(rule_matches(c.rule, p) for p in patterns)]
        configs = _configs(self.config, self._base_profile())
        several = len(session.toolchains) > 1
        items = plan(cases, configs)
        # Items stay one per (case, config); a worker builds each batch once for all of its items that it
        # runs. Under --dist loadfile a section's items share a worker; the xdist_group marker does the same
        # for --dist loadgroup where xdist and pytest agree on node ids (xdist 3.8 with pytest 9.2 do not).
        unit_of = {}
        for unit in units(items, batching=session.options.batch != "off", deviations=session.oracle.deviations):
            if len(unit.cases) > 1:
                group = batch_id(unit.cases, unit.config)
                for case in unit.cases:
                    unit_of[(case.key, unit.config.key)] = (group, unit)
        for case, cfg in items:
            name = item_name(case, cfg, several).split("[", 1)[1]
            group, unit = unit_of.get((case.key, cfg.key), (None, None))
            item = SuitegenItem.from_parent(self, name=f"{case.rule.id}[{name}", case=case, cfg=cfg, unit=unit)
            if group:
                item.add_marker(pytest.mark.xdist_group(name=f"suitegen-{group}"))
            yield item



class SectionFile(_SuiteFile):
    """An oracle section file: its rules rendered into cases."""

    def _cases(self):
        from suitegen.cases.render import Renderer, RenderError
        session = _session(self.config)
        rules = [r for r in session.oracle.rules if r.section == self.path.stem]
        try:
            return Renderer(session.options.templates).render_all(rules)
        except RenderError as exc:  # a broken template is one collection error naming it
            raise self.CollectError(str(exc)) from None


class GeneratedFile(_SuiteFile):
    """The profile's generated corpus (``[profile.NAME.generated]``, ``--suitegen-generated``), collected from the
    oracle folder's sections.toml: its injected programs and its programs, as ``suitegen run`` has them."""

    def _cases(self):
        from suitegen.qualification.session import corpus_cases
        session = _session(self.config)
        corpus = options.resolve_profile(session.options).generated
        return corpus_cases(session.options, session.oracle, corpus) if corpus else []


class CorpusFile(_SuiteFile):
    """A materialised corpus (generated/<name>/manifest.json)."""

    def _cases(self):
        from suitegen.cases.corpus import read_corpus
        try:
            return read_corpus(self.path)
        except Exception as exc:
            raise self.CollectError(f"{self.path}: {exc}") from None

    def _base_profile(self):
        from suitegen.cases.corpus import read_corpus_profile
        return read_corpus_profile(self.path)


class SuitegenFailure(Exception):
    """A failing verdict (FAIL, UNRESOLVED, XPASS), with the record to show."""

    def __init__(self, record):
        super().__init__(record.reason)
        self.record = record


class SuitegenItem(pytest.Item):
    """One case under one config."""

    def __init__(self, *, case, cfg, unit=None, **kw):
        super().__init__(**kw)
        self.case, self.cfg, self.unit = case, cfg, unit
        if case.variant.expectation.expect.value == "runtime":
            self.add_marker(MARKER)

    def _record(self, session):
        """Return this item's record: built alone, or taken from its batch (built once per process)."""
        from suitegen.qualification.item import run_all, run_one
        if self.unit is None:
            return run_one(session, self.case, self.cfg)
        done = self.config.__dict__.setdefault("_suitegen_batches", {})
        if id(self.unit) not in done:
            done[id(self.unit)] = {r.key: r for r in run_all(session, self.unit)}
        return done[id(self.unit)].pop((self.case.key, self.cfg.key))

    def runtest(self):
        from suitegen.model import Verdict
        from suitegen.report.junit_xml import properties
        session = _session(self.config)
        record = self._record(session)
        out = self.config.getoption("suitegen_out")
        if out:
            from suitegen.report.run_folder import ResultsFile
            ResultsFile(out).append(record)
        self.user_properties.extend(properties(record))
        if record.verdict is Verdict.UNSUPPORTED:
            pytest.skip(record.reason)
        if record.verdict is Verdict.XFAIL:
            pytest.xfail(record.reason)
        if record.verdict.fails(session.options.allow_xpass):
            raise SuitegenFailure(record)

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, SuitegenFailure):
            from suitegen.model import plain
            r = excinfo.value.record
            lines = [f"{r.verdict.value}: {r.reason}", f"rule: {r.rule} ({self.case.rule.statement})"]
            if r.expected:
                lines.append(f"expected: {json.dumps(r.expected.to_json())}")
            if r.observed:
                lines.append(f"observed: {r.observed.outcome.value} in {plain(r.observed.phase)}")
                lines += [f"  {d.severity}: {d.file or ''}({d.line or ''}) {d.message}"
                          for d in r.observed.diagnostics[:10]]
                lines += ["command: " + " ".join(c) for c in r.observed.commands]
            lines.append("source:")
            lines += [f"{i + 1:4}  {text}" for i, text in enumerate(self.case.files[self.case.main_file].splitlines())]
            return "\n".join(lines)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, self.name
