"""The Python oracle for expression values agrees with real C++ (g++ on the host), bit for bit."""
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from suitegen.cases import expressions
from suitegen.cases.strategies import double_expressions, double_input_pairs, uint_expressions, uint_input_pairs

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
])
def test_python_evaluation_matches_cpp(tmp_path, kind, exprs, inputs):
    cases = draw(st.tuples(exprs, inputs), 40, 7)
    fmt = '"%u\\n"' if kind == "unsigned" else '"%a\\n"'
    lines = ["#include <cstdio>"]
    for i, (tree, _) in enumerate(cases):
        lines.append(f"{kind} f{i}({kind} a, {kind} b) {{ return {expressions.to_c(tree, kind)}; }}")
    lines.append("int main() {")
    for i, (_, pairs) in enumerate(cases):
        for a, b in pairs:
            lines.append(f"  std::printf({fmt}, f{i}({expressions.to_c(a, kind)}, {expressions.to_c(b, kind)}));")
    lines.append("}")
    src = tmp_path / "e.cpp"
    src.write_text("\n".join(lines) + "\n")
    subprocess.run(["g++", "-std=c++17", "-O0", "-ffp-contract=off", str(src), "-o", str(tmp_path / "e")],
                   check=True)
    got = subprocess.run([str(tmp_path / "e")], capture_output=True, text=True, check=True).stdout.split()
    want = [expressions.evaluate(tree, kind, a, b) for tree, pairs in cases for a, b in pairs]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        value = int(g) if kind == "unsigned" else float.fromhex(g) if "nan" not in g else float("nan")
        assert expressions.same(value, w), (g, w)
