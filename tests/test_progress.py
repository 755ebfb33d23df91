"""The progress line: its time left, replayed over recorded real runs, and what it says while nothing finishes."""
import io
import json

import pytest

from conftest import REPO
from suitegen.engine import progress
from suitegen.engine.progress import LEFTOVERS, PRIOR_WEIGHT, QUIET, QUIET_LOG, Estimate, Progress
from test_run_reports import FakeClock

# benchmarks/eta_trace.py recorded these: every unit of a real cold default run (kind, members, when planned,
# begun, ended), on 2 cores without execution, and on 16 cores with execution on an H200.
TRACES = ["eta-default-2-cores.json", "eta-default-16-cores-gpu.json"]


def replay(trace: dict) -> list[tuple[float, float | None, float]]:
    """Return (time, estimated seconds left, real seconds left) at each unit's end, replaying a trace's units
    through an Estimate in the order the run planned, began and ended them."""
    clock = FakeClock()
    est = Estimate(jobs=trace["jobs"], clock=clock)
    events = sorted((t, step, i) for i, (_, _, *times) in enumerate(trace["units"]) for step, t in enumerate(times))
    out = []
    for t, step, i in events:
        clock.now = t
        kind, members = trace["kinds"][trace["units"][i][0]], trace["units"][i][1]
        if step == 0:
            est.plan(i, kind, members)
        elif step == 1:
            est.begin(i)
        else:
            est.end(i)
            out.append((t, est.seconds_left(), trace["end"] - t))
    return out


@pytest.mark.parametrize("name", TRACES)
def test_the_time_left_follows_a_recorded_default_run(name):
    """After the first tenth of the run, the estimate is within a quarter of the real time left (plus 5% of the
    run, for the last seconds). The estimate before (each kind's seconds per member, the pool as wide as ``jobs``)
    was 2 to 6 times the real time left on the 16-core run, and 0.67 to 1.41 times it on the 2-core one."""
    trace = json.loads((REPO / "tests" / "data" / name).read_text())
    run = trace["end"]
    late = [(t, left, real) for t, left, real in replay(trace) if t >= run / 10]
    assert len(late) > 100 and all(left is not None for _, left, _ in late)
    off = [(round(t, 1), round(left, 1), round(real, 1)) for t, left, real in late
           if abs(left - real) > 0.25 * real + 0.05 * run]
    assert not off, f"(time, estimate, real) off by more than the bound: {off[:10]}"


def test_nothing_is_said_before_a_few_units_finished():
    clock = FakeClock()
    est = Estimate(jobs=2, clock=clock)
    for key in range(3):
        est.plan(key, "single nvcc compile", 1)
    est.begin(0)
    clock.now = 1.0
    est.end(0)  # 0.33 reference seconds finished: too little to say anything
    assert est.seconds_left() is None
    for key in (1, 2):
        est.plan(10 + key, "batch nvcc compile", 200)
        est.begin(10 + key)
        clock.now += 2.0
        est.end(10 + key)
    assert est.seconds_left() is not None


def test_an_unseen_kind_costs_its_prior_at_the_runs_speed():
    """Batches ran at twice their reference cost: an unseen kind is expected to, too, at its own reference."""
    clock = FakeClock()
    est = Estimate(jobs=1, clock=clock)
    for key in range(4):
        est.plan(key, "batch nvcc compile", 100)  # reference 0.6 + 100 x 0.009 = 1.5 s
        est.begin(key)
        clock.now += 3.0
        est.end(key)
    est.plan("p", "single nvcc link", 1)  # reference 0.7 s, never seen
    assert est.seconds_left() == pytest.approx(2 * 0.7)


def test_one_slow_unit_does_not_set_its_kinds_cost_alone():
    clock = FakeClock()
    est = Estimate(jobs=1, clock=clock)
    for key in range(8):
        est.plan(key, "batch nvcc compile", 100)  # at its reference speed: 1.5 s
        est.begin(key)
        clock.now += 1.5
        est.end(key)
    est.plan("slow", "single nvcc compile", 1)
    est.begin("slow")
    clock.now += 3.3  # ten times its reference 0.33 s
    est.end("slow")
    est.plan("next", "single nvcc compile", 1)
    speed = (3.3 + PRIOR_WEIGHT * (12 + 3.3) / 12.33) / (0.33 + PRIOR_WEIGHT)
    assert est.seconds_left() == pytest.approx(0.33 * speed)
    assert 0.33 < est.seconds_left() < 3.3 / 2


def test_a_batch_is_expected_to_leave_some_members_to_build_alone():
    clock = FakeClock()
    est = Estimate(jobs=4, clock=clock)
    for key in range(2):  # speed 1: each at its reference cost
        est.plan(key, "single nvcc compile", 1)
        est.begin(key)
        clock.now += 0.33
        est.end(key)
    for key in range(4):
        est.plan(key, "batch nvcc compile", 10)
        est.begin(key)
        clock.now += 0.69
        est.end(key)
    est.plan("b", "batch nvcc compile", 500)  # 0.6 + 4.5 s, and 15 single builds it is expected to leave
    assert est.seconds_left() == pytest.approx(5.1)  # alone it is the longest unit: nothing runs beside it
    for key in range(3):
        est.plan(f"s{key}", "batch nvcc compile", 500)
    assert est.seconds_left() == pytest.approx((4 * 5.1 + 4 * LEFTOVERS * 500 * 0.33) / 4)


def test_units_waiting_on_the_gpu_widen_the_pool():
    """With a GPU the pool runs 3 units per core slot (most wait on the GPU): the time left divides by the
    units seen at once, not by ``jobs``."""
    clock = FakeClock()
    est = Estimate(jobs=2, clock=clock)
    for key in range(6):
        est.plan(key, "single nvcc link", 1)
        est.begin(key)
    clock.now = 2.1  # six at once, each 3 times its reference 0.7 s
    for key in range(6):
        est.end(key)
    for key in range(12):
        est.plan(f"n{key}", "single nvcc link", 1)
    assert est.seconds_left() == pytest.approx(12 * 2.1 / 6)


def test_costs_keep_units_for_a_resume_and_a_stopped_unit_teaches_nothing():
    clock = FakeClock()
    est = Estimate(jobs=1, clock=clock)
    for key, seconds in (("a", 2.0), ("b", 3.0)):
        est.plan(key, "batch nvcc compile", 100)
        est.begin(key)
        clock.now += seconds
        est.end(key)
    est.plan("c", "single nvcc compile", 1)
    est.begin("c")
    clock.now += 500
    est.end("c", finished=False)
    assert est.costs() == {"batch nvcc compile": [5.0, 200, 2]}
    resumed = Estimate(jobs=1, clock=FakeClock(), costs=est.costs())
    resumed.plan("d", "batch nvcc compile", 100)
    speed = (5.0 + PRIOR_WEIGHT * 5.0 / 3.0) / (3.0 + PRIOR_WEIGHT)  # its reference: 2 x 0.6 + 200 x 0.009 s
    leftovers = LEFTOVERS * 100 * 0.33 * 5.0 / 3.0  # single builds it may leave, at the run's speed
    assert resumed.seconds_left() == pytest.approx(1.5 * speed + leftovers)
    # an older run.json's entry has no unit count: a kind with a prior cannot use it
    older = Estimate(jobs=1, clock=FakeClock(), costs={"batch nvcc compile": [5.0, 200]})
    older.plan("d", "batch nvcc compile", 100)
    assert older.seconds_left() is None


class Tty(io.StringIO):
    def isatty(self):
        return True


def quiet_run(stream):
    """Return a Progress over 1,000 items, with a 512-member batch and four single builds running since 0."""
    clock = FakeClock()
    est = Estimate(jobs=2, clock=clock)
    line = Progress(1000, stream=stream, estimate=est, clock=clock, watch=None)
    est.plan("b", "batch nvcc compile", 512)
    est.begin("b")
    clock.now = 30.0
    for key in range(4):
        est.plan(key, "single nvcc link", 1)
        est.begin(key)
    return clock, line


def test_a_terminal_says_what_runs_once_nothing_finished_for_a_while(monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")
    stream = Tty()
    clock, line = quiet_run(stream)
    clock.now = QUIET - 1
    line.tick()
    assert stream.getvalue() == ""
    clock.now = 95.0
    line.tick()
    text = stream.getvalue()
    assert text.startswith("\r[") and "0/1000" in text
    assert "nothing finished for 1:35; running: batch nvcc compile x512 1:35, single nvcc link 1:05" in text
    assert "2 more" in text, "three units named, the others counted"
    clock.now = 96.0
    line.tick()  # each look redraws it: the times go on
    assert "nothing finished for 1:36" in stream.getvalue()


def test_a_terminal_line_is_cut_to_the_terminals_width(monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    stream = Tty()
    clock, line = quiet_run(stream)
    clock.now = 95.0
    line.tick()
    text = stream.getvalue()
    assert text.startswith("\r[") and text.endswith("\x1b[K") and len(text) == 1 + 59 + 3 and "\n" not in text


def test_a_log_says_what_runs_once_a_minute_while_nothing_finishes():
    stream = io.StringIO()
    clock, line = quiet_run(stream)
    clock.now = QUIET_LOG - 1
    line.tick()
    assert stream.getvalue() == ""
    clock.now = QUIET_LOG
    line.tick()
    clock.now = QUIET_LOG + 30
    line.tick()  # within the minute: nothing more
    lines = stream.getvalue().splitlines()
    assert lines == [lines[0]] and lines[0].startswith("suitegen: 0/1000 (ETA ")
    assert lines[0].endswith("nothing finished for 1:00; running: batch nvcc compile x512 1:00, "
                             "single nvcc link 0:30, single nvcc link 0:30, 2 more")
    clock.now = 2 * QUIET_LOG
    line.tick()
    assert len(stream.getvalue().splitlines()) == 2


def test_a_finished_item_resets_the_quiet_time_and_a_closed_line_says_nothing_more():
    stream = io.StringIO()
    clock, line = quiet_run(stream)
    clock.now = QUIET_LOG - 1
    line.update("PASS")  # the first decile's line
    written = stream.getvalue()
    clock.now = QUIET_LOG + 10
    line.tick()
    assert stream.getvalue() == written, "something finished 11 s ago"
    line.close()
    clock.now = 10 * QUIET_LOG
    line.tick()
    assert stream.getvalue() == written


def test_the_watcher_looks_on_its_own_and_stops_at_close():
    stream = io.StringIO()
    clock = FakeClock()
    line = Progress(10, stream=stream, estimate=Estimate(clock=clock), clock=clock, watch=0.01)
    watcher = line.watcher
    clock.now = QUIET_LOG
    for _ in range(1000):  # it looks every 0.01 s: wait until it has said something (at most 10 s)
        if stream.getvalue():
            break
        watcher.join(0.01)
    assert "nothing finished for 1:00; running: nothing" in stream.getvalue()
    line.close()
    watcher.join(5)
    assert not watcher.is_alive()


def test_a_unit_is_named_by_its_kind_and_its_size():
    assert progress.unit_words("batch nvcc compile", 512) == "batch nvcc compile x512"
    assert progress.unit_words("single nvcc link", 1) == "single nvcc link"
