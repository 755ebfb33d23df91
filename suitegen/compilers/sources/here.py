"""The build itself: run, its output checked and kept in the cache (the last source, which always answers)."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from suitegen import procs
from suitegen.compilers import artifacts, backends, cache
from suitegen.compilers.sources.request import MODULE, Request, write_files
from suitegen.model import CompileResult, Diagnostic, Outcome, Phase


def answer(req: Request) -> CompileResult:
    """The build itself: run, its output checked (``artifacts``), its module taken where asked, and kept in the
    cache (and a recording build store, with its product)."""
    backend = req.backend
    write_files(req.files, req.folder)
    result = run_build(req.argv, req.folder, req.timeout, backend)
    found = None
    if result.outcome.accepted:
        missing = artifacts.problem(req.argv, req.folder, req.files, backend.module_sections)
        result = without_evidence(result, missing) if missing else result
        found = None if missing else artifacts.checked(req.argv, req.files, backend.module_sections)
    data = backend.module(req.argv, req.folder, req.timeout) if req.image and result.outcome.accepted else None
    if data is not None:
        (req.folder / MODULE).write_bytes(data)
    if req.key is not None:
        out = req.folder / (artifacts.output_of(req.argv) or "")
        recording = req.store is cache.Store.RECORD
        product = out.read_bytes() if recording and found and out.is_file() else None
        cache.put(req.key, result, artifact=found, image=data, product=product, any_outcome=recording)
    return result


def run_build(argv: list[str], cwd: Path, timeout: float, backend: backends.Backend) -> CompileResult:
    """Run one build command (never through a shell) and classify what it did."""
    try:
        done = procs.run(argv, timeout=timeout, cwd=cwd)
    except OSError as exc:
        return CompileResult(outcome=Outcome.TOOLCHAIN_ERROR, phase=Phase.NVCC, exit_code=None,
                             diagnostics=(), commands=(tuple(argv),),
                             output=f"cannot run {argv[0]}: {exc.strerror or exc}", duration=0.0)
    if done.timed_out:  # what it printed before it was killed, in the stage it had reached
        text = done.output + f"\n[suitegen] killed after {timeout:g}s\n"
        return replace(backend.classify(argv, 1, text, done.duration), outcome=Outcome.TIMED_OUT, exit_code=None)
    return backend.classify(argv, done.returncode, done.output, done.duration)


def without_evidence(result: CompileResult, missing: str) -> CompileResult:
    """Return an accepted result whose output is missing or malformed as what it is: a toolchain error (never
    a verdict on the code), with a diagnostic saying what is missing."""
    why = f"exit status 0, but no evidence of acceptance: {missing}"
    diag = Diagnostic(severity="error", message=why, phase=Phase.NVCC)
    return replace(result, outcome=Outcome.TOOLCHAIN_ERROR, phase=Phase.NVCC, diagnostics=(diag, *result.diagnostics),
                   output=f"{result.output}\n[suitegen] {why}\n")
