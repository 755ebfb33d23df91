"""Finds and probes nvcc, its host compiler and the GPU, once."""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Iterable, Sequence

from suitegen import procs
from suitegen.compilers import backends
from suitegen.model import Compiler, Toolchain, digest

PROBE_TIMEOUT = 60


class ToolchainError(RuntimeError):
    """nvcc is missing or broken; one clear message, never a traceback."""


def discover(paths: Sequence[str] = (), env: dict | None = None) -> list[str]:
    """Return nvcc paths: ``--nvcc`` values, else CUDA_HOME/CUDA_PATH, else PATH."""
    env = os.environ if env is None else env
    if paths:
        return [_nvcc_in(p) for p in paths]
    for var in ("CUDA_HOME", "CUDA_PATH"):
        home = env.get(var)
        if home:
            candidate = Path(home) / "bin" / "nvcc"
            if candidate.exists():
                return [str(candidate)]
    found = shutil.which("nvcc", path=env.get("PATH"))
    if not found:
        raise ToolchainError("no nvcc found: pass --nvcc PATH, set CUDA_HOME, or put nvcc on PATH")
    return [found]


def _nvcc_in(path: str) -> str:
    p = Path(path)
    if backends.owning(path).kind is not Compiler.NVCC:
        return shutil.which(path) or path
    if p.is_dir():
        for candidate in (p / "nvcc", p / "bin" / "nvcc"):
            if candidate.exists():
                return str(candidate)
        raise ToolchainError(f"no nvcc in folder {path}")
    if not p.exists():
        which = shutil.which(path)
        if which:
            return which
        raise ToolchainError(f"nvcc not found: {path}")
    return str(p)


def file_hash(path: Path) -> str:
    """Return the sha256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def run_probe(argv: list[str], what: str) -> str:
    """Run a probe command and return its output; raise ToolchainError saying why it could not answer."""
    try:
        done = procs.run(argv, timeout=PROBE_TIMEOUT)
    except FileNotFoundError:
        raise ToolchainError(f"{what} not found: {argv[0]}") from None
    except PermissionError:
        raise ToolchainError(f"{what} is not executable: {argv[0]}") from None
    except OSError as exc:
        raise ToolchainError(f"{what} cannot run: {argv[0]}: {exc.strerror}") from None
    if done.timed_out:
        raise ToolchainError(f"{what} did not answer {' '.join(argv[1:])} within {PROBE_TIMEOUT}s: {argv[0]}")
    if done.returncode != 0:
        tail = done.output.strip().splitlines()[-3:]
        raise ToolchainError(f"{what} is broken: `{' '.join(argv)}` exited {done.returncode}"
                             + (f": {' / '.join(tail)}" if tail else ""))
    return done.output


def host_compiler_for(flags: Iterable[str] = ()) -> str:
    """Return the host compiler nvcc will drive: -ccbin from flags, else g++ on PATH."""
    flags = list(flags)
    for i, f in enumerate(flags):
        if f in ("-ccbin", "--compiler-bindir") and i + 1 < len(flags):
            return flags[i + 1]
        if f.startswith(("-ccbin=", "--compiler-bindir=")):
            return f.split("=", 1)[1]
    return shutil.which("g++") or "g++"


TOOLS = ("nvcc", "cudafe++", "ptxas", "fatbinary", "nvlink")
DRYRUN_VARS = re.compile(r'^#\$ (_HERE_|CICC_PATH|INCLUDES|SYSTEM_INCLUDES|LIBRARIES)=(.*)$', re.M)


def identity(nvcc: Path, host: str) -> dict[str, str]:
    """Return hashes of what a build really runs and reads, as ``nvcc --dryrun`` names it.

    nvcc may be a wrapper script: its dry run names the real bin folder, cicc's folder and the include
    and library folders. The real tools are hashed by content, the headers and libraries by name, size
    and time (cheap, and any reinstall changes them), and the host compiler by its driver and its C++
    front end (cc1plus).
    """
    with tempfile.TemporaryDirectory(prefix="suitegen-id-") as tmp:
        (Path(tmp) / "id.cu").write_text("__global__ void k() {}\n")
        try:
            done = procs.run([str(nvcc), "--dryrun", "-ccbin", host, "-c", "id.cu", "-o", "id.o"],
                             timeout=PROBE_TIMEOUT, cwd=tmp)
            out = done.output
        except OSError:
            out = ""
    found = dict(DRYRUN_VARS.findall(out))
    here = Path(found.get("_HERE_", str(nvcc.parent)))
    hashes = {"wrapper": file_hash(nvcc)}
    for tool in TOOLS:
        if (here / tool).is_file():
            hashes[tool] = file_hash(here / tool)
    cicc = Path(found.get("CICC_PATH", str(here / "../nvvm/bin"))) / "cicc"
    if cicc.is_file():
        hashes["cicc"] = file_hash(cicc)
    includes = re.findall(r'(?:-I|-isystem" ")"?([^" ]+)', found.get("INCLUDES", "") + " " +
                          found.get("SYSTEM_INCLUDES", ""))
    hashes["headers"] = tree_stamp(sorted(set(includes)))
    # the libraries a link finds (libcudadevrt, libcudart): a toolkit whose library folder appears or
    # changes (toolchain add's lib64 link) must not be served the old link results from the build cache
    hashes["libraries"] = tree_stamp(sorted(set(re.findall(r'-L"?([^" ]+)', found.get("LIBRARIES", "")))))
    hashes["host"] = _host_hash(host)
    return hashes


def tree_stamp(folders: list[str]) -> str:
    """Return a digest of every file's relative name, size and modification time under the folders."""
    entries = []
    for folder in folders:
        for root, _, files in os.walk(folder, followlinks=True):
            for name in files:
                try:
                    st = os.stat(os.path.join(root, name))
                except OSError:
                    continue
                entries.append((os.path.relpath(os.path.join(root, name), folder), st.st_size, st.st_mtime_ns))
    return digest(sorted(entries))


def _host_hash(host: str) -> str:
    """Return a digest of the host compiler's driver and its C++ front end."""
    driver = shutil.which(host) or host
    parts = [file_hash(Path(driver).resolve())] if Path(driver).is_file() else [driver]
    try:
        front = procs.run([driver, "-print-prog-name=cc1plus"], timeout=PROBE_TIMEOUT).output.strip()
    except OSError:
        front = ""
    if front and Path(front).is_file():
        parts.append(file_hash(Path(front).resolve()))
    return digest(parts)


def probe(path: str, name: str = "", host_flags: Iterable[str] = ()) -> Toolchain:
    """Probe one compiler (its backend's probe); raise ToolchainError if it is unusable."""
    return backends.owning(path).probe(path, name, host_flags)


def probe_nvcc(nvcc: str, name: str = "", host_flags: Iterable[str] = ()) -> Toolchain:
    """Probe one nvcc and its host compiler; raise ToolchainError if unusable."""
    path = Path(nvcc).resolve()
    if not path.is_file():
        raise ToolchainError(f"nvcc not found: {nvcc}")
    text = run_probe([str(path), "--version"], "nvcc")
    m = re.search(r"release (\d+)\.(\d+), V(\d+)\.(\d+)\.(\d+)", text)
    if not m:
        raise ToolchainError(f"nvcc at {path} printed no version (is it nvcc?): {text.strip()[:200]}")
    version = tuple(int(x) for x in m.group(3, 4, 5))
    host = host_compiler_for(host_flags)
    host_text = run_probe([host, "--version"], "host compiler").strip().splitlines()[0]
    fp = digest(identity(path, host), text.strip(), str(path), host_text)
    return Toolchain(nvcc=str(path), version=version, version_text=text.strip().splitlines()[-1],
                     host_compiler=shutil.which(host) or host, host_version=host_text,
                     fingerprint=fp, name=name)


def probe_nvrtc(lib: str, name: str = "") -> Toolchain:
    """Probe an NVRTC library: its version (the wheel's release where a wheel installed it, else the
    library's major.minor) and a fingerprint of it and its builtins library."""
    path = Path(lib).resolve()
    if not path.is_file():
        raise ToolchainError(f"NVRTC library not found: {lib}")
    try:
        done = procs.run([sys.executable, "-c", "import sys; from suitegen.compilers import nvrtc; "
                          "print(*nvrtc.library_version(sys.argv[1]))", str(path)], timeout=PROBE_TIMEOUT)
        major, minor = (int(x) for x in done.output.split()[-2:])
    except (OSError, ValueError):
        raise ToolchainError(f"cannot load the NVRTC library {path}: {done.output.strip()[-300:]}") from None
    wheel = sorted(path.parents[3].glob("nvidia_cuda_nvrtc-*.dist-info")) if len(path.parents) > 3 else []
    release = wheel[-1].name.removesuffix(".dist-info").split("-")[1] if wheel else ""
    version = tuple(int(x) for x in release.split(".")) if release else (major, minor)
    hashes = {f.name: file_hash(f) for f in sorted(path.parent.glob("libnvrtc*.so*")) if f.is_file()}
    text = f"NVRTC {'.'.join(map(str, version))} ({path})"
    return Toolchain(nvcc=str(path), version=version, version_text=text, host_compiler="", host_version="",
                     fingerprint=digest(hashes, text), name=name, kind=Compiler.NVRTC)


def cache_root() -> Path:
    """Return suitegen's cache folder (outside the repo): $SUITEGEN_CACHE, else ~/.cache/suitegen."""
    return Path(os.environ.get("SUITEGEN_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "suitegen"))


def host_features(toolchain: Toolchain) -> frozenset[str]:
    """Return the host-compiler feature of a toolchain that drives one (host-gcc, host-clang, ...)."""
    host = Path(toolchain.host_compiler).name.lower()
    version = toolchain.host_version.lower()
    if "clang" in host or "clang" in version:
        return frozenset({"host-clang"})
    if host in ("cl", "cl.exe"):
        return frozenset({"host-msvc"})
    if host.startswith(("icc", "icpc", "icpx")):
        return frozenset({"host-icc"})
    if "g++" in host or "gcc" in host or "gcc" in version or "g++" in version:
        return frozenset({"host-gcc"})
    return frozenset()
