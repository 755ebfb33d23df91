"""What ``nvcc --dryrun`` says a command runs up to its device front end, so that a short command (``-ptx``,
or ``-fatbin`` for several targets) is used only where it runs the very front-end stages of the full build.

A full build runs the host side's preprocessor and cudafe++ first, then for each target the device side's
preprocessor and cicc (and ptxas), and stops at its first failing stage. The short command skips the host side.
It may stand in for the full build only where its device preprocessor and cicc commands are the full build's,
target by target and in the same order, but for the names of the files they write (``SAME_BUT_FOR``), and only
where it failed at its first cicc (``failed_at_first_front_end``): a later target's cicc ran, in the full build,
after the first target's ptxas, which the short command does not run before it.
"""
from __future__ import annotations

import re
import shlex
import tempfile
import threading
from typing import Sequence

from suitegen import procs
from suitegen.compilers.cache import read_keyed, write_keyed
from suitegen.compilers.toolchain import cache_root
from suitegen.model import Toolchain, digest

# Options whose value names a file a stage writes or shares with its neighbours, and a flag that says which
# stage makes the module id: they differ between a short and a full build, and change no diagnostic.
SAME_BUT_FOR = ("-o", "--gen_c_file_name", "--stub_file_name", "--gen_device_file_name", "--module_id_file_name",
                "--include_file_name")
MODULE_ID_FLAG = "--gen_module_id_file"
_TEMP = re.compile(r"tmpxft_\w+?-\d+_")
_CICC = re.compile(r"(^|/)cicc$")

_lock = threading.Lock()
_seen: dict[tuple, bool] = {}


def front_end_stages(output: str) -> list[tuple[str, ...]]:
    """Return the device preprocessor and cicc commands a ``--dryrun`` or ``-v`` output lists, in order, each
    without the names of the files it writes (see ``SAME_BUT_FOR``)."""
    out = []
    for line in output.splitlines():
        if not line.startswith("#$ ") or re.match(r"#\$ [A-Za-z_]\w*=", line):
            continue
        try:
            words = shlex.split(line[3:])
        except ValueError:
            continue
        device_cpp = "-E" in words and any(w.startswith("-D__CUDA_ARCH__=") for w in words)
        if not words or not (device_cpp or _CICC.search(words[0])):
            continue
        kept, skip = [], False
        for w in words:
            if skip:
                skip = False
            elif w in SAME_BUT_FOR:
                skip = True
            elif w != MODULE_ID_FLAG:
                kept.append(_TEMP.sub("TMP_", w))
        out.append(tuple(kept))
    return out


def same_front_end(toolchain: Toolchain, full: Sequence[str], short: Sequence[str], timeout: float = 60.0) -> bool:
    """Whether ``short`` runs the device front-end stages of ``full`` (``nvcc --dryrun`` of each, in one scratch
    folder); asked once per toolchain and pair of commands, and kept in the cache (a build store too, so a
    replaying machine without that nvcc takes the short builds it recorded)."""
    key = (toolchain.fingerprint, tuple(full), tuple(short))
    with _lock:
        if key in _seen:
            return _seen[key]
    # kept by the toolchain's fingerprint and the commands' arguments (not nvcc's path), as builds are
    path = cache_root() / "stages" / toolchain.fingerprint / f"{digest(list(full[1:]), list(short[1:]))}.json"
    ident = {"fingerprint": toolchain.fingerprint, "full": list(full[1:]), "short": list(short[1:])}
    kept = read_keyed(path, ident)
    same = kept.get("same") if kept is not None and isinstance(kept.get("same"), bool) else None
    if same is None:
        same = _ask(full, short, timeout)
        if same is None:
            return False  # nvcc could not be asked: no short build, and nothing kept
        write_keyed(path, ident, same=same)
    with _lock:
        _seen[key] = same
    return same


def _ask(full: Sequence[str], short: Sequence[str], timeout: float) -> bool | None:
    """Compare what ``nvcc --dryrun`` lists for the two commands; None where it could not be asked."""
    with tempfile.TemporaryDirectory(prefix="suitegen-stages-") as tmp:
        try:
            listed = [procs.run([argv[0], "--dryrun", *argv[1:]], timeout=timeout, cwd=tmp) for argv in (full, short)]
        except OSError:
            return None
    if any(d.timed_out for d in listed):
        return None
    stages = [front_end_stages(d.output) for d in listed]
    return all(d.returncode == 0 for d in listed) and bool(stages[0]) and stages[0] == stages[1]


def failed_at_first_front_end(output: str) -> bool:
    """Whether a short build's ``-v`` output shows it stopped at its first cicc (no other cicc ran)."""
    return sum(1 for stage in front_end_stages(output) if _CICC.search(stage[0])) == 1
