"""Matrix profiles as data, toolchain registry and files, and the diff of two runs."""
import json
import subprocess

import pytest

from suitegen.compilers import registry
from suitegen.compilers.nvcc import arch_flags
from suitegen.compilers.toolchain import ToolchainError
from suitegen.engine import matrix
from suitegen.model import FlagSet, Profile
from suitegen.report import diff


def test_profiles_load():
    profiles = matrix.load_profiles()
    assert {"quick", "default", "nightly"} <= set(profiles)
    assert profiles["default"].stds == ("c++11", "c++14", "c++17", "c++20")
    nightly = profiles["nightly"]
    assert "compute_90" in nightly.archs and "sm_80+sm_90" in nightly.archs
    lam = next(f for f in nightly.flagsets if f.flags == ("--extended-lambda",))
    assert "lambdas" in lam.sections


def test_bad_profile_names_file_and_profile(tmp_path):
    bad = tmp_path / "m.toml"
    bad.write_text('[profile.x]\nstd = ["c++98"]\narch = ["sm_90"]\n')
    with pytest.raises(ValueError, match=r"m.toml: profile 'x': unknown -std level"):
        matrix.load_profiles(bad)
    with pytest.raises(ValueError, match="unknown profile 'nope'"):
        matrix.profile("nope")


def test_arch_flags():
    assert arch_flags("sm_90") == ["-arch=sm_90"]
    assert arch_flags("compute_90") == ["-arch=compute_90"]
    assert arch_flags("sm_80+sm_90") == ["-gencode", "arch=compute_80,code=sm_80",
                                         "-gencode", "arch=compute_90,code=sm_90"]


def test_flagset_scope_filters_the_plan(fake_nvcc):
    from suitegen.compilers import toolchain
    from suitegen.qualification import session as engine
    from suitegen.model import Case, Expect, Expectation, Rule, Variant
    tc = toolchain.probe(str(fake_nvcc("exit 0")))
    prof = Profile(name="p", stds=("c++17",), archs=("sm_90",),
                          flagsets=(FlagSet(), FlagSet(flags=("--extended-lambda",), sections=("lambdas",))))
    configs = engine.configs_for([tc], prof)

    def case(section):
        v = Variant(name="v", params={}, expectation=Expectation(expect=Expect.ACCEPT))
        r = Rule(id=f"{section}/r", section=section, statement="s", templates={}, variants=(v,))
        return Case(rule=r, variant=v, files={"main.cu": ""}, violation_line=None)

    pairs = engine.plan([case("lambdas"), case("rtti")], configs)
    assert [(c.rule.section, cfg.flags) for c, cfg in pairs] == [
        ("lambdas", ()), ("lambdas", ("--extended-lambda",)), ("rtti", ())]


def test_registry_add_and_resolve(tmp_path, monkeypatch, fake_nvcc):
    monkeypatch.setenv("SUITEGEN_CACHE", str(tmp_path / "cache"))
    source = fake_nvcc("exit 0")

    def fake_pip(argv, **kw):  # stands in for pip: lays out the wheel's files
        target = tmp_path / "cache" / "toolchains" / "13.5.37" / "nvidia" / "cu13" / "bin"
        target.mkdir(parents=True)
        (target / "nvcc").write_text(source.read_text())
        (target / "nvcc").chmod(0o755)
        (target / "nvcc.profile").write_text('LIBRARIES =+ "-L$(TOP)/$(_TARGET_DIR_)/lib$(_TARGET_SIZE_)"\n')
        (target.parent / "lib").mkdir()
        assert "nvidia-cuda-nvcc==13.5.37" in argv and "nvidia-nvvm==13.5.*" in argv
        calls.append(argv)
        return subprocess.CompletedProcess(argv, 0, "", "")

    calls = []
    entry = registry.add("13.5.37", runner=fake_pip)
    assert entry["name"] == "nvcc-13.5.37" and entry["nvcc"].endswith("cu13/bin/nvcc")
    top = tmp_path / "cache" / "toolchains" / "13.5.37" / "nvidia" / "cu13"
    assert (top / "lib64").resolve() == (top / "lib").resolve(), "nvcc.profile's lib64 finds the wheel's lib"
    assert registry.add("13.5.37", runner=fake_pip) == entry and len(calls) == 1, "installed once"
    assert registry.resolve("13.5.37") == entry["nvcc"] == registry.resolve("nvcc-13.5.37")
    assert registry.resolve("/some/path/nvcc") == "/some/path/nvcc"
    with pytest.raises(ToolchainError, match="must look like 13.5.37"):
        registry.add("latest")


def test_registry_reports_pip_failure(tmp_path, monkeypatch):
    monkeypatch.setenv("SUITEGEN_CACHE", str(tmp_path))
    failing = lambda argv, **kw: subprocess.CompletedProcess(argv, 1, "", "ERROR: No matching distribution")
    with pytest.raises(ToolchainError, match="pip could not install nvidia-cuda-nvcc==13.9.99.*No matching"):
        registry.add("13.9.99", runner=failing)


def test_toolchains_file(tmp_path):
    f = tmp_path / "tc.toml"
    f.write_text('old = "/opt/cuda-13.0/bin/nvcc"\n[new]\nnvcc = "/opt/13.5/nvcc"\nhost_compiler = "g++-13"\n')
    assert registry.read_toolchains_file(f) == [("old", "/opt/cuda-13.0/bin/nvcc", None),
                                                ("new", "/opt/13.5/nvcc", "g++-13")]
    f.write_text("bad = 3\n")
    with pytest.raises(ToolchainError, match="bad: expected a path"):
        registry.read_toolchains_file(f)


def rec(case, verdict, std="c++17", outcome="rejected", phase="cicc", number=None, msg="m", run=None):
    """A baseline entry (what a diff compares of a result), normalised as a record's would be."""
    return diff.Entry.from_json(
        {"case_id": case, "rule": case.split("[")[0], "verdict": verdict,
         "config": {"std": std, "arch": "sm_90", "flags": [], "toolchain": "t", "fingerprint": "f",
                    "nvcc_version": "13.0.88"},
         "observed": {"outcome": outcome, "phase": phase,
                      "diagnostics": [{"severity": "error", "number": number, "message": msg}]},
         "execution": {"status": run} if run else None})


BEFORE = [rec("a/r[x]", "PASS"), rec("a/r[y]", "FAIL"), rec("a/r[z]", "PASS", number="20091"),
          rec("a/r[p]", "PASS", phase="cudafe++"), rec("a/r[gone]", "PASS"), rec("a/r[run]", "PASS", run="passed"),
          rec("a/r[dev]", "XFAIL")]
AFTER = [rec("a/r[x]", "FAIL"), rec("a/r[y]", "PASS"), rec("a/r[z]", "PASS", number="20092"),
         rec("a/r[p]", "PASS", phase="cicc"), rec("a/r[new]", "PASS"), rec("a/r[run]", "UNRESOLVED", run="timed-out"),
         rec("a/r[dev]", "XPASS")]


def test_diff_classifies_changes_regressions_first():
    d = diff.compare(BEFORE, AFTER)
    kinds = [(c.kind, c.key[0]) for c in d.changes]
    assert [k for k, _ in kinds[:2]] == ["regression", "regression"]
    assert {c.key[0] for c in d.regressions} == {"a/r[x]", "a/r[run]"}
    counts = d.counts()
    # XFAIL -> XPASS: the toolchain now does what the guide says (a fix); its deviation record is stale.
    assert counts == {"regression": 2, "fix": 2, "verdict": 0, "phase": 1, "diagnostic": 1, "runtime": 1,
                      "unrecorded": 0, "new": 1, "vanished": 1}
    assert {c.key[0] for c in d.changes if c.kind == "fix"} == {"a/r[y]", "a/r[dev]"}
    assert next(c for c in d.changes if c.kind == "diagnostic").describe() == "#20091 'm' -> #20092 'm'"


def test_known_deviation_on_a_new_toolchain_is_not_a_regression():
    before = [rec("a/r[d]", "XFAIL", outcome="accepted", msg="m"), rec("a/r[e]", "XFAIL", outcome="accepted")]
    after = [rec("a/r[d]", "FAIL", outcome="accepted", msg="m"), rec("a/r[e]", "FAIL", outcome="rejected")]
    d = diff.compare(before, after)
    assert [(c.kind, c.key[0]) for c in d.changes if c.kind in ("unrecorded", "regression")] == [
        ("regression", "a/r[e]"), ("unrecorded", "a/r[d]")]


def test_diff_formats():
    d = diff.compare(BEFORE, AFTER)
    data = json.loads(diff.as_json(d, "A", "B"))
    assert data["counts"]["regression"] == 2 and len(data["changes"]) == 9
    md = diff.as_markdown(d, "A", "B")
    assert md.startswith("### suitegen diff: A -> B") and "| regression | `a/r[x]`" in md
    assert "REGRESSION" in diff.as_table(d, "A", "B")


def test_baseline_round_trip(tmp_path, run_folder):
    from suitegen.report.run_folder import read_records
    records = list(read_records(run_folder / "results.jsonl"))
    saved = tmp_path / "base.json"
    saved.write_text(json.dumps({"results": diff.baseline_records(records)}))
    base = diff.read_baseline(saved)
    assert len(base) == len(records) and {e.section for e in base} == {"demo"}
    assert any(e.message and e.number is None for e in base), "the fake nvcc's errors are kept"
    assert not diff.compare(base, records).changes, "a baseline compares equal to the run it came from"
    assert diff.read_baseline(saved) == [diff.Entry.from_json(e.to_json()) for e in base]


def test_temporary_file_names_are_not_a_change():
    a = [rec("a/r[t]", "PASS", msg="Undefined reference to 'v' in '/tmp/tmpxft_00003dd8_00000000-15_main.o'")]
    b = [rec("a/r[t]", "PASS", msg="Undefined reference to 'v' in '/tmp/tmpxft_00001f9a_00000000-15_main.o'")]
    assert not diff.compare(a, b).changes
    # nvcc's temporary files now live in the item's scratch folder (its TMPDIR): a run before that compares equal
    c = [rec("a/r[t]", "PASS", msg="Undefined reference to 'v' in "
             "'/tmp/suitegen-batch-k2x_9a/tmpxft_00001f9a_00000000-15_main.o'")]
    assert not diff.compare(a, c).changes


def test_messages_compare_without_the_batch_member_a_case_was():
    norm = diff._normalize
    a = 'calling a constexpr __device__ function("_ZN5sg_b66squareE1?") (defined at sg_b6/main.cu:3)'
    b = 'calling a constexpr __device__ function("_ZN6sg_b416squareE1?") (defined at sg_b41/main.cu:3)'
    assert norm(a) == norm(b) == 'calling a constexpr __device__ function("_ZN6squareE1?") (defined at main.cu:3)'
    assert norm("/tmp/tmpxft_00ab12_00000000-11_main.o: error") == "<tmp>_main.o: error"
