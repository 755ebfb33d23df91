"""Data types shared by every stage: rules, cases, configs, outcomes, verdicts."""
from __future__ import annotations

import enum
import functools
import hashlib
import json
import re
from dataclasses import dataclass, field, fields
from pathlib import PurePath
from typing import Any, Callable, Mapping

from suitegen.hooks import HookRef


class UsageError(ValueError):
    """What the user asked for cannot be done (a bad option, file or name): one message, exit status 2. Any other
    exception is a bug, and the command shows its traceback."""

FROZEN = dict(frozen=True, kw_only=True, slots=True)


# What names in the oracle and templates may hold: they become file names, shell words, JUnit names.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")  # a section key, a rule's id within its section
VARIANT_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,99}")
FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,99}")  # a plain file name: no folder, no '..', no space


GENERATED_SECTION = "generated"  # the generated-program corpus (``synth.corpus``)
FINDINGS_SECTION = "fuzz-findings"  # compiler bugs suitegen fuzz found, kept as cases
# The kinds of fuzz finding: those the findings database files (a refusal is counted per build and error), and two
# never filed: a program the sanitizers blame (ours to fix), and one wrong only as the campaign builds and runs it
FILED = ("wrong-code", "crash")
PROGRAM_FAULT = "program-fault"
HARNESS = "campaign-only"
CORPUS_SEED = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")  # a corpus seed: it names rules and files
GENERATED_RULE = re.compile(rf"{GENERATED_SECTION}/(?P<seed>{CORPUS_SEED.pattern})\.p(?P<index>[0-9]+)")


def section_family(section: str) -> str:
    """Return the family a section's rules and results are counted in, apart from the others: "findings" for the
    compiler bugs suitegen fuzz found, kept as cases (``FINDINGS_SECTION``), "generated" for the generated-program
    corpus (``GENERATED_SECTION``), "guide" for the guide's own sections."""
    return {FINDINGS_SECTION: "findings", GENERATED_SECTION: "generated"}.get(section, "guide")


def safe_file_name(name: Any) -> bool:
    """Whether a case's file name is a plain one (see FILE_NAME): written into a scratch or run folder, it
    stays there."""
    return isinstance(name, str) and FILE_NAME.fullmatch(name) is not None


# Checking a JSON object read back from a file (a cache entry, a campaign's state, a store's record): a spec maps
# each field to whether a value of it is whole and the words that say what it must be.
FieldSpec = Mapping[str, tuple[Callable[[Any], bool], str]]


def bad_field(data: Any, spec: FieldSpec, prefix: str = "") -> str | None:
    """Return what is wrong with the first field of ``data`` that ``spec`` refuses (missing, or of the wrong type
    or range), or None where every field is as ``spec`` says."""
    if not isinstance(data, dict):
        return "not a JSON object"
    for name, (ok, what) in spec.items():
        if not ok(data.get(name)):
            return f"field {prefix + name!r} must be {what}, not {data.get(name)!r:.60}"
    return None


def whole(low: int) -> Callable[[Any], bool]:
    """Return whether a value is an int (not a bool) of ``low`` or more."""
    return lambda v: type(v) is int and v >= low


def strings(v: Any) -> bool:
    """Whether a value is a list of strings."""
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


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
    predicate: HookRef | None = None  # the predicate that decides the expectation, resolved at load
    requires: Any = None  # conditions.Condition or None
    flags: tuple[str, ...] = ()
    mode: Mode = Mode.COMPILE
    note: str = ""
    strategies: Mapping[str, HookRef] = field(default_factory=dict)  # param -> the strategy drawing its values
    check: HookRef | None = None  # fatbin mode: the check giving the launch and expected values
    value: int | None = None  # a valid program's value check: what its value function stores in out[0]
    # diagnose only: where the same program is valid (its twin's condition: the variant of the rule with the
    # same params expected to compile); a diagnostic the program also gets there does not count
    valid_in: Any = None
    batch_limit: int | None = None  # at most this many members in one batched build (None: the run's limit)
    # a generated program's kernel (``synth.corpus.Kernel``): its items build with others into one device module and
    # run in the GPU workers (``qualification.module_units``), as a campaign's do; what that does not pass goes
    # the case's own way
    kernel: Any = None


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
    judged_as: str = ""  # a rule whose recorded deviations cover this one too (a generated case standing beside it)


@dataclass(**FROZEN)
class Case:
    """A rendered program for one rule variant."""

    rule: Rule
    variant: Variant
    files: Mapping[str, str]  # file name -> source text; the first is the main file
    violation_line: int | None  # 1-based line of the marked violation in the main file
    _key: str = field(init=False, repr=False, compare=False, default="")  # ``key``, hashed once

    def __post_init__(self) -> None:
        object.__setattr__(self, "_key", digest(self.rule.id, self.variant.name, dict(self.files),
                                                list(self.variant.flags), self.variant.mode.value))

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
        return self._key


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
    """Extra nvcc flags, the sections they apply to, and the dialects and targets they are built under (each empty:
    all)."""

    flags: tuple[str, ...] = ()
    sections: tuple[str, ...] = ()
    stds: tuple[str, ...] = ()
    archs: tuple[str, ...] = ()

    def takes(self, std: str, arch: str) -> bool:
        return on_axes(self.stds, self.archs, std, arch)


@dataclass(**FROZEN)
class RuleRef:
    """A rule known by its id and section alone, which is what selecting rules reads: a corpus program not yet
    drawn."""

    id: str
    section: str


@dataclass(**FROZEN)
class CorpusSpec:
    """A profile's generated corpus: ``count`` programs of ``seed``, built under the profile's configs whose
    dialect and target are among ``stds`` and ``archs`` (empty: all of the profile's), and under the flag sets
    that name its section."""

    seed: str = "g1"  # the built-in profiles' seed
    count: int = 0
    stds: tuple[str, ...] = ()
    archs: tuple[str, ...] = ()
    invalid: int = 0  # programs with one injected violation, per violation and context (``synth.inject``)

    def takes(self, std: str, arch: str) -> bool:
        """Whether the corpus is built under a config of this dialect and target."""
        return on_axes(self.stds, self.archs, std, arch)


@dataclass(**FROZEN)
class Profile:
    """A named matrix: -std levels x arch targets x flag sets, and its generated corpus."""

    name: str
    stds: tuple[str, ...]
    archs: tuple[str, ...]
    flagsets: tuple[FlagSet, ...]
    description: str = ""
    generated: CorpusSpec | None = None
    narrowed: tuple["Narrowed", ...] = ()  # sections built under fewer of its dialects and targets
    skipped: tuple[str, ...] = ()  # sections it leaves out (``skip``: too costly for its time budget)
    checks: tuple[tuple[str, Any], ...] = ()  # params laid over every check hook's (``[profile.NAME.checks]``)


@dataclass(**FROZEN)
class Narrowed:
    """Sections a profile builds under only some of its dialects and targets (``[[profile.NAME.narrow]]``): where
    more configs would repeat the same check (the math rules' accuracy does not depend on the -std level)."""

    sections: tuple[str, ...]
    stds: tuple[str, ...] = ()  # empty: all of the profile's
    archs: tuple[str, ...] = ()

    def takes(self, std: str, arch: str) -> bool:
        return on_axes(self.stds, self.archs, std, arch)


def on_axes(stds: tuple[str, ...], archs: tuple[str, ...], std: str, arch: str) -> bool:
    """Whether a dialect and target are among ``stds`` and ``archs`` (an empty one: all of the profile's)."""
    return (not stds or std in stds) and (not archs or arch in archs)


@dataclass(**FROZEN)
class Config:
    """One point of the run matrix."""

    toolchain: Toolchain
    std: Std
    arch: str
    flags: tuple[str, ...] = ()
    sections: tuple[str, ...] = ()  # the sections this config applies to; empty: all
    excluded: tuple[str, ...] = ()  # sections it does not apply to all the same (a corpus outside its axes)

    def applies_to(self, section: str) -> bool:
        return section not in self.excluded and (not self.sections or section in self.sections)

    def applies(self, case: "Case") -> bool:
        """Whether the case is built under this config: its section's, except that a flag set of the generated
        corpus alone (its code-generation axes: ``-Xptxas -O0``, ``-G``) builds the valid programs only, as a
        program that must be rejected stops before code generation and is built as the guide's negatives are."""
        if not self.applies_to(case.rule.section):
            return False
        return not (self.sections == (GENERATED_SECTION,) and case.variant.expectation.expect is Expect.REJECT)

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


# Batch members (``compilers.batch``): member N sits in namespace ``sg_bN`` and its files under ``sg_bN/``.
MEMBER_PREFIX = "sg_b"
MEMBER_NAME = re.compile(rf"^{MEMBER_PREFIX}(\d+)$")


def member_name(index: int) -> str:
    """Return the namespace batch member ``index`` sits in (``sg_b3``)."""
    return f"{MEMBER_PREFIX}{index}"


def member_index(name: str) -> int | None:
    """Return the index of the member a namespace name is (``sg_b3``: 3), or None."""
    m = MEMBER_NAME.match(name)
    return int(m.group(1)) if m else None


def member_file(index: int, name: str) -> str:
    """Return the file name a member's file ``name`` has in the batch (``sg_b3/main.cu``)."""
    return f"{member_name(index)}/{name}"


def member_of(file: str | None) -> int | None:
    """Return the member index a diagnostic's file names, or None outside every member."""
    parts = PurePath(file).parts if file else ()
    return member_index(parts[-2]) if len(parts) >= 2 else None


QUOTED = re.compile(r"`[^`']*'|(?<!\w)'[^']*'|\"[^\"]*\"")  # a name a message quotes


def fixed_words(message: str) -> tuple[str, ...]:
    """Return a message's words outside its quoted names (``QUOTED``), which vary from one program and build to
    the next: what two messages of one kind share."""
    return tuple(part.strip() for part in QUOTED.split(message) if part.strip())


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

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ExecResult":
        return cls(status=ExecStatus(data["status"]), exit_code=data["exit_code"], detail=data["detail"],
                   output=data["output"], duration=data["duration"], gpu=data["gpu"],
                   command=tuple(data["command"]), loaded=data.get("loaded", ""))


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
    select: HookRef | None = None  # a selector: a test on the case's params
    compiler: Compiler = Compiler.NVCC  # the one compiler whose items it covers
    # where a rejection was seen (the stage that failed): a run batches the items it covers with that stage's
    # rejections (``item.expected_side``); a wrong one costs builds, never a verdict
    phase: Phase | None = None


@dataclass(**FROZEN)
class Judgement:
    """The verdict for one case under one config, and why."""

    verdict: Verdict
    reason: str
    expected: Expectation | None = None
    deviation: Deviation | None = None
    execution: Verdict | None = None  # the GPU or host run judged on its own (before any deviation), if one ran


SCHEMA = 3  # results.jsonl records; 2 added observed_config, batch, execution_verdict; 3 dropped gpu (execution's)
SCHEMAS_READ = (2, 3)  # Record.from_json upgrades a schema-2 record: users keep old runs to diff against


class RecordError(ValueError):
    """A results.jsonl line that is not a record this suitegen reads: another schema version, or a bad field."""


def plain(value: Any) -> Any:
    """Return a record part (or None) as JSON: a part by its to_json, an enum by its value, a tuple as a list."""
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    return value


class _Part:
    """A record or a part of one, written field by field (``plain``)."""

    __slots__ = ()

    def to_json(self) -> dict:
        return {f.name: plain(getattr(self, f.name)) for f in fields(self)}


def _maybe(read, value: Any) -> Any:
    return None if value is None else read(value)


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


def _provenance(data: Mapping[str, Any]) -> Batched | Alone:
    """Read ``Batched.to_json`` or ``Alone.to_json`` back."""
    if data["how"] == "batch":
        return Batched(id=data["id"], size=data["size"])
    return Alone(why=data["why"], tried=tuple(data.get("tried", ())))


@dataclass(**FROZEN)
class RecordConfig(_Part):
    """A record's config in words: its toolchain (label, compiler, fingerprint, path, version, host compiler),
    -std, arch, the matrix's flags and the case's own (``case_flags``)."""

    toolchain: str
    compiler: str
    fingerprint: str
    nvcc: str
    nvcc_version: str
    host_compiler: str
    host_version: str
    std: str
    arch: str
    flags: tuple[str, ...] = ()
    case_flags: tuple[str, ...] = ()

    @classmethod
    def of(cls, config: Config, case: Case) -> "RecordConfig":
        tc = config.toolchain
        return cls(toolchain=tc.label, compiler=tc.kind.value, fingerprint=tc.fingerprint, nvcc=tc.nvcc,
                   nvcc_version=tc.version_str, host_compiler=tc.host_compiler, host_version=tc.host_version,
                   std=config.std.value, arch=config.arch, flags=tuple(config.flags),
                   case_flags=tuple(case.variant.flags))

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "RecordConfig":
        return cls(**{**data, "flags": tuple(data["flags"]), "case_flags": tuple(data["case_flags"])})


@dataclass(**FROZEN)
class Expected(_Part):
    """The guide's expectation of one item (its Expectation under the item's config), with the line its
    diagnostic must point at (None: any line)."""

    expect: Expect
    phase: str | None = None
    diagnostic: str | None = None
    line: int | None = None
    observe: str | None = None

    @classmethod
    def of(cls, expectation: Expectation, case: Case) -> "Expected":
        return cls(expect=expectation.expect, phase=expectation.phase, diagnostic=expectation.diagnostic,
                   line=case.violation_line if expectation.check_line else None, observe=expectation.observe)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Expected":
        return cls(**{**data, "expect": Expect(data["expect"])})


@dataclass(**FROZEN)
class Observed(_Part):
    """What an item's build did, as its record keeps it: its CompileResult without the compiler's output (the
    diagnostics come from it) or its own seconds (the record's ``duration`` counts them)."""

    outcome: Outcome
    phase: Phase | None
    exit_code: int | None
    diagnostics: tuple[Diagnostic, ...] = ()
    commands: tuple[tuple[str, ...], ...] = ()
    cached: bool = False

    @classmethod
    def of(cls, result: CompileResult) -> "Observed":
        return cls(outcome=result.outcome, phase=result.phase, exit_code=result.exit_code,
                   diagnostics=tuple(result.diagnostics), commands=tuple(tuple(c) for c in result.commands),
                   cached=result.cached)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Observed":
        return cls(outcome=Outcome(data["outcome"]), phase=_maybe(Phase, data["phase"]), exit_code=data["exit_code"],
                   diagnostics=tuple(Diagnostic.from_json(d) for d in data["diagnostics"]),
                   commands=tuple(tuple(c) for c in data["commands"]), cached=data.get("cached", False))

    def first_diagnostic(self) -> Diagnostic | None:
        """Return the build's first error, else its first warning, else None."""
        return next((d for d in self.diagnostics if d.severity in ("error", "fatal")), None) or \
            next((d for d in self.diagnostics if d.severity == "warning"), None)


@dataclass(**FROZEN)
class DeviationRef(_Part):
    """The recorded deviation that covers an item: what the toolchain was seen to do, its evidence, when, and
    the deviations file that records it."""

    observed: Outcome
    diagnostic: str
    seen: str
    file: str

    @classmethod
    def of(cls, deviation: Deviation) -> "DeviationRef":
        return cls(observed=deviation.observed, diagnostic=deviation.diagnostic, seen=deviation.seen,
                   file=deviation.source_file)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "DeviationRef":
        return cls(**{**data, "observed": Outcome(data["observed"])})


@dataclass(**FROZEN)
class Behaviour(_Part):
    """What a valid item's GPU run checks (``judge.behaviour``): the check (semantic, load-only, host-only,
    none), whether it ran, what it is, what the driver loaded of the module, and why a GPU check did not run."""

    check: str
    ran: bool
    what: str
    loaded: str = ""
    not_run: str = ""

    def to_json(self) -> dict:
        return {k: v for k, v in _Part.to_json(self).items() if v or k not in ("loaded", "not_run")}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Behaviour":
        return cls(**data)


@dataclass(**FROZEN)
class Record(_Part):
    """One item's result: a line of results.jsonl as written (``to_json``) and as read back (``from_json``).

    It names the item by keys and words (case and config ids and keys, rule, section, variant, the config's
    fields), not by the in-memory Case and Config: the engine, which alone has those, keeps the case beside
    the record where it needs more of it (``judge.behaviour.with_behaviour``). ``observed`` is None where
    nothing was built; ``execution_verdict`` is the run judged on its own (a runtime case's program, a value
    check, a module's load), None where nothing ran; ``batch`` is None for an item built alone in an
    unbatched run; ``duration`` is the build's and the run's seconds.
    """

    case_id: str
    case_key: str
    config_id: str
    config_key: str
    rule: str
    section: str
    variant: str
    config: RecordConfig
    verdict: Verdict
    reason: str
    expected: Expected | None = None
    observed: Observed | None = None
    deviation: DeviationRef | None = None
    execution: ExecResult | None = None  # the run of the item's program or module, if one ran
    observed_config: ObservedConfig | None = None  # what the build under this config actually did
    execution_verdict: Verdict | None = None
    behaviour: Behaviour | None = None
    batch: Batched | Alone | None = None  # how the result was obtained
    duration: float = 0.0
    started: str

    @property
    def key(self) -> tuple[str, str]:
        """Return what identifies an item across runs: (case key, config key)."""
        return self.case_key, self.config_key

    @classmethod
    def of(cls, case: Case, config: Config, judgement: Judgement, result: CompileResult | None, *, started: str,
           execution: ExecResult | None = None, observed_config: ObservedConfig | None = None,
           batch: Batched | Alone | None = None, behaviour: Behaviour | None = None) -> "Record":
        """Return the record of a judged item; its run is kept as it is written (the end of its output, its
        seconds to the millisecond), so the record read back equals it."""
        exp = judgement.expected
        return cls(case_id=case.id, case_key=case.key, config_id=config.id, config_key=config.key,
                   rule=case.rule.id, section=case.rule.section, variant=case.variant.name,
                   config=RecordConfig.of(config, case), verdict=judgement.verdict, reason=judgement.reason,
                   expected=None if exp is None else Expected.of(exp, case), observed=_maybe(Observed.of, result),
                   deviation=_maybe(DeviationRef.of, judgement.deviation),
                   execution=None if execution is None else ExecResult.from_json(execution.to_json()),
                   observed_config=observed_config, execution_verdict=judgement.execution, behaviour=behaviour,
                   batch=batch, started=started,
                   duration=round((result.duration if result else 0.0) + (execution.duration if execution else 0.0), 3))

    def to_json(self) -> dict:
        return {"schema": SCHEMA, **_Part.to_json(self)}

    @classmethod
    def from_json(cls, data: Any) -> "Record":
        """Read a record of a schema this suitegen reads (a schema-2 one upgraded); raise RecordError on another
        schema version or a missing or bad field."""
        version = data.get("schema") if isinstance(data, Mapping) else None
        if version not in SCHEMAS_READ:
            said = "no schema version" if version is None else f"schema {version!r}"
            raise RecordError(f"{said}: not a results record this suitegen reads (it reads schema "
                              f"{' and '.join(map(str, SCHEMAS_READ))})")
        try:
            if version == 2:
                data = _from_schema_2(data)
            return cls(case_id=data["case_id"], case_key=data["case_key"], config_id=data["config_id"],
                       config_key=data["config_key"], rule=data["rule"], section=data["section"],
                       variant=data["variant"], config=RecordConfig.from_json(data["config"]),
                       verdict=Verdict(data["verdict"]), reason=data["reason"],
                       expected=_maybe(Expected.from_json, data["expected"]),
                       observed=_maybe(Observed.from_json, data["observed"]),
                       deviation=_maybe(DeviationRef.from_json, data["deviation"]),
                       execution=_maybe(ExecResult.from_json, data["execution"]),
                       observed_config=_maybe(ObservedConfig.from_json, data["observed_config"]),
                       execution_verdict=_maybe(Verdict, data["execution_verdict"]),
                       behaviour=_maybe(Behaviour.from_json, data["behaviour"]),
                       batch=_maybe(_provenance, data["batch"]), duration=data["duration"], started=data["started"])
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise RecordError(f"a schema {version} record with a missing or bad field: {type(exc).__name__} {exc}") \
                from None


def _from_schema_2(data: Mapping[str, Any]) -> dict:
    """Return a schema-2 record in schema 3's form: without its top-level gpu (its execution's says it), with
    what early schema-2 writers left out (the config's compiler, nvcc then; behaviour)."""
    out = {k: v for k, v in data.items() if k != "gpu"}
    return {**out, "schema": 3, "config": {"compiler": "nvcc", **data["config"]}, "behaviour": data.get("behaviour")}
