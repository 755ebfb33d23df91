"""One scheduler for every stage that runs units of work: ``suitegen run``'s units, the pytest plugin's
leftovers, ``fuzz``'s files of programs.

Units go in (``add``); each unit's result comes back as data, in the order units finish, by iterating the
scheduler (``for done in scheduler``) or ``poll``. A result with a ``leftovers`` attribute (``item.Done``)
hands those units back: the scheduler queues them, and the caller sees them in ``Finished.leftovers``.
Queued units run in the order of ``key`` (ascending; ties in the order they were queued), at most ``jobs``
at a time on threads, or with ``jobs=0`` one after another in the caller's thread as it iterates. A unit
may belong to a lane (``lane``) with a cap (``lanes``): at most that many of the lane's units run at once,
and a unit behind a full lane waits while the units of other lanes go ahead of it.
``stop`` cancels what is queued and waits for what runs; iterating then gives what finished and ends.
A unit that raises comes back as ``UnitFailed`` naming it, raised where the caller iterates.
"""
from __future__ import annotations

import heapq
import itertools
import threading
from collections import Counter, deque
from dataclasses import dataclass
from typing import Any, Callable, Generic, Hashable, Iterable, Mapping, TypeVar

U = TypeVar("U")
R = TypeVar("R")

INLINE = 0  # ``jobs``: run each unit in the caller's thread when it asks for the next result


@dataclass(frozen=True, slots=True)
class Finished(Generic[U, R]):
    """A unit that ran: what it returned, and the units it left (queued already, unless stopping)."""

    unit: U
    result: R
    leftovers: tuple = ()


class UnitFailed(Exception):
    """A unit raised; the exception is its ``__cause__``."""

    def __init__(self, unit: Any, error: BaseException):
        super().__init__(f"{_name(unit)}: {type(error).__name__}: {error}")
        self.unit = unit
        self.__cause__ = error


def _name(unit: Any) -> str:
    text = str(unit)
    return text if len(text) <= 300 else text[:300] + "..."


_NONE = object()  # ``_next_lane``: no queued unit may start now


class Scheduler(Generic[U, R]):
    """Runs units with ``work`` on at most ``jobs`` threads (``INLINE``: in the caller's thread), in ``key``
    order, and gives back each one's ``Finished`` as it ends; ``lane`` names a unit's lane (None: no lane),
    ``lanes`` caps how many units of a lane run at once. Use it as a context manager, or ``stop`` it."""

    def __init__(self, work: Callable[[U], R], jobs: int = INLINE, key: Callable[[U], Any] | None = None,
                 lane: Callable[[U], Hashable] | None = None, lanes: Mapping[Hashable, int] | None = None):
        self.work, self.jobs, self.key = work, max(jobs, 0), key or (lambda unit: 0)
        self.lane, self.lanes = lane or (lambda unit: None), {k: max(v, 1) for k, v in (lanes or {}).items()}
        self._cond = threading.Condition()
        self._queues: dict[Hashable, list[tuple[Any, int, U]]] = {}  # per lane, a heap of (key, arrival, unit)
        self._busy: Counter = Counter()  # per lane, its units running
        self._arrivals = itertools.count()
        self._done: deque[Finished | UnitFailed] = deque()
        self._running = 0  # units taken from the queue and not yet in ``_done``
        self._workers = 0
        self._stopping = False

    def add(self, *units: U) -> None:
        """Queue units (ignored once stopping)."""
        with self._cond:
            self._push(units)

    def __len__(self) -> int:
        """Units not yet given back: queued, running, or finished and waiting to be taken."""
        with self._cond:
            return self._queued() + self._running + len(self._done)

    def __iter__(self) -> "Scheduler[U, R]":
        return self

    def __next__(self) -> Finished[U, R]:
        done = self.poll()
        if done is None:
            raise StopIteration
        return done

    def poll(self, timeout: float | None = None) -> Finished[U, R] | None:
        """Return the next unit to finish, waiting up to ``timeout`` seconds (None: until one does); None if
        none did, or none is left. Raises ``UnitFailed`` for a unit that raised."""
        with self._cond:
            if self.jobs == INLINE and not self._done and self._queued():
                self._step(Exception)  # anything else (a stop signal) is the caller's
            if not self._cond.wait_for(lambda: self._done or not (self._queued() or self._running), timeout):
                return None
            outcome = self._done.popleft() if self._done else None
        if isinstance(outcome, UnitFailed):
            raise outcome
        return outcome

    def stop(self) -> None:
        """Cancel the queued units and wait for the running ones (their leftovers are dropped); what finished
        is still given back by iterating."""
        with self._cond:
            self._stopping = True
            self._queues.clear()
            self._cond.notify_all()  # workers waiting for a lane end
            self._cond.wait_for(lambda: self._workers == 0)

    def __enter__(self) -> "Scheduler[U, R]":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _push(self, units: Iterable[U]) -> None:
        if self._stopping:
            return
        for unit in units:
            heapq.heappush(self._queues.setdefault(self.lane(unit), []), (self.key(unit), next(self._arrivals), unit))
        while self.jobs != INLINE and self._workers < min(self.jobs, self._queued() + self._running):
            self._workers += 1
            threading.Thread(target=self._worker, name="suitegen-unit", daemon=True).start()

    def _queued(self) -> int:
        return sum(map(len, self._queues.values()))

    def _next_lane(self) -> Hashable | None:
        """Return the lane whose first unit runs next: the lowest (key, arrival) among lanes below their cap."""
        open_ = [(q[0][:2], lane) for lane, q in self._queues.items()
                 if q and (self.jobs == INLINE or self._busy[lane] < self.lanes.get(lane, self.jobs))]
        return min(open_, key=lambda entry: entry[0])[1] if open_ else _NONE

    def _worker(self) -> None:
        """Take queued units until none is left (a later ``add`` starts workers again); wait while every
        queued unit is behind a full lane."""
        with self._cond:
            while self._queued() and not self._stopping:
                if self._next_lane() is _NONE:
                    self._cond.wait()
                    continue
                self._step(BaseException)  # nothing may end a worker unseen
            self._workers -= 1
            self._cond.notify_all()

    def _step(self, catch: type[BaseException]) -> None:
        """Run the next queued unit, unlocked; record what it gave and queue its leftovers (the lock is held)."""
        lane = self._next_lane()
        unit = heapq.heappop(self._queues[lane])[2]
        self._running += 1
        self._busy[lane] += 1
        self._cond.release()
        outcome: Finished[U, R] | UnitFailed | None = None
        try:
            result = self.work(unit)
            outcome = Finished(unit=unit, result=result, leftovers=tuple(getattr(result, "leftovers", ())))
        except catch as error:  # noqa: BLE001 - given back to the caller, never lost on a thread
            outcome = UnitFailed(unit, error)
        finally:
            self._cond.acquire()
            self._running -= 1
            self._busy[lane] -= 1
            if outcome is not None:
                self._done.append(outcome)
            if isinstance(outcome, Finished):
                self._push(outcome.leftovers)
            self._cond.notify_all()
