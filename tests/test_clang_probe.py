"""What a newcomer meets before clang judges anything: how to install it, and the run's header line for it."""
import pytest

from suitegen.compilers import clang
from suitegen.compilers.toolchain import ToolchainError


def test_a_missing_clang_says_which_packages_to_install(tmp_path):
    """The command line prints a ToolchainError as a usage error (exit 2): its one line must say what to do."""
    missing = tmp_path / "clang++-23"
    with pytest.raises(ToolchainError) as error:
        clang.Clang().probe(str(missing))
    assert str(error.value) == (f"clang not found: {missing}; install Debian's clang-23 and clang-tools-23 "
                                "(apt-get install clang-23 clang-tools-23), or name an installed clang++ with --nvcc PATH")
    assert "clang-22 and clang-tools-22" in clang.install_hint("clang++")  # no version named: the one we test


def test_the_header_line_names_clang_as_its_own_host_compiler(tmp_path, monkeypatch):
    """The page and the terminal print each toolchain as ``... host HOST; fingerprint ...``: clang has no other
    host compiler, and the field was empty."""
    cuda = tmp_path / "cuda"
    (cuda / "include").mkdir(parents=True)
    (cuda / "include" / "cuda.h").write_text("#define CUDA_VERSION 13000\n")
    monkeypatch.setenv("SUITEGEN_CLANG_CUDA_PATH", str(cuda))
    fake = tmp_path / "clang++-22"
    fake.write_text("#!/bin/sh\necho 'Debian clang version 22.1.8 (++20260101)'\necho 'Target: x86_64-pc-linux-gnu'\n")
    fake.chmod(0o755)
    tc = clang.Clang().probe(str(fake))
    assert tc.version == (22, 1, 8) and tc.cuda_version == (13, 0)
    assert tc.host_version == "clang++-22 itself" and tc.host_compiler == ""
