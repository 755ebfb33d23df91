"""The scheduler every stage runs its units on: leftovers queued and run, order by key, bounded workers, a
clean stop, and a unit's exception given back naming the unit."""
import threading
import time
from dataclasses import dataclass

import pytest

from suitegen.engine.scheduler import INLINE, Scheduler, UnitFailed

MODES = pytest.mark.parametrize("jobs", [INLINE, 1, 3])


@dataclass(frozen=True)
class Gave:
    """A unit's result: what it was, and the units it leaves."""

    unit: str
    leftovers: tuple = ()


def splitting(unit: str) -> Gave:
    """A 'batch:a,b' leaves a and b to run alone; anything else leaves nothing."""
    if unit.startswith("batch:"):
        return Gave(unit, tuple(unit[6:].split(",")))
    return Gave(unit)


@MODES
def test_leftovers_are_queued_run_and_reported(jobs):
    with Scheduler(splitting, jobs=jobs) as s:
        s.add("batch:a,b", "c", "batch:d")
        finished = list(s)
    assert sorted(f.unit for f in finished) == ["a", "b", "batch:a,b", "batch:d", "c", "d"]
    assert {f.unit: f.leftovers for f in finished}["batch:a,b"] == ("a", "b")
    assert all(f.result.unit == f.unit for f in finished)
    assert len(s) == 0


@pytest.mark.parametrize("jobs", [INLINE, 1])
def test_units_run_in_key_order_leftovers_included(jobs):
    ran = []

    def work(unit):
        ran.append(unit)
        return splitting(unit)

    s = Scheduler(work, jobs=jobs, key=lambda u: (not u.startswith("single"), -len(u)))
    s.add("bb", "batch:single1,single2", "a", "ccc")  # one call: all are queued before a worker starts
    assert [f.unit for f in s] == ran
    # longest first; the singles the batch left jump ahead of the units still queued
    assert ran == ["batch:single1,single2", "single1", "single2", "ccc", "bb", "a"]


def test_no_more_units_run_at_once_than_jobs():
    running, most, lock = [0], [0], threading.Lock()

    def work(unit):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.02)
        with lock:
            running[0] -= 1
        return unit

    with Scheduler(work, jobs=3) as s:
        s.add(*range(12))
        assert sorted(f.result for f in s) == list(range(12))
    assert most[0] == 3


def test_stop_cancels_the_queue_waits_for_running_units_and_drops_their_leftovers():
    started, release = [], threading.Event()

    def work(unit):
        started.append(unit)
        release.wait(10)
        return splitting(unit)

    s = Scheduler(work, jobs=2)
    s.add(*(f"batch:{i}x" for i in range(10)))
    assert s.poll(timeout=0.05) is None  # both workers are busy: nothing finished yet
    while len(started) < 2:
        time.sleep(0.01)
    threading.Timer(0.1, release.set).start()
    s.stop()  # returns once the two running units end
    finished = list(s)
    assert sorted(f.unit for f in finished) == sorted(started) and len(started) == 2
    assert all(f.leftovers for f in finished)  # reported, but not run: stopping
    assert len(s) == 0 and s.poll() is None
    s.add("late")  # a stopped scheduler takes nothing more
    assert list(s) == [] and len(started) == 2
    assert not [t for t in threading.enumerate() if t.name == "suitegen-unit"]


@MODES
def test_a_unit_that_raises_is_given_back_naming_it_and_the_others_still_come(jobs):
    def work(unit):
        if unit == "bad unit":
            raise ValueError("no such file")
        return unit

    s = Scheduler(work, jobs=jobs)
    s.add("one", "bad unit", "two")
    results, failures = [], []
    while len(s):
        try:
            results.append(next(s).result)
        except UnitFailed as failed:
            failures.append(failed)
    assert sorted(results) == ["one", "two"]
    (failed,) = failures
    assert failed.unit == "bad unit" and "bad unit: ValueError: no such file" in str(failed)
    assert isinstance(failed.__cause__, ValueError)


def test_a_stop_signal_in_an_inline_unit_is_the_callers():
    """Inline, a unit runs in the caller's thread: what is not an Exception (Ctrl-C) propagates as it is."""
    def work(unit):
        raise KeyboardInterrupt

    s = Scheduler(work)
    s.add("one")
    with pytest.raises(KeyboardInterrupt):
        next(s)
    assert len(s) == 0


def test_a_lane_runs_no_more_units_at_once_than_its_cap_and_others_go_ahead():
    running, most, ran, lock = {"p": 0}, {"p": 0}, [], threading.Lock()
    release = threading.Event()

    def work(unit):
        with lock:
            ran.append(unit)
            if unit.startswith("p"):
                running["p"] += 1
                most["p"] = max(most["p"], running["p"])
        if unit.startswith("p"):
            release.wait(5)
            with lock:
                running["p"] -= 1
        return Gave(unit)

    s = Scheduler(work, jobs=4, lane=lambda u: "p" if u.startswith("p") else None, lanes={"p": 2})
    s.add("p1", "p2", "p3", "p4", "c1", "c2")  # the lane's units first in order; only two of them may start
    deadline = time.monotonic() + 5
    while not {"c1", "c2"} <= set(ran) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert {"c1", "c2"} <= set(ran) and not {"p3", "p4"} & set(ran)  # the others went ahead of p3 and p4
    release.set()
    assert sorted(f.unit for f in s) == ["c1", "c2", "p1", "p2", "p3", "p4"]
    assert most["p"] == 2


def test_stop_ends_workers_waiting_behind_a_full_lane():
    release = threading.Event()
    s = Scheduler(lambda u: (release.wait(5), Gave(u))[1], jobs=3, lane=lambda u: "p", lanes={"p": 1})
    s.add("p1", "p2", "p3")
    time.sleep(0.1)
    threading.Timer(0.2, release.set).start()
    s.stop()  # p2 and p3 are dropped; the workers waiting for the lane end
    assert [f.unit for f in s] == ["p1"]
