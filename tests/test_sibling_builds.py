"""A PTX-only config's build is taken from its SASS sibling's cached rejection where nvcc runs both alike up to the
failing stage (``sources.sibling``), and a several-target short build from its first target's, with real
nvcc; and one build per cache key at a time."""
import shutil
import threading
import time

import pytest

from suitegen.compilers import cache, compile as build
from suitegen.compilers.compile import cached_build
from suitegen.compilers.nvcc import BACKEND, nvcc_argv
from suitegen.model import Config, Mode, Outcome, Phase, Std

from conftest import needs_nvcc

REJECTED_BY_CICC = {"main.cu": "__device__ int f();\n__global__ void k(int *p) { static int s = f(); *p = s; }\n"}
ACCEPTED = {"main.cu": "__global__ void k(int *p) { *p = 1; }\n"}
REJECTED_BY_PTXAS = {"main.cu": '__global__ void k(int *p) { asm volatile("bogus.instruction;"); *p = 1; }\n'}


def argv(config: Config) -> list[str]:
    return [*nvcc_argv(config, ()), "-c", "main.cu", "-o", "main.o"]


def taken_and_own(first: Config, first_argv: list[str], config: Config, command: list[str], files, root):
    """Build ``files`` for ``first`` (cached), then for ``config`` (cached: taken from it), then for ``config`` again
    uncached (its own build); return the three results, asserting what each must be."""
    for name in ("first", "taken", "own"):
        (root / name).mkdir()
    built = cached_build(first, first_argv, files, root / "first", 120, cached=True)
    assert built.outcome is Outcome.REJECTED and built.phase is Phase.CICC and not built.cached
    taken = cached_build(config, command, files, root / "taken", 120, cached=True)
    assert taken.cached and not (root / "taken" / "main.cu").exists(), "taken, not built"
    own = cached_build(config, command, files, root / "own", 120, cached=False)
    assert not own.cached
    assert (taken.outcome, taken.phase, taken.diagnostics, taken.commands) == \
        (own.outcome, own.phase, own.diagnostics, own.commands)
    return built, taken, own


@pytest.fixture(scope="module")
def toolchain():
    from suitegen.compilers.toolchain import probe
    return probe(shutil.which("nvcc")) if shutil.which("nvcc") else None


@needs_nvcc
@pytest.mark.nvcc
def test_a_ptx_only_build_takes_its_siblings_front_end_rejection_as_its_own_build_gives_it(toolchain, tmp_path):
    sass, ptx = (Config(toolchain=toolchain, std=Std.CXX17, arch=a) for a in ("sm_90", "compute_90"))
    assert BACKEND.sibling_command(toolchain, argv(ptx)) == argv(sass)
    taken_and_own(sass, argv(sass), ptx, argv(ptx), REJECTED_BY_CICC, tmp_path)


@needs_nvcc
@pytest.mark.nvcc
@pytest.mark.parametrize("files, seen", [(ACCEPTED, Outcome.ACCEPTED), (REJECTED_BY_PTXAS, Outcome.REJECTED)],
                         ids=["accepted", "rejected-by-its-own-ptxas"])
def test_a_ptx_only_build_is_its_own_where_the_sibling_got_past_the_shared_stages(toolchain, tmp_path, files, seen):
    """Past cicc the two builds differ (ptxas -arch=sm_90 against -arch=compute_90): nothing is taken."""
    sass, ptx = (Config(toolchain=toolchain, std=Std.CXX17, arch=a) for a in ("sm_90", "compute_90"))
    (tmp_path / "sass").mkdir()
    (tmp_path / "ptx").mkdir()
    first = cached_build(sass, argv(sass), files, tmp_path / "sass", 120, cached=True)
    assert first.outcome is seen and (seen is Outcome.ACCEPTED or first.phase is Phase.PTXAS)
    got = cached_build(ptx, argv(ptx), files, tmp_path / "ptx", 120, cached=True)
    assert not got.cached and (tmp_path / "ptx" / "main.cu").exists(), "built, not taken"


def short(config: Config) -> list[str]:
    return BACKEND.front_end_command(config, Mode.COMPILE, (), ["main.cu"])


@needs_nvcc
@pytest.mark.nvcc
def test_a_several_target_short_build_takes_its_first_targets_front_end_rejection(toolchain, tmp_path):
    """sm_80+sm_90's short build (-fatbin) compiles compute_80 first: its preprocessor and cicc are the sm_80 short
    build's but for __CUDA_ARCH_LIST__, so where that one stopped at cicc, the result is its; the same as built."""
    one, two = (Config(toolchain=toolchain, std=Std.CXX17, arch=a) for a in ("sm_80", "sm_80+sm_90"))
    assert BACKEND.sibling_command(toolchain, short(two)) == short(one)
    _, taken, own = taken_and_own(one, short(one), two, short(two), REJECTED_BY_CICC, tmp_path)
    assert own.commands == (tuple(short(two)),)
    assert build.stopped_at_front_end(two, taken)


@needs_nvcc
@pytest.mark.nvcc
@pytest.mark.parametrize("files", [
    {"main.cu": "#if __CUDA_ARCH_LIST__ > 0\n#endif\n" + REJECTED_BY_CICC["main.cu"]},
    {"main.cu": "#include <cuda/std/cstddef>\n" + REJECTED_BY_CICC["main.cu"]}], ids=["names-it", "folder-header"])
def test_nothing_is_taken_where_a_source_may_read_the_target_list(toolchain, tmp_path, files):
    one, two = (Config(toolchain=toolchain, std=Std.CXX17, arch=a) for a in ("sm_80", "sm_80+sm_90"))
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    assert cached_build(one, short(one), files, tmp_path / "one", 120, cached=True).phase is Phase.CICC
    got = cached_build(two, short(two), files, tmp_path / "two", 120, cached=True)
    assert not got.cached and (tmp_path / "two" / "main.cu").exists(), "built, not taken"


def test_one_build_per_key_at_a_time():
    inside, most = [], []
    lock = threading.Lock()

    def work():
        with build.one_at_a_time("k"):
            with lock:
                inside.append(1)
                most.append(len(inside))
            time.sleep(0.05)
            with lock:
                inside.pop()

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    from suitegen.compilers.sources import request
    assert max(most) == 1 and not request._flights, "one at a time, and nothing left behind"


@needs_nvcc
@pytest.mark.nvcc
def test_a_several_target_build_takes_its_first_targets_rejection_within_the_stages_they_share(toolchain, tmp_path):
    """sm_80+sm_90 -c runs sm_80 -c's host side, compute_80 preprocessor, cicc and ptxas alike first: a rejection
    there is taken; sm_80's accepted build is not (past those stages the two differ)."""
    one, two = (Config(toolchain=toolchain, std=Std.CXX17, arch=a) for a in ("sm_80", "sm_80+sm_90"))
    assert BACKEND.sibling_command(toolchain, argv(two)) == argv(one)
    for files, name in ((REJECTED_BY_PTXAS, "rejected"), (ACCEPTED, "accepted")):
        for side in ("one", "two", "own"):
            (tmp_path / name / side).mkdir(parents=True)
        cached_build(one, argv(one), files, tmp_path / name / "one", 120, cached=True)
        got = cached_build(two, argv(two), files, tmp_path / name / "two", 120, cached=True)
        assert got.cached == (name == "rejected")
        own = cached_build(two, argv(two), files, tmp_path / name / "own", 120, cached=False)
        assert (got.outcome, got.phase, got.diagnostics, got.commands) == \
            (own.outcome, own.phase, own.diagnostics, own.commands)
    assert got.outcome is Outcome.ACCEPTED and own.phase is None
