"""The Python oracle for expression values agrees with real C++ (g++ on the host), bit for bit."""
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from suitegen.cases import expressions
from suitegen.cases.strategies import (double_expressions, double_input_pairs, float_expressions, float_input_pairs,
                                       int_expressions, int_input_pairs, uint_expressions, uint_input_pairs)

pytestmark = pytest.mark.skipif(not shutil.which("g++"), reason="needs g++")


def draw(strategy, n, s):
    out = []

    @seed(s)
    @settings(max_examples=n, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(x):
        out.append(x)

    collect()
    return out


@pytest.mark.parametrize("kind, exprs, inputs", [
    ("unsigned", uint_expressions(), uint_input_pairs()),
    ("double", double_expressions(), double_input_pairs()),
    ("float", float_expressions(), float_input_pairs()),
    ("int", int_expressions(), int_input_pairs()),
])
def test_python_evaluation_matches_cpp(tmp_path, kind, exprs, inputs):
    """Hypothesis draws trees and inputs; g++ (SSE arithmetic: IEEE, subnormals kept, nothing fused)
    computes them; the Python oracle must give the same bits."""
    cases = draw(st.tuples(exprs, inputs), 40, 7)
    fmt = {"unsigned": '"%u\\n"', "int": '"%d\\n"'}.get(kind, '"%a\\n"')
    lines = ["#include <cstdio>", "#include <cmath>"]
    for i, (tree, _) in enumerate(cases):
        lines.append(f"{kind} f{i}({kind} a, {kind} b) {{ return {expressions.to_c(tree, kind)}; }}")
    lines.append("int main() {")
    for i, (_, pairs) in enumerate(cases):
        for a, b in pairs:
            call = f"f{i}({expressions.to_c(a, kind)}, {expressions.to_c(b, kind)})"
            lines.append(f"  std::printf({fmt}, {'(double)' if kind == 'float' else ''}{call});")
    lines.append("}")
    src = tmp_path / "e.cpp"
    src.write_text("\n".join(lines) + "\n")
    subprocess.run(["g++", "-std=c++20", "-O0", "-ffp-contract=off", str(src), "-o", str(tmp_path / "e")],
                   check=True)
    got = subprocess.run([str(tmp_path / "e")], capture_output=True, text=True, check=True).stdout.split()
    want = [expressions.evaluate(tree, kind, a, b) for tree, pairs in cases for a, b in pairs]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        value = int(g) if kind in ("unsigned", "int") else float.fromhex(g) if "nan" not in g else float("nan")
        assert expressions.same(value, w), (g, w)


def test_float_semantics_the_device_must_keep():
    """Subnormals survive (no flush to zero), division and sqrt are correctly rounded, and products feeding
    a sum are what --fmad=true may contract."""
    tiny = expressions.f32(1e-45)
    assert tiny > 0 and expressions.evaluate(["*", "a", 0.5], "float", 3e-45, 0) == tiny, "2 units of the last place, halved"
    assert expressions.evaluate(["/", "a", 2.0], "float", 1.1754942e-38, 0) > 0, "a subnormal result is kept"
    assert expressions.evaluate(["/", "a", "b"], "float", 1.0, 3.0) == expressions.f32(1 / 3)
    assert expressions.evaluate(["sqrt", "a"], "float", 2.0, 0) == expressions.f32(2 ** 0.5)
    assert expressions.f32(3.4028235e38 * 2) == float("inf")
    assert expressions.contractible(["+", ["*", "a", "b"], "a"]) and not expressions.contractible(
        ["/", ["*", "a", "b"], "a"])
    assert expressions.evaluate([">>", "a", 1], "int", -7, 0) == -4, "arithmetic shift (C++20)"
    assert expressions.evaluate(["/", "a", "b"], "int", -7, 2) == -2 and expressions.evaluate(
        ["%", "a", "b"], "int", -7, 2) == -1, "truncation towards zero"
    assert expressions.evaluate(["+", "a", "b"], "int", 2**31 - 1, 1) == -2**31, "modular conversion (C++20)"
