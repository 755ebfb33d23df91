"""clang as a backend: LLVM's CUDA support (``clang++ -x cuda``), compiling against a CUDA install.

clang differs from nvcc by design: one front end (Sema) compiles both sides, extended lambdas and
constexpr calls across sides are always on, and it embeds SASS for every target. It is judged by
outcome, phase and line (``same_messages`` is False: its words are not nvcc's). Its phases map onto the
oracle's: Sema is the front end (and the host compiler: there is no other), LLVM code generation is
``llvm``, then the CUDA install's ``ptxas`` and ``fatbinary``; programs link through ``nvlink`` (relocatable
device code, via clang-linker-wrapper) and ``ld``.

A build runs ``clang++ -v``: it echoes each sub-command as `` "tool" args`` before running it, which
attributes what follows to that stage, as nvcc's ``#$`` lines do.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
from pathlib import Path, PurePath
from typing import Iterable, Sequence

from suitegen import procs
from suitegen.compilers import backends, diagnostics
from suitegen.model import (Case, CompileResult, Compiler, Config, Diagnostic, Mode, Outcome, Phase, Toolchain,
                            digest)

NAME = re.compile(r"^clang(\+\+)?(-\d+)?$")
# nvcc flags of a config or case -> clang's flags that mean the same; () where clang always behaves as the flag
# asks (extended lambdas and constexpr calls across sides are on in clang). A flag not here has no counterpart.
FLAGS: dict[str, tuple[str, ...]] = {
    "--extended-lambda": (), "--expt-extended-lambda": (), "--expt-relaxed-constexpr": (),
    "-rdc=true": ("-fgpu-rdc",), "-fmad=false": ("-ffp-contract=off",), "-w": ("-w",),
    "-Werror=all-warnings": ("-Werror",), "-Wno-deprecated-declarations": ("-Wno-deprecated-declarations",),
    "-Werror=deprecated-declarations": ("-Werror=deprecated-declarations",),
    "-G": ("--cuda-noopt-device-debug", "-g"), "-Xptxas=-O0": ("-Xcuda-ptxas", "-O0"),
    "-maxrregcount=24": ("-Xcuda-ptxas", "--maxrregcount=24"),
}
# -O3: nvcc optimises device code by default (cicc and ptxas -O3); clang's default is -O0 for both sides.
# -ferror-limit=0: a batch reports every member's errors (clang stops at 20 otherwise).
BASE = ("-O3", "-ferror-limit=0", "-fno-color-diagnostics", "-Wno-unknown-cuda-version")
STUB_HEADERS = ("curand_mtgp32_kernel.h",)  # clang's CUDA wrapper includes it; a CUDA install without cuRAND lacks it
SUBCOMMAND = re.compile(r'^ "(?P<tool>[^"]+)"(?P<args>.*)$')
DRIVER_ERROR = re.compile(r"^(?:clang(?:\+\+)?(?:-\d+)?|clang-linker-wrapper|clang-nvlink-wrapper): (?P<sev>error|warning): "
                          r"(?P<msg>.*)$")
FAILED_COMMAND = re.compile(r"command failed|failed with exit code|'\S+' failed")
BACKEND_ERROR = re.compile(r"error in backend|LLVM ERROR", re.I)
CRASH = ("PLEASE submit a bug report", "Stack dump:", "failed due to signal", "Segmentation fault",
         "Assertion `", "unable to execute command")
# ld's own lines that are problems though they say no "error:" (older binutils); under clang -v, ld also prints
# its mode and linker script, which are not diagnostics
LD_PROBLEM = re.compile(r"undefined reference|multiple definition|cannot find|relocation .* against|not found")
CUDA_VERSION = re.compile(r"#define\s+CUDA_VERSION\s+(\d+)")
PROBE_ARCH = "sm_80"  # clang's default target is older than any CUDA 13 ptxas builds for


def cuda_path(env: dict | None = None) -> Path | None:
    """Return the CUDA install clang compiles against: $SUITEGEN_CLANG_CUDA_PATH, $CUDA_HOME, the install
    of the nvcc on PATH, else /usr/local/cuda; None if none has ``include/cuda.h``."""
    env = os.environ if env is None else env
    nvcc = shutil.which("nvcc", path=env.get("PATH"))
    for candidate in (env.get("SUITEGEN_CLANG_CUDA_PATH"), env.get("CUDA_HOME"),
                      str(Path(nvcc).resolve().parents[1]) if nvcc else None, "/usr/local/cuda"):
        if candidate and (Path(candidate) / "include" / "cuda.h").is_file():
            return Path(candidate).resolve()
    return None


def stub_folder(cuda: Path) -> Path | None:
    """Return a folder of empty stand-ins for the headers clang's wrapper includes and ``cuda`` lacks."""
    missing = [h for h in STUB_HEADERS if not (cuda / "include" / h).exists()]
    if not missing:
        return None
    from suitegen.compilers.toolchain import cache_root
    folder = cache_root() / "clang-stubs"
    folder.mkdir(parents=True, exist_ok=True)
    for header in missing:
        if not (folder / header).exists():
            (folder / header).write_text("/* suitegen: an empty stand-in; this CUDA install has no cuRAND */\n")
    return folder


def install_hint(path: str) -> str:
    """Return how to get the clang a path names: Debian's packages of its major version (22 where it names none)."""
    m = re.search(r"-(\d+)$", Path(path).name)
    major = m[1] if m else "22"
    return (f"install Debian's clang-{major} and clang-tools-{major} (apt-get install clang-{major} "
            f"clang-tools-{major}), or name an installed clang++ with --nvcc PATH")


def targets(arch: str) -> list[str]:
    return arch.split("+")


def head(config: Config) -> list[str]:
    """Return what every build under a config starts with: clang++ -v, the CUDA install, -std, targets."""
    tc = config.toolchain
    return [tc.nvcc, "-v", f"--cuda-path={tc.cuda_path}", *tc.base_flags, *BASE,
            f"-std={config.std.value}", *(f"--offload-arch={t}" for t in targets(config.arch))]


def translate(flags: Iterable[str]) -> list[str]:
    return [x for f in flags for x in FLAGS[f]]


def inputs(files: Sequence[str]) -> list[str]:
    """Return the input files with the language each is: CUDA sources, then anything else as it is."""
    out, lang = [], None
    for f in files:
        want = "cuda" if f.endswith(".cu") else "none"
        if want != lang:
            out += ["-x", want]
            lang = want
        out.append(f)
    return out


def _phase(tool: str, args: str) -> Phase:
    name = PurePath(tool).name
    if name.startswith("clang") and " -cc1" in args:
        return Phase.CLANG
    return {"ptxas": Phase.PTXAS, "fatbinary": Phase.FATBINARY, "nvlink": Phase.NVLINK,
            "clang-nvlink-wrapper": Phase.NVLINK, "clang-linker-wrapper": Phase.LINK, "ld": Phase.LINK,
            "ld.lld": Phase.LINK}.get(name, Phase.CLANG_DRIVER)


def parse(text: str) -> tuple[list[Diagnostic], list[Phase], bool]:
    """Return the diagnostics of a ``clang++ -v`` run, the phases of its sub-commands, and whether it crashed."""
    phase = Phase.CLANG_DRIVER
    diags: list[Diagnostic] = []
    phases: list[Phase] = []
    crash = False
    for raw in text.splitlines():
        line = raw.rstrip()
        m = SUBCOMMAND.match(line)
        if m:
            phase = _phase(m["tool"], m["args"])
            phases.append(phase)
            continue
        crash |= any(marker in line for marker in CRASH)
        d = DRIVER_ERROR.match(line)
        if d:
            # "ptxas command failed": the stage's own error came before; otherwise the driver's own complaint
            failed = FAILED_COMMAND.search(d["msg"]) is not None
            diags.append(Diagnostic(severity=d["sev"], message=d["msg"],
                                    phase=(phases[-1] if failed and phases else Phase.CLANG_DRIVER)))
            continue
        diag = diagnostics.diagnostic(line, phase)
        if diag is not None and diag.phase is Phase.LINK and not re.search(r"\b(error|warning): ", line) \
                and not LD_PROBLEM.search(diag.message):
            continue  # ld -v's report of its mode, not a diagnostic
        if diag is not None:
            if BACKEND_ERROR.search(diag.message):
                diag = Diagnostic(severity=diag.severity, message=diag.message, phase=Phase.LLVM, file=diag.file,
                                  line=diag.line, number=diag.number)
            diags.append(diag)
        elif BACKEND_ERROR.search(line):
            diags.append(Diagnostic(severity="error", message=line.strip(), phase=Phase.LLVM))
    return diags, phases, crash


def classify(argv: list[str], returncode: int, text: str, duration: float) -> CompileResult:
    """Turn clang's exit status and ``-v`` output into a CompileResult."""
    diags, phases, crash = parse(text)
    errors = [d for d in diags if d.severity in ("error", "fatal")]
    own = [d for d in errors if not (d.phase is Phase.CLANG_DRIVER and FAILED_COMMAND.search(d.message))]
    if returncode == 0:
        outcome = Outcome.ACCEPTED_WITH_WARNINGS if any(d.severity == "warning" for d in diags) else Outcome.ACCEPTED
        phase = None
    elif returncode < 0 or crash:
        outcome, phase = Outcome.CRASHED, (phases[-1] if phases else Phase.CLANG_DRIVER)
    else:
        phase = own[0].phase if own else (phases[-1] if phases else Phase.CLANG_DRIVER)
        # clang refusing its own command line (an unknown option, arch or -std) is not a verdict on the code
        outcome = Outcome.TOOLCHAIN_ERROR if phase is Phase.CLANG_DRIVER else Outcome.REJECTED
    return CompileResult(outcome=outcome, phase=phase, exit_code=returncode, diagnostics=tuple(diags),
                         commands=(tuple(argv),), output=text, duration=duration)


class Clang(backends.OneProcess):
    """clang++ compiling CUDA, its host side included, with the CUDA install's ptxas, fatbinary and nvlink."""

    kind = Compiler.CLANG
    batches = True
    probes_features = True
    same_messages = False
    refusal = None
    module_sections = ()  # clang emits device code only for what is used: an object of unused functions has none

    def owns(self, path: str) -> bool:
        return NAME.match(Path(path).name) is not None

    def probe(self, path: str, name: str = "", host_flags: Iterable[str] = ()) -> Toolchain:
        from suitegen.compilers.toolchain import ToolchainError, file_hash, run_probe, tree_stamp
        found = shutil.which(path) or path
        if not Path(found).is_file():
            raise ToolchainError(f"clang not found: {path}; {install_hint(path)}")
        resolved = Path(found).resolve()
        text = run_probe([found, "--version"], "clang")
        m = re.search(r"clang version (\d+)\.(\d+)\.(\d+)", text)
        if not m:
            raise ToolchainError(f"{found} printed no clang version: {text.strip()[:200]}")
        cuda = cuda_path()
        if cuda is None:
            raise ToolchainError("clang compiles CUDA against a CUDA install, and none was found: set "
                                 "SUITEGEN_CLANG_CUDA_PATH or CUDA_HOME, or put nvcc on PATH")
        v = CUDA_VERSION.search((cuda / "include" / "cuda.h").read_text(errors="replace"))
        cuda_version = (int(v[1]) // 1000, int(v[1]) % 1000 // 10) if v else ()
        tools = {t: file_hash(cuda / "bin" / t) for t in ("ptxas", "fatbinary", "nvlink") if (cuda / "bin" / t).is_file()}
        fp = digest(file_hash(resolved), text.strip(), str(resolved), str(cuda), tools,
                    tree_stamp([str(cuda / "include"), str(cuda / "lib64")]))
        stubs = stub_folder(cuda)
        return Toolchain(nvcc=found, version=tuple(int(x) for x in m.groups()), version_text=text.strip().splitlines()[0],
                         host_compiler="", host_version=f"{Path(found).name} itself", fingerprint=fp, name=name,
                         kind=Compiler.CLANG,
                         cuda_version=cuda_version, cuda_path=str(cuda),
                         base_flags=("-isystem", str(stubs)) if stubs else ())

    def output(self, mode: Mode, config: Config) -> str:
        return {Mode.COMPILE: "main.o", Mode.FATBIN: "main.cubin"}.get(mode, "main.out")

    def build_command(self, config: Config, mode: Mode, flags: Sequence[str], files: Sequence[str],
                      out: str) -> list[str]:
        argv = [*head(config), *translate((*config.flags, *flags))]
        if mode is Mode.COMPILE:
            return [*argv, "-c", *inputs(files), "-o", out]
        if mode is Mode.FATBIN:  # one target's device code (``out_of_scope`` refuses several)
            return [*argv, "--cuda-device-only", "-c", *inputs(files), "-o", out]
        lib = str(Path(config.toolchain.cuda_path) / "lib64")
        # the device runtime, for launches from device code: nvcc's device link always takes it
        devrt = ["-Xoffload-linker", f"{lib}/libcudadevrt.a"] if "-fgpu-rdc" in argv else []
        # the CUDA runtime as a shared library (nvcc links it statically): programs stay small enough to carry
        # in a build store, and find it where the CUDA install keeps it (or on LD_LIBRARY_PATH)
        return [*argv, *inputs(files), "-o", out, f"-L{lib}", *devrt, "-lcudart", f"-Wl,-rpath,{lib}"]

    def classify(self, argv: list[str], returncode: int, text: str, duration: float) -> CompileResult:
        return classify(argv, returncode, text, duration)

    def out_of_scope(self, case: Case, config: Config) -> str | None:
        if any(t.startswith("compute_") for t in targets(config.arch)):
            return "clang embeds SASS for every target: a PTX-only target has no clang counterpart"
        if case.variant.mode is Mode.FATBIN and "+" in config.arch:
            return "clang writes one target's device code alone: a multi-target module has no clang counterpart"
        unknown = [f for f in (*config.flags, *case.variant.flags, *case.mode_flags) if f not in FLAGS]
        if unknown:
            return f"clang has no counterpart of nvcc's {' '.join(unknown)}"
        return None

    def module(self, argv: list[str], folder: Path, timeout: float) -> bytes | None:
        """The cubin of a device-only build, the fatbin an object or program embeds, or for an object with
        relocatable device code (an offload binary, which loads nowhere) each target's cubin linked by
        nvlink into one fatbin."""
        from suitegen.compilers.compile import DLINK_LOG, module_image
        out = folder / argv[argv.index("-o") + 1]
        if out.suffix == ".cubin":
            return out.read_bytes() if out.exists() else None
        if "-fgpu-rdc" not in argv or "-c" not in argv:
            return module_image(out)
        cuda = Path(next(a for a in argv if a.startswith("--cuda-path=")).split("=", 1)[1])
        tools = Path(argv[0]).resolve().parent
        arches = [a.split("=", 1)[1] for a in argv if a.startswith("--offload-arch=")]
        images, log = [], []
        for arch in arches:
            rel, linked = folder / f"dev-{arch}.rel.cubin", folder / f"dev-{arch}.cubin"
            steps = [[str(tools / "llvm-offload-binary"), out.name, f"--image=file={rel.name},arch={arch}"],
                     [str(cuda / "bin" / "nvlink"), f"-arch={arch}", rel.name, str(cuda / "lib64" / "libcudadevrt.a"),
                      "-o", linked.name]]  # with the device runtime, as nvcc's device link
            for step in steps:
                done = procs.run(step, timeout=timeout, cwd=folder)
                log.append(f"$ {shlex.join(step)}\n{done.output}")
                if done.returncode != 0 or done.timed_out:
                    (folder / DLINK_LOG).write_text("\n".join(log)[-3000:])
                    return None
            images.append(f"--image3=kind=elf,sm={arch.split('_')[1]},file={linked.name}")
        step = [str(cuda / "bin" / "fatbinary"), "-64", "--create=dev.fatbin", *images]
        done = procs.run(step, timeout=timeout, cwd=folder)
        if done.returncode != 0 or not (folder / "dev.fatbin").exists():
            (folder / DLINK_LOG).write_text(f"$ {shlex.join(step)}\n{done.output}"[-3000:])
            return None
        return (folder / "dev.fatbin").read_bytes()

    def features(self, toolchain: Toolchain) -> frozenset[str]:
        # clang is its own host compiler: the host-compiler rules of a clang host apply
        return frozenset({"clang", "host-clang"})

    def probe_command(self, toolchain: Toolchain, source: str, device_only: bool = False) -> list[str]:
        from suitegen.model import Std
        config = Config(toolchain=toolchain, std=Std.parse("c++17"), arch=PROBE_ARCH)
        out = source.rsplit(".", 1)[0] + ".o"  # both sides: one compile
        return [a for a in self.build_command(config, Mode.COMPILE, (), [source], out) if a != "-v"]

    def target_queries(self, toolchain: Toolchain):
        ask = [toolchain.nvcc, "--target=nvptx64-nvidia-cuda", "--print-supported-cpus"]
        return [(ask, lambda text: {w for w in text.split() if re.fullmatch(r"sm_\d+[af]?", w)}
                 | {w.replace("sm_", "compute_") for w in text.split() if re.fullmatch(r"sm_\d+[af]?", w)})]


BACKEND = Clang()
