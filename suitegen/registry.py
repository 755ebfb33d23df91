"""Known toolchains: nvcc versions installed from the package index into a cache, and toolchains files."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from .toolchain import ToolchainError, cache_root, probe

PACKAGE = "nvidia-cuda-nvcc"


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
        return json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ToolchainError(f"{path}: corrupt toolchain registry ({exc}); delete it and add again") from None


def _save_registry(reg: dict) -> None:
    path = _registry_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(reg, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)


def add(version: str, runner=subprocess.run) -> dict:
    """Install ``nvidia-cuda-nvcc==version`` into the cache, probe it and register it as nvcc-<version>."""
    if not re.fullmatch(r"\d+\.\d+\.\d+", version):
        raise ToolchainError(f"toolchain version must look like 13.5.37, not {version!r}")
    target = cache_dir() / version
    nvcc = target / "nvidia" / "cu13" / "bin" / "nvcc"
    if not nvcc.exists():
        proc = runner([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                       "--target", str(target), f"{PACKAGE}=={version}"], capture_output=True, text=True)
        if proc.returncode != 0:
            raise ToolchainError(f"pip could not install {PACKAGE}=={version}: "
                                 + " / ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:]))
        found = sorted(target.glob("nvidia/*/bin/nvcc"))
        if not found:
            raise ToolchainError(f"{PACKAGE}=={version} installed into {target} but holds no bin/nvcc")
        nvcc = found[0]
    tc = probe(str(nvcc), name=f"nvcc-{version}")
    entry = {"nvcc": tc.nvcc, "version": tc.version_str, "fingerprint": tc.fingerprint}
    reg = load_registry()
    reg[tc.name] = entry
    _save_registry(reg)
    return {"name": tc.name, **entry}


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
