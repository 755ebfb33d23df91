"""Python-side oracles for device-only (cubin) cases: the launch to make and the values to expect.

A fatbin variant names its check (``check = "expression_values"``); each is registered with
``@hooks.check`` under its function name.
"""
from __future__ import annotations

import re
import shutil
import tempfile
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from suitegen import hooks
from suitegen.cases import expressions, math_reference
from suitegen.model import FROZEN

DTYPES = {"unsigned": "uint32", "int": "int32", "float": "float32", "double": "float64"}


@dataclass(**FROZEN)
class DeviceCheck:
    """One kernel launch and the values its output must hold."""

    kernel: str
    inputs: list  # [(numpy dtype name, values)]
    out: str
    expected: list
    summary: str = ""  # what a passing check found, beside its verdict

    def request(self, module: str) -> dict:
        return {"module": module, "kernel": self.kernel, "inputs": self.inputs, "out": self.out,
                "n": len(self.expected)}

    def mismatches(self, got: list) -> list[str]:
        return [f"input {i}: expected {want!r}, device {have!r}" for i, (want, have) in
                enumerate(zip(self.expected, got)) if not expressions.same(want, have)]


@hooks.check
def expression_values(params: Mapping[str, Any]) -> DeviceCheck:
    """Evaluate the expression in Python for each input pair: that is the expected device output."""
    kind, tree, pairs = params["type"], params["expr"], params["inputs"]
    conv = {"unsigned": int, "int": int, "float": expressions.f32, "double": float}[kind]
    a = [conv(p[0]) for p in pairs]
    b = [conv(p[1]) for p in pairs]
    return DeviceCheck(kernel="sg_eval", inputs=[(DTYPES[kind], a), (DTYPES[kind], b)], out=DTYPES[kind],
                       expected=[expressions.evaluate(tree, kind, x, y) for x, y in zip(a, b)])


# What a math check found, as its run's detail begins (``MathCheck.mismatches``) and ``accuracy`` reads it back.
SUMMARY = "largest error {found} (documented bound {bound}) over {checked:,} of {n:,} inputs where the bound applies"
_SUMMARY = re.compile(r"largest error (?P<found>[^()]*?) \(documented bound (?P<bound>[^()]*)\) over "
                      r"(?P<checked>[\d,]+) of (?P<n>[\d,]+) inputs")
_ERROR = re.compile(r"(?:absolute )?(?P<v>[-+\w.]+)(?: ulp)?")


def accuracy(detail: str) -> dict | None:
    """Return what a math check's detail says it found: the largest error and the documented bound (as written,
    and as numbers by kind: ``ulp``, ``abs``), the inputs checked and run; None for another detail."""
    m = _SUMMARY.search(detail or "")
    if m is None:
        return None

    def kinds(text: str) -> dict:
        out = {}
        for part in text.split(" and "):
            kind = "abs" if part.startswith("absolute") else "ulp"
            try:
                out[kind] = float(_ERROR.fullmatch(part.strip()).group("v"))
            except (AttributeError, ValueError):
                return {}
        return out
    return {"found": m["found"], "bound": m["bound"], "errors": kinds(m["found"]), "bounds": kinds(m["bound"]),
            "checked": int(m["checked"].replace(",", "")), "inputs": int(m["n"].replace(",", ""))}


class MathCheck:
    """A math rule's launch over its inputs (files, not JSON: 2^16 and more) and its judgement against MPFR's
    correctly rounded references under the documented bound (``cases.math_reference``)."""

    kernel = "sg_math"

    def __init__(self, params: Mapping[str, Any]):
        self.spec = math_reference.Spec.of(params)
        self.summary = ""
        self._folder: Path | None = None

    def request(self, module: str) -> dict:
        spec = self.spec
        self.n, columns = math_reference.encoded_inputs(spec)
        # Beside the module, in the item's scratch folder: gone with it when a fault ends the run before its judging.
        self._folder = Path(tempfile.mkdtemp(prefix="math-", dir=Path(module).parent))
        files = []
        for k, (dtype, data) in enumerate(columns):
            path = self._folder / f"in{k}"
            path.write_bytes(data)
            files.append((dtype, str(path)))
        return {"module": module, "kernel": self.kernel, "files": files, "out": str(self._folder / "out"),
                "n": self.n, "width": len(spec.cells)}

    def mismatches(self, got: str) -> list[str]:
        """Judge the device's cells (the file the worker wrote) against the references."""
        spec, n, width = self.spec, self.n, len(self.spec.cells)
        try:
            flat = array("d", Path(got).read_bytes())
        finally:
            shutil.rmtree(self._folder, ignore_errors=True)
        if len(flat) != n * width:
            return [f"the kernel wrote {len(flat)} cells where {n * width} were expected"]
        cells = [list(flat[c::width]) for c in range(width)]
        judged = math_reference.judged(spec, cells)

        def errors(ulp, absolute, absolute_format: str) -> str:  # in the kinds of bound the spec documents
            return " and ".join(t for t in (f"{ulp:g} ulp" if spec.ulp is not None else "",
                                            f"absolute {absolute:{absolute_format}}" if spec.abs is not None else "")
                                if t)

        self.summary = SUMMARY.format(found=errors(judged.worst, judged.worst_abs, '.3g'),
                                      bound=errors(spec.ulp, spec.abs, 'g'), checked=judged.checked, n=n)
        more = judged.failed - len(judged.failures)
        return judged.failures + ([f"and {more} more inputs outside the bound"] if more else [])


@hooks.check
def math_ulp(params: Mapping[str, Any]) -> MathCheck:
    """A math function over its special values and a seeded sample, within its documented error bound."""
    return MathCheck(params)


class Renamed:
    """A check whose kernel has another name in the module it runs in (a module shared by several rules'
    checks: ``qualification.check_units``)."""

    def __init__(self, check, kernel: str):
        self._check, self.kernel = check, kernel

    def request(self, module: str) -> dict:
        return {**self._check.request(module), "kernel": self.kernel}

    def mismatches(self, got) -> list[str]:
        return self._check.mismatches(got)

    @property
    def summary(self) -> str:
        return getattr(self._check, "summary", "")
