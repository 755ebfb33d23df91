"""Build stores and the build cache as untrusted input: every field of a store's toolchain record and of a cache
entry is checked, a replay never runs a program a store names and writes nothing outside it, a store recorded
with another oracle is refused, and an entry that fails its digest says so."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from suitegen.compilers import cache
from suitegen.frontends.cli import main
from suitegen.model import CompileResult, Diagnostic, Outcome, Phase
from suitegen.oracle import loader

from conftest import REPO, needs_nvcc

RULE = "device-memory-space/no-automatic-in-device-function"
FEATURED = "memory-fences/libcu-equivalents"  # requires has-libcudacxx, a probed feature
ONE_CONFIG = ("--std", "c++17", "--arch", "sm_90", "--no-exec")


def evil_program(folder: Path) -> Path:
    """Write a program a hostile store names as its compiler: run, it leaves a marker file."""
    program = folder / "evil.sh"
    program.write_text(f"#!/bin/sh\necho \"$@\" >> {folder / 'MARKER'}\nexit 1\n")
    program.chmod(0o755)
    return program


def a_store(folder: Path, oracle: str | None = None, **fields) -> Path:
    """Write a build store holding one toolchain record (``fields`` in its place) and no builds."""
    record = {"nvcc": "/usr/local/bin/nvcc", "version": [13, 0, 88], "version_text": "Build cuda_13.0",
              "host_compiler": "/usr/bin/g++", "host_version": "g++ 12", "fingerprint": "0123456789abcdef",
              "name": "", "kind": "nvcc", "cuda_version": [], "cuda_path": "", "base_flags": [], **fields}
    (folder / "toolchains").mkdir(parents=True)
    (folder / "toolchains" / "0123456789abcdef.json").write_text(json.dumps(record))
    oracle = loader.load().content_hash if oracle is None else oracle
    (folder / cache.STORE_FILE).write_text(json.dumps({"key": cache.STORE_KEY, "oracle": oracle}))
    return folder


def replay(store: Path, out: Path, *rules: str) -> int:
    return main(["run", *(a for r in rules or (RULE,) for a in ("--rules", r)), *ONE_CONFIG,
                 "--builds-from", str(store), "--out", str(out), "-q"])


def files_under(folder: Path) -> set[Path]:
    """Return the folder and everything under it."""
    return {folder, *folder.rglob("*")}


@pytest.mark.parametrize("field, value, said", [
    ("fingerprint", "../../escaped", "field 'fingerprint'"),
    ("fingerprint", "fedcba9876543210", "filed under another name"),
    ("nvcc", 5, "field 'nvcc'"),
    ("version", ["13", "0"], "field 'version'"),
    ("kind", "gcc", "field 'kind'"),
    ("name", "x\n$(touch PWNED)", "field 'name'"),
    ("base_flags", "-O3", "field 'base_flags'"),
])
def test_a_toolchain_record_with_a_bad_field_is_refused(tmp_path, capsys, field, value, said):
    store = a_store(tmp_path / "store", **{field: value})
    before = files_under(tmp_path)
    assert replay(store, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert "0123456789abcdef.json" in err and said in err and "Traceback" not in err
    assert files_under(tmp_path) - before <= files_under(store), "nothing written outside the store"


def test_a_store_recorded_with_another_oracle_is_refused_naming_both(tmp_path, capsys):
    store = a_store(tmp_path / "store", oracle="0000000000000000")
    assert replay(store, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert f"recorded with oracle 0000000000000000, and this run's oracle is {loader.load().content_hash}" in err
    assert not (tmp_path / "out").exists(), "refused before anything runs"
    (store / cache.STORE_FILE).unlink()  # a store of an older suitegen names no oracle
    assert replay(store, tmp_path / "out") == 2
    assert "recorded with no oracle" in capsys.readouterr().err


def test_a_replay_runs_no_program_the_store_names(tmp_path, capsys):
    """No feature probe, target list, config probe or build runs the store's program: what the store did not
    record is not known, and its items say so."""
    store = a_store(tmp_path / "store", nvcc=str(evil_program(tmp_path)))
    before = files_under(tmp_path)
    assert replay(store, tmp_path / "out", RULE, FEATURED) == 1
    assert not (tmp_path / "MARKER").exists(), "the store's program never ran"
    assert files_under(tmp_path) - before <= files_under(tmp_path / "out"), "the store gains nothing either"
    records = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert records and all(r["verdict"] in ("UNRESOLVED", "UNSUPPORTED") for r in records)
    assert any("did not record this config" in r["reason"] for r in records)


def a_result(**fields) -> dict:
    said = Diagnostic(severity="error", message="no", phase=Phase.CICC, file="main.cu", line=2)
    good = CompileResult(outcome=Outcome.REJECTED, phase=Phase.CICC, exit_code=2, diagnostics=(said,),
                         commands=(("nvcc", "-c", "main.cu"),), output="main.cu(2): error: no\n", duration=0.5)
    return {**good.to_json(), **fields}


BAD_FIELDS = [{"exit_code": "a"}, {"duration": "x"}, {"output": 5}, {"commands": [[1, 2]]}, {"commands": []},
              {"commands": "ab"}, {"exit_code": True}, {"duration": float("nan")}, {"phase": 3},
              {"diagnostics": [{"severity": "error", "message": 7, "phase": "cicc"}]}, {"diagnostics": "x"}]


@pytest.mark.parametrize("bad", BAD_FIELDS, ids=lambda b: json.dumps(b))
def test_a_cache_entry_with_a_field_of_another_type_is_a_miss(bad):
    k = "ab" * 20
    cache.write_keyed(cache._path(k), k, result=a_result(), artifact=None, module=None, product=None)
    assert cache.get(k) is not None
    cache.write_keyed(cache._path(k), k, result=a_result(**bad), artifact=None, module=None, product=None)
    assert cache.get(k) is None
    assert "is not a whole entry" in cache.unserved(k)


def test_a_stored_product_that_fails_its_digest_says_so(tmp_path):
    k = "cd" * 20
    accepted = CompileResult(outcome=Outcome.ACCEPTED, phase=None, exit_code=0, diagnostics=(),
                             commands=(("nvcc", "-c", "main.cu", "-o", "main.o"),), output="", duration=0.5)
    cache.use_store(cache.Store.RECORD, tmp_path / "store")
    try:
        cache.put(k, accepted, artifact="object", product=b"\x7fELF object", any_outcome=True)
        assert cache.get_product(k) == b"\x7fELF object"
        cache._path(k).with_suffix(".product").write_bytes(b"\x7fELF tampered")
        said = cache.unserved(k)
        assert ".product fails its digest" in said and "not recorded" not in said
        assert "the store was damaged since it was recorded" in cache.unserved("ef" * 20), "a build alone says why"
    finally:
        cache.leave_store()


def cli(*args, env_cache: Path):
    import os
    env = {**os.environ, "SUITEGEN_CACHE": str(env_cache)}
    return subprocess.run([sys.executable, "-m", "suitegen", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=600, env=env)


def verdicts(folder: Path) -> dict:
    """Return (case, config) -> (verdict, reason) of a run folder's records."""
    return {(r["case_id"], r["config_id"]): (r["verdict"], r["reason"])
            for r in map(json.loads, (folder / "results.jsonl").read_text().splitlines())}


def verdicts_only(folder: Path) -> dict:
    return {item: verdict for item, (verdict, _) in verdicts(folder).items()}


@pytest.mark.slow
@needs_nvcc
def test_bad_cache_fields_are_rebuilt_with_the_verdicts_of_a_clean_cache(tmp_path):
    home = tmp_path / "cache"
    done = cli("run", "--rules", RULE, *ONE_CONFIG, "--out", str(tmp_path / "clean"), env_cache=home)
    clean = verdicts(tmp_path / "clean")
    entries = sorted((home / "builds").rglob("*.json"))
    assert entries and done.returncode == 0, done.stdout + done.stderr
    for i, path in enumerate(entries):  # every entry spoilt, each in one field
        data = json.loads(path.read_text())
        data["result"].update(BAD_FIELDS[i % 4])
        path.write_text(json.dumps(data))
    done = cli("run", "--rules", RULE, *ONE_CONFIG, "--out", str(tmp_path / "again"), env_cache=home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert verdicts(tmp_path / "again") == clean
    assert all(cache._whole(json.loads(p.read_text())["result"]) for p in entries), "each entry built again"


@pytest.mark.slow
@needs_nvcc
def test_a_replay_takes_features_and_builds_from_the_store_alone(tmp_path):
    """Recorded with the real nvcc, replayed with the store naming a program that must not run: the verdicts are
    the recording's (its feature answers too); a product that fails its digest says so."""
    store, home = tmp_path / "store", tmp_path / "cache"
    done = cli("run", "--rules", FEATURED, *ONE_CONFIG, "--builds-to", str(store), "--out", str(tmp_path / "rec"),
               env_cache=home)
    assert done.returncode == 0, done.stdout + done.stderr
    recorded = verdicts_only(tmp_path / "rec")
    assert set(recorded.values()) == {"PASS"}, "has-libcudacxx holds here"
    (tc_file,) = (store / "toolchains").glob("*.json")
    record = json.loads(tc_file.read_text())
    tc_file.write_text(json.dumps({**record, "nvcc": str(evil_program(tmp_path))}))
    done = cli("run", "--rules", FEATURED, *ONE_CONFIG, "--builds-from", str(store), "--out",
               str(tmp_path / "replayed"), env_cache=home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert verdicts_only(tmp_path / "replayed") == recorded
    assert not (tmp_path / "MARKER").exists()
    products = sorted(store.rglob("*.product"))
    assert products
    for product in products:
        product.write_bytes(product.read_bytes() + b"tampered")
    done = cli("run", "--rules", FEATURED, *ONE_CONFIG, "--builds-from", str(store), "--out",
               str(tmp_path / "tampered"), env_cache=home)
    reasons = [reason for verdict, reason in verdicts(tmp_path / "tampered").values() if verdict == "UNRESOLVED"]
    assert reasons and all("fails its digest" in r for r in reasons), reasons
    assert done.returncode == 1
