"""``suitegen explore``: hypothesis searches for programs where nvcc and the oracle disagree.

Each generative variant (one whose holes name strategies) is searched in turn with the real
toolchain. A FAIL is a disagreement: hypothesis shrinks it to a minimal program, the reproducer
is saved, and the example database keeps it so the next run replays it first.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path

from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase
from hypothesis.errors import Unsatisfiable

from suitegen import resources
from suitegen.cases.compose import drawn_variant, generative
from suitegen.engine import options
from suitegen.qualification.item import run_one
from suitegen.qualification.session import configs_for, load_rules, open_session
from suitegen.model import Record, Verdict
from suitegen.report.repro import write_repro
from suitegen.report.run_folder import case_entry, new_run_id


class Disagreement(AssertionError):
    """nvcc and the oracle disagree on a drawn program."""


@dataclass
class Finding:
    """The minimal disagreement found for one generative variant."""

    rule: str
    variant: str
    record: Record
    case: dict
    folder: Path


def explore_command(args) -> int:
    opts = replace(options.from_namespace(args), no_exec=True)
    _, rules, renderer = load_rules(opts)
    targets = generative(rules)
    if not targets:
        print("suitegen explore: no selected rule has a variant with strategies to draw from")
        return 2
    session = open_session(opts, cases=[])
    configs = configs_for(session.toolchains, options.resolve_profile(opts))
    out = Path(args.out) if args.out else resources.REPORTS / f"explore-{new_run_id()}"
    deadline = time.monotonic() + args.budget * 60
    per_target = args.budget * 60 / len(targets)
    findings = []
    for rule, variant in targets:
        stop = min(deadline, time.monotonic() + per_target)
        print(f"explore: {rule.id} [{variant.name}] over {', '.join(sorted(variant.strategies))} "
              f"until {max(0, stop - time.monotonic()):.0f}s from now", flush=True)
        f = search(session, renderer, rule, variant, configs, stop, args.examples, Path(args.db), out,
                   include_known=args.include_known)
        if f:
            findings.append(f)
            print(f"  disagreement: {f.record.reason}\n  minimal program: {f.folder / 'main.cu'}\n"
                  + "\n".join("    " + line for line in f.case["files"]["main.cu"].splitlines()))
        else:
            print("  no disagreement found")
    print(f"explore: {len(findings)} disagreement(s); reproducers under {out}")
    return 1 if findings else 0


def search(session, renderer, rule, variant, configs, stop: float, examples: int, db: Path,
           out: Path, include_known: bool = False) -> Finding | None:
    """Search one generative variant; return its minimal disagreement, if any.

    A recorded deviation (XFAIL) is a disagreement only with ``include_known``.
    """
    last: dict = {}
    wanted = {Verdict.FAIL, Verdict.XFAIL} if include_known else {Verdict.FAIL}
    holes = {k: strategy() for k, strategy in sorted(variant.strategies.items())}

    def probe(params, config):
        # Past the budget, stop generating; a failure already found still shrinks.
        assume(time.monotonic() < stop or bool(last))
        case = renderer.render(rule, drawn_variant(rule, variant, params))
        record = run_one(session, case, config)
        if record.verdict in wanted:
            last.update(record=record, case=case_entry(case))
            raise Disagreement(record.reason)

    # One database entry per target: without this every target would share the nested function's key.
    probe._hypothesis_internal_add_digest = f"{rule.id}[{variant.name}]{include_known}".encode()
    test = settings(max_examples=examples, deadline=None, database=DirectoryBasedExampleDatabase(str(db)),
                    suppress_health_check=list(HealthCheck), derandomize=False, report_multiple_bugs=False,
                    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink])(
        given(st.fixed_dictionaries(holes), st.sampled_from(configs))(probe))
    try:
        test()
    except Disagreement:
        record, case = last["record"], last["case"]  # hypothesis replays the minimal example last
        folder = write_repro(out, record, case)
        return Finding(rule=rule.id, variant=variant.name, record=record, case=case, folder=folder)
    except Unsatisfiable:
        pass
    return None
