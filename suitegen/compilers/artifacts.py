"""What an accepted build must leave behind: its object, module or program, there and of its format.

An exit status of 0 is not evidence on its own: a wrapper that compiles nothing exits 0 too. So a build
is accepted only where its output exists and reads as what its command asks for:

- ``-c``: an ELF relocatable object; where the sources hold device code, with the section that carries
  its device module (``.nv_fatbin``, or ``__nv_relfatbin`` with relocatable device code);
- ``-fatbin``: a fatbin image (its magic number); NVRTC's ``.cubin``: a CUDA ELF; its ``.ptx``: PTX text
  (``.version`` and ``.target`` directives);
- anything else (a program): an ELF executable that may be run.

The format is read from the file's own bytes (its ELF header and section names); no tool is run.
"""
from __future__ import annotations

import os
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

ELF_MAGIC = b"\x7fELF"
FATBIN_MAGIC = b"\x50\xed\x55\xba"  # the first bytes of a fatbin image
ET_REL, ET_EXEC, ET_DYN = 1, 2, 3
EM_CUDA = 190
MODULE_SECTIONS = (".nv_fatbin", "__nv_relfatbin")  # a whole module; a relocatable object's
DEVICE_CODE = re.compile(r"\b__(global|device|constant|managed|shared)__\b")
PTX_VERSION = re.compile(r"^\s*\.version\s+\d+\.\d+", re.M)
PTX_TARGET = re.compile(r"^\s*\.target\s+\w+", re.M)


@dataclass(frozen=True, kw_only=True, slots=True)
class Elf:
    """What an ELF file's header and section table say."""

    type: int
    machine: int
    sections: tuple[str, ...]


def read_elf(data: bytes) -> Elf | None:
    """Return an ELF file's type, machine and section names, or None when the bytes are not a whole ELF file."""
    if len(data) < 52 or not data.startswith(ELF_MAGIC) or data[4] not in (1, 2) or data[5] not in (1, 2):
        return None
    wide, order = data[4] == 2, "<" if data[5] == 1 else ">"
    try:
        etype, machine = struct.unpack_from(order + "HH", data, 16)
        if wide:
            (shoff,) = struct.unpack_from(order + "Q", data, 0x28)
            shentsize, shnum, shstrndx = struct.unpack_from(order + "HHH", data, 0x3A)
        else:
            (shoff,) = struct.unpack_from(order + "I", data, 0x20)
            shentsize, shnum, shstrndx = struct.unpack_from(order + "HHH", data, 0x2E)
        headers = []
        for i in range(shnum if shoff else 0):
            at = shoff + i * shentsize
            (name,) = struct.unpack_from(order + "I", data, at)
            offset, size = struct.unpack_from(order + ("QQ" if wide else "II"), data, at + (0x18 if wide else 0x10))
            headers.append((name, offset, size))
        names = []
        if headers and shstrndx < len(headers):
            _, str_at, str_size = headers[shstrndx]
            table = data[str_at:str_at + str_size]
            if len(table) != str_size:
                return None
            names = [table[n:table.find(b"\0", n)].decode("ascii", "replace") for n, _, _ in headers]
    except struct.error:
        return None  # truncated: a header or the section table runs past the end
    return Elf(type=etype, machine=machine, sections=tuple(names))


def output_of(argv: Sequence[str]) -> str | None:
    """Return the output file a build command names (its ``-o``), or None."""
    argv = list(argv)
    return argv[argv.index("-o") + 1] if "-o" in argv[:-1] else None


def expected(argv: Sequence[str]) -> str:
    """Return what a build command must leave: object, fatbin, cubin, ptx or program."""
    out = output_of(argv) or ""
    if out.endswith(".cubin"):
        return "cubin"
    if out.endswith(".ptx"):
        return "ptx"
    if "-fatbin" in argv:
        return "fatbin"
    if "-c" in argv:
        return "object"
    return "program"


def has_device_code(files: Mapping[str, str]) -> bool:
    """Whether any source declares device code (a __global__, __device__, __constant__, ... entity)."""
    return any(DEVICE_CODE.search(text) for text in files.values())


def problem(argv: Sequence[str], folder: Path, files: Mapping[str, str],
            sections: Sequence[str] = MODULE_SECTIONS) -> str | None:
    """Return what is missing from an accepted build's output (one sentence), or None when it is there
    (``sections``: one of them must be in an object whose sources have device code; none for a compiler
    that emits device code only where it is used)."""
    name = output_of(argv)
    if name is None:
        return "the command names no output file (-o)"
    path = folder / name
    try:
        data = path.read_bytes()
    except OSError:
        return f"it left no {name}"
    kind = expected(argv)
    if kind == "fatbin":
        return None if data.startswith(FATBIN_MAGIC) and len(data) >= 16 else f"{name} is not a fatbin image"
    if kind == "ptx":
        text = data.decode("utf-8", "replace")
        return None if PTX_VERSION.search(text) and PTX_TARGET.search(text) else (
            f"{name} is not PTX (no .version and .target directives)")
    elf = read_elf(data)
    if kind == "cubin":
        return None if elf is not None and elf.machine == EM_CUDA else f"{name} is not a cubin (a CUDA ELF file)"
    if kind == "object":
        if elf is None or elf.type != ET_REL:
            return f"{name} is not an ELF object"
        if sections and has_device_code(files) and not set(sections) & set(elf.sections):
            return f"{name} holds no device module (no .nv_fatbin section), though its sources have device code"
        return None
    if elf is None or elf.type not in (ET_EXEC, ET_DYN):
        return f"{name} is not an ELF executable"
    return None if os.access(path, os.X_OK) else f"{name} is not executable"


def checked(argv: Sequence[str], files: Mapping[str, str], sections: Sequence[str] = MODULE_SECTIONS) -> str:
    """Return what ``problem`` found present for this command, as the build cache records it."""
    kind = expected(argv)
    with_module = " with its device module" if kind == "object" and sections and has_device_code(files) else ""
    return f"{output_of(argv)}: {kind}{with_module}"
