"""Which nvcc releases show a wrong-code finding: build its kernel with every release here, run it there.

    python benchmarks/release_range.py build OUT REPRO.cu...   # CPU machine: every registered nvcc release
    python benchmarks/release_range.py run OUT                 # GPU machine (no package index): runs them all

``build`` compiles each reproducer's kernel to a cubin under the default flags, ``-Xptxas -O0`` and ``-Xcicc -O0`` with every
toolchain ``suitegen toolchain list`` knows (install releases with ``suitegen toolchain add``), and writes a
manifest with the launch and the expected cells (the reproducer's own ``sg_expect``). ``run`` loads every cubin
through cupy, runs the kernel and prints, per reproducer, which releases give the right cells.
"""
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def build(out: Path, repros: list[str]) -> None:
    from suitegen.compilers import registry
    from suitegen.compilers.modules import BASE_FLAGS
    from suitegen.compilers.toolchain import discover, probe
    from suitegen.campaigns.triage import parse_reproducer
    tcs = {"13.0.88": discover()[0]}
    for name, entry in registry.load_registry().items():
        if name.startswith("nvcc-"):
            tcs[name.removeprefix("nvcc-")] = entry["nvcc"]
    out.mkdir(parents=True, exist_ok=True)
    manifest = []
    for repro in repros:
        entry = {"repro": Path(repro).name, **parse_reproducer(Path(repro).read_text()), "cubins": {}}
        for version, nvcc in sorted(tcs.items(), key=lambda kv: tuple(map(int, kv[0].split(".")))):
            assert probe(nvcc).version_str == version
            for label, extra in (("default", ()), ("ptxas-O0", ("-Xptxas", "-O0")), ("cicc-O0", ("-Xcicc", "-O0"))):
                cubin = out / f"{Path(repro).stem}-{version}-{label}.cubin"
                argv = [nvcc, "-std=c++17", *BASE_FLAGS, "-arch=sm_90", *extra, "-cubin", repro, "-o", str(cubin)]
                done = subprocess.run(argv, capture_output=True, text=True)
                entry["cubins"][f"{version} {label}"] = cubin.name if done.returncode == 0 else None
        manifest.append(entry)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))


def run(out: Path) -> None:
    import cupy
    for entry in json.loads((out / "manifest.json").read_text()):
        print(entry["repro"])
        for key, name in entry["cubins"].items():
            if name is None:
                print(f"  {key}: no cubin")
                continue
            mod = cupy.cuda.function.Module()
            mod.load_file(str(out / name))
            buf = cupy.zeros(len(entry["expect"]), dtype="uint64")
            mod.get_function(entry["kernel"])((entry["blocks"],), (entry["threads"],), (buf,))
            got = [int(v) for v in buf.get().tolist()]
            bad = [(i, w, g) for i, (w, g) in enumerate(zip(entry["expect"], got)) if w != g]
            print(f"  {key}: " + ("OK" if not bad else f"WRONG in {len(bad)} cells, first: cell {bad[0][0]} "
                                  f"expected {bad[0][1]} got {bad[0][2]}"))


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(Path(sys.argv[2]), sys.argv[3:])
    else:
        run(Path(sys.argv[2]))
