"""Runs nvcc on a case under a config and returns what happened; never judges."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from suitegen import procs
from suitegen.build import artifacts, cache, diagnostics, nvrtc
from suitegen.model import Case, CompileResult, Config, Diagnostic, Mode, Outcome, Phase
from suitegen.oracle.conditions import flag_features

DEFAULT_TIMEOUT = 120.0


def nvcc_argv(config: Config, case_flags: tuple[str, ...] = ()) -> list[str]:
    """Return what every build under a config starts with: nvcc -v, the host compiler, -std, arch, flags."""
    host = ["-ccbin", config.toolchain.host_compiler] if config.toolchain.host_compiler else []
    return [config.toolchain.nvcc, "-v", *host, f"-std={config.std.value}", *arch_flags(config.arch),
            *config.flags, *case_flags]


def command(case: Case, config: Config) -> list[str]:
    """Return the nvcc (or NVRTC) command line for a case, relative to its scratch folder."""
    files = list(case.files)
    mode = case.variant.mode
    if config.toolchain.kind == "nvrtc":
        return nvrtc.command(config.toolchain.nvcc, config.std.value, config.arch,
                             (*config.flags, *case.variant.flags), files[0], nvrtc.output_name(config.arch))
    argv = nvcc_argv(config, case.variant.flags)
    if mode is Mode.COMPILE:
        argv += ["-c", files[0], "-o", "main.o"]
    elif mode is Mode.FATBIN:
        argv += ["-fatbin", files[0], "-o", "main.fatbin"]
    else:
        argv += [*case.mode_flags, *files, "-o", "main.out"]
    return argv


def arch_flags(arch: str) -> list[str]:
    """Return nvcc flags for an arch: -arch=sm_90, -arch=compute_90 (PTX only), or -gencode per target."""
    if "+" not in arch:
        return [f"-arch={arch}"]
    out = []
    for target in arch.split("+"):
        num = target.split("_", 1)[1]
        out += ["-gencode", f"arch=compute_{num},code={target}"]
    return out


def compile_case(case: Case, config: Config, folder: Path, timeout: float = DEFAULT_TIMEOUT,
                 cached: bool = False, image: bool = False) -> CompileResult:
    """Write a case into ``folder`` (a private scratch folder), compile it there and classify the outcome.

    ``cached``: take the result from the build cache when it has it (nothing is written or built then,
    so only for builds whose product nobody runs), and store a fresh one. ``image``: also leave the
    object's device module in ``folder / MODULE`` (see ``cached_build``).
    """
    argv = command(case, config)
    return cached_build(config, argv, dict(case.files), folder, timeout, cached, image)


def cached_build(config: Config, argv: list[str], files: dict[str, str], folder: Path, timeout: float,
                 cached: bool, image: bool = False) -> CompileResult:
    """Return the result of building ``files`` with ``argv`` in ``folder``, through the build cache if asked.

    A build that exits 0 is accepted only where its output is there and of its format (see ``artifacts``);
    otherwise it is a toolchain error saying what is missing. ``image``: for an accepted build, also write
    its device module (the fatbin image the object or program embeds, byte for byte what ``nvcc -fatbin``
    writes) to ``folder / MODULE``; the cache keeps it beside the result, so a hit still has it.
    """
    k = cache.key(config.toolchain, argv, files) if cached else None
    hit = cache.get(k) if k is not None else None
    if hit is not None:  # classified again from what the toolchain printed: a parser fix needs no rebuild
        hit = replace(classify(list(hit.commands[0]), hit.exit_code, hit.output, hit.duration), cached=True)
        if not (image and hit.outcome.accepted):
            return hit
        stored = cache.get_image(k)
        if stored is not None:
            (folder / MODULE).write_bytes(stored)
            return hit
        # a hit without its module (stored before modules were kept): build again
    for name, text in files.items():
        (folder / name).write_text(text)
    result = run_nvcc(argv, folder, timeout)
    found = None
    if result.outcome.accepted:
        missing = artifacts.problem(argv, folder, files)
        result = without_evidence(result, missing) if missing else result
        found = None if missing else artifacts.checked(argv, files)
    data = _module(argv, folder, timeout) if image and result.outcome.accepted else None
    if data is not None:
        (folder / MODULE).write_bytes(data)
    if k is not None:
        cache.put(k, result, artifact=found, image=data)
    return result


def without_evidence(result: CompileResult, missing: str) -> CompileResult:
    """Return an accepted result whose output is missing or malformed as what it is: a toolchain error (never
    a verdict on the code), with a diagnostic saying what is missing."""
    why = f"exit status 0, but no evidence of acceptance: {missing}"
    diag = Diagnostic(severity="error", message=why, phase=Phase.NVCC)
    return replace(result, outcome=Outcome.TOOLCHAIN_ERROR, phase=Phase.NVCC, diagnostics=(diag, *result.diagnostics),
                   output=f"{result.output}\n[suitegen] {why}\n")


MODULE = "module.fatbin"
DLINKED = "dlink.o"
DLINK_LOG = "dlink.log"  # what nvcc -dlink said when it made no module


def _module(argv: list[str], folder: Path, timeout: float) -> bytes | None:
    """Return the device module of an accepted build: the fatbin its object or program embeds (a program
    with relocatable device code embeds its device-linked image there), or for a relocatable object
    (``-rdc=true -c``, which embeds no loadable module) the one ``nvcc -dlink`` makes of it.

    That device link ignores the object's record of which kernels its host code references: nvlink
    otherwise drops the others (a value kernel, which only the driver launches) from the linked image."""
    out = folder / argv[argv.index("-o") + 1]
    if out.suffix in (".cubin", ".ptx"):  # NVRTC's output is the module
        return out.read_bytes() if out.exists() else None
    if "rdc" not in flag_features(argv) or "-c" not in argv:
        return module_image(out)
    head = [a for a in argv[:argv.index("-c")] if a != "-v"]
    done = procs.run([*head, "-dlink", "-Xnvlink", "--ignore-host-info", out.name, "-o", DLINKED],
                     timeout=timeout, cwd=folder)
    if done.returncode == 0 and not done.timed_out:
        return module_image(folder / DLINKED)
    (folder / DLINK_LOG).write_text(done.output or f"nvcc -dlink exited {done.returncode}")
    return None


def module_image(binary: Path) -> bytes | None:
    """Return the device module an object or program embeds (its .nv_fatbin section), or None."""
    out = binary.with_suffix(".nv_fatbin")
    try:
        done = procs.run(("objcopy", "-O", "binary", "--only-section=.nv_fatbin", str(binary), str(out)),
                         timeout=60, cwd=binary.parent)
        data = out.read_bytes() if done.returncode == 0 and out.exists() else b""
    except OSError:
        return None
    return data if data.startswith(artifacts.FATBIN_MAGIC) else None


def program_path(case: Case, config: Config, folder: Path) -> Path | None:
    """Return the program (or, for fatbin cases, the module) a build produced; None for compile-only cases."""
    mode = case.variant.mode
    if mode is Mode.COMPILE:
        return None
    if config.toolchain.kind == "nvrtc":
        return folder / nvrtc.output_name(config.arch)
    return folder / ("main.fatbin" if mode is Mode.FATBIN else "main.out")


def run_nvcc(argv: list[str], cwd: Path, timeout: float) -> CompileResult:
    """Run one nvcc command (never through a shell) and classify what it did."""
    try:
        done = procs.run(argv, timeout=timeout, cwd=cwd)
    except OSError as exc:
        return CompileResult(outcome=Outcome.TOOLCHAIN_ERROR, phase=Phase.NVCC, exit_code=None,
                             diagnostics=(), commands=(tuple(argv),),
                             output=f"cannot run {argv[0]}: {exc.strerror or exc}", duration=0.0)
    if done.timed_out:
        text = done.output + f"\n[suitegen] killed after {timeout:g}s\n"
        parsed = diagnostics.parse(text)
        last = parsed.subcommands[-1][0] if parsed.subcommands else Phase.NVCC
        return CompileResult(outcome=Outcome.TIMED_OUT, phase=last, exit_code=None,
                             diagnostics=parsed.diagnostics, commands=(tuple(argv),), output=text,
                             duration=done.duration)
    return classify(argv, done.returncode, done.output, done.duration)


def classify(argv: list[str], returncode: int, text: str, duration: float) -> CompileResult:
    """Turn nvcc's exit status and output into a CompileResult."""
    parsed = diagnostics.parse(text)
    diags = parsed.diagnostics
    phase = parsed.failed_phase
    if returncode == nvrtc.LIBRARY_FAILED and nvrtc.is_command(argv):
        # the NVRTC library did not load, or refused an option: not a verdict on the code
        return CompileResult(outcome=Outcome.TOOLCHAIN_ERROR, phase=Phase.NVRTC, exit_code=returncode,
                             diagnostics=diags, commands=(tuple(argv),), output=text, duration=duration)
    if returncode == 0:
        warned = any(d.severity == "warning" for d in diags)
        outcome = Outcome.ACCEPTED_WITH_WARNINGS if warned else Outcome.ACCEPTED
        phase = None
    elif returncode < 0 or parsed.crash:
        outcome = Outcome.CRASHED
        phase = phase or (parsed.subcommands[-1][0] if parsed.subcommands else Phase.NVCC)
    else:
        if phase is None:
            errors = [d for d in diags if d.severity in ("error", "fatal")]
            phase = errors[-1].phase if errors else (
                parsed.subcommands[-1][0] if parsed.subcommands else Phase.NVCC)
        # nvcc refusing its own command line (unknown option, arch, -std) is not a verdict on the code.
        outcome = Outcome.TOOLCHAIN_ERROR if phase is Phase.NVCC else Outcome.REJECTED
    return CompileResult(outcome=outcome, phase=phase, exit_code=returncode, diagnostics=diags,
                         commands=(tuple(argv),), output=text, duration=duration)
