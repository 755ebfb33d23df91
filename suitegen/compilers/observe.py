"""Observe what a build config actually did, not what it asked for.

A config (toolchain, ``-std``, arch, flags) means something only if nvcc honoured it: an nvcc
whose host compiler lacks a dialect may warn "Flag will be ignored." and compile in its default.
So each config is probed once: a small ``.cu`` whose preprocessed text spells out ``__cplusplus``,
``__CUDA_ARCH__`` and the flag macros of every compilation side, and whose ``fatbinary`` sub-command names
the targets the module holds. nvcc lists the stages of the config's build (``--dryrun``: with its own
warnings, or its refusal); the probe runs the preprocessor stages of that list, the very commands a build
runs, into ``-keep-dir`` (``preprocessor_stages``), and reads their output (a stage whose very command this
process ran for another config is not run again: its text is written again). A refusal there (a host compiler
without the dialect) is the config's. The stages after them (cudafe++, cicc, ptxas, the host compiler's
compile) are not run: a toolchain whose later stages fail even on an empty program shows it in every item's
build, each with its diagnostics as evidence. The result is cached per toolchain fingerprint and memoised per
process; ``mismatch`` compares it with the ask.
"""
from __future__ import annotations

import os
import re
import shlex
import tempfile
import threading
from pathlib import Path

from suitegen import procs
from suitegen.compilers.cache import compilers_run, read_keyed, write_keyed
from suitegen.compilers.nvcc import arch_flags
from suitegen.compilers.toolchain import cache_root
from suitegen.model import ObservedConfig, Std, Toolchain, arch_number, digest
from suitegen.oracle.conditions import flag_features

# Feature (as flag_features names it) -> the macro nvcc defines when the flag is on.
FEATURE_MACROS = {
    "extended-lambda": "__CUDACC_EXTENDED_LAMBDA__",
    "relaxed-constexpr": "__CUDACC_RELAXED_CONSTEXPR__",
    "rdc": "__CUDACC_RDC__",
}

_MACRO_BLOCKS = "".join(
    f"#ifdef {m}\n#define SG_M{i} \" macro={m}\"\n#else\n#define SG_M{i} \"\"\n#endif\n"
    for i, m in enumerate(FEATURE_MACROS.values()))

PROBE = f"""\
#define SG_S(x) #x
#define SG_X(x) SG_S(x)
#ifdef __CUDA_ARCH__
#define SG_SIDE "device"
#define SG_ARCH SG_X(__CUDA_ARCH__)
#else
#define SG_SIDE "host"
#define SG_ARCH "none"
#endif
{_MACRO_BLOCKS}const char *sg_probe = "SUITEGEN-PROBE side=" SG_SIDE " cplusplus=" SG_X(__cplusplus) \
" arch=" SG_ARCH {" ".join(f"SG_M{i}" for i in range(len(FEATURE_MACROS)))} " end";
"""

_PROBE_RE = re.compile(r'sg_probe\s*=\s*((?:"(?:[^"\\]|\\.)*"\s*)+);')
_LITERAL_RE = re.compile(r'"((?:[^"\\]|\\.)*)"')
_IMAGE_RE = re.compile(r"--image3?=(?:kind=(elf|ptx),sm=|profile=(sm|compute)_)(\w+)")
_WARNING_RE = re.compile(r"^nvcc warning\s*:\s*(.+?)\s*$", re.M)
_ERROR_RE = re.compile(r"\b(error|fatal)\b", re.I)

_lock = threading.Lock()
_memo: dict[tuple, ObservedConfig] = {}
_gates: dict[tuple, threading.Lock] = {}
_preprocessed: dict[tuple, str] = {}  # a preprocessor stage's command and settings -> the text it wrote


def observe(toolchain: Toolchain, std: Std, arch: str, flags: tuple[str, ...] = (),
            timeout: float = 120.0) -> ObservedConfig:
    """Return what a build under (toolchain, std, arch, flags) did: memoised, cached, else probed."""
    key = (toolchain.fingerprint, toolchain.nvcc, std, arch, tuple(flags))
    with _lock:
        if key in _memo:
            return _memo[key]
        gate = _gates.setdefault(key, threading.Lock())
    with gate:  # one probe per config, however many threads ask at once
        with _lock:
            if key in _memo:
                return _memo[key]
        cache = _cache_path(toolchain, std, arch, tuple(flags))
        ident = _entry_key(toolchain, std, arch, tuple(flags))
        found = _read_cache(cache, ident)
        keep = found is not None
        if found is None:
            found, keep = _probe(toolchain, std, arch, tuple(flags), timeout)
            if keep:
                _write_cache(cache, ident, found)
        if keep:
            with _lock:
                _memo[key] = found
        return found


def forget() -> None:
    """Drop the process-wide memo (the disk cache stays); returns nothing."""
    with _lock:
        _memo.clear()
        _preprocessed.clear()


def _cache_path(toolchain: Toolchain, std: Std, arch: str, flags: tuple[str, ...]) -> Path:
    return cache_root() / "configs" / toolchain.fingerprint / f"{digest(std.value, arch, list(flags))}.json"


def _entry_key(toolchain: Toolchain, std: Std, arch: str, flags: tuple[str, ...]) -> dict:
    """Return what a cache entry must name to be this config's: the toolchain and the config asked for."""
    return {"fingerprint": toolchain.fingerprint, "std": std.value, "arch": arch, "flags": list(flags)}


_INTS = ("device_cplusplus", "cuda_arch")
_STRINGS = ("targets", "macros", "warnings")


def _read_cache(path: Path, ident: dict) -> ObservedConfig | None:
    """Return the observation an entry holds, or None (probe again): missing, corrupt, of another shape, or
    filed for another config (two entries swapped, say)."""
    data = read_keyed(path, ident)
    if data is None or not isinstance(data.get("observed"), dict):
        return None
    seen = data["observed"]
    whole = (isinstance(seen.get("host_cplusplus"), (int, type(None))) and isinstance(seen.get("error"), str)
             and all(isinstance(seen.get(f), list) and all(type(v) is int for v in seen[f]) for f in _INTS)
             and all(isinstance(seen.get(f), list) and all(isinstance(v, str) for v in seen[f]) for f in _STRINGS))
    return ObservedConfig.from_json(seen) if whole else None


def _write_cache(path: Path, ident: dict, observed: ObservedConfig) -> None:
    write_keyed(path, ident, observed=observed.to_json())  # a read-only cache only costs a probe next time


def probe_command(toolchain: Toolchain, std: Std, arch: str, flags: tuple[str, ...] = ()) -> list[str]:
    """Return the nvcc command line of the probe compile, relative to its scratch folder."""
    host = ["-ccbin", toolchain.host_compiler] if toolchain.host_compiler else []
    return [toolchain.nvcc, "-v", "-keep", "-keep-dir", "keep", *host, f"-std={std.value}",
            *arch_flags(arch), *flags, "-c", "probe.cu", "-o", "probe.o"]


def _probe(toolchain: Toolchain, std: Std, arch: str, flags: tuple[str, ...],
           timeout: float) -> tuple[ObservedConfig, bool]:
    """Return the probe's observation and whether it may be cached (not a timeout or a missing nvcc)."""
    if not compilers_run():
        return ObservedConfig(error=f"not probed: the build store {cache_root()} did not record this config"), False
    with tempfile.TemporaryDirectory(prefix="suitegen-observe-") as tmp:
        folder = Path(tmp)
        (folder / "probe.cu").write_text(PROBE)
        (folder / "keep").mkdir()
        argv = probe_command(toolchain, std, arch, flags)
        try:
            done = listed = procs.run([argv[0], "--dryrun", *argv[1:]], timeout=timeout, cwd=folder)
            env, stages = preprocessor_stages(listed.output) if listed.returncode == 0 else ({}, [])
            for stage in stages:  # one after another, as nvcc runs them; the first that fails ends it
                done = _preprocess(stage, env, folder, timeout) or done
                if done.returncode != 0 or done.timed_out:
                    break
        except OSError as exc:
            return ObservedConfig(error=f"cannot run {exc.filename or toolchain.nvcc}: {exc.strerror or exc}"), False
        if done.timed_out:
            return ObservedConfig(error="timed out"), False
        if done.returncode != 0:
            # A refusal (nvcc exits > 0) is a fact about the toolchain; a probe killed by a signal is not.
            return ObservedConfig(error=first_error(done.output, done.returncode)), done.returncode > 0
        if not stages:
            return ObservedConfig(error="nvcc --dryrun listed no preprocessor stage"), True
        return parse(listed.output, _probe_texts(folder / "keep")), True


def _preprocess(stage: list[str], env: dict[str, str], folder: Path, timeout: float) -> procs.Completed | None:
    """Run one preprocessor stage of the probe in ``folder``, or, where this process already ran the same
    command with the same settings (another config whose flags leave the preprocessor alone, ``-fmad=false``),
    write what it wrote then and return None: the same command on the same probe writes the same text."""
    key = (tuple(stage), tuple(sorted(env.items())))
    out = folder / stage[stage.index("-o") + 1]
    with _lock:
        text = _preprocessed.get(key)
    if text is not None:
        out.write_text(text)
        return None
    done = procs.run(stage, timeout=timeout, cwd=folder, env=dict(os.environ, **env))
    if done.returncode == 0 and not done.timed_out and out.is_file():
        with _lock:
            _preprocessed[key] = out.read_text(errors="replace")
    return done


def preprocessor_stages(listing: str) -> tuple[dict[str, str], list[list[str]]]:
    """Return what an ``nvcc --dryrun`` listing sets for its stages (``NAME=value`` lines, taken as they are:
    nvcc runs its stages with them) and its preprocessor stages (``-E`` into a ``.ii`` file), in order, each as
    an argument list (nvcc prints them quoted for a shell; none is run through one)."""
    env: dict[str, str] = {}
    stages = []
    for line in listing.splitlines():
        if not line.startswith("#$ "):
            continue
        text = line[3:].strip()
        assignment = re.match(r"([A-Za-z_]\w*)=(.*)$", text)
        if assignment:
            env[assignment[1]] = assignment[2].strip()
            continue
        try:
            words = shlex.split(text)
        except ValueError:
            continue
        if "-E" in words and "-o" in words[:-1] and words[words.index("-o") + 1].endswith(".ii"):
            stages.append(words)
    return env, stages


def _probe_texts(keep: Path) -> list[str]:
    """Return the joined probe strings found in the kept preprocessed files."""
    found = []
    for path in sorted(keep.glob("*.ii")):
        text = path.read_text(errors="replace")
        if "SUITEGEN-PROBE" in text:
            found += ["".join(_LITERAL_RE.findall(m.group(1))) for m in _PROBE_RE.finditer(text)]
    return found


def parse(output: str, probes: list[str]) -> ObservedConfig:
    """Return the observation made of nvcc -v output and the probe strings of each compilation."""
    host, devices = None, []
    for text in probes:
        pairs = re.findall(r"(\w+)=(\S*)", text)
        fields = dict(pairs)
        record = (_int(fields.get("cplusplus")), _int(fields.get("arch")),
                  frozenset(v for k, v in pairs if k == "macro"))
        if fields.get("side") == "host":
            host = host or record
        elif fields.get("side") == "device":
            devices.append(record)
    devices.sort(key=lambda r: (r[1] or 0, r[0] or 0))
    sides = ([host] if host else []) + devices
    macros = frozenset.intersection(*(r[2] for r in sides)) if sides else frozenset()
    return ObservedConfig(
        host_cplusplus=host[0] if host else None,
        device_cplusplus=tuple(r[0] for r in devices if r[0] is not None),
        cuda_arch=tuple(r[1] for r in devices if r[1] is not None),
        targets=fatbin_targets(output), macros=tuple(sorted(macros)),
        warnings=tuple(dict.fromkeys(_WARNING_RE.findall(output))))


def _int(text: str | None) -> int | None:
    digits = (text or "").rstrip("lLuU")
    return int(digits) if digits.isdigit() else None


def fatbin_targets(output: str) -> tuple[str, ...]:
    """Return the targets the fatbinary sub-command packs: 'sm_90' for SASS, 'compute_90' for PTX."""
    found: dict[str, None] = {}
    for line in output.splitlines():
        if not re.match(r"#\$\s+\S*fatbinary\b", line):
            continue
        for kind, prefix, sm in _IMAGE_RE.findall(line):
            name = "compute" if kind == "ptx" or prefix == "compute" else "sm"
            found[f"{name}_{sm}"] = None
    return tuple(found)


def first_error(output: str, returncode: int | None) -> str:
    """Return the first line of nvcc's output that reads as an error, else a line saying how it exited."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip() and not ln.startswith("#")]
    errors = [ln for ln in lines if _ERROR_RE.search(ln)]
    line = (errors or lines or [f"nvcc exited with status {returncode}"])[0]
    return line[:500]


def mismatch(observed: ObservedConfig, std: Std, arch: str, flags: tuple[str, ...] = ()) -> str | None:
    """Return None when the observation honours the config, else one sentence: what was asked, what was seen."""
    if observed.error:
        return f"nvcc refused the config: {observed.error}"
    problems = [*_dialect_problems(observed, std), *_arch_problems(observed, arch),
                *_macro_problems(observed, flags)]
    if not problems:
        return None
    said = f" (nvcc: {'; '.join(observed.warnings)})" if observed.warnings else ""
    return "; ".join(problems) + said


def _dialect_problems(observed: ObservedConfig, std: Std) -> list[str]:
    ask = f"asked -std={std.value}"
    if observed.host_cplusplus is None:
        out = [f"{ask}, the host compilation reported no __cplusplus"]
    elif not std.honoured_by(observed.host_cplusplus):
        out = [f"{ask}, host compiled as __cplusplus {observed.host_cplusplus}"]
    else:
        out = []
    if not observed.device_cplusplus:
        return out + [f"{ask}, no device compilation reported __cplusplus"]
    wrong = sorted({v for v in observed.device_cplusplus if not std.honoured_by(v)})
    if wrong:
        out.append(f"{ask}, device compiled as __cplusplus {', '.join(map(str, wrong))}")
    return out


def _arch_problems(observed: ObservedConfig, arch: str) -> list[str]:
    targets = [t.strip().lower() for t in arch.split("+")]
    want = {arch_number(t) * 10 for t in targets}
    out = []
    if set(observed.cuda_arch) != want:
        seen = ", ".join(map(str, sorted(set(observed.cuda_arch)))) or "nothing"
        out.append(f"asked arch {arch}, device code compiled for __CUDA_ARCH__ {seen}"
                   f" (expected {', '.join(map(str, sorted(want)))})")
    missing = [t for t in targets if t.startswith(("sm_", "compute_")) and t not in observed.targets]
    if missing:
        held = ", ".join(observed.targets) or "nothing"
        out.append(f"asked arch {arch}, the module holds {held} (missing {', '.join(missing)})")
    return out


def _macro_problems(observed: ObservedConfig, flags: tuple[str, ...]) -> list[str]:
    wanted = [FEATURE_MACROS[f] for f in sorted(flag_features(flags)) if f in FEATURE_MACROS]
    missing = [m for m in wanted if m not in observed.macros]
    if not missing:
        return []
    verb = "was" if len(missing) == 1 else "were"
    return [f"asked {' '.join(flags)}, but {', '.join(missing)} {verb} not defined in every compilation"]


def honoured_stds(toolchain: Toolchain, arch: str = "sm_90") -> dict[Std, str | None]:
    """Return, for every -std level, None if this toolchain honours it on ``arch``, else why not."""
    return {std: mismatch(observe(toolchain, std, arch), std, arch) for std in Std}
