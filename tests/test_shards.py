"""Shards of one run on several hosts, merged back into one run; the plugin's batches under xdist."""
import json
import subprocess
import sys
import pytest

from conftest import REPO, follows_the_guide

MATRIX = ["--std", "c++11,c++14,c++17,c++20", "--arch", "sm_80,sm_90"]


def records(folder):
    path = folder / "results.jsonl"  # a shard may hold no unit at all: then nothing was written
    return {(r["case_key"], r["config_key"]): r for r in map(json.loads, path.open())} if path.exists() else {}


def test_shards_split_the_items_and_merge_into_one_run(fake_nvcc, mini_oracle, tmp_path):
    nvcc = fake_nvcc(follows_the_guide(tmp_path / "builds"))
    base = [sys.executable, "-m", "suitegen", "run", "--nvcc", str(nvcc), "--oracle", str(mini_oracle[0]),
            "--templates", str(mini_oracle[1]), *MATRIX, "-q"]
    whole = subprocess.run(base + ["--out", str(tmp_path / "whole")], cwd=REPO, capture_output=True, text=True)
    assert whole.returncode == 0, whole.stderr
    parts = []
    for k in (1, 2, 3):
        out = tmp_path / f"shard{k}"
        proc = subprocess.run(base + ["--shard", f"{k}/3", "--out", str(out)], cwd=REPO, capture_output=True,
                              text=True)
        assert proc.returncode == 0, proc.stderr
        parts.append(records(out))
    keys = [set(p) for p in parts]
    assert sum(map(len, keys)) == len(set().union(*keys)) == len(records(tmp_path / "whole")), "no overlap, no gap"
    for p in parts:  # batches are kept whole: every batch's members are in one shard
        ids = {r["batch"]["id"] for r in p.values() if (r["batch"] or {}).get("how") == "batch"}
        assert all(i not in {r["batch"]["id"] for q in parts if q is not p for r in q.values()
                             if (r["batch"] or {}).get("how") == "batch"} for i in ids)
    merged = subprocess.run([sys.executable, "-m", "suitegen", "merge", str(tmp_path / "merged"),
                             *(str(tmp_path / f"shard{k}") for k in (1, 2, 3)), "--oracle", str(mini_oracle[0])],
                            cwd=REPO, capture_output=True, text=True)
    assert merged.returncode == 0, merged.stderr
    got = {k: r["verdict"] for k, r in records(tmp_path / "merged").items()}
    assert got == {k: r["verdict"] for k, r in records(tmp_path / "whole").items()}
    summary = json.loads((tmp_path / "merged" / "summary.json").read_text())
    assert summary["results"] == len(got) and (tmp_path / "merged" / "junit.xml").exists()
    assert (tmp_path / "merged" / "index.html").exists()


def test_the_plugin_builds_each_batch_once_per_worker(pytester, fake_nvcc, mini_oracle, tmp_path):
    builds = tmp_path / "builds"
    nvcc = fake_nvcc(follows_the_guide(builds))
    result = pytester.runpytest_subprocess("--suitegen", str(mini_oracle[0]), "--suitegen-templates",
                                           str(mini_oracle[1]), "--suitegen-nvcc", str(nvcc), *(
                                               f"--suitegen-{a.lstrip('-')}" if a.startswith("--") else a
                                               for a in MATRIX), "-n", "2", "--dist", "loadfile",
                                           "-p", "no:cacheprovider", "--suitegen-no-cache")
    result.assert_outcomes(passed=24)
    # 8 configs; per config the two reject cases are one batch (whichever worker took the group) and the
    # accept case, alone on its side, is built alone: 16 builds, as in `suitegen run`.
    assert len(builds.read_text().splitlines()) == 16


@pytest.mark.slow
def test_gateways_with_their_own_gpus_share_batches_and_the_cache(pytester, fake_nvcc, mini_oracle, tmp_path):
    """Two popen gateways, each given its own CUDA_VISIBLE_DEVICES (as for a GPU farm, or ``--tx ssh=``)."""
    builds = tmp_path / "builds"
    nvcc = fake_nvcc(follows_the_guide(builds))
    argv = ["--suitegen", str(mini_oracle[0]), "--suitegen-templates", str(mini_oracle[1]), "--suitegen-nvcc",
            str(nvcc), *(f"--suitegen-{a.lstrip('-')}" if a.startswith("--") else a for a in MATRIX),
            "--tx", "popen//env:CUDA_VISIBLE_DEVICES=0", "--tx", "popen//env:CUDA_VISIBLE_DEVICES=1",
            "--dist", "loadfile", "-p", "no:cacheprovider", "-v"]
    first = pytester.runpytest_subprocess(*argv)
    first.assert_outcomes(passed=24)
    lines = builds.read_text().splitlines()
    assert len(lines) == 16, "each batch built once, by the gateway that took its items"
    assert set(lines) <= {"build gpu=0", "build gpu=1"}, "every build ran under its gateway's own GPU"
    again = pytester.runpytest_subprocess(*argv)
    again.assert_outcomes(passed=24)
    assert len(builds.read_text().splitlines()) == 16, "the second session's gateways hit the shared cache"
