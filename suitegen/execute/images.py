"""Which of a module's images the driver runs on a GPU: its SASS, or its PTX compiled just in time.

A build for ``sm_XY`` holds SASS that runs on GPUs of compute capability X.Z with Z >= Y (the same
major version; ``sm_XYa`` only on X.Y itself); PTX for ``compute_XY`` can be compiled by the driver for
any GPU of capability X.Y or later. The driver prefers compatible SASS. So an ``sm_80`` config on an
H100 (9.0) runs JIT-compiled ``compute_80`` PTX, not the ``sm_80`` SASS the build holds.
"""
from __future__ import annotations

import re
import struct
from typing import Sequence

from suitegen.compilers.artifacts import FATBIN_MAGIC

FATBIN_MAGICS = (int.from_bytes(FATBIN_MAGIC, "little"), 0x466243B1)  # a fatbin, a relocatable one
TARGET = re.compile(r"^(sm|compute)_(\d+?)(\d)([af]?)$")
CAPABILITY = re.compile(r"(?:^|[\s,(])(\d+)\.(\d)(?:[\s,)]|$)")
GPU_CC = "gpu-cc-"  # a machine feature naming the GPU's compute capability ("gpu-cc-9.0"), not for conditions


def compute_capability(device: str) -> tuple[int, int] | None:
    """Return the compute capability in a device description (nvidia-smi's "name, 9.0, driver")."""
    m = CAPABILITY.search(device)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _runs(kind: str, major: int, minor: int, suffix: str, cc: tuple[int, int]) -> bool:
    if suffix == "a":
        return cc == (major, minor)
    if kind == "sm":
        return cc[0] == major and cc[1] >= minor
    return cc >= (major, minor)


def loaded_code(targets: Sequence[str], cc: tuple[int, int] | None) -> str:
    """Return what the driver runs from a module holding ``targets`` on a GPU of capability ``cc``."""
    if cc is None:
        return "unknown (no compute capability for this GPU)"
    sass, ptx = [], []
    for target in targets:
        m = TARGET.match(target)
        if m and _runs(m.group(1), int(m.group(2)), int(m.group(3)), m.group(4), cc):
            (sass if m.group(1) == "sm" else ptx).append((int(m.group(2)), int(m.group(3)), target))
    if sass:
        return f"SASS {max(sass)[2]}"
    if ptx:
        return f"PTX {max(ptx)[2]}, JIT-compiled by the driver for {cc[0]}.{cc[1]}"
    return f"nothing this GPU ({cc[0]}.{cc[1]}) can run"


PTX_TARGET = re.compile(rb"^\s*\.target\s+sm_(\d+[af]?)", re.M)


def module_targets(data: bytes) -> list[str] | None:
    """Return the images a module holds, as targets (``sm_90`` for SASS, ``compute_90`` for PTX); None
    for data that is no module. A module is a fatbin, a cubin (an ELF whose flags name its ``sm``, in
    bits 8-15 as CUDA 13 writes them) or PTX text (its ``.target``).

    A fatbin is a run of containers (a 16-byte header: magic, version, header size, size of what follows),
    each a run of entries (kind 1 PTX or 2 ELF at 0, entry header size at 4, payload size at 8, the
    ``sm`` number at 28, then the payload).
    """
    if data[:4] == b"\x7fELF" and len(data) >= 52:
        return [f"sm_{(struct.unpack_from('<I', data, 48)[0] >> 8) & 0xFF}"]
    ptx = PTX_TARGET.search(data[:4096])
    if ptx:
        return [f"compute_{ptx.group(1).decode()}"]
    if len(data) < 16 or struct.unpack_from("<I", data)[0] not in FATBIN_MAGICS:
        return None
    out: list[str] = []
    pos = 0
    while pos + 16 <= len(data):
        magic, _, head, size = struct.unpack_from("<IHHQ", data, pos)
        if magic not in FATBIN_MAGICS:
            break
        entry, end = pos + head, pos + head + size
        while entry + 32 <= end:
            kind, _, entry_head, payload = struct.unpack_from("<HHIQ", data, entry)
            sm = struct.unpack_from("<I", data, entry + 28)[0]
            if kind in (1, 2) and sm:
                target = f"{'compute' if kind == 1 else 'sm'}_{sm}"
                if target not in out:
                    out.append(target)
            if entry_head == 0:
                break
            entry += entry_head + payload
        pos = end + (-end % 8)
    return out


def runs_on(targets: Sequence[str], cc: tuple[int, int] | None) -> bool:
    """Whether a GPU of capability ``cc`` can run anything a module holding ``targets`` has (unknown: yes)."""
    return cc is None or not loaded_code(targets, cc).startswith("nothing")
