"""Data types shared by every stage: rules, cases, configs, outcomes, verdicts."""
from __future__ import annotations

import enum
import functools
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Mapping


class UsageError(ValueError):
    """What the user asked for cannot be done (a bad option, file or name): one message, exit status 2. Any other
    exception is a bug, and the command shows its traceback."""

FROZEN = dict(frozen=True, kw_only=True, slots=True)


# What names in the oracle and templates may hold: they become file names, shell words, JUnit names.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")  # a section key, a rule's id within its section
VARIANT_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,99}")
FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,99}")  # a plain file name: no folder, no '..', no space


def safe_file_name(name: Any) -> bool:
    """Whether a case's file name is a plain one (see FILE_NAME): written into a scratch or run folder, it
    stays there."""
    return isinstance(name, str) and FILE_NAME.fullmatch(name) is not None


def digest(*parts: Any, length: int = 16) -> str:
    """Return a stable hex hash of JSON-serialisable parts."""
    blob = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:length]


@functools.total_ordering
class Std(enum.Enum):
    """A C++ dialect, ordered by year (never compare the strings)."""

    CXX03 = "c++03"
    CXX11 = "c++11"
    CXX14 = "c++14"
    CXX17 = "c++17"
    CXX20 = "c++20"
    CXX23 = "c++23"

    @property
    def rank(self) -> int:
        return list(Std).index(self)

    def __lt__(self, other: "Std") -> bool:
        if not isinstance(other, Std):
            return NotImplemented
        return self.rank < other.rank

    @property
    def cplusplus(self) -> int:
        """Return the least ``__cplusplus`` value a compiler honouring this dialect reports.

        GCC reports working-draft values for dialects it has not finished (201709 for c++20 in GCC 9-10,
        202100 for c++23 in GCC 11-13), so each range starts at the draft value.
        """
        return CPLUSPLUS[self]

    def honoured_by(self, value: int) -> bool:
        """Return whether a reported ``__cplusplus`` means this dialect (and not the next one)."""
        later = [s.cplusplus for s in Std if s.rank > self.rank]
        return self.cplusplus <= value < (later[0] if later else 10**9)

    @classmethod
    def parse(cls, text: str) -> "Std":
        text = text.strip().lower().removeprefix("-std=")
        for std in cls:
            if std.value == text or std.value.replace("c++", "") == text:
                return std
        raise UsageError(f"unknown -std level {text!r} (known: {', '.join(s.value for s in cls)})")


CPLUSPLUS = {Std.CXX03: 199711, Std.CXX11: 201103, Std.CXX14: 201402, Std.CXX17: 201703,
             Std.CXX20: 201709, Std.CXX23: 202100}


def arch_number(arch: str) -> int:
    """Return the compute capability of an arch name: 'sm_90a' -> 90, 'compute_80' -> 80.

    A multi-target build 'sm_80+sm_90' counts as its lowest target.
    """
    if "+" in arch:
        return min(arch_number(a) for a in arch.split("+"))
    name = arch.strip().lower()
    for prefix in ("sm_", "compute_", "lto_"):
        if name.startswith(prefix):
            digits = "".join(ch for ch in name[len(prefix):] if ch.isdigit())
            if digits:
                return int(digits)
    raise UsageError(f"unknown arch {arch!r} (expected sm_XX or compute_XX)")


class Expect(enum.Enum):
    """What the guide says must happen to a program."""

    ACCEPT = "accept"
    REJECT = "reject"
    WARN = "warn"
    DIAGNOSE = "diagnose"  # ill-formed: a matching diagnostic is required, an error or a warning (ISO [intro.compliance])
    RUNTIME = "runtime"


class Compiler(enum.Enum):
    """Which compiler a toolchain is; each is a backend (``build.backends``)."""

    NVCC = "nvcc"
    NVRTC = "nvrtc"  # the runtime compiler: device code only, one file, no host compiler or linker
    CLANG = "clang"  # LLVM's CUDA support: one front end for host and device, the CUDA install's ptxas


class Phase(enum.Enum):
    """The pipeline stage (nvcc's, or another compiler's) that produced a diagnostic or failed."""

    NVCC = "nvcc"
    HOST_PREPROCESS = "host-preprocess"
    CUDAFE = "cudafe++"
    CICC = "cicc"
    PTXAS = "ptxas"
    FATBINARY = "fatbinary"
    NVLINK = "nvlink"
    HOST_COMPILER = "host-compiler"
    LINK = "link"
    NVRTC = "nvrtc"  # NVRTC's compile: its front end and NVVM in one call (its ptxas reports as ptxas)
    CLANG = "clang"  # clang's front end (Sema), for the host and the device side alike
    LLVM = "llvm"  # clang's back end: LLVM code generation ("error in backend")
    CLANG_DRIVER = "clang-driver"  # clang's driver refusing its own command line


# Expectation phases name a stage as the guide sees it; each maps onto observed phases. clang has one front
# end for both sides, so what the guide leaves to the CUDA front end or to the host compiler is its Sema's.


PHASE_GROUPS: Mapping[str, frozenset[Phase]] = {
    "front-end": frozenset({Phase.CUDAFE, Phase.CICC, Phase.NVRTC, Phase.CLANG, Phase.LLVM}),
    "device-back-end": frozenset({Phase.PTXAS}),
    "device-link": frozenset({Phase.NVLINK}),
    "host-compiler": frozenset({Phase.HOST_COMPILER, Phase.CLANG, Phase.LLVM}),
    "host-preprocess": frozenset({Phase.HOST_PREPROCESS, Phase.CLANG}),
    "link": frozenset({Phase.LINK}),
    **{p.value: frozenset({p}) for p in Phase},
}


class Mode(enum.Enum):
    """How a case is built."""

    COMPILE = "compile"  # nvcc -c on the main file
    LINK = "link"  # nvcc on all files, producing an executable
    RDC_LINK = "rdc-link"  # nvcc -rdc=true on all files, device link included
    FATBIN = "fatbin"  # nvcc -fatbin on the main file: device code only, loaded and launched through cupy


class Outcome(enum.Enum):
    """What the toolchain did, before any judging."""

    ACCEPTED = "accepted"
    ACCEPTED_WITH_WARNINGS = "accepted-with-warnings"
    REJECTED = "rejected"
    CRASHED = "crashed"
    TIMED_OUT = "timed-out"
    TOOLCHAIN_ERROR = "toolchain-error"

    @property
    def accepted(self) -> bool:
        return self in (Outcome.ACCEPTED, Outcome.ACCEPTED_WITH_WARNINGS)

    @property
    def infrastructure(self) -> bool:
        return self in (Outcome.CRASHED, Outcome.TIMED_OUT, Outcome.TOOLCHAIN_ERROR)


class Verdict(enum.Enum):
    """lit-style result codes."""

    PASS = "PASS"
    FAIL = "FAIL"
    XFAIL = "XFAIL"
    XPASS = "XPASS"
    UNSUPPORTED = "UNSUPPORTED"
    UNRESOLVED = "UNRESOLVED"

    @property
    def is_failure(self) -> bool:
        """Whether this verdict fails a run (exit status, JUnit, pytest, diff): FAIL, UNRESOLVED and XPASS.

        XPASS fails as in lit: a known deviation that no longer shows is a stale record to update.
        """
        return self.fails()

    def fails(self, allow_xpass: bool = False) -> bool:
        """Whether this verdict fails a run; ``allow_xpass`` reports XPASS without failing (exploratory runs)."""
        return self in (Verdict.FAIL, Verdict.UNRESOLVED) or (self is Verdict.XPASS and not allow_xpass)


@dataclass(**FROZEN)
class Expectation:
    """The guide's expectation for one variant, independent of config."""

    expect: Expect
    phase: str | None = None  # a key of PHASE_GROUPS, for reject
    diagnostic: str | None = None  # regex over the diagnostic message, for reject/warn
    check_line: bool = True  # the diagnostic must point at the marked violation line
    observe: str | None = None  # for runtime: what the program must report


@dataclass(**FROZEN)
class Variant:
    """One side of a rule: a parameter assignment and its expectation."""

    name: str
    params: Mapping[str, Any]
    expectation: Expectation  # with a predicate: what to expect when it says reject
    predicate: str | None = None  # a hooks predicate name
    requires: Any = None  # conditions.Condition or None
    flags: tuple[str, ...] = ()
    mode: Mode = Mode.COMPILE
    note: str = ""
    strategies: Mapping[str, str] = field(default_factory=dict)  # param -> a hooks strategy name
    check: str | None = None  # fatbin mode: a hooks check name giving the launch and expected values
    value: int | None = None  # a valid program's value check: what its value function stores in out[0]
    # diagnose only: where the same program is valid (its twin's condition: the variant of the rule with the
    # same params expected to compile); a diagnostic the program also gets there does not count
    valid_in: Any = None


@dataclass(**FROZEN)
class Rule:
    """One separately testable statement of the guide."""

    id: str
    section: str
    statement: str
    templates: Mapping[str, str]  # output file name -> template path
    variants: tuple[Variant, ...]
    requires: Any = None
    source_file: str = ""
    note: str = ""
    construct: str = ""  # a regex over a program's source: the construct the negative side forbids
    edition: str = "seeds"  # the guide edition its statement comes from (a later one where it changed)


@dataclass(**FROZEN)
class Case:
    """A rendered program for one rule variant."""

    rule: Rule
    variant: Variant
    files: Mapping[str, str]  # file name -> source text; the first is the main file
    violation_line: int | None  # 1-based line of the marked violation in the main file

    @property
    def id(self) -> str:
        return f"{self.rule.id}[{self.variant.name}]"

    @property
    def mode_flags(self) -> tuple[str, ...]:
        """Return the flags the case's build mode adds: -rdc=true for separate compilation."""
        return ("-rdc=true",) if self.variant.mode is Mode.RDC_LINK else ()

    @property
    def main_file(self) -> str:
        return next(iter(self.files))

    @property
    def key(self) -> str:
        """Stable content hash: changes whenever what the case compiles changes."""
        return digest(self.rule.id, self.variant.name, dict(self.files), list(self.variant.flags),
                      self.variant.mode.value)


@dataclass(**FROZEN)
class Toolchain:
    """An nvcc and the host compiler it drives, identified by what is actually run."""

    nvcc: str  # resolved path
    version: tuple[int, ...]
    version_text: str
    host_compiler: str
    host_version: str
    fingerprint: str
    name: str = ""
    kind: Compiler = Compiler.NVCC  # NVRTC: ``nvcc`` is the library, no host compiler; clang: ``nvcc`` is clang++
    cuda_version: tuple[int, ...] = ()  # clang: the CUDA install it compiles against (conditions' ``nvcc``)
    cuda_path: str = ""  # clang: that install's folder
    base_flags: tuple[str, ...] = ()  # what its backend adds to every build (clang: its stub headers' folder)

    @property
    def version_str(self) -> str:
        return ".".join(str(v) for v in self.version)

    def to_json(self) -> dict:
        return {f: (getattr(self, f).value if f == "kind" else getattr(self, f)) for f in self.__dataclass_fields__}

    @classmethod
    def from_json(cls, data: Mapping) -> "Toolchain":
        """Read ``to_json``'s form back; raises KeyError, TypeError or ValueError on another shape."""
        tuples = {"version", "cuda_version", "base_flags"}
        return cls(**{f: (Compiler(data[f]) if f == "kind" else tuple(data[f]) if f in tuples else data[f])
                      for f in cls.__dataclass_fields__})

    @property
    def label(self) -> str:
        return self.name or f"{self.kind.value}-{'.'.join(str(v) for v in self.version[:2])}"


@dataclass(**FROZEN)
class FlagSet:
    """Extra nvcc flags, and the sections they apply to (empty: all)."""

    flags: tuple[str, ...] = ()
    sections: tuple[str, ...] = ()


@dataclass(**FROZEN)
class Profile:
    """A named matrix: -std levels x arch targets x flag sets."""

    name: str
    stds: tuple[str, ...]
    archs: tuple[str, ...]
    flagsets: tuple[FlagSet, ...]
    description: str = ""


@dataclass(**FROZEN)
class Config:
    """One point of the run matrix."""

    toolchain: Toolchain
    std: Std
    arch: str
    flags: tuple[str, ...] = ()
    sections: tuple[str, ...] = ()  # the sections this config applies to; empty: all

    def applies_to(self, section: str) -> bool:
        return not self.sections or section in self.sections

    @property
    def id(self) -> str:
        return ",".join([self.std.value, self.arch, *self.flags])

    @property
    def key(self) -> str:
        return digest(self.toolchain.fingerprint, self.std.value, self.arch, list(self.flags))


@dataclass(**FROZEN)
class ObservedConfig:
    """What one build under a config actually did, read back from a probe compile.

    ``error`` is set (and the rest empty) when nvcc refused the config outright.
    """

    host_cplusplus: int | None = None
    device_cplusplus: tuple[int, ...] = ()  # one per device compilation (per target)
    cuda_arch: tuple[int, ...] = ()  # __CUDA_ARCH__ of each device compilation
    targets: tuple[str, ...] = ()  # what the produced module holds: "sm_90" (SASS), "compute_90" (PTX)
    macros: tuple[str, ...] = ()  # flag macros (__CUDACC_RDC__, ...) defined in every compilation
    warnings: tuple[str, ...] = ()  # what nvcc said about the command line
    error: str = ""

    def to_json(self) -> dict:
        return {"host_cplusplus": self.host_cplusplus, "device_cplusplus": list(self.device_cplusplus),
                "cuda_arch": list(self.cuda_arch), "targets": list(self.targets), "macros": list(self.macros),
                "warnings": list(self.warnings), "error": self.error}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ObservedConfig":
        return cls(host_cplusplus=data.get("host_cplusplus"),
                   device_cplusplus=tuple(data.get("device_cplusplus", ())),
                   cuda_arch=tuple(data.get("cuda_arch", ())), targets=tuple(data.get("targets", ())),
                   macros=tuple(data.get("macros", ())), warnings=tuple(data.get("warnings", ())),
                   error=data.get("error", ""))


@dataclass(**FROZEN)
class Diagnostic:
    """One message from the toolchain."""

    severity: str  # error, warning, note, remark, fatal
    message: str
    phase: Phase
    file: str | None = None
    line: int | None = None
    number: str | None = None

    def to_json(self) -> dict:
        return {"severity": self.severity, "message": self.message, "phase": self.phase.value,
                "file": self.file, "line": self.line, "number": self.number}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Diagnostic":
        return cls(severity=data["severity"], message=data["message"], phase=Phase(data["phase"]),
                   file=data.get("file"), line=data.get("line"), number=data.get("number"))


@dataclass(**FROZEN)
class CompileResult:
    """What running the toolchain on one case under one config produced."""

    outcome: Outcome
    phase: Phase | None  # the stage that failed, if any
    exit_code: int | None
    diagnostics: tuple[Diagnostic, ...]
    commands: tuple[tuple[str, ...], ...]
    output: str
    duration: float
    cached: bool = False  # taken from the build cache: nothing ran

    def to_json(self) -> dict:
        return {"outcome": self.outcome.value, "phase": self.phase.value if self.phase else None,
                "exit_code": self.exit_code, "diagnostics": [d.to_json() for d in self.diagnostics],
                "commands": [list(c) for c in self.commands], "output": self.output, "duration": self.duration}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "CompileResult":
        return cls(outcome=Outcome(data["outcome"]), phase=Phase(data["phase"]) if data["phase"] else None,
                   exit_code=data["exit_code"], diagnostics=tuple(Diagnostic.from_json(d) for d in data["diagnostics"]),
                   commands=tuple(tuple(c) for c in data["commands"]), output=data["output"],
                   duration=data["duration"])


class ExecStatus(enum.Enum):
    """What running a program did."""

    PASSED = "passed"  # printed SUITEGEN-RESULT: PASS and exited 0
    FAILED = "failed"  # ran, and its own checks (or a CUDA error it caught) failed
    CRASHED = "crashed"  # killed by a signal or exited without a result line
    TIMED_OUT = "timed-out"
    NOT_RUN = "not-run"  # nothing was launched: the GPU can run none of the module's images


@dataclass(**FROZEN)
class ExecResult:
    """One program run."""

    status: ExecStatus
    exit_code: int | None
    detail: str
    output: str
    duration: float
    gpu: str
    command: tuple[str, ...]
    loaded: str = ""  # for a module: what the driver runs of it on this GPU (see execute.images.loaded_code)

    def to_json(self) -> dict:
        return {"status": self.status.value, "exit_code": self.exit_code, "detail": self.detail,
                "output": self.output[-4000:], "duration": round(self.duration, 3), "gpu": self.gpu,
                "command": list(self.command), **({"loaded": self.loaded} if self.loaded else {})}


@dataclass(**FROZEN)
class Deviation:
    """A recorded disagreement between one toolchain version range and the guide."""

    rule: str
    variants: tuple[str, ...]  # globs over variant names
    when: Any  # conditions.Condition over nvcc version, std, arch, features
    observed: Outcome
    diagnostic: str  # the evidence: what the toolchain printed, for people
    seen: str
    match: str = ""  # regex that an observed diagnostic must match for the deviation to show
    note: str = ""
    source_file: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)  # must be a subset of the case's params
    run: str = ""  # for runtime cases: the program's observed status (ExecStatus value)
    select: str = ""  # a hooks selector name: a test on the case's params
    compiler: Compiler = Compiler.NVCC  # the one compiler whose items it covers


@dataclass(**FROZEN)
class Judgement:
    """The verdict for one case under one config, and why."""

    verdict: Verdict
    reason: str
    expected: Expectation | None = None
    deviation: Deviation | None = None
    execution: Verdict | None = None  # the GPU or host run judged on its own (before any deviation), if one ran


SCHEMA = 2  # results.jsonl records; 2 added observed_config, batch, execution_verdict


@dataclass(**FROZEN)
class Batched:
    """Where a result came from: the batch build ``id`` of ``size`` members."""

    id: str
    size: int

    def to_json(self) -> dict:
        return {"how": "batch", "id": self.id, "size": self.size}


@dataclass(**FROZEN)
class Alone:
    """Where a result came from: a build of its own, in a batched run (``why``; ``tried``: the batches it was in)."""

    why: str
    tried: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"how": "alone", "why": self.why, "tried": list(self.tried)}


@dataclass(**FROZEN)
class Record:
    """One line of results.jsonl.

    ``execution_verdict`` is its run judged on its own (a runtime case's program, a value check, a module's
    load), null where nothing ran. ``batch`` is null for an item built alone in an unbatched run.
    """

    case: Case
    config: Config
    judgement: Judgement
    result: CompileResult | None
    started: str
    execution: ExecResult | None = None  # the run of a runtime case that ran
    observed: ObservedConfig | None = None  # what the build under this config actually did
    batch: Batched | Alone | None = None  # how the result was obtained
    behaviour: Mapping[str, Any] | None = None  # what its GPU run checks (judge.behaviour), for a valid item

    @property
    def key(self) -> tuple[str, str]:
        """Return what identifies an item across runs: (case key, config key)."""
        return self.case.key, self.config.key

    def to_json(self) -> dict:
        exp = self.judgement.expected
        res = self.result
        tc = self.config.toolchain
        return {
            "schema": SCHEMA,
            "case_id": self.case.id,
            "case_key": self.case.key,
            "config_id": self.config.id,
            "config_key": self.config.key,
            "rule": self.case.rule.id,
            "section": self.case.rule.section,
            "variant": self.case.variant.name,
            "config": {
                "toolchain": tc.label, "compiler": tc.kind.value, "fingerprint": tc.fingerprint, "nvcc": tc.nvcc,
                "nvcc_version": tc.version_str, "host_compiler": tc.host_compiler,
                "host_version": tc.host_version, "std": self.config.std.value,
                "arch": self.config.arch, "flags": list(self.config.flags),
                "case_flags": list(self.case.variant.flags),
            },
            "expected": None if exp is None else {
                "expect": exp.expect.value, "phase": exp.phase, "diagnostic": exp.diagnostic,
                "line": self.case.violation_line if exp.check_line else None, "observe": exp.observe,
            },
            "observed": None if res is None else {
                "outcome": res.outcome.value,
                "phase": res.phase.value if res.phase else None,
                "exit_code": res.exit_code,
                "diagnostics": [d.to_json() for d in res.diagnostics],
                "commands": [list(c) for c in res.commands],
                "cached": res.cached,
            },
            "verdict": self.judgement.verdict.value,
            "reason": self.judgement.reason,
            "deviation": None if self.judgement.deviation is None else {
                "observed": self.judgement.deviation.observed.value,
                "diagnostic": self.judgement.deviation.diagnostic,
                "seen": self.judgement.deviation.seen,
                "file": self.judgement.deviation.source_file,
            },
            "execution": None if self.execution is None else self.execution.to_json(),
            "gpu": None if self.execution is None else self.execution.gpu,
            "observed_config": None if self.observed is None else self.observed.to_json(),
            "execution_verdict": None if self.judgement.execution is None else self.judgement.execution.value,
            "behaviour": None if self.behaviour is None else dict(self.behaviour),
            "batch": None if self.batch is None else self.batch.to_json(),
            "duration": round((res.duration if res else 0.0)
                              + (self.execution.duration if self.execution else 0.0), 3),
            "started": self.started,
        }
