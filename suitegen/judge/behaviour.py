"""What a valid item's GPU run checks: its rule's promise (a semantic check), a load of its module, or
nothing to run (host-only). A compile verdict never says that behaviour was checked; this does.
"""
from __future__ import annotations

import enum
import re
from collections import Counter
from dataclasses import replace
from typing import Iterable, Mapping, Sequence

from suitegen.model import Behaviour, Case, ExecStatus, Expect, Expectation, Expected, Mode, Record
from suitegen.oracle.conditions import flag_features


class Check(enum.Enum):
    """The kind of GPU check a valid variant gets."""

    SEMANTIC = "semantic"  # runs on the GPU and checks a result the rule implies
    LOAD_ONLY = "load-only"  # its module is loaded and its kernels resolved, nothing observed
    HOST_ONLY = "host-only"  # no device code: nothing to run on the GPU
    NONE = "none"  # device code with no check of its behaviour (yet)


class AfterBuild(enum.Enum):
    """What runs after an item's accepted build, planned once (``after_build``); one runner each
    (``qualification.item.AFTER``)."""

    NOTHING = "nothing"  # judged on its build alone
    LOAD = "load"  # its device module is loaded on the GPU, every kernel resolved
    DEVICE_VALUE = "device-value"  # its value kernel runs on the GPU and must store the variant's value
    HOST_VALUE = "host-value"  # its object is linked with a value driver and run on the host
    PROGRAM = "program"  # the runtime case's program runs on the GPU and checks itself
    MODULE_CHECK = "module-check"  # the runtime case's device module runs under its rule's check hook


def after_build(case: Case, expectation: Expectation | None, flags: Sequence[str], gpu: bool,
                host_code: bool = True) -> AfterBuild:
    """Return what runs after an accepted build of a judged item (``gpu``: a GPU check can run here;
    ``host_code``: the compiler builds host code, which NVRTC does not)."""
    if not gpu or expectation is None:
        return AfterBuild.NOTHING
    if expectation.expect is Expect.RUNTIME:
        if case.variant.mode is Mode.COMPILE:
            return AfterBuild.NOTHING
        return AfterBuild.MODULE_CHECK if case.variant.mode is Mode.FATBIN else AfterBuild.PROGRAM
    if loads(case, expectation, flags):
        return AfterBuild.LOAD
    where = value_run(case, expectation)
    if where == "device":
        return AfterBuild.DEVICE_VALUE
    return AfterBuild.HOST_VALUE if where == "host" and host_code else AfterBuild.NOTHING


DEVICE_CODE = re.compile(r"__(global|device|constant|managed|shared)__")


def planned(case: Case, expectation: Expectation | Expected | None,
            flags: Sequence[str] = ()) -> tuple[Check, str] | None:
    """Return the check a variant's valid program gets and what it is (``flags``: the config's); None for
    a variant expected to be rejected (nothing valid to run)."""
    if expectation is None or expectation.expect in (Expect.REJECT, Expect.DIAGNOSE):
        return None
    if expectation.expect is Expect.RUNTIME:
        how = f"values checked in Python ({case.variant.check.name})" if case.variant.check else "a self-checking program"
        return Check.SEMANTIC, how
    device = has_device_code(case)
    linked = (" (relocatable device code: the module nvcc -dlink makes of the object, keeping the kernels its "
              "host code does not launch)") if "rdc" in flag_features(
        (*flags, *case.variant.flags, *case.mode_flags)) else ""
    if case.variant.value is not None:
        where = f"a kernel on the GPU (sg_kernel or use){linked}" if device else "use() on the host (no device code)"
        return Check.SEMANTIC, f"a value check: {where} must store {case.variant.value} in out[0]"
    if not device:
        return Check.HOST_ONLY, "no device code"
    if case.variant.mode is Mode.COMPILE:
        return Check.LOAD_ONLY, ("its module is loaded on the GPU and every kernel resolved; no semantic check "
                                 "yet" + linked)
    if case.variant.mode is Mode.RDC_LINK or len(case.files) == 1:
        return Check.LOAD_ONLY, ("its program's device module (the device-linked image for relocatable device "
                                 "code) is loaded on the GPU and every kernel resolved; no semantic check yet")
    return Check.NONE, "a program of several whole-program units: its modules are not loaded"


COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def has_device_code(case: Case) -> bool:
    """Whether any of a case's files declares device code (a kernel, device function or device variable); a comment
    that names a specifier declares nothing."""
    return any(DEVICE_CODE.search(COMMENT.sub("", text)) for text in case.files.values())


def value_run(case: Case, expectation: Expectation | None) -> str | None:
    """Where a valid item's value check runs ("device" or "host"), or None when it has none."""
    if case.variant.value is None or expectation is None or expectation.expect not in (Expect.ACCEPT, Expect.WARN):
        return None
    return "device" if has_device_code(case) else "host"


def of_record(case: Case, expectation: Expectation | Expected | None, executed: bool, loaded: str | None = None,
              flags: Sequence[str] = (), not_run: str = "") -> Behaviour | None:
    """Return a record's ``behaviour``: the planned check, whether it ran, what it is, (for a run) what the
    driver loaded from the module, and (``not_run``) why a GPU check was not run."""
    plan = planned(case, expectation, flags)
    if plan is None:
        return None
    check, what = plan
    return Behaviour(check=check.value, ran=executed, what=what, loaded=loaded or "", not_run=not_run)


def loads(case: Case, expectation: Expectation | None, flags: Sequence[str] = ()) -> bool:
    """Whether a valid item's module is to be loaded on the GPU (its only check)."""
    plan = planned(case, expectation, flags)
    return plan is not None and plan[0] is Check.LOAD_ONLY


def with_behaviour(record: Record, case: Case, loaded: str | None = None) -> Record:
    """Return the record of ``case`` with its ``behaviour`` filled in (the engine holds the case beside it;
    ``loaded``: what the driver runs of the observed build's targets, where the run does not say)."""
    run = record.execution
    if run is not None and run.status is ExecStatus.NOT_RUN:
        return replace(record, behaviour=of_record(case, record.expected, False, None, record.config.flags,
                                                   not_run=f"{run.detail} ({run.gpu})"))
    loaded = (run.loaded or loaded) if run is not None else None  # what the module's own images give on that GPU
    return replace(record, behaviour=of_record(case, record.expected, run is not None, loaded, record.config.flags))


def tally(records: Iterable[Record]) -> dict:
    """Return counts of valid items by check, the checks that run on a GPU split into ran and did not run."""
    out: Counter = Counter()
    runs = (Check.SEMANTIC.value, Check.LOAD_ONLY.value)
    for r in records:
        b = r.behaviour
        if b:
            out[b.check + (" ran" if b.ran else " not run") if b.check in runs else b.check] += 1
    keys = [f"{c} {how}" for c in runs for how in ("ran", "not run")] + [Check.HOST_ONLY.value, Check.NONE.value]
    return {k: out.get(k, 0) for k in keys}


def sentence(counts: Mapping[str, int]) -> str:
    """Say plainly how much behaviour a run checked on the GPU."""
    valid = sum(counts.values())
    ran = counts.get("semantic ran", 0)
    text = (f"behaviour checked on the GPU for {ran} of {valid} valid items; "
            f"{counts.get('semantic not run', 0)} semantic checks did not run")
    return text + (f"; modules loaded on the GPU for {counts.get('load-only ran', 0)} more "
                   f"({counts.get('load-only not run', 0)} not loaded), {counts.get('host-only', 0)} host-only, "
                   f"{counts.get('none', 0)} with no behaviour check (judged on their compile alone)")
