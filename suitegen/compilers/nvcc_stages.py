"""What ``nvcc --dryrun`` says a command runs up to its device front end, so that a short command (``-ptx``,
or ``-fatbin`` for several targets) is used only where it runs the very front-end stages of the full build.

A full build runs the host side's preprocessor and cudafe++ first, then for each target the device side's
preprocessor and cicc (and ptxas), and stops at its first failing stage. The short command skips the host side.
It may stand in for the full build only where its device preprocessor and cicc commands are the full build's,
target by target and in the same order, but for the names of the files they write (``SAME_BUT_FOR``), and only
where it failed at its first cicc (``failed_at_first_front_end``): a later target's cicc ran, in the full build,
after the first target's ptxas, which the short command does not run before it.

The same listing says how far two full builds run alike (``shared_stages``): a PTX-only config
(``-arch=compute_90``) runs the very stages of ``-arch=sm_90`` up to and including cicc, and only then its own
ptxas check (``ptxas -arch=compute_90``, which writes no SASS). So the PTX-only build of sources that the other's
build rejected within those shared stages would stop at the same stage with the same output
(``compile.cached_build`` takes it from the cache). Likewise a short build for several targets runs its first
target's preprocessor and cicc as that target's own short build does, but for ``__CUDA_ARCH_LIST__`` (``shared_stages``
with ``alike``; taken only where no source reads that macro).
"""
from __future__ import annotations

import os
import re
import shlex
import tempfile
import threading
from typing import Callable, Sequence

from suitegen import procs
from suitegen.compilers.cache import ENVIRONMENT, compilers_run, read_keyed, write_keyed
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
_seen: dict[tuple, bool | int | list] = {}

LISTING_TIMEOUT = 10.0  # seconds for a --dryrun listing: it runs no stage (about 0.1 s); a hanging nvcc is bounded


def _normalised(words: list[str]) -> tuple[str, ...]:
    """A stage's command without the names of the files it writes (see ``SAME_BUT_FOR``)."""
    kept, skip = [], False
    for w in words:
        if skip:
            skip = False
        elif w in SAME_BUT_FOR:
            skip = True
        elif w != MODULE_ID_FLAG:
            kept.append(_TEMP.sub("TMP_", w))
    return tuple(kept)


def stages(output: str) -> list[tuple[str, ...]]:
    """Return the stages (sub-commands) a ``--dryrun`` or ``-v`` output lists, in order, each ``_normalised``."""
    return [stage for stage, _ in stage_chunks(output)[1]]


def stage_chunks(output: str) -> tuple[str, list[tuple[tuple[str, ...], str]]]:
    """Split a ``--dryrun`` or ``-v`` output into what comes before its first stage, and each stage (``_normalised``)
    with its chunk: its ``#$`` command line and what it printed, in order."""
    head, chunks = [], []
    for line in output.splitlines(keepends=True):
        words = _stage_words(line)
        if words:
            chunks.append((_normalised(words), [line]))
        elif chunks:
            chunks[-1][1].append(line)
        else:
            head.append(line)
    return "".join(head), [(stage, "".join(lines)) for stage, lines in chunks]


def _stage_words(line: str) -> list[str]:
    """Return the words of a stage's ``#$`` command line; none for any other line (an environment setting, say)."""
    if not line.startswith("#$ ") or re.match(r"#\$ [A-Za-z_]\w*=", line):
        return []
    try:
        return shlex.split(line[3:])
    except ValueError:
        return line[3:].split()


def front_end_stages(output: str) -> list[tuple[str, ...]]:
    """Return the device preprocessor and cicc commands a ``--dryrun`` or ``-v`` output lists, in order, each
    ``_normalised``."""
    return [stage for stage in stages(output)
            if ("-E" in stage and any(w.startswith("-D__CUDA_ARCH__=") for w in stage)) or _CICC.search(stage[0])]


def same_front_end(toolchain: Toolchain, full: Sequence[str], short: Sequence[str], timeout: float = LISTING_TIMEOUT) -> bool:
    """Whether ``short`` runs the device front-end stages of ``full`` (``nvcc --dryrun`` of each, in one scratch
    folder); asked once per toolchain and pair of commands, and kept in the cache (a build store too, so a
    replaying machine without that nvcc takes the short builds it recorded)."""
    same = _answer(toolchain, "same front end", full, short, timeout,
                   lambda a, b: bool(front_end_stages(a)) and front_end_stages(a) == front_end_stages(b))
    return bool(same)


def shared_stages(toolchain: Toolchain, first: Sequence[str], other: Sequence[str], timeout: float = LISTING_TIMEOUT,
                  alike: bool = False) -> int:
    """Return how many stages, from the first on, ``other`` runs just as ``first`` does (by ``nvcc --dryrun``,
    but for the names of the files they write; ``alike``: and the macros naming the build's targets, ``_alike``);
    0 where nvcc could not be asked. Kept like ``same_front_end``."""
    same = _alike if alike else (lambda stage: stage)

    def prefix(a: str, b: str) -> int:
        count = 0
        for x, y in zip(stages(a), stages(b)):
            if same(x) != same(y):
                break
            count += 1
        return count
    return int(_answer(toolchain, "shared stages alike" if alike else "shared stages", first, other, timeout,
                       prefix) or 0)


def _answer(toolchain: Toolchain, question: str, first: Sequence[str], second: Sequence[str], timeout: float,
            ask: Callable[[str, str], bool | int | list]) -> bool | int | list | None:
    """Return ``ask`` of the two commands' ``--dryrun`` listings (None where nvcc could not list both): once per
    toolchain, question, pair of commands and environment nvcc reads, and kept in the cache by the toolchain's
    fingerprint, the commands' arguments (not nvcc's path) and that environment, as builds are."""
    env = {name: os.environ.get(name) for name in ENVIRONMENT}
    key = (question, toolchain.fingerprint, tuple(first), tuple(second), tuple(env.items()))
    with _lock:
        if key in _seen:
            return _seen[key]
    path = (cache_root() / "stages" / toolchain.fingerprint
            / f"{digest(question, list(first[1:]), list(second[1:]), env)}.json")
    ident = {"question": question, "fingerprint": toolchain.fingerprint, "first": list(first[1:]),
             "second": list(second[1:]), "environment": env}
    kept = read_keyed(path, ident)
    answer = kept.get("answer") if kept is not None and type(kept.get("answer")) in (bool, int, list) else None
    if answer is None:
        listed = _list(first, second, timeout) if compilers_run() else None  # a replayed store's answers only
        if listed is None:
            return None  # nothing kept: asked again next time
        answer = ask(*listed) if listed else False
        write_keyed(path, ident, answer=answer)
    with _lock:
        _seen[key] = answer
    return answer


def _list(first: Sequence[str], second: Sequence[str], timeout: float) -> tuple[str, str] | tuple[()] | None:
    """Return what ``nvcc --dryrun`` lists for each command; () where it refused one; None where it could not
    be asked (it would not start, or timed out)."""
    with tempfile.TemporaryDirectory(prefix="suitegen-stages-") as tmp:
        try:
            listed = [procs.run([argv[0], "--dryrun", *argv[1:]], timeout=timeout, cwd=tmp) for argv in (first, second)]
        except OSError:
            return None
    if any(d.timed_out for d in listed):
        return None
    if any(d.returncode != 0 for d in listed):
        return ()
    return listed[0].output, listed[1].output


# A build of one target within a build of several (``narrow_stages``): what may differ in a stage they share.
_LIST = "-D__CUDA_ARCH_LIST__="  # every preprocessor and host compile names all the build's targets
_ARCH = "-D__CUDA_ARCH__="  # the host compile names the last one (the device preprocessor: its own target)
_PACKING = re.compile(r"(^|/)(fatbinary|rm)$")  # each build packs its own images


def _alike(stage: tuple[str, ...]) -> tuple[str, ...]:
    """A stage's command as one target's build and a several-target build of the same sources run it alike: without
    its temporary file names and the macros that name the build's targets (``_LIST``, and ``_ARCH`` in the host
    compile)."""
    host_compile = "-c" in stage and "-E" not in stage
    return tuple("TMP" if "TMP_" in w or "tmpxft" in w else w for w in stage
                 if not w.startswith(_LIST) and not (host_compile and w.startswith(_ARCH)))


def narrow_stages(toolchain: Toolchain, narrow: Sequence[str], wide: Sequence[str],
                  timeout: float = LISTING_TIMEOUT) -> tuple[int, list[int]] | None:
    """Return how many stages ``wide`` runs and the indices, among them, of those ``narrow`` runs too (by ``nvcc
    --dryrun``): every stage of ``narrow`` but its packing (fatbinary), in order, run by ``wide`` alike
    (``_alike``); None where some is not, or nvcc could not list them. Kept like ``same_front_end``.

    ``-arch=sm_80`` within ``-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90``: the host
    side, and the compute_80 preprocessor, cicc and ptxas."""
    def among(a: str, b: str) -> list[int] | bool:
        mine = [_alike(x) for x in stages(a) if not packs(x)]
        theirs = stages(b)
        found, at = [], 0
        for stage in mine:
            while at < len(theirs) and (packs(theirs[at]) or _alike(theirs[at]) != stage):
                at += 1
            if at == len(theirs):
                return False
            found.append(at)
            at += 1
        return [len(theirs), *found] if found else False
    answer = _answer(toolchain, "narrow stages", narrow, wide, timeout, among)
    return (answer[0], answer[1:]) if isinstance(answer, list) and len(answer) > 1 else None


def packs(stage: tuple[str, ...]) -> bool:
    """Whether a stage packs the build's images (fatbinary, or the removal of its file)."""
    return _PACKING.search(stage[0]) is not None


def failed_at_first_front_end(output: str) -> bool:
    """Whether a short build's ``-v`` output shows it stopped at its first cicc (no other cicc ran)."""
    return sum(1 for stage in front_end_stages(output) if _CICC.search(stage[0])) == 1
