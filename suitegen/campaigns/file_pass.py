"""The file pass: a campaign's finding cut last as a whole file, its kernel and ``main`` too.

``triage.investigate`` reduces a wrong program through its model and then line by line, but only the program's own
text (its helpers, declarations and body): the kernel that calls it and the ``main`` that checks it are the
emitter's, and stay as written. Once the reproducer reproduces as a file built alone, the file pass cuts that file
whole, as ``suitegen fuzz --reduce FILE`` cuts a file of one's own (``own_file.reduce_wrong``): the campaign's bad
build against its good one, a witness build beside them, under every build the fuzzer knows; no cut drops the
statements that zero the output cells and copy them back, nor the check that says a failed launch as a CUDA error
(``emit.ZEROED``, ``emit.COPIED``, ``emit.CHECKED``). The cut file stands where it is shorter, reproduces built alone
twice, its good build's program is clean under compute-sanitizer's tools (``sanitizer.RIGHT``) and the builds wrong on
it are those wrong on the file it cut; the finding's builds, stage and cells are then the cut file's own.
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

from suitegen import procs
from suitegen.campaigns import own_file, triage
from suitegen.model import Compiler
from suitegen.synth import emit

LEAST = 20.0  # seconds the pass needs of a suspect's share: its last checks (twice under every build) come after
PART = 0.5  # the pass's part of what is left of a suspect's share when the triage's line pass begins
KEPT = (emit.ZEROED, emit.COPIED, emit.CHECKED)  # what no cut may drop: the cells zeroed, copied back, the check


def cut(campaign, text: str, bad: str, good: str, deadline: float) -> dict | None:
    """Cut a reproducer file whose ``bad`` build is wrong and ``good`` build right; return ``reduce_wrong``'s
    finding where the cut file is shorter, reproduces, its good build's program is sanitizer-clean, and the builds
    wrong on it are those wrong on the file; else None."""
    names = [bad, good, *(n for n in campaign.every_build() if n not in (bad, good))]  # the bad first, then the good
    runs = own_file.behave_under(campaign, names, text, Path(tempfile.mkdtemp(prefix="file", dir=campaign.scratch)))
    if runs[bad].right or not runs[bad].built or not runs[good].right:  # the file no longer shows it as it did
        return None
    found = own_file.reduce_wrong(campaign, text, runs, deadline - LEAST,  # its last checks within the deadline
                                  keep=tuple(k for k in KEPT if k in text))
    shorter = found.get("reproducer", text).count("\n") < text.count("\n")
    # the same builds wrong as on the file it cut: its stage, and so its bucket, stay the bug's
    same = set(found.get("wrong", ())) == {n for n, r in runs.items() if not r.right}
    return found if found["kind"] == "wrong-code" and found["reproduces"] and shorter and same else None


def follows(campaign) -> bool:
    """Whether the pass can follow a campaign's triage at all: reduction on, a GPU to run a file, and builds that make
    whole files (NVRTC compiles device code alone)."""
    return bool(campaign.opts.reduce) and campaign.runner is not None and campaign.tc.kind is not Compiler.NVRTC


def applies(campaign, finding: dict, deadline: float) -> bool:
    """Whether a finding is one the file pass cuts: wrong device code whose file reproduced alone, with a right
    device build to tell it from, a GPU to run it, and time left."""
    good = finding.get("good") or ""
    return (finding.get("kind") == "wrong-code" and finding.get("reproduces") is True and follows(campaign)
            and good != "" and "host-" not in finding["bad"] + good and time.monotonic() < deadline - LEAST)


def refined(campaign, finding: dict, deadline: float) -> dict:
    """Return the finding with its reproducer cut as a whole file (``cut``), where the pass applies and keeps one;
    else the finding as it was (``file_pass``: the pass's own error, where it failed). Its ``seconds`` say how long
    the pass took."""
    if not applies(campaign, finding, deadline):
        return finding
    start = time.monotonic()
    bad, good = finding["bad"], finding["good"]
    try:
        found = cut(campaign, finding["reproducer"], bad, good, deadline)
    except procs.Stopped:  # the finding stands as the triage left it (a resumed campaign keeps it)
        found, finding = None, dict(finding, file_pass="stopped")
    except Exception as exc:  # noqa: BLE001 - the pass's harness error must not lose the finding it refines
        found, finding = None, dict(finding, file_pass=f"{type(exc).__name__}: {exc}")
    before = (finding.get("seconds") or {}).get("file", 0.0)  # a pass a stop cut short, in an earlier leg
    seconds = dict(finding.get("seconds") or {}, file=round(before + time.monotonic() - start, 1))
    if found is None:
        return dict(finding, seconds=seconds)
    text, judged = found["reproducer"], set(found["wrong"] + found["right"])
    failing = sorted({b for b in finding["failing"] if b not in judged} | set(found["wrong"]))  # as the file shows
    passing = sorted({b for b in finding["passing"] if b not in judged} | set(found["right"]))
    statuses = {n: "wrong" if n in found["wrong"] else "ok" for n in judged}
    out = dict(finding, reproducer=text, lines=text.count("\n"), lines_before_file=finding["lines"],
               failing=failing, passing=passing, reduced={"failing": found["wrong"], "passing": found["right"]},
               targets=triage.targets(campaign, statuses), varies=found["varies"],
               stage=triage.blame(set(failing), set(passing)), seconds=seconds,
               observed=finding["observed"] if finding.get("stack") else found["observed"],  # a fault: as triage says
               standalone={n: found["printed"][n] for n in (bad, good)},
               sanitizer=dict(finding.get("sanitizer") or {}, **{n: found["sanitizer"][f"reduced {n}"]
                                                                  for n in (bad, good)}))
    if finding.get("stack"):  # a fault: how much stack the cut file's kernel needs
        out["stack"] = {n: triage.stack_use(campaign, campaign.build(n), text) for n in (bad, good)}
    return out


def investigate(campaign, suspect: dict, deadline: float, program=None) -> dict | None:
    """Confirm and reduce a wrong program (``triage.investigate``), then cut its reproducer as a file (``refined``):
    how a campaign and a run's triage investigate wrong code."""
    found = triage.investigate(campaign, suspect, deadline, program=program, later=PART if follows(campaign) else 0.0)
    return found if found is None else refined(campaign, found, deadline)
