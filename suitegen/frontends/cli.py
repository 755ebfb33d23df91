"""The ``suitegen`` command: a thin front over the engine."""
from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import os
import sys
from pathlib import Path

from suitegen import __version__
from suitegen.compilers.toolchain import ToolchainError
from suitegen.engine import options
from suitegen.model import Record, UsageError, Verdict
from suitegen.report.run_folder import RunFolderBusy

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
EXIT_PIPE = 128 + 13  # SIGPIPE: what a shell reports for a writer whose reader closed the pipe


class Parser(argparse.ArgumentParser):
    """argparse's parser, except that the (sub)command meeting arguments it does not know refuses them itself: with
    its own usage, and the close matches among its options (``run --profle``: did you mean --profile?)."""

    def parse_known_args(self, args=None, namespace=None):
        parsed, extra = super().parse_known_args(args, namespace)
        if extra:
            self.error(f"unrecognized arguments: {' '.join(extra)}{self._close_to(extra)}")
        return parsed, extra

    def _close_to(self, extra: list[str]) -> str:
        """Return ' (did you mean --x?)' naming this parser's options closest to the unknown ones, else ''."""
        known = [s for s in self._option_string_actions if s.startswith("--")]
        close = [m for a in extra if a.startswith("--") for m in difflib.get_close_matches(a.split("=")[0], known, 1)]
        return f" (did you mean {' or '.join(dict.fromkeys(close))}?)" if close else ""


def _fuzz_time(text: str) -> None:
    """Check a fuzz time (90, 90s, 10m, 1h: ``fuzz.parse_budget``): UsageError unless it is one, at least 0."""
    from suitegen.campaigns.fuzz import parse_budget
    try:
        ok = parse_budget(text) >= 0
    except UsageError:
        ok = False
    if not ok:
        raise UsageError(f"{text!r}: expected a time of 0 or more: seconds, or a number with s, m or h (90s, 10m, 1h)")


def _release(text: str) -> None:
    from suitegen.history.releases import release
    release(text)


def _release_range(text: str) -> None:
    from suitegen.history.releases import parse_range
    parse_range(text)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="suitegen", description="CUDA C++ (nvcc) conformance suites")
    parser.add_argument("--version", action="version", version=f"suitegen {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="generate, compile and judge every case across the matrix")
    options.add_arguments(run, "run")
    run.add_argument("--out", metavar="DIR", help="run folder (default ./reports/<run-id>)")
    run.add_argument("-j", "--jobs", type=options.count, help="children that work the CPU at once: compiles, probes, "
                     "host programs (default: CPU count); GPU programs queue beside them")
    run.add_argument("--resume", metavar="RUN", help="continue a run (its id under ./reports, or its folder)")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    run.add_argument("--corpus", metavar="DIR", help="run a materialised corpus (generated/<name>) "
                     "instead of the oracle's fixed cases")
    run.add_argument("--baseline", metavar="FILE", help="compare with an accepted baseline; exit 1 on regressions")
    run.add_argument("--list", action="store_true", help="print the (case, config) items this run would judge "
                     "and exit")
    run.add_argument("--shard", metavar="K/N", help="run only shard K of N (a stable split that keeps batches "
                     "whole); join the shards' folders with suitegen merge")

    rules = sub.add_parser("rules", help="list the oracle's rules")
    options.add_arguments(rules, "rules")
    rules.add_argument("--json", action="store_true", help="machine-readable output")
    rules.add_argument("--coverage", action="store_true", help="per section: rules, variants by kind, cases, "
                       "and what is unsupported here and why")
    rules.add_argument("--trace", action="store_true", help="the guide's normative statements (oracle/statements/) "
                       "and the rules that test them; lists those with no rule and no reason")
    rules.add_argument("--hooks", action="store_true", help="the predicates, selectors, strategies, device checks "
                       "and detected features oracle files can name")
    rules.add_argument("--format", action="store_true", help="the oracle's fields (docs/oracle-format.md): each "
                       "field of a rule, variant, deviation and statement, its type and meaning")

    gen = sub.add_parser("generate", help="write the cases as .cu files with a manifest.json")
    options.add_arguments(gen, "generate")
    gen.add_argument("--out", required=True, metavar="DIR", help="e.g. generated/<name>")
    gen.add_argument("--seed", type=int, default=None, help="seed for drawn cases (default: the nightly seed)")
    gen.add_argument("--count", type=int, default=0, help="drawn cases on top of every oracle variant")

    exp = sub.add_parser("explore", help="search for programs where nvcc and the oracle disagree; shrink them")
    options.add_arguments(exp, "explore")
    exp.add_argument("--budget", type=float, default=10.0, help="minutes to search (default 10)")
    exp.add_argument("--examples", type=int, default=200, help="most programs to try per generative variant")
    exp.add_argument("--out", metavar="DIR", help="where reproducers go (default reports/explore-<time>)")
    exp.add_argument("--include-known", action="store_true",
                     help="count recorded deviations (XFAIL) as disagreements too, and shrink them")
    exp.add_argument("--db", metavar="DIR", default=".hypothesis/suitegen-explore",
                     help="example database: disagreements found before are replayed first")
    fz = sub.add_parser("fuzz", help="generated programs with known results, built several ways; "
                        "confirm, reduce and file what goes wrong")
    fz.add_argument("--seed", type=options.word, default="1",
                    help="campaign seed: the same seed gives the same programs")
    fz.add_argument("--budget", type=options.checked(_fuzz_time), default="10m",
                    help="time to spend generating and checking (90s, 10m, 1h)")
    fz.add_argument("--nvcc", metavar="PATH|NAME", help="the nvcc (default: the one on PATH)")
    fz.add_argument("--policy", help="one generation policy for every program (default: each draws one)")
    fz.add_argument("--builds", default="default,ptxas-O0,cicc-O0",
                    help="build configs, comma-separated (default,ptxas-O0,cicc-O0,debug,maxrreg,ptx-jit)")
    fz.add_argument("--arch", default="sm_90", help="the SASS target of cubin builds (default sm_90)")
    fz.add_argument("--per-file", type=options.count, default=32, help="programs per source file (default 32)")
    fz.add_argument("-j", "--jobs", type=options.count, help="parallel builds (default: CPU count)")
    fz.add_argument("--no-gpu", action="store_true", help="run nothing on a GPU even if there is one")
    fz.add_argument("--host", action="store_true", help="also check every program on the host (g++ with UBSan)")
    fz.add_argument("--host-builds", default="host-O0", help="host builds for those checks (host-O0,host-O2)")
    fz.add_argument("--invalid", type=options.count, metavar="N", help="instead: inject one violation of an oracle "
                    "rule into N generated programs per (rule, context) and judge nvcc's answer at the violation's "
                    "line")
    fz.add_argument("--max-programs", type=options.count, help="stop after this many programs")
    fz.add_argument("--programs", type=lambda t: [int(x) for x in t.split(",")], metavar="I,J,...",
                    help="instead of a campaign: confirm, reduce and file these programs of the seed (by index)")
    fz.add_argument("--known", metavar="PATH", help="a findings database (findings.json) whose bugs count as known, or "
                    "a folder: every database and campaign's findings under it, such as benchmarks/findings (the "
                    "bugs this project published); read, never written")
    fz.add_argument("--no-reduce", action="store_true", help="confirm findings but do not reduce them")
    fz.add_argument("--reduce-budget", type=options.checked(_fuzz_time), default="5m",
                    help="time for confirming and reducing findings")
    fz.add_argument("--reduce", metavar="FILE", help="instead: reduce a source file of your own, line by line, to the "
                    "smallest that one of --builds crashes on the same way, or whose program (exit 0: right) some "
                    "builds get right and others wrong (FILE.reduced.cu and, for wrong code, FILE.reduced.md "
                    "beside it, and its finding in FILE.finding/ or --out)")
    fz.add_argument("--releases", type=options.checked(_release_range), metavar="LOW..HIGH", help="then: where "
                    "each finding of the campaign appears and disappears over every nvcc release in the range "
                    "(installed like toolchain add): after the campaign (or --programs, or --reduce FILE), as part of "
                    "its triage; alone, for a campaign (or a FILE.finding/ folder) that has ended")
    fz.add_argument("--builds-to", metavar="DIR", help="with --releases: build every finding with every release here "
                    "(crashes are judged here) and keep the modules in DIR for a GPU machine")
    fz.add_argument("--builds-from", metavar="DIR", help="with --releases: run the modules kept in DIR (--builds-to) on "
                    "this machine's GPU, installing nothing")
    fz.add_argument("--save", metavar="BUCKET,...", help="instead: keep these confirmed findings of the campaign as "
                    "oracle cases (section fuzz-findings), each with a deviation for the releases in --when")
    fz.add_argument("--when", metavar="CONDITION", help="with --save: the releases where the finding is wrong, e.g. "
                    "'nvcc>=13.0 && nvcc<=13.2' (default: the campaign's nvcc version only)")
    fz.add_argument("--jit-when", metavar="CONDITION", help="with --save: where configs whose PTX the GPU's driver "
                    "JIT-compiles (no SASS for this GPU) were seen wrong too, e.g. 'nvcc==13.0'")
    fz.add_argument("--out", metavar="DIR", help="campaign folder (default reports/fuzz/seed-SEED); "
                    "a campaign there with the same seed is resumed")

    tcp = sub.add_parser("toolchain", help="install and list toolchains")
    tsub = tcp.add_subparsers(dest="toolchain_command", required=True)
    tadd = tsub.add_parser("add", help="install nvidia-cuda-nvcc==VERSION into the cache and register it")
    tadd.add_argument("version")
    tadd.add_argument("--nvrtc", action="store_true", help="install nvidia-cuda-nvrtc==VERSION instead and "
                      "register it as nvrtc-VERSION (NVRTC as the compiler: device-side rules only)")
    tlist = tsub.add_parser("list", help="registered toolchains and the nvcc on PATH")
    tlist.add_argument("--dialects", action="store_true", help="also probe which -std values each honours "
                       "with its host compiler (cached per fingerprint)")

    rec = sub.add_parser("deviations", help="record where a run's toolchain departs from the guide: one "
                         "deviations file per section of its FAILs (for a compiler or release being qualified)")
    rec.add_argument("run", help="run id or folder")
    rec.add_argument("--out", required=True, help="folder to write (oracle/deviations/<name>)")
    rec.add_argument("--when", required=True, help='the toolchain range the files cover: "clang>=22 && clang<23"')
    rec.add_argument("--compiler", choices=["nvcc", "nvrtc", "clang"], default="nvcc")
    rec.add_argument("--seen", required=True, help='what the run was: "clang 22.1.8, CUDA 13.0, 2026-11-26"')

    dif = sub.add_parser("diff", help="compare two runs case by case; exit 1 on regressions")
    dif.add_argument("before", help="run id or folder (or a baseline .json)")
    dif.add_argument("after", help="run id or folder")
    dif.add_argument("--format", choices=["table", "markdown", "json", "sections"], default="table",
                     help="sections: per section, which of the two follows the guide (two compilers, say)")

    his = sub.add_parser("history", help="a support table across toolchains (page and markdown): run one "
                         "profile over several toolchains, or collect existing runs")
    his.add_argument("runs", nargs="*", help="run ids or folders to collect (default: run --profile over "
                     "--nvcc, or over every registered toolchain and the nvcc on PATH)")
    his.add_argument("--nvcc", action="append", default=[], metavar="PATH", help="a toolchain to run (repeatable)")
    his.add_argument("--profile", default="quick", help="matrix profile of the run (default quick)")
    his.add_argument("--rules", action="append", default=[], metavar="PATTERN", help="glob over rule ids")
    his.add_argument("--out", metavar="DIR", help="where history.html and history.md go (default "
                     "reports/history-<time>)")
    his.add_argument("--explain", action="store_true", help="bisect each change between two nvcc releases "
                     "over the releases between them (installing them), and add what it found to history.md")

    bis = sub.add_parser("releases", aliases=["bisect"], help="every release boundary where the selected cases' verdict, outcome, "
                         "phase or diagnostic changed (installs and runs every release in the range)")
    bis.add_argument("pattern", help="glob over rule ids or section keys (as --rules)")
    bis.add_argument("--from", dest="low", type=options.checked(_release), required=True, metavar="VERSION",
                     help="oldest release, e.g. 13.0.48")
    bis.add_argument("--to", dest="high", type=options.checked(_release), required=True, metavar="VERSION",
                     help="newest release, e.g. 13.5.37")
    bis.add_argument("--std", default="c++17", help="-std levels, comma-separated (default c++17)")
    bis.add_argument("--arch", default="sm_90", help="arch targets, comma-separated (default sm_90)")
    bis.add_argument("--flags", default=None, help="an extra flag set")
    bis.add_argument("--out", metavar="DIR", help="the runs' folders (default reports/bisect-<time>)")

    base = sub.add_parser("baseline", help="accepted results to compare nightly runs with")
    bsub = base.add_subparsers(dest="baseline_command", required=True)
    bsave = bsub.add_parser("save", help="save a run's results as a baseline")
    bsave.add_argument("run")
    bsave.add_argument("--out", help="baseline file (default reports/baseline-<toolchain>.json)")

    rep = sub.add_parser("report", help="rewrite a run's summary, JUnit, page and reproducers from its records")
    rep.add_argument("run", help="run id under reports/, or its folder")
    options.add_arguments(rep, "report")

    mer = sub.add_parser("merge", help="join run folders (the shards of one run) into one run folder")
    mer.add_argument("out", help="the merged run folder")
    mer.add_argument("runs", nargs="+", help="run ids or folders")
    options.add_arguments(mer, "report")

    ju = sub.add_parser("junit", help="JUnit XML tools")
    jsub = ju.add_subparsers(dest="junit_command", required=True)
    merge = jsub.add_parser("merge", help="merge JUnit files (per worker or toolchain) into one")
    merge.add_argument("output")
    merge.add_argument("inputs", nargs="+")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    command = {"run": run_command, "rules": rules_command, "generate": generate_command,
               "explore": explore_command, "toolchain": toolchain_command, "diff": diff_command,
               "deviations": deviations_command,
               "baseline": baseline_command, "releases": releases_command, "bisect": releases_command, "history": history_command, "report": report_command, "merge": merge_command,
               "junit": junit_command, "fuzz": fuzz_command}[args.command]
    from suitegen.engine import hook_modules  # noqa: F401 - every hook registered before a command loads the oracle
    try:
        status = command(args)
        sys.stdout.flush()  # here, not at exit, so a closed pipe is caught below
        return status
    except (UsageError, ToolchainError, RunFolderBusy) as exc:  # anything else is a bug: its traceback shows
        print(f"suitegen: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (`suitegen rules | head`): stop quietly, as a tool killed by SIGPIPE would.
        # Python's own advice: point stdout at devnull so the flush at exit does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PIPE


def run_command(args) -> int:
    from suitegen.qualification.run import run_command as run
    return run(args)


def fuzz_command(args) -> int:
    from suitegen.campaigns.fuzz import fuzz_command as fuzz
    return fuzz(args)


def explore_command(args) -> int:
    from suitegen.qualification.explore import explore_command as explore
    return explore(args)


def rules_command(args) -> int:
    from suitegen.qualification.session import load_cases
    if args.hooks:
        return hooks_command(args)
    if args.format:
        from suitegen.oracle.fields import reference
        print(reference(), end="")
        return EXIT_OK
    opts = options.from_namespace(args)
    orc, cases = load_cases(opts)
    if args.trace:
        from suitegen.oracle.loader import SEED_EDITION
        from suitegen.oracle.statements import load_statements, negative_rules, trace_table
        ids = [r.id for r in orc.rules]
        found = load_statements(orc.root, orc.sections, ids, negative_rules(orc.rules))
        later = [r.id for r in orc.rules if r.edition != SEED_EDITION]
        print(json.dumps([dataclasses.asdict(s) for s in found], indent=2) if args.json
              else trace_table(found, ids, later))
        return EXIT_OK if all(s.traced for s in found) else EXIT_FAIL
    if args.coverage:
        from suitegen.qualification.coverage import coverage, coverage_table
        rows = coverage(orc, cases, opts.nvcc, opts.profile or "default", opts.matrix)
        print(json.dumps(rows, indent=2) if args.json else coverage_table(rows))
        return EXIT_OK
    by_rule: dict[str, list] = {}
    for c in cases:
        by_rule.setdefault(c.rule.id, []).append(c)
    rows = []
    for rid, cs in by_rule.items():
        r = cs[0].rule
        rows.append({
            "id": rid, "section": r.section, "statement": r.statement, "edition": r.edition,
            "conditions": r.requires.text if r.requires else None, "file": r.source_file,
            "variants": [{"name": c.variant.name, "expect": c.variant.predicate and
                          f"predicate:{c.variant.predicate.name}" or c.variant.expectation.expect.value,
                          "conditions": c.variant.requires.text if c.variant.requires else None,
                          "flags": list(c.variant.flags), "mode": c.variant.mode.value} for c in cs],
        })
    if args.json:
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    for row in rows:
        kinds = ", ".join(f"{v['name']}:{v['expect']}" for v in row["variants"])
        print(f"{row['id']}\n    {row['statement']}\n    variants: {kinds}")
    print(f"\n{len(rows)} rules, {len(cases)} variants, {len({r['section'] for r in rows})} sections")
    return EXIT_OK


def hooks_command(args) -> int:
    from suitegen import hooks
    rows = hooks.describe()
    if args.json:
        print(json.dumps([dict(zip(("kind", "name", "doc", "module"), r)) for r in rows], indent=2))
        return EXIT_OK
    kind = None
    for k, name, doc, module in rows:
        if k != kind:
            kind = k
            print(f"{hooks.PLURALS[k]}:")
        print(f"  {name:<36} {doc}  ({module})")
    return EXIT_OK


def generate_command(args) -> int:
    import time

    from suitegen.compilers.backends import command
    from suitegen.cases.compose import DEFAULT_SEED, corpus
    from suitegen.cases.corpus import write_corpus
    from suitegen.qualification.session import configs_for, load_rules
    from suitegen.model import Toolchain
    start = time.monotonic()
    opts = options.from_namespace(args)
    _, rules, renderer = load_rules(opts)
    seed = DEFAULT_SEED if args.seed is None else args.seed
    cases = corpus(renderer, rules, seed=seed, count=args.count)
    # The manifest's commands name plain 'nvcc': a corpus is not tied to one toolchain.
    tc = Toolchain(nvcc="nvcc", version=(0,), version_text="", host_compiler="", host_version="",
                   fingerprint="any")
    configs = configs_for([tc], options.resolve_profile(opts), check=False)
    out = Path(args.out)
    write_corpus(cases, out, configs, command_for=command,
                 extra={"suitegen": __version__, "seed": seed, "count": args.count, "rules": list(opts.rules)})
    drawn = len(cases) - sum(len(r.variants) for r in rules)
    print(f"wrote {len(cases)} cases ({drawn} drawn, seed {seed}) to {out} in {time.monotonic() - start:.1f}s")
    return EXIT_OK


def report_command(args) -> int:
    from suitegen.oracle import loader as oracle
    from suitegen.report.outputs import publish
    from suitegen.report.run_folder import find_run
    from suitegen.report.summary import table
    folder = find_run(args.run)
    summary = publish(folder, oracle.load(args.oracle).sections)
    print(table(summary))
    print(f"\nwrote {folder}/summary.json, summary.md, junit.xml, index.html and repro/")
    return EXIT_OK


def merge_command(args) -> int:
    from suitegen.oracle import loader as oracle
    from suitegen.report.outputs import publish
    from suitegen.report.run_folder import find_run, merge
    from suitegen.report.summary import table
    folder = merge([find_run(r) for r in args.runs], Path(args.out))
    summary = publish(folder, oracle.load(args.oracle).sections)
    print(table(summary))
    print(f"\nmerged {len(args.runs)} runs into {folder}: {summary['results']} results")
    return EXIT_FAIL if summary["failed"] else EXIT_OK


def toolchain_command(args) -> int:
    from suitegen.compilers import registry, toolchain
    if args.toolchain_command == "add":
        entry = registry.add_nvrtc(args.version) if args.nvrtc else registry.add(args.version)
        what = "NVRTC" if args.nvrtc else "nvcc"
        print(f"{entry['name']}: {what} {entry['version']} at {entry['nvcc']} (fingerprint {entry['fingerprint']})")
        return EXIT_OK
    rows = []
    try:
        (path,) = toolchain.discover([])
        t = toolchain.probe(path)
        rows.append((f"{t.label} (default)", t.version_str, t.fingerprint, t.nvcc))
    except toolchain.ToolchainError as exc:
        rows.append(("(default)", "-", "-", str(exc)))
    for name, e in sorted(registry.load_registry().items()):
        rows.append((name, e["version"], e["fingerprint"], e["nvcc"]))
    for row in rows:
        print("  ".join(str(c) for c in row))
        if args.dialects and row[2] != "-":
            print("    " + _dialects(row[3]))
    return EXIT_OK


def _honoured(nvcc: str) -> dict[str, str | None]:
    """Return -std level -> None where the toolchain honours it with its host compiler, else why not; an
    nvcc that is gone (a run collected from elsewhere) says so."""
    from suitegen.compilers import observe, toolchain
    try:
        return {std.value: why for std, why in observe.honoured_stds(toolchain.probe(nvcc)).items()}
    except toolchain.ToolchainError as exc:
        return {"?": f"not probed: {exc}"}


def _dialects(nvcc: str) -> str:
    """Return which -std values a toolchain honours with its host compiler, one word each."""
    return "  ".join(f"{std}: " + ("honoured" if why is None else f"no ({why})") for std, why in _honoured(nvcc).items())


def load_results(name: str) -> tuple[list[Record], str]:
    """Return the records of a run (id or folder), and its name."""
    from suitegen.report.run_folder import RESULTS, find_run, read_records
    folder = find_run(name)
    return list(read_records(folder / RESULTS)), folder.name


def _compared(name: str) -> tuple[list, str]:
    """Return what a diff compares: a run's records (id or folder) or a baseline file's entries, and a label."""
    from suitegen.report import diff
    path = Path(name)
    if path.is_file() and path.suffix == ".json":
        return diff.read_baseline(path), path.name
    return load_results(name)


def deviations_command(args) -> int:
    from suitegen.qualification import record
    from suitegen.oracle import conditions
    conditions.parse(args.when)  # a typo fails here, not when the oracle loads
    records, label = load_results(args.run)
    written = record.write(records, Path(args.out), args.compiler, args.when, args.seen)
    fails = sum(r.verdict is Verdict.FAIL for r in records)
    print(f"{fails} FAIL records of {label}: {len(written)} deviations files in {args.out}")
    return EXIT_OK


def diff_command(args) -> int:
    from suitegen.report import diff
    before, a = _compared(args.before)
    after, b = _compared(args.after)
    d = diff.compare(before, after)
    render = {"table": diff.as_table, "markdown": diff.as_markdown, "json": diff.as_json,
              "sections": diff.as_sections}[args.format]
    print(render(d, a, b))
    return EXIT_FAIL if d.regressions else EXIT_OK


def history_command(args) -> int:
    """Collect the given runs (or run the profile over the toolchains) and write the support table."""
    from suitegen import resources
    from suitegen.compilers.registry import load_registry
    from suitegen.qualification.run import RunSpec, run
    from suitegen.oracle.loader import load
    from suitegen.report import history
    from suitegen.report.run_folder import new_run_id
    out = Path(args.out or resources.REPORTS / f"history-{new_run_id()}")
    runs = list(args.runs)
    if not runs:
        nvccs = args.nvcc or ["nvcc", *sorted(load_registry())]
        spec = RunSpec(options=options.RunOptions(nvcc=tuple(nvccs), profile=args.profile, rules=tuple(args.rules)),
                       out=str(out / "run"), quiet=True)
        print(f"suitegen history: running profile {args.profile} over {', '.join(nvccs)}", file=sys.stderr)
        if run(spec) not in (EXIT_OK, EXIT_FAIL):
            return EXIT_USAGE
        runs = [str(out / "run")]
    records = [r for name in runs for r in load_results(name)[0]]
    table = history.build(records, list(load().sections))
    history.dialects(table, records, _honoured)
    out.mkdir(parents=True, exist_ok=True)
    (out / "history.html").write_text(history.render_page(table))
    explained = _explain(table, out / "bisect") if args.explain else ""
    (out / "history.md").write_text(history.render_markdown(table) + explained)
    print(f"{len(table.columns)} toolchains, {sum(1 for r in table.rows if r.rule)} rules, "
          f"{len(table.changes())} changes between neighbouring versions (and NVRTC against nvcc of its release): "
          f"{out / 'history.html'}, "
          f"{out / 'history.md'}")
    return EXIT_OK


def releases_command(args) -> int:
    """Run the selected cases on every release in the range and print each change at its boundary."""
    from suitegen import resources
    from suitegen.report.run_folder import new_run_id
    out = Path(args.out or resources.REPORTS / f"bisect-{new_run_id()}")
    print(_bisect(args.pattern, args.low, args.high, args.std, args.arch, args.flags, out))
    return EXIT_OK


def _bisect(pattern: str, low: str, high: str, std: str, arch: str, flags: str | None, out: Path) -> str:
    """Run the selected cases on every release from ``low`` to ``high``; return the report of its boundaries."""
    from suitegen.history.releases import bisect
    from suitegen.qualification.run import RunSpec, run

    def run_release(name: str, folder: Path) -> list[Record]:
        opts = options.RunOptions(nvcc=(name,), rules=(pattern,), std=(std,), arch=(arch,),
                                  flags=(flags,) if flags else ())
        print(f"suitegen releases: running {name}", file=sys.stderr)
        if run(RunSpec(options=opts, out=str(folder), quiet=True)) not in (EXIT_OK, EXIT_FAIL):
            raise ToolchainError(f"the run with {name} did not finish (see {folder})")
        return load_results(str(folder))[0]

    versions, found, items = bisect(low, high, run_release, out)
    lines = [f"{len(versions)} releases from {versions[0]} to {versions[-1]} ({', '.join(versions)}), "
             f"{items} items each; runs in {out}"]
    if not found:
        lines.append(f"nothing changed in the range: every item has the same verdict, outcome, phase, first "
                     f"diagnostic and run status on all {len(versions)} releases")
    return "\n".join([*lines, *(b.describe() for b in found)])


def _explain(table, out: Path) -> str:
    """Bisect each change between two nvcc releases of a history over the releases between them, with the
    dialects and targets its records used; return the markdown section (also printed)."""
    from suitegen.report import history
    parts = ["", "## Changes explained by bisect", ""]
    for row, a, b in table.changes():
        low, high = table.columns[a][1], table.columns[b][1]
        if low == high or history.is_nvrtc(table.columns[a]) or history.is_nvrtc(table.columns[b]):
            continue  # two compilers of one release (nvcc and NVRTC): nothing between them to bisect
        records = [r for c in (row.cells[a], row.cells[b]) for r in c.records]
        std = ",".join(sorted({r.config.std for r in records}))
        arch = ",".join(sorted({r.config.arch for r in records}))
        report = _bisect(row.rule, low, high, std, arch, None, out / row.rule.replace("/", "_"))
        print(report)
        parts += [f"### `{row.rule}`: {low} -> {high}", "", "```", report, "```", ""]
    return "\n".join(parts if len(parts) > 3 else [*parts, "No change between two nvcc releases."]) + "\n"


def baseline_command(args) -> int:
    from suitegen import resources
    from suitegen.report import diff
    records, label = load_results(args.run)
    tcs = sorted({r.config.toolchain for r in records})
    out = Path(args.out or resources.REPORTS / f"baseline-{'+'.join(tcs) or 'empty'}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"run": label, "toolchains": tcs, "results": diff.baseline_records(records)},
                              indent=1) + "\n")
    print(f"baseline of {label} ({len(records)} results) saved to {out}")
    return EXIT_OK


def junit_command(args) -> int:
    from suitegen.report.junit_xml import counts, merge
    xml = merge(args.inputs, args.output)
    c = counts(xml)
    print(f"{args.output}: {c['tests']} tests, {c['failures']} failures, {c['errors']} errors, "
          f"{c['skipped']} skipped")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
