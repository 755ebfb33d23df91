"""The run folder: results.jsonl written as results arrive, read back for resume and reports."""
from __future__ import annotations

import fcntl
import json
import os
import sys
from pathlib import Path
from typing import Iterator

from suitegen.model import Record

RESULTS = "results.jsonl"
SUMMARY = "summary.json"
CASES = "cases.jsonl"
META = "run.json"


class ResultsFile:
    """Appends one JSON line per result, flushed at once, so an interrupted run loses nothing."""

    def __init__(self, folder: Path | str, name: str = RESULTS):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / name

    def append(self, record: Record | dict) -> dict:
        data = record.to_json() if isinstance(record, Record) else record
        line = json.dumps(data, sort_keys=True) + "\n"
        # Several processes (xdist workers) may append to the same file: lock each write.
        with open(self.path, "a", encoding="utf-8") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                fh.write(line)
                fh.flush()
                os.fsync(fh.fileno())
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)
        return data

    def read(self) -> list[dict]:
        """Return every complete record; a line cut short by an interruption is skipped."""
        return list(read_records(self.path))

    def done_keys(self) -> set[tuple[str, str]]:
        """Return the (case_key, config_key) pairs already judged."""
        return {(r["case_key"], r["config_key"]) for r in self.read()}


def read_records(path: Path) -> Iterator[dict]:
    """Yield the records of a results.jsonl, warning once about unreadable lines."""
    if not path.exists():
        return
    bad = 0
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError:
                bad += 1
    if bad:
        print(f"suitegen: {path}: skipped {bad} incomplete line(s) (an interrupted write)", file=sys.stderr)


def write_json(path: Path, data) -> None:
    """Write JSON atomically (write then rename), so a reader never sees half a file."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)
