"""Known toolchains: nvcc versions installed from the package index into a cache, and toolchains files."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from suitegen.compilers.toolchain import ToolchainError, cache_root, probe

PACKAGE = "nvidia-cuda-nvcc"
# nvcc's wheel names its companions without a version, so pip would pair an old nvcc with the newest
# NVVM (whose PTX the old ptxas rejects). Pin them to nvcc's major.minor, and add CCCL (libcu++),
# which a toolkit ships but the nvcc wheel does not.
COMPANIONS = ("nvidia-nvvm", "nvidia-cuda-runtime", "nvidia-cuda-crt")
OPTIONAL = "nvidia-cuda-cccl"  # its versions stop following CUDA's after 13.2: without a match, none
MARKER = "suitegen-install.json"
NVRTC_PACKAGE = "nvidia-cuda-nvrtc"


def requirements(version: str, optional: bool = True) -> list[str]:
    """Return the pip requirements of one toolchain: nvcc exactly, its companions at the same major.minor."""
    minor = ".".join(version.split(".")[:2])
    return [f"{PACKAGE}=={version}", *(f"{c}=={minor}.*" for c in COMPANIONS + ((OPTIONAL,) if optional else ()))]


def cache_dir() -> Path:
    """Return the folder toolchains are installed into (outside the repo)."""
    return cache_root() / "toolchains"


def _registry_path() -> Path:
    return cache_dir() / "registry.json"


def load_registry() -> dict[str, dict]:
    """Return name -> {nvcc, version, fingerprint} of the registered toolchains."""
    path = _registry_path()
    if not path.exists():
        return {}
    try:
        reg = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ToolchainError(f"{path}: corrupt toolchain registry ({exc}); delete it and add again") from None
    whole = isinstance(reg, dict) and all(
        isinstance(e, dict) and all(isinstance(e.get(k), str) for k in ("nvcc", "version", "fingerprint"))
        for e in reg.values())
    if not whole:
        raise ToolchainError(f"{path}: toolchain registry of another shape (name -> nvcc, version, fingerprint); "
                             "delete it and add again")
    return reg


def _save_registry(reg: dict) -> None:
    path = _registry_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(reg, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)


def add(version: str, runner=subprocess.run) -> dict:
    """Install ``nvidia-cuda-nvcc==version`` into the cache, probe it and register it as nvcc-<version>."""
    _check_version(version)
    target = cache_dir() / version
    marker = target / MARKER
    installed = json.loads(marker.read_text()) if marker.exists() else None
    found = sorted(target.glob("nvidia/*/bin/nvcc"))
    if installed not in (requirements(version), requirements(version, optional=False)) or not found:
        shutil.rmtree(target, ignore_errors=True)  # a partial or differently pinned install is redone
        for reqs in (requirements(version), requirements(version, optional=False)):
            proc = _pip(runner, target, reqs)
            if proc.returncode == 0 or OPTIONAL not in (proc.stderr or ""):
                break
        if proc.returncode != 0:
            raise _pip_failed(PACKAGE, version, proc)
        found = sorted(target.glob("nvidia/*/bin/nvcc"))
        if not found:
            raise ToolchainError(f"{PACKAGE}=={version} installed into {target} but holds no bin/nvcc")
        marker.write_text(json.dumps(reqs))
    _library_dir(found[0].parent.parent)
    return _register(probe(str(found[0]), name=f"nvcc-{version}"))


def add_nvrtc(version: str, runner=subprocess.run) -> dict:
    """Install ``nvidia-cuda-nvrtc==version`` into the cache, probe it and register it as nvrtc-<version>."""
    _check_version(version)
    target = cache_dir() / f"nvrtc-{version}"
    found = sorted(target.glob("nvidia/*/lib/libnvrtc.so.*[0-9]"))
    if not found:
        shutil.rmtree(target, ignore_errors=True)
        proc = _pip(runner, target, [f"{NVRTC_PACKAGE}=={version}"], "--no-deps")
        if proc.returncode != 0:
            raise _pip_failed(NVRTC_PACKAGE, version, proc)
        found = sorted(target.glob("nvidia/*/lib/libnvrtc.so.*[0-9]"))
        if not found:
            raise ToolchainError(f"{NVRTC_PACKAGE}=={version} installed into {target} but holds no libnvrtc.so")
    return _register(probe(str(found[0]), name=f"nvrtc-{version}"), kind="nvrtc")


def _check_version(version: str) -> None:
    if not re.fullmatch(r"\d+\.\d+\.\d+", version):
        raise ToolchainError(f"toolchain version must look like 13.5.37, not {version!r}")


def _pip(runner, target: Path, reqs: list[str], *options: str):
    """Run ``pip install --target`` for one toolchain's requirements; return the finished process."""
    return runner([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *options,
                   "--target", str(target), *reqs], capture_output=True, text=True)


def _pip_failed(package: str, version: str, proc) -> ToolchainError:
    return ToolchainError(f"pip could not install {package}=={version}: "
                          + " / ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:]))


def _register(tc, **extra) -> dict:
    """Record a probed toolchain in the registry under its name; return its entry with the name."""
    entry = {"nvcc": tc.nvcc, "version": tc.version_str, "fingerprint": tc.fingerprint, **extra}
    reg = load_registry()
    reg[tc.name] = entry
    _save_registry(reg)
    return {"name": tc.name, **entry}


def _library_dir(top: Path) -> None:
    """Let nvcc find the wheel's libraries: the nvcc.profile of releases up to 13.2.51 looks in
    ``lib$(_TARGET_SIZE_)`` (lib64, as in a full toolkit) while their wheels put libcudadevrt.a and
    libcudart in ``lib``; without a lib64 link every program fails to link (-lcudadevrt not found)."""
    profile = top / "bin" / "nvcc.profile"
    lib64, lib = top / "lib64", top / "lib"
    try:
        if "lib$(_TARGET_SIZE_)" in profile.read_text() and lib.is_dir() and not lib64.exists():
            lib64.symlink_to("lib")
    except OSError:
        pass  # a read-only or odd install: programs then fail to link, and the run says so


def read_toolchains_file(path: Path | str) -> list[tuple[str, str, str | None]]:
    """Read a toolchains file: ``name = "path"`` or ``[name]`` with nvcc and host_compiler keys."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ToolchainError(f"{path}: cannot read toolchains file: {exc}") from None
    out = []
    for name, value in data.items():
        if isinstance(value, str):
            out.append((name, value, None))
        elif isinstance(value, dict) and isinstance(value.get("nvcc"), str):
            out.append((name, value["nvcc"], value.get("host_compiler")))
        else:
            raise ToolchainError(f"{path}: {name}: expected a path, or a table with nvcc (and host_compiler)")
    return out


def resolve(name_or_path: str) -> str:
    """Return an nvcc path for a registered name (nvcc-13.5.37 or 13.5.37) or a path as given."""
    reg = load_registry()
    for key in (name_or_path, f"nvcc-{name_or_path}"):
        if key in reg:
            return reg[key]["nvcc"]
    return name_or_path
