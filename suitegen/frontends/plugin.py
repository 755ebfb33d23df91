"""pytest plugin: each (case, config) is one item, judged by the same engine as ``suitegen run``.

Opt in with ``pytest --suitegen oracle/`` (the oracle's rule files) or collect a materialised
corpus with ``pytest generated/<name>`` (its manifest.json). The project's own tests never
collect the suite by accident: without --suitegen, rule files are not collected.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from suitegen import resources
from suitegen.engine import session as engine

from suitegen.engine import matrix

from suitegen.oracle import loader as oracle_mod

from suitegen.build import toolchain as tc_mod
from suitegen.cases.corpus import MANIFEST, read_corpus, read_corpus_profile
from suitegen.model import Case, Config, Verdict
from suitegen.cases.render import RenderError, Renderer
from suitegen.report.run_folder import ResultsFile

STASH = pytest.StashKey["engine.Session"]()


def pytest_addoption(parser):
    group = parser.getgroup("suitegen", "CUDA C++ conformance suites")
    group.addoption("--suitegen", action="store_true", help="collect the oracle's rule files as tests")
    group.addoption("--suitegen-nvcc", action="append", default=[], metavar="PATH", help="nvcc to test")
    group.addoption("--suitegen-std", action="append", metavar="LIST", help="-std levels, comma-separated")
    group.addoption("--suitegen-arch", action="append", metavar="LIST", help="arch targets, comma-separated")
    group.addoption("--suitegen-flags", action="append", metavar="FLAGS", help="extra flag set (repeatable)")
    group.addoption("--suitegen-rules", action="append", default=[], metavar="PATTERN",
                    help="glob over rule ids and section keys")
    group.addoption("--suitegen-out", metavar="DIR", help="also append records to DIR/results.jsonl")
    group.addoption("--suitegen-timeout", type=float, default=120.0, help="seconds per compile")
    group.addoption("--suitegen-profile", metavar="NAME", help="matrix profile (quick, default, nightly)")
    group.addoption("--suitegen-no-exec", action="store_true", help="compile only; never run on a GPU")


def pytest_configure(config):
    worker = getattr(config, "workerinput", {}).get("workerid")
    if worker and getattr(config.option, "suitegen", False) or worker and _collects_corpus(config):
        # Pin before anything initialises CUDA; programs this worker runs inherit the choice.
        gpu = tc_mod.detect_gpu()
        pinned = pin_worker_gpu(worker, os.environ.get("CUDA_VISIBLE_DEVICES"), len(gpu.devices))
        if gpu.available and pinned is not None:
            os.environ["CUDA_VISIBLE_DEVICES"] = pinned
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU")
    config.addinivalue_line("markers", "nvcc: needs a real nvcc")
    config.addinivalue_line("markers", "slow: takes more than a few seconds")


def pytest_unconfigure(config):
    session = config.stash.get(STASH, None)
    if session is not None and session.fatbin is not None:
        session.fatbin.close()


def _session(config) -> engine.Session:
    """Return this process's engine session (toolchains and GPU probed once per xdist worker)."""
    if STASH not in config.stash:
        opt = config.option
        try:
            config.stash[STASH] = engine.open_session(opt.suitegen_nvcc, timeout=opt.suitegen_timeout,
                                                      no_exec=opt.suitegen_no_exec, cases=[])
        except (tc_mod.ToolchainError, oracle_mod.OracleError) as exc:
            raise pytest.UsageError(f"suitegen: {exc}") from None
    return config.stash[STASH]


def pin_worker_gpu(worker_id: str, visible: str | None, count: int) -> str | None:
    """Return the CUDA_VISIBLE_DEVICES value for an xdist worker: round-robin over the caller's list."""
    ids = [v.strip() for v in visible.split(",") if v.strip()] if visible else [str(i) for i in range(count)]
    if not ids or not worker_id.startswith("gw"):
        return None
    return ids[int(worker_id[2:]) % len(ids)]


def _configs(config, default: "matrix.Profile | None" = None) -> list[Config]:
    """Return the configs: the options' matrix, else ``default`` (a corpus's own), else the default profile."""
    opt = config.option
    try:
        prof = default if default and not opt.suitegen_profile else matrix.profile(opt.suitegen_profile or "default")
        if opt.suitegen_std or opt.suitegen_arch or opt.suitegen_flags:
            prof = matrix.from_options(engine.parse_list(opt.suitegen_std, prof.stds),
                                       engine.parse_list(opt.suitegen_arch, prof.archs), opt.suitegen_flags or [""])
        return engine.configs_for(_session(config).toolchains, prof)
    except ValueError as exc:
        raise pytest.UsageError(f"suitegen: {exc}") from None


def _collects_corpus(config) -> bool:
    return any(Path(a.split("::")[0]).joinpath(MANIFEST).exists() or a.endswith(MANIFEST) for a in config.args)


def pytest_report_header(config):
    if STASH in config.stash or getattr(config.option, "suitegen", False):
        s = _session(config)
        tcs = ", ".join(f"{t.label} {t.version_str} ({t.fingerprint})" for t in s.toolchains)
        gpu = "execution skipped: " + s.execution_skipped if s.execution_skipped else \
            "executing on " + "; ".join(s.gpu.devices)
        return [f"suitegen: {tcs}", f"suitegen: {gpu}"]
    return None


def pytest_collect_file(file_path: Path, parent):
    opt = parent.config.option
    if file_path.name == MANIFEST:
        try:
            if json.loads(file_path.read_text()).get("format") is not None:
                return CorpusFile.from_parent(parent, path=file_path)
        except (OSError, ValueError):
            return None
    if (getattr(opt, "suitegen", False) and file_path.suffix == ".toml"
            and file_path.parent.resolve() == resources.oracle_root().resolve()
            and file_path.name != "sections.toml"):
        return SectionFile.from_parent(parent, path=file_path)
    return None


class _SuiteFile(pytest.File):
    def _cases(self) -> list[Case]:
        raise NotImplementedError

    def _profile(self):
        return None

    def collect(self):
        patterns = self.config.option.suitegen_rules
        cases = [c for c in self._cases() if engine.select_rules([c.rule], patterns)]
        configs = _configs(self.config, self._profile())
        for case in sorted(cases, key=lambda c: c.id):
            for cfg in (c for c in configs if c.applies_to(case.rule.section)):
                name = f"{case.rule.id}[{case.variant.name},{cfg.id}]"
                if len(configs) > 1 and len({c.toolchain.fingerprint for c in configs}) > 1:
                    name = f"{case.rule.id}[{case.variant.name},{cfg.toolchain.label},{cfg.id}]"
                yield SuitegenItem.from_parent(self, name=name, case=case, cfg=cfg)


class SectionFile(_SuiteFile):
    """An oracle section file: its rules rendered into cases."""

    def _cases(self):
        rules = [r for r in _session(self.config).oracle.rules if r.section == self.path.stem]
        try:
            return Renderer().render_all(rules)
        except RenderError as exc:  # a broken template is one collection error naming it
            raise self.CollectError(str(exc)) from None


class CorpusFile(_SuiteFile):
    """A materialised corpus (generated/<name>/manifest.json)."""

    def _cases(self):
        try:
            return read_corpus(self.path)
        except Exception as exc:
            raise self.CollectError(f"{self.path}: {exc}") from None

    def _profile(self):
        return read_corpus_profile(self.path)


class SuitegenFailure(Exception):
    """A FAIL or UNRESOLVED verdict, with the record to show."""

    def __init__(self, record: dict):
        super().__init__(record["reason"])
        self.record = record


class SuitegenItem(pytest.Item):
    """One case under one config."""

    def __init__(self, *, case: Case, cfg: Config, **kw):
        super().__init__(**kw)
        self.case, self.cfg = case, cfg
        if case.variant.expectation.expect.value == "runtime":
            self.add_marker(pytest.mark.gpu)

    def runtest(self):
        session = _session(self.config)
        record = engine.run_one(session, self.case, self.cfg)
        data = record.to_json()
        out = self.config.option.suitegen_out
        if out:
            ResultsFile(out).append(data)
        cfg = data["config"]
        for key, value in (("rule", data["rule"]), ("section", data["section"]), ("variant", data["variant"]),
                           ("toolchain", cfg["toolchain"]), ("fingerprint", cfg["fingerprint"]),
                           ("nvcc_version", cfg["nvcc_version"]), ("std", cfg["std"]), ("arch", cfg["arch"]),
                           ("flags", " ".join(cfg["flags"])), ("verdict", data["verdict"])):
            self.user_properties.append((key, value))
        verdict = Verdict(data["verdict"])
        if verdict is Verdict.UNSUPPORTED:
            pytest.skip(data["reason"])
        if verdict is Verdict.XFAIL:
            pytest.xfail(data["reason"])
        if verdict.is_failure:
            raise SuitegenFailure(data)

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, SuitegenFailure):
            r = excinfo.value.record
            lines = [f"{r['verdict']}: {r['reason']}", f"rule: {r['rule']} ({self.case.rule.statement})"]
            if r["expected"]:
                lines.append(f"expected: {json.dumps(r['expected'])}")
            if r["observed"]:
                lines.append(f"observed: {r['observed']['outcome']} in {r['observed']['phase']}")
                lines += [f"  {d['severity']}: {d.get('file') or ''}({d.get('line') or ''}) {d['message']}"
                          for d in r["observed"]["diagnostics"][:10]]
                lines += ["command: " + " ".join(c) for c in r["observed"]["commands"]]
            lines.append("source:")
            lines += [f"{i + 1:4}  {text}" for i, text in enumerate(self.case.files[self.case.main_file].splitlines())]
            return "\n".join(lines)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, self.name
