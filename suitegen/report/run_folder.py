"""The run folder: results.jsonl written as results arrive, read back for resume and reports.

A run folder belongs to one live run at a time (``RunLock``). Records are unique per (case, config):
a line cut short by a crash is dropped (and cut off before the next append), and a reader keeps
the last record of each item.
"""
from __future__ import annotations

import fcntl
import json
import os
import secrets
import socket
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator, Sequence

from suitegen import resources
from suitegen.model import Case, Record, RecordError, UsageError

RESULTS = "results.jsonl"
SUMMARY = "summary.json"
CASES = "cases.jsonl"
META = "run.json"
LOCK = "run.lock"


class RunFolderBusy(RuntimeError):
    """Another live run holds this run folder."""


class RunLock:
    """An exclusive hold on a run folder while a run is live; the OS releases it if the run dies.

    ``run.lock`` exists only while a run holds it (a run that dies leaves it, unlocked: the next run takes
    it). A folder the lock made and that is still empty when it is released is removed with it, so a run
    that fails to start leaves nothing behind."""

    def __init__(self, folder: Path | str, owner: str):
        self.path = Path(folder) / LOCK
        self.owner = owner
        self._fh = None
        self._made: list[Path] = []  # folders acquire created, innermost first

    def acquire(self) -> "RunLock":
        folder = self.path.parent
        self._made = [p for p in (folder, *folder.parents) if not p.exists()]
        folder.mkdir(parents=True, exist_ok=True)
        while True:
            fh = open(self.path, "a+", encoding="utf-8")
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                fh.seek(0)
                holder = fh.read().strip() or "another process"
                fh.close()
                raise RunFolderBusy(f"{folder} is in use by a live run ({holder}); wait for it to "
                                    "finish or stop it, or choose another folder") from None
            # A holder that released (and unlinked) the file after we opened it: ours is a stale inode.
            try:
                if os.stat(self.path).st_ino == os.fstat(fh.fileno()).st_ino:
                    break
            except FileNotFoundError:
                pass
            fh.close()
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()} on {socket.gethostname()}: {self.owner}, since "
                 f"{datetime.now(timezone.utc).isoformat(timespec='seconds')}\n")
        fh.flush()
        self._fh = fh
        return self

    def release(self) -> None:
        if self._fh is not None:
            self.path.unlink(missing_ok=True)  # while still held: a waiting opener sees a stale inode
            self._fh.close()  # closing drops the flock
            self._fh = None
            for made in self._made:  # a run that wrote nothing (a failed start) leaves no empty folder
                try:
                    made.rmdir()
                except OSError:
                    break

    def __enter__(self) -> "RunLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


class ResultsFile:
    """Appends one JSON line per result, flushed at once, so an interrupted run loses nothing."""

    def __init__(self, folder: Path | str, name: str = RESULTS):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / name

    def append(self, record: Record | dict) -> None:
        """Append one record (or cases.jsonl entry)."""
        self.append_all([record])

    def append_all(self, records: Sequence[Record | dict]) -> None:
        """Append records as one locked write and one fsync: a unit's records land together or not at all."""
        if not records:
            return
        text = "".join(json.dumps(r.to_json() if isinstance(r, Record) else r, sort_keys=True) + "\n" for r in records)
        # Several processes (xdist workers) may append to the same file: lock each write.
        with open(self.path, "a+b") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                _cut_partial_line(fh)
                fh.write(text.encode())
                fh.flush()
                os.fsync(fh.fileno())
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def read(self) -> list[Record]:
        """Return every complete record, one per item (the last one written)."""
        return list(read_records(self.path))

    def done_keys(self) -> set[tuple[str, str]]:
        """Return the (case_key, config_key) pairs already judged."""
        return {r.key for r in self.read()}


def _cut_partial_line(fh) -> None:
    """Truncate a last line that a crash left without its newline, so the next record starts clean."""
    size = fh.seek(0, os.SEEK_END)
    if size == 0:
        return
    fh.seek(size - 1)
    if fh.read(1) == b"\n":
        return
    pos = size
    while pos > 0:
        step = min(4096, pos)
        fh.seek(pos - step)
        chunk = fh.read(step)
        nl = chunk.rfind(b"\n")
        if nl >= 0:
            fh.truncate(pos - step + nl + 1)
            return
        pos -= step
    fh.truncate(0)


def read_records(path: Path) -> Iterator[Record]:
    """Yield the records of a results file, one per item, the last written winning.

    Unreadable lines (an interrupted write) are skipped with one warning; a record of a schema version this
    suitegen does not read, or a broken one, is a UsageError naming the file and line.
    """
    for number, data in _lines(path, ("case_key", "config_key")):
        try:
            yield Record.from_json(data)
        except RecordError as exc:
            raise UsageError(f"{path}, line {number}: {exc}") from None


def _lines(path: Path, fields: tuple[str, ...]) -> Iterator[tuple[int, dict]]:
    """Yield (line number, object) of a JSON-lines file, one per value of ``fields``, the last written winning.

    Unreadable lines (an interrupted write) are skipped with one warning.
    """
    if not path.exists():
        return
    bad = 0
    by_key: dict[tuple, tuple[int, dict]] = {}
    with open(path, encoding="utf-8", errors="replace") as fh:
        for number, line in enumerate(fh, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                bad += 1
                continue
            key = tuple(rec.get(f) for f in fields) if isinstance(rec, dict) else (number,)
            try:
                hash(key)
            except TypeError:  # a key field that holds a list or an object: the record's reader says what is wrong
                key = (number,)
            by_key.pop(key, None)  # keep write order, last one wins
            by_key[key] = number, rec
    if bad:
        print(f"suitegen: {path}: skipped {bad} incomplete line(s) (an interrupted write)", file=sys.stderr)
    yield from by_key.values()


def write_json(path: Path, data) -> None:
    """Write JSON atomically (write then rename), so a reader never sees half a file."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)


def new_run_id() -> str:
    """Return a fresh run id: the UTC time and a few random hex digits."""
    return datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(2)


def find_run(name: str) -> Path:
    """Return the folder of a run given its id (under ./reports) or its path."""
    folder = Path(name)
    if not folder.is_dir():
        folder = resources.REPORTS / name
    if not (folder / META).exists():
        raise UsageError(f"{name}: no run found ({folder / META} is missing)")
    return folder


def case_entry(case: Case) -> dict:
    """Return what a report needs of a case: its sources and what it tests."""
    return {"key": case.key, "id": case.id, "rule": case.rule.id, "section": case.rule.section,
            "statement": case.rule.statement, "variant": case.variant.name, "files": dict(case.files),
            "flags": list(case.variant.flags),
            "violation_line": case.violation_line}


def read_cases(folder: Path) -> dict[str, dict]:
    return {c["key"]: c for _, c in _lines(folder / CASES, ("key",))}


def merge(folders: Sequence[Path], out: Path) -> Path:
    """Join run folders (the shards of one run) into ``out``: records and cases once each, one run.json."""
    out.mkdir(parents=True, exist_ok=True)
    if (out / RESULTS).exists():
        raise UsageError(f"{out} already holds a run; merge into a new folder")
    with RunLock(out, "suitegen merge"):
        results, cases = ResultsFile(out), ResultsFile(out, CASES)
        metas = [json.loads((f / META).read_text()) for f in folders]
        for folder in folders:
            results.append_all(list(read_records(folder / RESULTS)))
            cases.append_all(list(read_cases(folder).values()))
        toolchains = {t["fingerprint"]: t for m in metas for t in m.get("toolchains", [])}
        merged = {**metas[0], "run_id": out.name, "merged_from": [str(f) for f in folders],
                  "toolchains": list(toolchains.values()), "shard": None,
                  "wall_seconds": max((m.get("wall_seconds") or 0) for m in metas),
                  "items_this_run": sum((m.get("items_this_run") or 0) for m in metas),
                  "interrupted": any(m.get("interrupted") for m in metas),
                  # the shards' legs ran side by side, not one after another: not one run's legs
                  "legs": None, "unit_costs": None, "resume_command": None,
                  "planned": sum(m["planned"] for m in metas) if all(m.get("planned") for m in metas) else None}
        write_json(out / META, merged)
    return out
