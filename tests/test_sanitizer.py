"""compute-sanitizer's word on a program (``execute.sanitizer``), with a fake tool: what each answer of it means."""
from types import SimpleNamespace

import pytest

from suitegen.execute import sanitizer

# A fake compute-sanitizer: it logs the tool it is asked for, then answers as the file named for that tool says
# (``exit CODE`` and the lines to print), else with a clean summary.
FAKE = """#!/bin/sh
tool=$2
echo "$tool" >> "$(dirname "$0")/asked"
answer="$(dirname "$0")/$tool.answer"
if [ -f "$answer" ]; then tail -n +2 "$answer"; exit "$(head -n 1 "$answer")"; fi
echo "========= COMPUTE-SANITIZER"
if [ "$tool" = racecheck ]; then echo "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
else echo "========= ERROR SUMMARY: 0 errors"; fi
"""


@pytest.fixture
def fake(tmp_path):
    (tmp_path / "nvcc").write_text("")
    tool = tmp_path / "compute-sanitizer"
    tool.write_text(FAKE)
    tool.chmod(0o755)
    exe = tmp_path / "prog"
    exe.write_text("")

    def judge(answers: dict[str, str] | None = None, tools=sanitizer.RIGHT) -> tuple[str, list[str]]:
        for name, text in (answers or {}).items():
            (tmp_path / f"{name}.answer").write_text(text)
        (tmp_path / "asked").unlink(missing_ok=True)
        said = sanitizer.judged(SimpleNamespace(nvcc=str(tmp_path / "nvcc")), exe, tools)
        return said, (tmp_path / "asked").read_text().split() if (tmp_path / "asked").exists() else []
    return judge


def test_a_program_is_clean_only_where_every_tool_ran_to_its_summary_and_found_nothing(fake):
    said, asked = fake()
    assert said == "clean (memcheck, racecheck, synccheck, initcheck)" and sanitizer.clean(said)
    assert asked == ["memcheck", "racecheck", "synccheck", "initcheck"]
    said, asked = fake(tools=sanitizer.WRONG)  # a wrong build's program: memcheck alone
    assert said == "clean (memcheck)" and asked == ["memcheck"]


def test_the_first_tool_that_finds_an_error_is_named_with_its_line_and_the_rest_do_not_run(fake):
    said, asked = fake({"racecheck": "99\n========= Error: Race reported between Write access at k+0x70\n"
                                     "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n"})
    assert said == "errors (racecheck): Error: Race reported between Write access at k+0x70", said
    assert asked == ["memcheck", "racecheck"] and not sanitizer.clean(said)


def test_the_summary_s_count_is_the_tool_s_word_not_the_exit_status(fake):
    """A hazard counts though the tool exits 0 (a warning is a hazard too); a program that exits 99 itself, with the
    tool's summary at 0, is clean; the error line is the tool's own, never one the program printed."""
    said, _ = fake({"racecheck": "0\nError: the program's own line\n"
                                 "========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)\n"})
    assert said == "errors (racecheck): RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)", said
    said, _ = fake({"racecheck": "99\nCUDA error: the program's own words, and no newline after them"
                                 "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n",
                    "memcheck": "99\n========= ERROR SUMMARY: 0 errors\n"})
    assert sanitizer.clean(said), said


@pytest.mark.parametrize("answer", ["1\n========= Error: Target application terminated before first instrumented API "
                                    "call\n", "0\n", "0\nsome other tool's output\n"])
def test_a_tool_that_gives_no_summary_is_no_word_of_clean(fake, answer):
    """A tool that fails to start, or prints no summary, has judged nothing: not clean (before, any exit but the
    error status read as clean)."""
    said, asked = fake({"synccheck": answer})
    assert said.startswith("no summary (synccheck): ") and not sanitizer.clean(said), said
    assert asked == ["memcheck", "racecheck", "synccheck"]


def test_no_program_or_no_tool_is_no_word_and_old_words_read_as_memcheck_s(fake, tmp_path, monkeypatch):
    assert sanitizer.judged(SimpleNamespace(nvcc=str(tmp_path / "nvcc")), None) == ""
    (tmp_path / "compute-sanitizer").unlink()
    monkeypatch.setenv("PATH", str(tmp_path / "none"))
    assert sanitizer.judged(SimpleNamespace(nvcc=str(tmp_path / "nvcc")), tmp_path / "prog") == ""
    assert sanitizer.clean("clean") and sanitizer.said("clean") == "clean (memcheck)"  # a finding filed before
    assert sanitizer.said("errors: Invalid __global__ read") == "errors (memcheck): Invalid __global__ read"
    assert sanitizer.said("errors (racecheck): Race") == "errors (racecheck): Race"
    assert not sanitizer.clean("") and not sanitizer.clean(None) and not sanitizer.clean("did not finish (initcheck)")
