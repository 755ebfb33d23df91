"""How a job (a run, a campaign) stops on a signal and says how to go on: the signals, the exception they raise,
and the command that starts this process again."""
from __future__ import annotations

import contextlib
import shlex
import shutil
import signal
import sys
import threading
from pathlib import Path

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class StopRun(BaseException):
    """A stop signal arrived (BaseException, like KeyboardInterrupt, so no handler swallows it)."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def ignore_stops() -> None:
    """Ignore every later stop signal (a clean-up under way must not be cut short); ``handled`` puts the handlers
    back at its block's end."""
    for s in STOP_SIGNALS:
        signal.signal(s, signal.SIG_IGN)


@contextlib.contextmanager
def handled(handler, previous: dict | None = None):
    """Within the block each stop signal calls ``handler`` (one that raises ``StopRun``, say); the handlers it replaced
    (kept in ``previous``, as each is replaced) come back after. A signal whose handler was set outside Python, which
    could not be put back, is left alone."""
    previous = {} if previous is None else previous
    try:
        for s in STOP_SIGNALS:
            if signal.getsignal(s) is not None:
                previous[s] = signal.getsignal(s)  # kept before it is replaced: a signal between them finds it back
                signal.signal(s, handler)
        yield previous
    finally:
        for s, replaced in previous.items():
            signal.signal(s, replaced)


@contextlib.contextmanager
def held():
    """Within the block a stop signal waits, and is delivered as the block ends (its handler called; under the default
    handler, raised again): what the block writes and what it marks as written land together (a stop between them
    would write a record twice). Off the main thread, where no handler can be set (and none runs), it holds nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []
    previous: dict = {}
    try:
        with handled(lambda signum, frame: pending.append(signum), previous):
            yield
    finally:
        if pending:
            handler = previous[pending[0]]
            if callable(handler):
                handler(pending[0], None)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(pending[0])


def invocation() -> str:
    """Return how this process was started, to run it again from here: the script as typed (a path
    relative to here, or a bare name where PATH finds that very script), else ``python -m suitegen``."""
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if script is None or script.name == "__main__.py" or not script.is_file():
        return f"{_here(Path(sys.executable), 'python3')} -m suitegen"
    return _here(script, script.name)


def _here(path: Path, name: str) -> str:
    """Return how to name an executable from the current directory: a bare name where PATH finds this
    very file, else its path (relative when it is under here)."""
    found = shutil.which(path.name)
    if found and Path(found).resolve() == path.resolve():
        return shlex.quote(path.name)
    try:
        rel = path.absolute().relative_to(Path.cwd())
        return shlex.quote(str(rel) if rel.parent != Path(".") else f"./{rel}")
    except ValueError:
        return shlex.quote(str(path.absolute()))
