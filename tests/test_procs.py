"""Child processes: the limit on those that work the CPU, and the trace of every child."""
import json
import threading

from suitegen import procs


def _run_together(cmds, **kw):
    threads = [threading.Thread(target=procs.run, args=(c,), kwargs=dict(timeout=30, **kw)) for c in cmds]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_children_that_work_the_cpu_wait_for_a_core_and_gpu_programs_do_not(tmp_path):
    log = tmp_path / "log"
    child = ["sh", "-c", f"echo begin >> {log}; sleep 0.3; echo end >> {log}"]
    procs.limit_cores(1)
    try:
        _run_together([child] * 3)
        assert log.read_text().split() == ["begin", "end"] * 3, "one at a time"
        log.unlink()
        _run_together([child] * 3, core=False)
        assert log.read_text().split()[:2] == ["begin", "begin"], "a GPU program takes no core"
    finally:
        procs.limit_cores(None)
    log.unlink()
    _run_together([child] * 2)
    assert log.read_text().split()[:2] == ["begin", "begin"], "no limit once it is lifted"


def test_every_child_is_traced_where_asked(tmp_path, monkeypatch):
    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv(procs.TRACE, str(trace))
    procs.run(["sh", "-c", "exit 3"], timeout=30, cwd=tmp_path)
    (line,) = [json.loads(x) for x in trace.read_text().splitlines()]
    assert line["argv"] == ["sh", "-c", "exit 3"] and line["rc"] == 3 and line["cwd"] == tmp_path.name
    assert line["end"] >= line["start"]


def test_children_that_work_the_cpu_get_malloc_on_huge_pages_unless_their_env_says_otherwise(monkeypatch):
    monkeypatch.delenv("GLIBC_TUNABLES", raising=False)
    show = ["sh", "-c", "echo \"$GLIBC_TUNABLES\""]
    assert procs.run(show, timeout=30).output.strip() == procs.HUGE_PAGES
    assert procs.run(show, timeout=30, core=False).output.strip() == "", "GPU programs run as they are"
    env = {"PATH": "/usr/bin:/bin", "GLIBC_TUNABLES": "glibc.malloc.arena_max=2"}
    assert procs.run(show, timeout=30, env=env).output.strip() == f"glibc.malloc.arena_max=2:{procs.HUGE_PAGES}"
    env["GLIBC_TUNABLES"] = "glibc.malloc.hugetlb=0"
    assert procs.run(show, timeout=30, env=env).output.strip() == "glibc.malloc.hugetlb=0", "the user's choice stays"


def test_scratch_folders_go_in_shared_memory_only_where_it_can_hold_them_and_run_programs(tmp_path, monkeypatch):
    """``$TMPDIR`` wins; else a writable, roomy ``/dev/shm`` that lets programs run; else the system's default
    (None: ``tempfile``'s own choice, recomputed even after an earlier run set ``tempfile.tempdir``)."""
    import os
    import tempfile
    from suitegen import resources
    mine, shm = tmp_path / "mine", tmp_path / "shm"
    for d in (mine, shm):
        d.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(shm))  # an earlier run's choice
    monkeypatch.setenv("TMPDIR", str(mine))
    assert resources.scratch_root() is None
    tempfile.tempdir = resources.scratch_root()
    assert tempfile.gettempdir() == str(mine), "the earlier choice is dropped: TMPDIR is honoured"
    monkeypatch.delenv("TMPDIR")
    monkeypatch.setattr(resources, "SHARED_MEMORY", tmp_path / "absent")
    assert resources.scratch_root() is None
    monkeypatch.setattr(resources, "SHARED_MEMORY", shm)
    monkeypatch.setattr(resources, "SCRATCH_ROOM", 1)
    assert resources.scratch_root() == str(shm), "writable, room enough, programs may run"
    monkeypatch.setattr(resources, "SCRATCH_ROOM", 1 << 62)
    assert resources.scratch_root() is None, "too little room"
    monkeypatch.setattr(resources, "SCRATCH_ROOM", 1)
    real = os.statvfs
    monkeypatch.setattr(os, "statvfs", lambda p: os.statvfs_result((*real(p)[:8], real(p).f_flag | os.ST_NOEXEC, 255)))
    assert resources.scratch_root() is None, "mounted noexec: no program could run there"
