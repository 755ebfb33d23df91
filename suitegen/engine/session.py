"""The one engine that the CLI and the pytest plugin share: plan the matrix, run one item."""
from __future__ import annotations

import fnmatch
import os
import tempfile
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Sequence

from suitegen.engine import matrix
from suitegen.oracle import loader as oracle_mod
from suitegen.build import registry
from suitegen.build import toolchain as tc_mod
from suitegen.build.compile import DEFAULT_TIMEOUT, compile_case, program_path
from suitegen.execute.checks import CHECKS
from suitegen.execute.programs import DEFAULT_EXEC_TIMEOUT, FatbinRunner, GpuPool, run_program
from suitegen.judge.verdicts import expectation_for, judge, make_env, unsupported_reason
from suitegen.model import Case, Config, Expect, Mode, Record, Std, Toolchain, arch_number
from suitegen.cases.render import Renderer

DEFAULT_STDS = ("c++11", "c++14", "c++17", "c++20")
DEFAULT_ARCHS = ("sm_80", "sm_90")


@dataclass
class Session:
    """What is loaded and probed once per process: oracle, cases, toolchains, GPU."""

    oracle: oracle_mod.Oracle
    cases: list[Case]
    toolchains: list[Toolchain]
    features: dict[str, frozenset[str]]  # toolchain fingerprint -> detected features
    gpu: tc_mod.GpuInfo
    timeout: float = DEFAULT_TIMEOUT
    execution_skipped: str | None = field(default=None)  # None: runtime cases are executed
    gpus: GpuPool | None = None
    exec_timeout: float = DEFAULT_EXEC_TIMEOUT
    fatbin: FatbinRunner | None = None


def select_rules(rules, patterns: Sequence[str]):
    """Return the rules whose id or section key matches any glob (all rules if none given)."""
    if not patterns:
        return list(rules)
    return [r for r in rules if any(fnmatch.fnmatchcase(r.id, p) or fnmatch.fnmatchcase(r.section, p)
                                    for p in patterns)]


def load_rules(oracle_dir=None, templates_dir=None, patterns: Sequence[str] = ()):
    """Load the oracle, select rules and check their templates; return (oracle, rules, renderer)."""
    orc = oracle_mod.load(oracle_dir)
    rules = select_rules(orc.rules, patterns)
    renderer = Renderer(templates_dir) if templates_dir else Renderer()
    renderer.check_templates(rules)
    return orc, rules, renderer


def load_cases(oracle_dir=None, templates_dir=None, patterns: Sequence[str] = ()):
    """Load the oracle and render the selected rules' cases; raises on any malformed input."""
    orc, rules, renderer = load_rules(oracle_dir, templates_dir, patterns)
    return orc, renderer.render_all(rules)


def open_session(nvcc: Sequence[str] = (), oracle_dir=None, templates_dir=None,
                 patterns: Sequence[str] = (), timeout: float = DEFAULT_TIMEOUT,
                 no_exec: bool = False, exec_timeout: float = DEFAULT_EXEC_TIMEOUT,
                 cases: Sequence[Case] | None = None, toolchains_file: str | None = None) -> Session:
    """Load and validate everything, probe the toolchains and the GPU; raise before any compile."""
    if cases is None:
        orc, cases = load_cases(oracle_dir, templates_dir, patterns)
    else:
        orc = oracle_mod.load(oracle_dir)
    toolchains = probe_toolchains(nvcc, toolchains_file)
    gpu = tc_mod.detect_gpu()
    features = {t.fingerprint: tc_mod.machine_features(t) | ({"gpu"} if gpu.available else set())
                for t in toolchains}
    skipped = None
    if no_exec:
        skipped = "execution disabled (--no-exec)"
    elif not gpu.available:
        skipped = f"no GPU: {gpu.reason}"
    gpus = None if skipped else GpuPool(os.environ.get("CUDA_VISIBLE_DEVICES"), gpu.devices)
    return Session(oracle=orc, cases=list(cases), toolchains=toolchains, features=features, gpu=gpu,
                   timeout=timeout, execution_skipped=skipped, gpus=gpus, exec_timeout=exec_timeout,
                   fatbin=FatbinRunner(gpus, exec_timeout) if gpus else None)


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
        out = [replace(t, name=t.name or f"nvcc-{t.version_str}") for t in out]
    fps = [t.fingerprint for t in out]
    if len(set(fps)) < len(fps):
        raise tc_mod.ToolchainError("the same toolchain was given twice (identical fingerprints)")
    return out


def parse_list(values: Iterable[str] | None, default: Sequence[str]) -> list[str]:
    """Split comma-separated, repeatable option values into one de-duplicated list."""
    out: list[str] = []
    for value in values or ():
        for part in value.split(","):
            part = part.strip()
            if part and part not in out:
                out.append(part)
    return out or list(default)


def make_configs(toolchains: Sequence[Toolchain], stds: Sequence[str] = DEFAULT_STDS,
                 archs: Sequence[str] = DEFAULT_ARCHS, flag_sets: Sequence[str] = ("",)) -> list[Config]:
    """Return the run matrix from option lists: toolchains x -std x arch x flag sets."""
    return configs_for(toolchains, matrix.from_options(stds, archs, flag_sets))


def configs_for(toolchains: Sequence[Toolchain], prof: matrix.Profile) -> list[Config]:
    """Return the run matrix of a profile. Raises ValueError on a bad -std or arch."""
    std_levels = sorted({Std.parse(s) for s in prof.stds})
    for a in prof.archs:
        arch_number(a)
    return [Config(toolchain=t, std=s, arch=a, flags=fs.flags, sections=fs.sections)
            for t in toolchains for s in std_levels for a in prof.archs for fs in prof.flagsets]


def plan(cases: Sequence[Case], configs: Sequence[Config]) -> list[tuple[Case, Config]]:
    """Return every (case, config) pair whose flag set applies to the case's section, in a stable order."""
    return [(c, cfg) for c in cases for cfg in configs if cfg.applies_to(c.rule.section)]


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def run_one(session: Session, case: Case, config: Config) -> Record:
    """Compile (if applicable), run (if a runtime case and a GPU is here) and judge one case."""
    started = now()
    env = make_env(config, case, session.features.get(config.toolchain.fingerprint, frozenset()))
    result = execution = None
    if unsupported_reason(case, env) is None:
        with tempfile.TemporaryDirectory(prefix="suitegen-") as tmp:
            folder = Path(tmp)
            result = compile_case(case, config, folder, timeout=session.timeout)
            program = program_path(case, folder)
            runtime = expectation_for(case, env).expect is Expect.RUNTIME
            if runtime and result.outcome.accepted and program and session.gpus is not None:
                if case.variant.mode is Mode.FATBIN:
                    check = CHECKS[case.variant.check](case.variant.params)
                    execution = session.fatbin.run(program, check)
                else:
                    execution = run_program(program, folder, session.exec_timeout, session.gpus.take())
    judgement = judge(case, config, env, result, session.oracle.deviations,
                      execution_skipped=session.execution_skipped, execution=execution)
    return Record(case=case, config=config, judgement=judgement, result=result, started=started,
                  execution=execution)
