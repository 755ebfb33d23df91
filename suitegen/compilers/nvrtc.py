"""NVRTC as a toolchain: the runtime compiler cupy, numba and PyTorch extensions use for device code.

A build runs this module as a command, one process per build (a crash or hang in the library costs
only that build, and the command is its reproducer)::

    python -m suitegen.compilers.nvrtc LIBNVRTC [OPTION ...] FILE -o OUT

It compiles FILE with ``nvrtcCompileProgram``, prints ``#$ nvrtc OPTIONS FILE`` (so the log parses as
that phase's, like ``nvcc -v``), then NVRTC's log, and writes the CUBIN (``-arch=sm_XX``) or PTX
(``-arch=compute_XX``) to OUT. Exit status: 0 compiled, 1 rejected, 2 the library failed otherwise
(it did not load, or refused an option). NVRTC compiles device code only: what it can judge is
``out_of_scope``'s business.
"""
from __future__ import annotations

import ctypes
import re
import sys
from pathlib import Path

from typing import Iterable, Sequence

from suitegen.compilers import backends
from suitegen.model import Case, CompileResult, Compiler, Config, Mode, Outcome, Phase, Toolchain

LIBRARY = re.compile(r"libnvrtc\.so(\.\d+)*$")
# nvcc flags of a config or case -> the NVRTC option that means the same. NVRTC 13.0 refuses
# --extended-lambda, --expt-relaxed-constexpr, the -W options and --no-host-device-initializer-list
# (NVRTC_ERROR_INVALID_OPTION), so cases needing them are out of its scope.
OPTIONS = {"-rdc=true": "-rdc=true", "-fmad=false": "-fmad=false", "-G": "-G", "-w": "-w",
           "-Xptxas=-O0": "-Xptxas=-O0", "-maxrregcount=24": "-maxrregcount=24"}
UNRUN_PHASES = ("host-compiler", "host-preprocess", "link", "device-link")  # no NVRTC counterpart
LIBRARY_FAILED = 2  # the exit status when the library did not load or refused an option
# NVRTC's error for host code: an unannotated or __host__ function, a namespace-scope or static member
# variable with no memory space ("... is not allowed in JIT mode")
HOST_CODE = "not allowed in JIT mode"
HOST_PROGRAM = (re.compile(r"<<<"), "launches a kernel from host code"), \
    (re.compile(r"^\s*#\s*include\b", re.M), "includes a header (NVRTC is given none)"), \
    (re.compile(r"__has_include\b"), "asks which headers exist (NVRTC is given none)"), \
    (re.compile(r"\bmain\s*\("), "is a host program (it has main)")


def is_library(path: str) -> bool:
    """Whether a toolchain path names an NVRTC library rather than an nvcc."""
    return LIBRARY.search(Path(path).name) is not None


def command(lib: str, std: str, arch: str, flags: tuple[str, ...], source: str, out: str) -> list[str]:
    """Return the build command for one file (see the module docstring)."""
    return [sys.executable, "-m", "suitegen.compilers.nvrtc", lib, f"-std={std}", f"-arch={arch}",
            *(OPTIONS[f] for f in flags), source, "-o", out]


def output_name(arch: str) -> str:
    return "main.ptx" if arch.startswith("compute_") else "main.cubin"


def out_of_scope(case: Case, config: Config) -> str | None:
    """Return why NVRTC cannot judge an item, or None: it compiles one file of device code for one
    target, with no host compiler, no linker and no headers, so host-side rules, launches from host
    code and link phases are out of its scope. (Other host code shows only when NVRTC reports it:
    see ``HOST_CODE``.)"""
    if case.variant.mode not in (Mode.COMPILE, Mode.FATBIN):
        return f"NVRTC compiles device code only: this case's mode is {case.variant.mode.value} (a host build)"
    if len(case.files) != 1:
        return "NVRTC compiles one source: this case has several files"
    phase = case.variant.expectation.phase
    if phase in UNRUN_PHASES:
        return f"NVRTC compiles device code only: the guide's rejection comes from the {phase} phase"
    if "+" in config.arch:
        return "NVRTC compiles for one target: a multi-target config has no NVRTC counterpart"
    unknown = [f for f in (*config.flags, *case.variant.flags, *case.mode_flags) if f not in OPTIONS]
    if unknown:
        return f"NVRTC has no counterpart of nvcc's {' '.join(unknown)}"
    text = next(iter(case.files.values()))
    for pattern, what in HOST_PROGRAM:
        if pattern.search(text):
            return f"NVRTC compiles device code only: this case {what}"
    return None


def library_version(lib: str) -> tuple[int, int]:
    """Return (major, minor) as the library reports them (nvrtcVersion)."""
    nvrtc = _load(lib)
    major, minor = ctypes.c_int(), ctypes.c_int()
    nvrtc.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    return major.value, minor.value


def supported_archs(lib: str) -> list[int]:
    """Return the compute capabilities the library compiles for (nvrtcGetSupportedArchs): 75, 80, ..."""
    nvrtc = _load(lib)
    count = ctypes.c_int()
    nvrtc.nvrtcGetNumSupportedArchs(ctypes.byref(count))
    found = (ctypes.c_int * count.value)()
    nvrtc.nvrtcGetSupportedArchs(found)
    return list(found)


def _load(lib: str):
    """Load libnvrtc, with the builtins library beside it loaded first (it is found by name otherwise)."""
    folder = Path(lib).resolve().parent
    for builtins in sorted(folder.glob("libnvrtc-builtins.so.*")):
        if ".alt." not in builtins.name:
            ctypes.CDLL(str(builtins), mode=ctypes.RTLD_GLOBAL)
            break
    return ctypes.CDLL(lib)


def _text(nvrtc, prog, size_fn, get_fn) -> bytes:
    size = ctypes.c_size_t()
    getattr(nvrtc, size_fn)(prog, ctypes.byref(size))
    buf = ctypes.create_string_buffer(size.value)
    getattr(nvrtc, get_fn)(prog, buf)
    return buf.raw[:size.value]


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[-2] != "-o":
        print("usage: python -m suitegen.compilers.nvrtc LIBNVRTC [OPTION ...] FILE -o OUT", file=sys.stderr)
        return LIBRARY_FAILED
    lib, options, source, out = argv[0], argv[1:-3], argv[-3], argv[-1]
    try:
        nvrtc = _load(lib)
    except OSError as exc:
        print(f"nvrtc error: cannot load {lib}: {exc}")
        return LIBRARY_FAILED
    nvrtc.nvrtcGetErrorString.restype = ctypes.c_char_p
    prog = ctypes.c_void_p()
    code = nvrtc.nvrtcCreateProgram(ctypes.byref(prog), Path(source).read_bytes(), source.encode(), 0, None, None)
    if code:
        print(f"nvrtc error: nvrtcCreateProgram: {nvrtc.nvrtcGetErrorString(code).decode()}")
        return LIBRARY_FAILED
    print(f"#$ nvrtc {' '.join(options)} {source}", flush=True)
    opts = (ctypes.c_char_p * len(options))(*(o.encode() for o in options))
    code = nvrtc.nvrtcCompileProgram(prog, len(options), opts)
    print(_text(nvrtc, prog, "nvrtcGetProgramLogSize", "nvrtcGetProgramLog").rstrip(b"\0").decode(errors="replace"))
    if code:
        status = nvrtc.nvrtcGetErrorString(code).decode()
        if status == "NVRTC_ERROR_COMPILATION":
            return 1  # the phase is the last error's: NVRTC's own, or its ptxas's
        print(f"nvrtc error: {status}")
        return LIBRARY_FAILED
    kind = ("nvrtcGetPTXSize", "nvrtcGetPTX") if out.endswith(".ptx") else ("nvrtcGetCUBINSize", "nvrtcGetCUBIN")
    data = _text(nvrtc, prog, *kind)
    Path(out).write_bytes(data.rstrip(b"\0") if out.endswith(".ptx") else data)
    return 0


class Nvrtc(backends.OneProcess):
    """NVRTC: one file of device code for one target, built in a process of its own (see the module)."""

    kind = Compiler.NVRTC
    batches = False  # one program per process
    probes_features = False  # the feature probes are nvcc builds
    same_messages = True  # its front end is nvcc's
    refusal = (HOST_CODE,
               "NVRTC compiles device code only: it reports this case's host code (a host function or variable)")
    module_sections = ()  # it writes no object

    def owns(self, path: str) -> bool:
        return is_library(path)

    def probe(self, path: str, name: str = "", host_flags: Iterable[str] = ()) -> Toolchain:
        from suitegen.compilers import toolchain
        return toolchain.probe_nvrtc(path, name)

    def output(self, mode: Mode, config: Config) -> str:
        return output_name(config.arch)

    def build_command(self, config: Config, mode: Mode, flags: Sequence[str], files: Sequence[str],
                      out: str) -> list[str]:
        return command(config.toolchain.nvcc, config.std.value, config.arch, (*config.flags, *flags), files[0], out)

    def classify(self, argv: list[str], returncode: int, text: str, duration: float) -> CompileResult:
        from suitegen.compilers import diagnostics, nvcc
        if returncode == LIBRARY_FAILED:  # the library did not load, or refused an option: not a verdict
            return CompileResult(outcome=Outcome.TOOLCHAIN_ERROR, phase=Phase.NVRTC, exit_code=returncode,
                                 diagnostics=diagnostics.parse(text).diagnostics, commands=(tuple(argv),),
                                 output=text, duration=duration)
        return nvcc.classify(argv, returncode, text, duration)  # its log reads as nvcc's (see main)

    def out_of_scope(self, case: Case, config: Config) -> str | None:
        return out_of_scope(case, config)

    def module(self, argv: list[str], folder: Path, timeout: float) -> bytes | None:
        out = folder / argv[argv.index("-o") + 1]  # NVRTC's output is the module
        return out.read_bytes() if out.exists() else None

    def features(self, toolchain: Toolchain) -> frozenset[str]:
        return frozenset({"nvrtc"})  # no host compiler

    def target_queries(self, toolchain: Toolchain):
        ask = [sys.executable, "-c", "import sys; from suitegen.compilers import nvrtc; "
               "print(*nvrtc.supported_archs(sys.argv[1]))", toolchain.nvcc]
        return [(ask, lambda text: {f"{side}_{n}" for n in text.split() if n.isdigit() for side in ("sm", "compute")})]


BACKEND = Nvrtc()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
