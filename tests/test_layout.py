"""The package layout shows the pipeline, and imports flow one way through it."""
import ast
from pathlib import Path

from conftest import REPO

# Earlier stages never import later ones. The base modules (data types, hook registry, packaged
# inputs, child processes) are shared by all.
STAGES = ["base", "oracle", "cases", "synth", "compilers", "execute", "judge", "report", "engine", "history", "campaigns",
          "qualification", "frontends"]
BASE = {"suitegen", "suitegen.model", "suitegen.hooks", "suitegen.resources", "suitegen.procs",
        "suitegen.__main__"}


def stage_of(module: str) -> int:
    if module in BASE:
        return 0
    return STAGES.index(module.split(".")[1])


def modules():
    for path in sorted((REPO / "suitegen").rglob("*.py")):
        rel = path.relative_to(REPO).with_suffix("")
        name = ".".join(rel.parts).removesuffix(".__init__")
        yield name, path


def imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("suitegen"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                yield full if full.replace(".", "/") + ".py" in _files() else node.module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("suitegen"):
                    yield alias.name


def _files() -> set[str]:
    return {str(p.relative_to(REPO)) for p in (REPO / "suitegen").rglob("*.py")}


def test_every_module_sits_in_a_stage():
    for name, _ in modules():
        if name not in BASE:
            assert name.split(".")[1] in STAGES, f"{name} is in no stage folder"


def test_imports_flow_from_earlier_stages_to_later_ones():
    backwards = []
    for name, path in modules():
        if name == "suitegen.__main__":
            continue
        for target in imports(path):
            if target in BASE or target == "suitegen":
                continue
            if stage_of(target) > stage_of(name):
                backwards.append(f"{name} ({STAGES[stage_of(name)]}) imports {target} ({STAGES[stage_of(target)]})")
    assert not backwards, "\n".join(backwards)


def test_the_plugin_imports_nothing_heavy_when_unused():
    import subprocess
    import sys
    code = ("import sys, suitegen.frontends.plugin; "
            "heavy = [m for m in ('hypothesis', 'jinja2', 'junitparser', 'suitegen.qualification.session') if m in sys.modules]; "
            "print(heavy); sys.exit(1 if heavy else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_no_module_imports_one_that_imports_it_back():
    """No import cycles, counting imports inside functions too: each module can be read before those it uses."""
    graph = {name: {t for t in imports(path) if t not in (name, "suitegen")} for name, path in modules()}
    seen, cycles = {}, []

    def visit(name: str, trail: list[str]) -> None:
        seen[name] = "open"
        for target in sorted(graph.get(name, ())):
            if seen.get(target) == "open":
                cycles.append(" -> ".join(trail[trail.index(target):] + [target]))
            elif target in graph and target not in seen:
                visit(target, trail + [target])
        seen[name] = "done"

    for name in sorted(graph):
        if name not in seen:
            visit(name, [name])
    assert not cycles, "\n".join(cycles)


def test_the_judge_imports_nothing_above_the_model_and_the_oracle():
    """The judge is pure: what it needs from the compilers, execute and the engine is in the data it is given
    (``engine.facts``), so it imports none of them."""
    above = [f"{name} imports {target}" for name, path in modules() if name.startswith("suitegen.judge")
             for target in imports(path)
             if target not in BASE and stage_of(target) not in (STAGES.index("oracle"), STAGES.index("judge"))]
    assert not above, "\n".join(above)
