"""One options layer: the CLI and the pytest plugin take the same words and plan the same items."""
import argparse
import subprocess
import sys

import pytest

from suitegen.engine import options
from suitegen.model import FlagSet, Profile

from conftest import REPO, needs_nvcc


def test_cli_and_plugin_take_the_same_options():
    parser = argparse.ArgumentParser()
    options.add_arguments(parser, "run")
    cli = options.from_namespace(parser.parse_args(["--std", "c++17", "--profile", "nightly", "--allow-xpass",
                                                    "--exec-timeout", "5", "--rules", "a", "--rules", "b"]))

    class Group:
        def __init__(self):
            self.parser = argparse.ArgumentParser()

        def addoption(self, *names, **kw):
            self.parser.add_argument(*names, **kw)

    group = Group()
    options.add_pytest_options(group)
    ns = group.parser.parse_args(["--suitegen-std", "c++17", "--suitegen-profile", "nightly",
                                  "--suitegen-allow-xpass", "--suitegen-exec-timeout", "5",
                                  "--suitegen-rules", "a", "--suitegen-rules", "b"])
    plugin = options.from_namespace(ns, prefix="suitegen_")
    assert cli == plugin
    assert cli.std == ("c++17",) and cli.allow_xpass and cli.exec_timeout == 5.0 and cli.rules == ("a", "b")


def test_a_profile_keeps_its_flag_sets_when_std_is_given():
    prof = options.resolve_profile(options.RunOptions(profile="nightly", std=("c++17",)))
    assert prof.stds == ("c++17",) and len(prof.flagsets) == 11
    assert ("--extended-lambda",) in [fs.flags for fs in prof.flagsets]
    replaced = options.resolve_profile(options.RunOptions(profile="nightly", flags=("-G",)))
    assert [fs.flags for fs in replaced.flagsets] == [("-G",)]


def test_a_corpus_matrix_is_the_base_unless_a_profile_is_named():
    corpus = Profile(name="corpus", stds=("c++14",), archs=("sm_80",), flagsets=(FlagSet(),))
    assert options.resolve_profile(options.RunOptions(), corpus).stds == ("c++14",)
    assert options.resolve_profile(options.RunOptions(arch=("sm_90",)), corpus).archs == ("sm_90",)
    assert options.resolve_profile(options.RunOptions(profile="quick"), corpus).name == "quick"


@needs_nvcc
@pytest.mark.nvcc
def test_cli_and_plugin_plan_identical_items(pytester):
    words = ["profile", "nightly", "std", "c++17", "rules", "lambdas", "rules", "cuda-arch/*"]
    cli_args = [f"--{w}" if i % 2 == 0 else w for i, w in enumerate(words)]
    plugin_args = [f"--suitegen-{w}" if i % 2 == 0 else w for i, w in enumerate(words)]
    proc = subprocess.run([sys.executable, "-m", "suitegen", "run", "--list", *cli_args], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    planned = sorted(proc.stdout.split())
    result = pytester.runpytest_subprocess("--suitegen", *plugin_args, "--co", "-q", "-p", "no:cacheprovider")
    collected = sorted(line.split("::", 1)[1] for line in result.stdout.lines if "::" in line)
    assert planned == collected
    # The nightly profile's lambda flag set survives --std: both sides plan it.
    assert any(",--extended-lambda]" in name for name in planned)
    assert len(planned) == len(set(planned)) > 50


def test_the_plugin_collects_any_oracle_folder(pytester, fake_nvcc, mini_oracle):
    orc, tpl = mini_oracle
    result = pytester.runpytest_subprocess("--suitegen", str(orc), "--suitegen-templates", str(tpl),
                                           "--suitegen-nvcc", str(fake_nvcc("exit 0")), "--suitegen-std", "c++17",
                                           "--suitegen-arch", "sm_90", "--co", "-q", "-p", "no:cacheprovider")
    names = sorted(line.split("::", 1)[1] for line in result.stdout.lines if "::" in line)
    assert names == ["demo/no-long-double[neg-device,c++17,sm_90]", "demo/no-long-double[neg-global,c++17,sm_90]",
                     "demo/no-long-double[pos-host,c++17,sm_90]"]
    # Without -q the report header opens the session first: it must open this oracle, not the built-in one.
    verbose = pytester.runpytest_subprocess("--suitegen", str(orc), "--suitegen-templates", str(tpl),
                                            "--suitegen-nvcc", str(fake_nvcc("exit 0")), "--suitegen-std", "c++17",
                                            "--suitegen-arch", "sm_90", "--co", "-p", "no:cacheprovider")
    assert verbose.ret == 0, verbose.stdout.str()
    verbose.stdout.fnmatch_lines(["suitegen: *", "*3 tests collected*"])


@pytest.mark.slow
def test_cli_and_plugin_plan_a_corpus_alike(pytester, fake_nvcc, mini_oracle, tmp_path):
    orc, tpl = mini_oracle
    nvcc = str(fake_nvcc("exit 0"))
    corpus = tmp_path / "corpus"
    gen = subprocess.run([sys.executable, "-m", "suitegen", "generate", "--oracle", str(orc), "--templates", str(tpl),
                          "--profile", "default", "--out", str(corpus)], cwd=REPO, capture_output=True, text=True)
    assert gen.returncode == 0, gen.stderr
    for words in ([], ["std", "c++14"], ["profile", "quick"], ["arch", "sm_80", "flags", "-G"]):
        pairs = list(zip(words[::2], words[1::2]))
        cli_args = [f"--{k}={v}" for k, v in pairs]
        plugin_args = [f"--suitegen-{k}={v}" for k, v in pairs]
        proc = subprocess.run([sys.executable, "-m", "suitegen", "run", "--list", "--corpus", str(corpus),
                               "--nvcc", nvcc, *cli_args], cwd=REPO, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        result = pytester.runpytest_subprocess(str(corpus), "--suitegen-nvcc", nvcc, *plugin_args, "--co", "-q",
                                               "-p", "no:cacheprovider")
        collected = sorted(line.split("::", 1)[1] for line in result.stdout.lines if "::" in line)
        assert sorted(proc.stdout.split()) == collected and collected, words


def test_the_plugin_stays_out_of_sessions_that_do_not_use_it(pytester):
    pytester.makepyfile("def test_x(): pass")
    result = pytester.runpytest_subprocess("--markers", "-p", "no:cacheprovider")
    assert "suitegen_gpu" not in result.stdout.str()
    assert "@pytest.mark.nvcc" not in result.stdout.str() and "@pytest.mark.slow" not in result.stdout.str()


def test_a_usage_error_is_one_line_and_a_bug_is_a_traceback(monkeypatch, tmp_path, capsys):
    from suitegen.frontends import cli
    bad = tmp_path / "b.json"
    bad.write_text("{")
    assert cli.main(["diff", str(bad), str(bad)]) == cli.EXIT_USAGE
    assert "not a baseline" in capsys.readouterr().err

    def broken(args):
        raise ValueError("a bug in suitegen")
    monkeypatch.setattr(cli, "rules_command", broken)
    with pytest.raises(ValueError, match="a bug in suitegen"):  # not turned into a usage error
        cli.main(["rules"])


def test_a_resumed_run_gets_back_every_option_it_does_not_give_again():
    from suitegen.qualification.run import RunSpec
    first = RunSpec(options=options.RunOptions(nvcc=("clang++-22",), builds_from="store", std=("c++17",), timeout=30.0),
                    shard="1/2", out="r")
    saved = {"spec": first.to_json()}
    again = RunSpec(resume="r", options=options.RunOptions(timeout=60.0)).resumed(saved)
    assert again.options.nvcc == ("clang++-22",) and again.options.builds_from == "store", "from the one table"
    assert again.options.std == ("c++17",) and again.shard == "1/2"
    assert again.options.timeout == 60.0, "what is given again wins"
    older = RunSpec(resume="r").resumed({"args": {"nvcc": ["nvcc-13.2"], "shard": "2/4", "no_exec": True}})
    assert (older.options.nvcc, older.options.no_exec, older.shard) == (("nvcc-13.2",), True, "2/4")


def test_releases_is_the_command_and_bisect_its_alias():
    from suitegen.frontends import cli
    for name in ("releases", "bisect"):
        args = cli.build_parser().parse_args([name, "demo/*", "--from", "13.0.48", "--to", "13.5.37"])
        assert (args.pattern, args.low, args.high) == ("demo/*", "13.0.48", "13.5.37")
