"""The GPUs of this machine: whether there are any, and which one each program runs on."""
from __future__ import annotations

import itertools
import shutil
import subprocess
import threading
from dataclasses import dataclass

from suitegen.model import FROZEN


@dataclass(**FROZEN)
class GpuInfo:
    """The GPUs this machine has, or why there are none."""

    available: bool
    reason: str
    devices: tuple[str, ...] = ()


def detect_gpu() -> GpuInfo:
    """Return whether a CUDA GPU is usable here, and why not if it is not."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return GpuInfo(available=False, reason="no NVIDIA driver found (nvidia-smi is not on PATH)")
    try:
        proc = subprocess.run([smi, "--query-gpu=name,compute_cap,driver_version",
                               "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return GpuInfo(available=False, reason=f"nvidia-smi failed: {exc}")
    rows = tuple(line.strip() for line in proc.stdout.splitlines() if line.strip())
    if proc.returncode != 0 or not rows:
        return GpuInfo(available=False, reason=f"nvidia-smi found no GPU: {proc.stderr.strip()[:200]}")
    return GpuInfo(available=True, reason="", devices=rows)


class GpuPool:
    """Hands out GPUs round-robin from the caller's CUDA_VISIBLE_DEVICES (indexing into it)."""

    def __init__(self, visible: str | None, names: tuple[str, ...] = ()):
        if visible is None or visible.strip() == "":
            ids = [str(i) for i in range(len(names))] or ["0"]
        else:
            ids = [v.strip() for v in visible.split(",") if v.strip()]
        self.ids = ids
        self.names = names
        self._next = itertools.count()
        self._lock = threading.Lock()

    def take(self) -> tuple[str, str]:
        """Return (CUDA_VISIBLE_DEVICES value, description) for the next program."""
        with self._lock:
            idx = next(self._next) % len(self.ids)
        dev = self.ids[idx]
        name = self.names[int(dev)] if dev.isdigit() and int(dev) < len(self.names) else ""
        return dev, f"GPU {dev}" + (f" ({name})" if name else "")


def pin_worker_gpu(worker_id: str, visible: str | None, count: int) -> str | None:
    """Return the CUDA_VISIBLE_DEVICES value for an xdist worker: round-robin over the caller's list."""
    ids = [v.strip() for v in visible.split(",") if v.strip()] if visible else [str(i) for i in range(count)]
    if not ids or not worker_id.startswith("gw"):
        return None
    return ids[int(worker_id[2:]) % len(ids)]
