"""nvcc as a backend: its command lines, how its ``-v`` output reads, and its probe."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from suitegen import procs
from suitegen.compilers import artifacts, diagnostics, nvcc_stages
from suitegen.model import Case, CompileResult, Compiler, Config, Mode, Outcome, Phase, Toolchain
from suitegen.oracle.conditions import flag_features


def nvcc_argv(config: Config, case_flags: tuple[str, ...] = ()) -> list[str]:
    """Return what every build under a config starts with: nvcc -v, the host compiler, -std, arch, flags."""
    host = ["-ccbin", config.toolchain.host_compiler] if config.toolchain.host_compiler else []
    return [config.toolchain.nvcc, "-v", *host, f"-std={config.std.value}", *arch_flags(config.arch),
            *config.flags, *case_flags]


def arch_flags(arch: str) -> list[str]:
    """Return nvcc flags for an arch: -arch=sm_90, -arch=compute_90 (PTX only), or -gencode per target."""
    if "+" not in arch:
        return [f"-arch={arch}"]
    out = []
    for target in arch.split("+"):
        num = target.split("_", 1)[1]
        out += ["-gencode", f"arch=compute_{num},code={target}"]
    return out


def virtual_arch(arg: str) -> str:
    """Return an ``-arch=sm_XX`` flag as ``-arch=compute_XX``; any other argument as it is."""
    return re.sub(r"^-arch=sm_", "-arch=compute_", arg)


def virtual_to_real(arg: str) -> str:
    """Return an ``-arch=compute_XX`` flag as ``-arch=sm_XX``; any other argument as it is."""
    return re.sub(r"^-arch=compute_", "-arch=sm_", arg)


def classify(argv: list[str], returncode: int, text: str, duration: float) -> CompileResult:
    """Turn nvcc's exit status and ``-v`` output into a CompileResult."""
    parsed = diagnostics.parse(text)
    diags = parsed.diagnostics
    phase = parsed.failed_phase
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


ARCH_LIST = re.compile(r"__CUDA_ARCH_LIST__")
FOLDER_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"][^>"]*/', re.M)
OUTPUTS = {Mode.COMPILE: "main.o", Mode.FATBIN: "main.fatbin"}  # the others: a program, main.out
MODE_FLAGS = {Mode.COMPILE: ["-c"], Mode.FATBIN: ["-fatbin"]}


def _target_list_unread(files: Mapping[str, str | bytes]) -> bool:
    """Whether no source reads ``__CUDA_ARCH_LIST__``: none names it, and every header is named without a folder
    (the CUDA headers that read it are CUB's and Thrust's); so builds for other target lists see the same text."""
    texts = [t for t in files.values() if isinstance(t, str)]
    return len(texts) == len(files) and not any(ARCH_LIST.search(t) or FOLDER_INCLUDE.search(t) for t in texts)


def _gencode_pairs(argv: Sequence[str]) -> tuple[int, list[str]] | None:
    """Return where a several-target command's ``-gencode`` pairs start and their values, in order; None where it
    has fewer than two, or they are not side by side (as ``arch_flags`` writes them)."""
    at = [i for i, a in enumerate(argv) if a == "-gencode"]
    if len(at) < 2 or at != list(range(at[0], at[0] + 2 * len(at), 2)):
        return None
    return at[0], [argv[i + 1] for i in at]


def _first_target(argv: Sequence[str], start: int, pairs: list[str]) -> list[str] | None:
    """Return a several-target build for its first pair's target alone (``-arch=sm_80``)."""
    first = re.match(r"arch=compute_\w+,code=((?:sm|compute)_\w+)$", pairs[0])
    return None if first is None else [*argv[:start], f"-arch={first[1]}", *argv[start + 2 * len(pairs):]]


def _first_target_short(argv: Sequence[str], start: int, pairs: list[str]) -> list[str] | None:
    """Return the one-target short build (``-arch=compute_80 -ptx ... -o main.ptx``) of the target a several-target
    short build (``-fatbin ... -o main.fatbin``) compiles first: its last pair."""
    first = re.match(r"arch=(compute_\w+),", pairs[-1])
    if first is None or "-o" not in argv:
        return None
    fatbin = argv.index("-fatbin")
    return [*argv[:start], f"-arch={first[1]}", *argv[start + 2 * len(pairs):fatbin], "-ptx",
            *argv[fatbin + 1:argv.index("-o")], "-o", "main.ptx"]


class Nvcc:
    """nvcc, driving the host compiler for host code (``-ccbin``)."""

    kind = Compiler.NVCC
    batches = True
    probes_features = True
    same_messages = True
    refusal = None
    module_sections = artifacts.MODULE_SECTIONS

    def owns(self, path: str) -> bool:
        return True  # any path another backend does not claim (a wrapper may have any name)

    def probe(self, path: str, name: str = "", host_flags: Iterable[str] = ()) -> Toolchain:
        from suitegen.compilers import toolchain
        return toolchain.probe_nvcc(path, name, host_flags)

    def output(self, mode: Mode, config: Config) -> str:
        return OUTPUTS.get(mode, "main.out")

    def build_command(self, config: Config, mode: Mode, flags: Sequence[str], files: Sequence[str],
                      out: str) -> list[str]:
        return [*nvcc_argv(config, tuple(flags)), *MODE_FLAGS.get(mode, []), *files, "-o", out]

    def classify(self, argv: list[str], returncode: int, text: str, duration: float) -> CompileResult:
        return classify(argv, returncode, text, duration)

    def front_end_command(self, config: Config, mode: Mode, flags: Sequence[str], files: Sequence[str]) -> list[str] | None:
        """The build's device front end without its host side (the host preprocessor and cudafe++ that a full
        build runs first): for one target ``-ptx``, naming the target's virtual architecture (``sm_90`` becomes
        ``compute_90``, so the configs ``sm_90`` and ``compute_90`` share one short build); for several,
        ``-fatbin`` with the targets in the order that makes nvcc compile them as the full build does.
        Only for an object's one file, and only where ``nvcc --dryrun`` shows the short command's device
        preprocessor and cicc commands to be the full build's (``nvcc_stages.same_front_end``)."""
        if mode is not Mode.COMPILE or len(files) != 1:
            return None
        full = self.build_command(config, mode, flags, files, self.output(mode, config))
        argv = nvcc_argv(config, tuple(flags))
        if "+" not in config.arch:
            short = [*(virtual_arch(a) for a in argv), "-ptx", *files, "-o", "main.ptx"]
        else:  # nvcc -fatbin compiles the targets last to first
            pairs = arch_flags(config.arch)
            at = argv.index(pairs[0])
            reversed_pairs = [x for i in range(len(pairs) - 2, -1, -2) for x in pairs[i:i + 2]]
            short = [*argv[:at], *reversed_pairs, *argv[at + len(pairs):], "-fatbin", *files, "-o", "main.fatbin"]
        return short if nvcc_stages.same_front_end(config.toolchain, full, short) else None

    def first_front_end(self, result: CompileResult) -> bool:
        """Whether a short build stopped at its first device front end (see ``nvcc_stages``)."""
        return nvcc_stages.failed_at_first_front_end(result.output)

    def sibling_command(self, toolchain: Toolchain, argv: Sequence[str]) -> list[str] | None:
        """For one PTX-only target (``-arch=compute_90``), the same build for its SASS target (``-arch=sm_90``),
        which ``nvcc --dryrun`` shows to run the same stages up to and including cicc (``shared_stages``). For a build
        of several targets (``-gencode`` pairs), the build of the one it compiles first alone, whose stages it runs
        first alike but for the macros naming the build's targets: for ``-c`` or a program the first pair
        (``-arch=sm_80``: the host side, then compute_80's preprocessor, cicc and ptxas); for ``-fatbin`` (a
        several-target short build, ``front_end_command``) the last pair, as ``-arch=compute_80 -ptx``."""
        several = _gencode_pairs(argv)
        if several is not None:
            return (_first_target_short if "-fatbin" in argv else _first_target)(argv, *several)
        targets = [a for a in argv if a.startswith("-arch=compute_")]
        if len(targets) != 1 or "-gencode" in argv:
            return None
        return [virtual_to_real(a) if a == targets[0] else a for a in argv]

    def stopped_in_shared_stages(self, toolchain: Toolchain, argv: Sequence[str], sibling: Sequence[str],
                                 output: str, files: Mapping[str, str | bytes]) -> bool:
        """nvcc -v prints each stage's command before it runs it, and stops at the first that fails. Stages alike
        but for ``__CUDA_ARCH_LIST__`` (a build of several targets and its first one's) count only where no source
        reads that macro and every header is named without a folder (as for ``narrowed``)."""
        several = _gencode_pairs(argv) is not None
        if several and not _target_list_unread(files):
            return False
        ran = len(nvcc_stages.stages(output))
        return 0 < ran <= nvcc_stages.shared_stages(toolchain, argv, sibling, alike=several)

    def narrowed(self, toolchain: Toolchain, argv: Sequence[str], wide: Sequence[str], files: Mapping[str, str | bytes],
                 output: str) -> str | None:
        """The ``-v`` output of one target's build (``-arch=sm_80``), taken from the output of an accepted build of the
        same files for several (``-gencode`` for sm_80 and sm_90): its stages that the one-target build runs alike
        (``nvcc_stages.narrow_stages``: the host side, and that target's preprocessor, cicc and ptxas); the other
        targets' stages dropped, and the packing (fatbinary) where it printed nothing.

        The two differ only in the macros naming the build's targets: ``__CUDA_ARCH_LIST__`` in every preprocessor
        and ``__CUDA_ARCH__`` in the host compile of cudafe++'s output (whose own includes do not read it). So only
        where no source reads ``__CUDA_ARCH_LIST__`` and every header they include is named without a folder (the
        CUDA headers that read it are CUB's and Thrust's); else None."""
        if not _target_list_unread(files):
            return None
        found = nvcc_stages.narrow_stages(toolchain, argv, wide)
        if found is None:
            return None
        count, kept = found
        head, chunks = nvcc_stages.stage_chunks(output)
        if len(chunks) != count:
            return None  # not the build the listing describes
        if any(nvcc_stages.packs(stage) and text.count("\n") > 1
               for i, (stage, text) in enumerate(chunks) if i not in kept):
            return None  # the packing printed something: whose is not known
        return head + "".join(chunks[i][1] for i in kept)

    def module_command(self, argv: Sequence[str]) -> list[str] | None:
        """For an object's build (``-c``), the same flags with ``-fatbin``: the device side only, which writes the
        module the object embeds (``module``); not with relocatable device code (its module is a device link's)."""
        if "-c" not in argv or "rdc" in flag_features(argv):
            return None
        out = list(argv).index("-o")
        return [*("-fatbin" if a == "-c" else a for a in argv[:out]), "-o", "module-alone.fatbin", *argv[out + 2:]]

    def out_of_scope(self, case: Case, config: Config) -> str | None:
        return None

    def module(self, argv: list[str], folder: Path, timeout: float) -> bytes | None:
        """The fatbin its object or program embeds (a program with relocatable device code embeds its
        device-linked image there), or for a relocatable object (``-rdc=true -c``, which embeds no loadable
        module) the one ``nvcc -dlink`` makes of it.

        That device link ignores the object's record of which kernels its host code references: nvlink
        otherwise drops the others (a value kernel, which only the driver launches) from the linked image."""
        from suitegen.compilers.compile import DLINK_LOG, DLINKED, module_image
        out = folder / argv[argv.index("-o") + 1]
        if "rdc" not in flag_features(argv) or "-c" not in argv:
            return module_image(out)
        head = [a for a in argv[:argv.index("-c")] if a != "-v"]
        done = procs.run([*head, "-dlink", "-Xnvlink", "--ignore-host-info", out.name, "-o", DLINKED],
                         timeout=timeout, cwd=folder)
        if done.returncode == 0 and not done.timed_out:
            return module_image(folder / DLINKED)
        (folder / DLINK_LOG).write_text(done.output or f"nvcc -dlink exited {done.returncode}")
        return None

    def features(self, toolchain: Toolchain) -> frozenset[str]:
        from suitegen.compilers.toolchain import host_features
        return host_features(toolchain)

    def probe_command(self, toolchain: Toolchain, source: str, device_only: bool = False) -> list[str]:
        stem = source.rsplit(".", 1)[0]
        side = ["-ptx", source, "-o", f"{stem}.ptx"] if device_only else ["-c", source, "-o", f"{stem}.o"]
        return [toolchain.nvcc, "-ccbin", toolchain.host_compiler, "-std=c++17", *side]

    def target_queries(self, toolchain: Toolchain):
        from suitegen.compilers.archs import LISTED
        words = lambda text: {w for w in text.split() if LISTED.fullmatch(w)}  # noqa: E731
        return [([toolchain.nvcc, "--list-gpu-code"], words), ([toolchain.nvcc, "--list-gpu-arch"], words)]


BACKEND = Nvcc()
