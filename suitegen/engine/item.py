"""One (case, config) item: prepare, build, run on the GPU, judge."""
from __future__ import annotations

import tempfile
import traceback
from pathlib import Path

from suitegen import hooks, procs
from suitegen.build.compile import compile_case, program_path
from suitegen.engine.session import Session, now
from suitegen.execute.programs import run_program
from suitegen.judge.verdicts import prepare, verdict
from suitegen.model import Case, Config, Expect, Judgement, Mode, Record, Verdict


def run_one(session: Session, case: Case, config: Config) -> Record:
    """Judge one item: nothing is built for an UNSUPPORTED or unhonoured config."""
    started = now()
    features = session.features.get(config.toolchain.fingerprint, frozenset())
    prep = prepare(case, config, features, unhonoured=lambda: session.unhonoured(config, case))
    judged = prep.final is None or prep.final.verdict is Verdict.UNRESOLVED  # conditions met: config probed
    observed = session.observed(config, case) if judged else None
    result = execution = None
    if prep.final is None:
        with tempfile.TemporaryDirectory(prefix="suitegen-") as tmp:
            folder = Path(tmp)
            result = compile_case(case, config, folder, timeout=session.options.timeout)
            program = program_path(case, folder)
            runtime = prep.expectation.expect is Expect.RUNTIME
            if runtime and result.outcome.accepted and program and session.gpus is not None:
                if case.variant.mode is Mode.FATBIN:
                    check = hooks.get("check", case.variant.check)(case.variant.params)
                    execution = session.fatbin.run(program, check)
                else:
                    execution = run_program(program, folder, session.options.exec_timeout, session.gpus.take())
    judgement = verdict(prep, case, result, session.oracle.deviations, execution=execution,
                        execution_skipped=session.execution_skipped)
    return Record(case=case, config=config, judgement=judgement, result=result, started=started,
                  execution=execution, observed=observed)


def safe_run_one(session: Session, case: Case, config: Config) -> Record | None:
    """Run one item; a harness exception becomes UNRESOLVED with its traceback, never FAIL.

    Returns None when the run is stopping: an item cut short says nothing and is not recorded.
    """
    try:
        return run_one(session, case, config)
    except procs.Stopped:
        return None
    except Exception:
        if procs.stopping():
            return None
        tb = traceback.format_exc(limit=5)
        return Record(case=case, config=config, result=None, started=now(),
                      judgement=Judgement(verdict=Verdict.UNRESOLVED, reason=f"harness error: {tb}"))
