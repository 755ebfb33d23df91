"""Shards of one run on several hosts, merged back into one run; the plugin's batches under xdist."""
import json
import subprocess
import sys

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
    # 8 configs, one batch of the 3 cases each, whichever worker took the group; the accepted case has no
    # error of its own in its rejected batch, so it is built alone: 16 builds, as in `suitegen run`.
    assert len(builds.read_text().split()) == 16
