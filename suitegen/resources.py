"""Where suitegen reads its inputs and writes its outputs: one rule for each.

Inputs (the oracle, the templates, the matrix profiles) ship inside the package and are read with
``importlib.resources``; in a checkout (or an editable install) they are the repository's top-level
``oracle/`` and ``templates/``. ``--oracle``, ``--templates`` and ``--matrix`` point at your own copies.

Outputs (run folders, baselines, reproducers, the explore database) go under the current directory:
``./reports/`` unless ``--out`` says otherwise.
"""
from __future__ import annotations

import importlib.resources
from pathlib import Path

REPORTS = Path("reports")
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
