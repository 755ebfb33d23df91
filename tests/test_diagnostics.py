"""The diagnostic parser on real nvcc 13.0 ``-v`` output, and the outcome classifier."""
from pathlib import Path

import pytest

from suitegen.compilers.nvcc import classify
from suitegen.compilers.diagnostics import command_phase, parse
from suitegen.model import Outcome, Phase

DATA = Path(__file__).parent / "data"


def load(name):
    return (DATA / name).read_text()


def test_front_end_error_and_warning():
    p = parse(load("cudafe-error.txt"))
    assert p.failed_phase is Phase.CUDAFE and p.failed_code == 2 and not p.crash
    warn = [d for d in p.diagnostics if d.severity == "warning"]
    err = [d for d in p.diagnostics if d.severity == "error"]
    assert warn[0].number == "1835" and warn[0].line == 1 and warn[0].file == "fe.cu"
    assert 'attribute "__shared__" does not apply here' in warn[0].message
    assert err[0].line == 2 and "const qualified type" in err[0].message and err[0].phase is Phase.CUDAFE


def test_cicc_error():
    p = parse(load("cicc-error.txt"))
    assert p.failed_phase is Phase.CICC
    assert any(d.phase is Phase.CICC and "exception handling" in d.message for d in p.diagnostics)


def test_nvlink_error():
    p = parse(load("nvlink-error.txt"))
    assert p.failed_phase is Phase.NVLINK and p.failed_code == 0xFF
    assert not p.crash, "exit status 255 is an error, not a signal"
    (d,) = [d for d in p.diagnostics if d.severity == "error"]
    assert d.phase is Phase.NVLINK and "Undefined reference to 'v'" in d.message and d.line is None


def test_host_compiler_error():
    p = parse(load("host-error.txt"))
    assert p.failed_phase is Phase.HOST_COMPILER
    errs = [d for d in p.diagnostics if d.severity == "error"]
    assert errs and "ambiguous" in errs[0].message and errs[0].phase is Phase.HOST_COMPILER
    notes = [d for d in p.diagnostics if d.severity == "note" and d.file == "hc.cu"]
    assert {n.line for n in notes} == {1, 2}


def test_success_with_warning_classifies():
    res = classify(["nvcc"], 0, load("warning.txt"), 1.0)
    assert res.outcome is Outcome.ACCEPTED_WITH_WARNINGS and res.phase is None
    assert any(d.number == "177" for d in res.diagnostics)


def test_driver_refusal_is_toolchain_error():
    res = classify(["nvcc"], 1, load("nvcc-fatal.txt"), 0.1)
    assert res.outcome is Outcome.TOOLCHAIN_ERROR and res.phase is Phase.NVCC
    assert res.diagnostics[0].severity == "fatal"


def test_rejections_classify_by_phase():
    assert classify(["nvcc"], 1, load("cudafe-error.txt"), 1).outcome is Outcome.REJECTED
    assert classify(["nvcc"], 255, load("nvlink-error.txt"), 1).phase is Phase.NVLINK


@pytest.mark.parametrize("code", ["0x8b", "0x86"])
def test_subtool_signal_is_a_crash(code):
    text = "#$ cudafe++ --c++17 x.cpp\nSegmentation fault\n# --error " + code + " --\n"
    res = classify(["nvcc"], 1, text, 1)
    assert res.outcome is Outcome.CRASHED and res.phase is Phase.CUDAFE


def test_internal_error_is_a_crash():
    text = '#$ "$CICC_PATH/cicc" --c++17 x.ii\nx.cu(3): internal error: assertion failed at: "foo.c", line 1\n# --error 0x1 --\n'
    assert classify(["nvcc"], 1, text, 1).outcome is Outcome.CRASHED


def test_invalid_ir_from_the_front_end_is_a_crash():
    # nvcc 13.0 on void *q = __builtin_assume_aligned(int_ptr, 16) in device code: cicc's verifier and IR reader
    text = ('#$ "$CICC_PATH/cicc" --c++17 x.ii\nStored value type does not match pointer operand type!\n'
            '  store i32* %tmp, i8** %q, align 8, !dbg !8\n'
            " i8*<unnamed>: parse Explicit load/store type does not match pointee type of pointer operand "
            "(Producer: 'LLVM7.0.1' Reader: 'LLVM 7.0.1')\n# --error 0x1 --\n")
    res = classify(["nvcc"], 1, text, 1)
    assert res.outcome is Outcome.CRASHED and res.phase is Phase.CICC
    assert "does not match pointee type" in res.diagnostics[0].message


def test_nvcc_killed_by_signal():
    assert classify(["nvcc"], -11, "", 1).outcome is Outcome.CRASHED


@pytest.mark.parametrize("cmd, phase", [
    ('gcc -std=c++17 -E -x c++ -D__CUDACC__ x.cu -o x.ii', Phase.HOST_PREPROCESS),
    ('cudafe++ --c++17 --gnu_version=120200 x', Phase.CUDAFE),
    ('"$CICC_PATH/cicc" --c++17 -arch compute_90 x', Phase.CICC),
    ('ptxas -arch=sm_90 -m64 x.ptx -o x.cubin', Phase.PTXAS),
    ('fatbinary -64 --create x.fatbin', Phase.FATBINARY),
    ('nvlink -m64 --arch=sm_90 x.o -o y.cubin', Phase.NVLINK),
    ('gcc -c -x c++ x.cudafe1.cpp -o x.o', Phase.HOST_COMPILER),
    ('g++ -m64 x.o -o a.out -lcudart', Phase.LINK),
    ('/usr/bin/g++-12 -c x.cpp', Phase.HOST_COMPILER),
])
def test_command_phase(cmd, phase):
    assert command_phase(cmd) is phase


def test_static_assertion_is_a_rejection_not_a_crash():
    text = ('#$ cudafe++ --c++17 x\nmain.cu(3): error: static assertion failed with "size"\n'
            '1 error detected in the compilation of "main.cu".\n# --error 0x2 --\n')
    res = classify(["nvcc"], 2, text, 1)
    assert res.outcome is Outcome.REJECTED and "static assertion failed" in res.diagnostics[0].message


def test_nvvm_message_shapes():
    text = ('#$ "$CICC_PATH/cicc" --c++17 x\n'
            'main.cu(5): Error: Formal parameter space overflowed (40000 bytes required, max 32764 bytes allowed)\n'
            'warning: main.cu(11): Warning: Cannot store to pointer that points to constant memory space\n'
            '# --error 0x2 --\n')
    p = parse(text)
    err, warn = p.diagnostics
    assert (err.severity, err.line, err.phase) == ("error", 5, Phase.CICC) and "overflowed" in err.message
    assert (warn.severity, warn.line, warn.file) == ("warning", 11, "main.cu")
