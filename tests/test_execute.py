"""Program-run classification, GPU assignment and the runtime verdicts (no GPU needed)."""
import sys

import pytest

from suitegen.execute.gpus import GpuPool, pin_worker_gpu
from suitegen.execute.programs import classify
from suitegen.judge.verdicts import judge_execution
from suitegen.model import ExecStatus, Verdict


@pytest.mark.parametrize("text, code, status", [
    ("SUITEGEN-RESULT: PASS\n", 0, ExecStatus.PASSED),
    ("SUITEGEN-CHECK-FAILED: x == 3 (line 9)\nSUITEGEN-RESULT: FAIL 1 check(s) failed\n", 1, ExecStatus.FAILED),
    ("SUITEGEN-RESULT: FAIL cuda error cudaErrorIllegalAddress at line 20\n", 1, ExecStatus.FAILED),
    ("SUITEGEN-RESULT: PASS\n", 3, ExecStatus.FAILED),  # a PASS line with a bad exit status is no pass
    ("", 0, ExecStatus.CRASHED),  # no result line: the program did not finish its checks
    ("SUITEGEN-RESULT: PASS\n", -11, ExecStatus.CRASHED),
])
def test_classify(text, code, status):
    assert classify(text, code, 0.1, "GPU 0").status is status


def test_failed_checks_are_in_the_detail():
    r = classify("SUITEGEN-CHECK-FAILED: warpSize == 32 (line 4)\nSUITEGEN-RESULT: FAIL 1 check(s) failed\n",
                 1, 0.1, "GPU 0")
    assert "warpSize == 32" in r.detail


def test_gpu_pool_indexes_into_visible_devices():
    pool = GpuPool("3,5", ("A", "B", "C", "D", "E", "F"))
    assert [pool.take()[0] for _ in range(4)] == ["3", "5", "3", "5"]
    assert GpuPool(None, ("H100",)).take() == ("0", "GPU 0 (H100)")


@pytest.mark.parametrize("worker, visible, count, pinned", [
    ("gw0", "2,3", 4, "2"),
    ("gw1", "2,3", 4, "3"),
    ("gw2", "2,3", 4, "2"),  # more workers than GPUs: round-robin
    ("gw3", None, 2, "1"),
    ("master", "0", 1, None),
])
def test_worker_pinning(worker, visible, count, pinned):
    assert pin_worker_gpu(worker, visible, count) == pinned


def test_runtime_verdicts():
    ok = classify("SUITEGEN-RESULT: PASS\n", 0, 0.1, "GPU 0")
    assert judge_execution(ok, None)[0] is Verdict.PASS
    assert judge_execution(None, "no GPU: nvidia-smi not found")[0] is Verdict.UNSUPPORTED
    bad = classify("SUITEGEN-RESULT: FAIL cuda error cudaErrorIllegalAddress\n", 1, 0.1, "GPU 0")
    assert judge_execution(bad, None)[0] is Verdict.FAIL


FAKE_WORKER = r'''
import json, sys, time
for line in sys.stdin:
    req = json.loads(line)
    mode = req["kernel"]
    if mode == "die":
        sys.exit(3)
    if mode == "hang":
        time.sleep(60)
    out = [v + (1 if mode == "wrong" else 0) for v in req["inputs"][0][1]]
    print(json.dumps({"ok": True, "out": out}), flush=True)
'''


def test_fatbin_runner_isolates_faults(tmp_path):
    from suitegen.execute.checks import DeviceCheck
    from suitegen.execute.fatbin import FatbinRunner
    worker = tmp_path / "worker.py"
    worker.write_text(FAKE_WORKER)
    runner = FatbinRunner(GpuPool("0", ()), timeout=2, command=(sys.executable, str(worker)))

    def check(kernel):
        return DeviceCheck(kernel=kernel, inputs=[("uint32", [1, 2, 3])], out="uint32", expected=[1, 2, 3])

    try:
        assert runner.run(tmp_path / "m.fatbin", check("ok")).status is ExecStatus.PASSED
        wrong = runner.run(tmp_path / "m.fatbin", check("wrong"))
        assert wrong.status is ExecStatus.FAILED and "input 0: expected 1, device 2" in wrong.detail
        assert runner.run(tmp_path / "m.fatbin", check("die")).status is ExecStatus.CRASHED
        assert runner.run(tmp_path / "m.fatbin", check("ok")).status is ExecStatus.PASSED, "a new worker"
        assert runner.run(tmp_path / "m.fatbin", check("hang")).status is ExecStatus.TIMED_OUT
        assert runner.run(tmp_path / "m.fatbin", check("ok")).status is ExecStatus.PASSED
    finally:
        runner.close()


def test_the_threads_share_a_pool_of_at_most_workers_processes(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    from suitegen.execute.checks import DeviceCheck
    from suitegen.execute.fatbin import FatbinRunner
    worker = tmp_path / "worker.py"
    worker.write_text(FAKE_WORKER)
    runner = FatbinRunner(GpuPool("0", ()), timeout=5, command=(sys.executable, str(worker)), workers=2)

    def check(kernel):
        return runner.run(tmp_path / "m.fatbin", DeviceCheck(kernel=kernel, inputs=[("uint32", [1])], out="uint32",
                                                             expected=[1])).status

    try:
        with ThreadPoolExecutor(6) as pool:
            assert set(pool.map(check, ["ok"] * 24)) == {ExecStatus.PASSED}
        assert len(runner._all) == 2, "six threads, two workers"
        assert check("die") is ExecStatus.CRASHED  # a faulting worker is replaced, and the pool goes on
        with ThreadPoolExecutor(6) as pool:
            assert set(pool.map(check, ["ok"] * 12)) == {ExecStatus.PASSED}
        assert len(runner._all) == 3
    finally:
        runner.close()
