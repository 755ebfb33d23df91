"""Usage errors: exit 2 with one clear line naming the option (or variable, or file), before anything starts and
without a run folder left behind; and the page a run ends with. Fake toolchains drive the error paths."""
import json

import pytest

from conftest import follows_the_guide, needs_nvcc
from suitegen.engine import options
from suitegen.history.releases import bisect
from suitegen.qualification.run import RunSpec
from suitegen.frontends.cli import main
from suitegen.model import UsageError


@pytest.fixture
def mini_run(fake_nvcc, mini_oracle):
    """Return the argv (without 'run') of a one-config run with a fake nvcc that does what the guide says."""
    nvcc = fake_nvcc(follows_the_guide())
    return ["--nvcc", str(nvcc), "--oracle", str(mini_oracle[0]), "--templates", str(mini_oracle[1]), "-q",
            "--std", "c++17", "--arch", "sm_90"]


def refused(argv: list[str], capsys) -> str:
    """Return the error line argparse prints for ``argv``, which it refuses with exit status 2."""
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


@pytest.mark.parametrize("argv, option", [
    (["run", "-j", "0"], "-j/--jobs"), (["run", "-j", "-3"], "-j/--jobs"),
    (["run", "--timeout", "-1"], "--timeout"), (["run", "--timeout", "0"], "--timeout"),
    (["run", "--exec-timeout", "-5"], "--exec-timeout"),
    (["fuzz", "--per-file", "0"], "--per-file"), (["fuzz", "--per-file", "-4"], "--per-file"),
    (["fuzz", "--budget", "-5"], "--budget"), (["fuzz", "--reduce-budget", "soon"], "--reduce-budget"),
    (["fuzz", "--max-programs", "-1"], "--max-programs"), (["fuzz", "--invalid", "-1"], "--invalid"),
    (["fuzz", "-j", "-2"], "-j/--jobs"), (["fuzz", "--seed", ""], "--seed"),
    (["fuzz", "--releases", "abc..13.0.88"], "--releases"),
    (["fuzz", "--releases", "13.5.37..13.0.88"], "--releases"),
    (["releases", "demo/*", "--from", "abc", "--to", "13.0.88"], "--from"),
    (["bisect", "demo/*", "--from", "13.0.48", "--to", "xyz"], "--to"),
])
def test_a_bad_value_is_refused_before_anything_starts(argv, option, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    line = refused(argv, capsys)
    command = "releases" if argv[0] == "bisect" else argv[0]  # bisect is releases' alias
    assert line.startswith(f"suitegen {command}: error: argument {option}: ")
    assert argv[-1].split("..")[0] in line, "it names the value"
    assert not any(tmp_path.iterdir()), "nothing started: no reports folder"


def test_a_mistyped_option_gets_its_commands_usage_and_the_close_match(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:
        main(["run", "--profle", "quick"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.startswith("usage: suitegen run ")
    assert err.strip().splitlines()[-1] == ("suitegen run: error: unrecognized arguments: --profle quick "
                                            "(did you mean --profile?)")
    assert refused(["fuzz", "--max-progams=3"], capsys).endswith("(did you mean --max-programs?)")
    assert "did you mean" not in refused(["rules", "--zzzzzz"], capsys)


def test_a_release_range_is_checked_before_the_package_index_is_asked(tmp_path):
    def listing(low, high):
        raise AssertionError("the package index was asked")
    for low, high in (("abc", "13.0.88"), ("13.0.48", "13.0"), ("13.5.37", "13.0.48")):
        with pytest.raises(UsageError):
            bisect(low, high, lambda name, folder: [], tmp_path, add=lambda v: {"name": v}, listing=listing)


@pytest.mark.parametrize("env, argv, says", [
    ({}, ["--baseline", "missing.json"], "--baseline missing.json: no such file"),
    ({"SUITEGEN_CHECKPOINT_SECONDS": "abc"}, [], "SUITEGEN_CHECKPOINT_SECONDS='abc'"),
])
def test_a_bad_baseline_or_checkpoint_is_refused_before_the_run(env, argv, says, mini_run, tmp_path, monkeypatch,
                                                                 capsys):
    monkeypatch.chdir(tmp_path)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    out = tmp_path / "run"
    assert main(["run", *mini_run, *argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0], err
    assert not out.exists()


def test_a_resume_takes_the_runs_own_selection():
    first = RunSpec(options=options.RunOptions(std=("c++17",), rules=("demo/*",)), shard="1/2", out="r")
    saved = {"spec": first.to_json()}
    with pytest.raises(UsageError, match=r"--std c\+\+20 \(the run's: c\+\+17\).*--shard 2/2 \(the run's: 1/2\)"):
        RunSpec(resume="r", options=options.RunOptions(std=("c++20",)), shard="2/2").resumed(saved)
    with pytest.raises(UsageError, match=r"--no-exec on \(the run's: off\)"):
        RunSpec(resume="r", options=options.RunOptions(no_exec=True)).resumed(saved)
    same = RunSpec(resume="r", options=options.RunOptions(std=("c++17",), timeout=5.0), shard="1/2").resumed(saved)
    assert same.options.rules == ("demo/*",) and same.options.timeout == 5.0, "its own words again, and a timeout"


def test_every_run_and_resume_ends_with_its_page_and_a_resume_keeps_the_runs_matrix(mini_run, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", *mini_run, "--out", str(out)]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == f"page: {out / 'index.html'}"
    assert (out / "index.html").is_file()
    records = (out / "results.jsonl").read_text()
    assert main(["run", "--resume", str(out), "--std", "c++20"]) == 2
    assert "--std c++20 (the run's: c++17)" in capsys.readouterr().err
    assert (out / "results.jsonl").read_text() == records and not (out / "run.lock").exists()
    assert main(["run", "--resume", str(out), "-q"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == f"page: {out / 'index.html'}"
    assert json.loads((out / "run.json").read_text())["items_this_run"] == 0


@needs_nvcc
@pytest.mark.nvcc
def test_a_fuzz_arch_the_toolchain_does_not_list_is_refused_before_the_campaign(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    argv = ["fuzz", "--no-gpu", "--builds", "default", "--max-programs", "1", "--no-reduce", "--arch", "sm_5"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("suitegen: error: --arch sm_5: ") and "does not know sm_5" in err[0]
    assert not (tmp_path / "reports").exists()


def two_sections(mini_oracle) -> tuple[str, str]:
    """Return the mini oracle (folder, templates) with a second section, a copy of the first."""
    orc, tpl = mini_oracle
    (orc / "sections.toml").write_text((orc / "sections.toml").read_text() + 'other = "Another section"\n')
    (orc / "other.toml").write_text((orc / "demo.toml").read_text().replace('section = "demo"', 'section = "other"'))
    return str(orc), str(tpl)


@pytest.mark.parametrize("bad, says", [
    (["--suitegen-nvcc", "/no/such/nvcc"], "nvcc not found: /no/such/nvcc"),
    (["--suitegen-std", "c++99"], "unknown -std level 'c++99'"),
])
def test_the_plugin_reports_a_bad_option_once_before_collection(bad, says, pytester, fake_nvcc, mini_oracle):
    orc, tpl = two_sections(mini_oracle)
    nvcc = [] if "--suitegen-nvcc" in bad else ["--suitegen-nvcc", str(fake_nvcc("exit 0"))]
    result = pytester.runpytest_subprocess("--suitegen", orc, "--suitegen-templates", tpl, *nvcc, *bad,
                                           "--suitegen-rules", "demo/*", "--co", "-q", "-p", "no:cacheprovider")
    text = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR, text
    assert text.count(says) == 1 and "--suitegen-rules" not in text and "collected" not in text, text


def test_the_plugin_reports_an_unwritable_out_folder_as_a_usage_error(pytester, tmp_path, mini_oracle):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = pytester.runpytest_subprocess("--suitegen", str(mini_oracle[0]), "--suitegen-out", str(blocker / "run"),
                                           "--co", "-q", "-p", "no:cacheprovider")
    text = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR and "INTERNALERROR" not in text, text
    assert f"suitegen: --suitegen-out {blocker / 'run'}: cannot write there" in text
