"""One target's build taken from the accepted build of the same sources for more targets (``sources.wider``):
``-arch=sm_80`` and ``-arch=sm_90`` within ``sm_80+sm_90``, with real nvcc."""
import json
import shutil

import pytest

from suitegen.compilers.compile import MODULE, cached_build
from suitegen.compilers.nvcc import BACKEND, nvcc_argv
from suitegen.qualification.item import wider
from suitegen.frontends.cli import main
from suitegen.model import Config, Outcome, Std

from conftest import needs_nvcc, write_demo_oracle

# A device warning under one target only (cicc's, for compute_80), and one every front end gives (an unused variable
# in a host function: cudafe++'s).
WARNED = {"main.cu": """\
__device__ int g() {
#if __CUDA_ARCH__ == 800
  int only_on_sm_80;
#endif
  return 1;
}
__global__ void k(int *p) { *p = g(); }
void h() { int everywhere; }
"""}
READS_THE_TARGETS = {"main.cu": "__global__ void k(int *p) { *p = sizeof(\"\" \"__CUDA_ARCH_LIST__\"); }\n"}
PTXAS_REJECTS_ON_SM_90 = {"main.cu": """\
__global__ void k(int *p) {
#if __CUDA_ARCH__ == 900
  asm volatile("bogus.instruction;");
#endif
  *p = 1;
}
"""}


def argv(config: Config) -> list[str]:
    return [*nvcc_argv(config, ()), "-c", "main.cu", "-o", "main.o"]


@pytest.fixture(scope="module")
def toolchain():
    from suitegen.compilers.toolchain import probe
    return probe(shutil.which("nvcc")) if shutil.which("nvcc") else None


def configs(toolchain) -> dict[str, Config]:
    return {a: Config(toolchain=toolchain, std=Std.CXX17, arch=a) for a in ("sm_80", "sm_90", "sm_80+sm_90")}


def said(result) -> list[tuple]:
    return [(d.severity, d.phase, d.file, d.line, d.message) for d in result.diagnostics]


@needs_nvcc
@pytest.mark.nvcc
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_one_target_s_build_is_taken_from_the_wider_build_as_its_own_build_gives_it(toolchain, tmp_path, arch):
    """The host side's warning is in both; cicc's warning for compute_80 only in sm_80's."""
    cfg = configs(toolchain)
    narrow, wide = cfg[arch], cfg["sm_80+sm_90"]
    for name in ("wide", "taken", "own"):
        (tmp_path / name).mkdir()
    first = cached_build(wide, argv(wide), WARNED, tmp_path / "wide", 120, cached=True)
    assert first.outcome is Outcome.ACCEPTED_WITH_WARNINGS
    taken = cached_build(narrow, argv(narrow), WARNED, tmp_path / "taken", 120, cached=True, wider=argv(wide))
    assert taken.cached and not (tmp_path / "taken" / "main.cu").exists(), "taken, not built"
    assert taken.commands == (tuple(argv(wide)),), "it names the command that ran"
    own = cached_build(narrow, argv(narrow), WARNED, tmp_path / "own", 120, cached=False)
    assert not own.cached and own.outcome is Outcome.ACCEPTED_WITH_WARNINGS
    assert (taken.outcome, taken.phase, said(taken)) == (own.outcome, own.phase, said(own))
    assert any("only_on_sm_80" in d.message for d in own.diagnostics) == (arch == "sm_80")
    assert any("everywhere" in d.message for d in own.diagnostics)


@needs_nvcc
@pytest.mark.nvcc
def test_a_taken_build_s_module_is_built_alone_and_is_the_one_its_own_build_embeds(toolchain, tmp_path):
    """A member that is loaded or run needs its config's module: the device side alone (nvcc -fatbin) writes it."""
    cfg = configs(toolchain)
    narrow, wide = cfg["sm_80"], cfg["sm_80+sm_90"]
    for name in ("wide", "taken", "own"):
        (tmp_path / name).mkdir()
    cached_build(wide, argv(wide), WARNED, tmp_path / "wide", 120, cached=True, image=True)
    taken = cached_build(narrow, argv(narrow), WARNED, tmp_path / "taken", 120, cached=True, image=True,
                         wider=argv(wide))
    assert taken.cached and taken.commands == (tuple(argv(wide)),)
    assert not (tmp_path / "taken" / "main.o").exists(), "no object: the device side alone"
    own = cached_build(narrow, argv(narrow), WARNED, tmp_path / "own", 120, cached=False, image=True)
    assert (tmp_path / "taken" / MODULE).read_bytes() == (tmp_path / "own" / MODULE).read_bytes()
    rdc = Config(toolchain=toolchain, std=Std.CXX17, arch="sm_80", flags=("-rdc=true",))
    assert BACKEND.module_command(argv(rdc)) is None, "an rdc object's module is its device link's"


@needs_nvcc
@pytest.mark.nvcc
@pytest.mark.parametrize("files, why", [(READS_THE_TARGETS, "a source names __CUDA_ARCH_LIST__"),
                                        ({"main.cu": "#include <cub/version.cuh>\n" + WARNED["main.cu"]},
                                         "a header in a folder may read it"),
                                        (PTXAS_REJECTS_ON_SM_90, "the wide build was rejected")],
                         ids=["reads-the-list", "folder-header", "wide-rejected"])
def test_a_one_target_build_is_its_own_where_the_wider_build_cannot_stand_for_it(toolchain, tmp_path, files, why):
    cfg = configs(toolchain)
    narrow, wide = cfg["sm_80"], cfg["sm_80+sm_90"]
    (tmp_path / "wide").mkdir()
    (tmp_path / "narrow").mkdir()
    cached_build(wide, argv(wide), files, tmp_path / "wide", 120, cached=True)
    got = cached_build(narrow, argv(narrow), files, tmp_path / "narrow", 120, cached=True, wider=argv(wide))
    assert not got.cached and (tmp_path / "narrow" / "main.cu").exists(), f"built, not taken: {why}"


def test_the_wider_config_is_one_of_the_run_s_for_more_targets_and_otherwise_the_same(toolchain):
    cfg = configs(toolchain)
    ptx = Config(toolchain=toolchain, std=Std.CXX17, arch="compute_90")
    other = Config(toolchain=toolchain, std=Std.CXX17, arch="sm_80+sm_90", flags=("-rdc=true",))
    run = [cfg["sm_80"], cfg["sm_90"], ptx, other, cfg["sm_80+sm_90"]]
    assert wider(cfg["sm_80"], run) == cfg["sm_80+sm_90"] and wider(cfg["sm_90"], run) == cfg["sm_80+sm_90"]
    assert wider(ptx, run) is None, "a PTX-only build runs its own ptxas check (-arch=compute_90)"
    assert wider(cfg["sm_80+sm_90"], run) is None
    assert wider(cfg["sm_80"], run[:4]) is None, "flags differ"


RULES = '''section = "demo"

[[rule]]
id = "arch-warning"
statement = "A device function that declares an unused variable under one target is still accepted."
template = "demo/warned.cu.j2"

  [[rule.variant]]
  name = "pos"
  expect = "accept"

[[rule]]
id = "plain"
statement = "A kernel that stores a value is accepted."
template = "demo/plain.cu.j2"

  [[rule.variant]]
  name = "pos"
  expect = "accept"

  [[rule.variant]]
  name = "pos-again"
  expect = "accept"
'''


@needs_nvcc
@pytest.mark.nvcc
def test_a_run_takes_one_target_s_accepted_batches_from_the_wider_config_s_with_the_verdicts_of_single_builds(
        tmp_path, capsys):
    orc, tpl = write_demo_oracle(tmp_path, RULES, {"warned.cu.j2": WARNED["main.cu"],
                                                  "plain.cu.j2": "__global__ void k(int *p) { *p = 2; }\n"})
    seen = {}
    for how in ("on", "off"):
        out = tmp_path / how
        main(["run", "--oracle", str(orc), "--templates", str(tpl), "--std", "c++17",
              "--arch", "sm_80,sm_90,sm_80+sm_90", "--batch", how, "--no-exec", "--out", str(out), "-q",
              "-j", "1"])  # one unit at a time: sm_80+sm_90's batch is built first
        err = capsys.readouterr().err
        assert (out / "results.jsonl").exists(), err
        seen[how] = {(r["case_id"], r["config_id"]): r for r in map(json.loads, (out / "results.jsonl").open())}
    assert seen["on"].keys() == seen["off"].keys() and len(seen["on"]) == 9
    for item, batched in seen["on"].items():
        alone = seen["off"][item]
        assert batched["verdict"] == alone["verdict"] == "PASS", item
        assert batched["observed"]["outcome"] == alone["observed"]["outcome"], item
        assert [(d["severity"], d["message"]) for d in batched["observed"]["diagnostics"]] == [
            (d["severity"], d["message"]) for d in alone["observed"]["diagnostics"]], item
    taken = [r for (_, cfg), r in seen["on"].items() if cfg in ("c++17,sm_80", "c++17,sm_90")]
    assert all("-gencode" in r["observed"]["commands"][0] for r in taken), "taken from the sm_80+sm_90 batch"
