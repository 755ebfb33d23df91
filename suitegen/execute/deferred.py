"""Execution deferred to another machine: a run that records its builds (``--builds-to``) plans every GPU
check as a GPU run would, so that it builds what that run needs, and runs none of them here."""
from __future__ import annotations

from pathlib import Path

from suitegen.model import ExecResult, ExecStatus

WHY = "runs on the machine the build store is carried to (--builds-to)"


def not_run(what: Path | str, args: tuple[str, ...] = ()) -> ExecResult:
    """Return the result of a GPU check left to the machine the builds are carried to."""
    return ExecResult(status=ExecStatus.NOT_RUN, exit_code=None, detail=WHY, output="", duration=0.0,
                      gpu="none here", command=(str(what), *args))


class Deferred:
    """Stands in for the fatbin runner (``execute.fatbin.FatbinRunner``) where nothing runs."""

    def run(self, module: Path, check) -> ExecResult:
        return not_run(module)

    def value(self, module: Path, member: int | None, expected: int) -> ExecResult:
        return not_run(module)

    def load(self, module: Path) -> ExecResult:
        return not_run(module)

    def close(self) -> None:
        pass
