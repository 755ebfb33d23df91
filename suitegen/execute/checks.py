"""Python-side oracles for device-only (cubin) cases: the launch to make and the values to expect.

A fatbin variant names its check (``check = "expression_values"``); each is registered with
``@hooks.check`` under its function name.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from suitegen import hooks
from suitegen.cases import expressions
from suitegen.model import FROZEN

DTYPES = {"unsigned": "uint32", "int": "int32", "float": "float32", "double": "float64"}


@dataclass(**FROZEN)
class DeviceCheck:
    """One kernel launch and the values its output must hold."""

    kernel: str
    inputs: list  # [(numpy dtype name, values)]
    out: str
    expected: list

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
