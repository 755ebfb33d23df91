"""Where suitegen reads its inputs and writes its outputs: one rule for each.

Inputs (the oracle, the templates, the matrix profiles) ship inside the package and are read with
``importlib.resources``; in a checkout (or an editable install) they are the repository's top-level
``oracle/`` and ``templates/``. ``--oracle``, ``--templates`` and ``--matrix`` point at your own copies.

Outputs (run folders, baselines, reproducers, the explore database) go under the current directory:
``./reports/`` unless ``--out`` says otherwise. Builds work in scratch folders under ``scratch_root``.
"""
from __future__ import annotations

import importlib.resources
import os
import tempfile
from pathlib import Path

REPORTS = Path("reports")
SHARED_MEMORY = Path("/dev/shm")
SCRATCH_ROOM = 1 << 30  # bytes free that shared memory must have to hold the scratch folders
_CHECKOUT = Path(__file__).resolve().parent.parent


def _packaged(name: str) -> Path:
    """Return the folder of a packaged input: inside the wheel, else the checkout's top-level copy."""
    shipped = importlib.resources.files("suitegen") / "data" / name
    if shipped.is_dir():
        return Path(str(shipped))
    return _CHECKOUT / name


def oracle_root() -> Path:
    """Return the built-in oracle folder."""
    return _packaged("oracle")


def templates_root() -> Path:
    """Return the built-in templates folder."""
    return _packaged("templates")


def matrix_file() -> Path:
    """Return the built-in matrix profiles file."""
    return Path(str(importlib.resources.files("suitegen.engine") / "matrix.toml"))


def data_cache_root() -> Path:
    """Return the cache of what no toolchain changes (the generated corpus's programs, the math rules' references):
    ``$SUITEGEN_CORPUS_CACHE``, else the user's (``~/.cache/suitegen/generated``, whatever ``$SUITEGEN_CACHE`` says:
    a run with a build cache of its own still takes what it drew or computed before, which depends on its key
    alone)."""
    return Path(os.environ.get("SUITEGEN_CORPUS_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "suitegen", "generated"))


def scratch_root() -> str | None:
    """Return the folder that builds' scratch folders go in: ``/dev/shm`` where ``$TMPDIR`` is not set and it is
    writable, lets programs run and has ``SCRATCH_ROOM`` free (a build writes and deletes many small files: in
    memory, measured on quick here, 51.6 -> 50.5 core-s, all of it system time); else None, ``tempfile``'s own
    choice (``$TMPDIR``, else the system's default), which a run setting ``tempfile.tempdir`` to it restores."""
    if os.environ.get("TMPDIR"):
        return None
    try:
        fs = os.statvfs(SHARED_MEMORY)
    except OSError:
        return None
    roomy = fs.f_bavail * fs.f_frsize >= SCRATCH_ROOM and not fs.f_flag & (os.ST_NOEXEC | os.ST_RDONLY)
    return str(SHARED_MEMORY) if roomy and os.access(SHARED_MEMORY, os.W_OK | os.X_OK) else None


def write_file(path: Path, data: bytes) -> None:
    """Write a file atomically (temp file, then rename); an unwritable cache only costs time."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError:
        if tmp:
            Path(tmp).unlink(missing_ok=True)
