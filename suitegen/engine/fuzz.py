"""``suitegen fuzz``: campaigns of generated programs with known results, built several ways and checked.

A campaign draws programs (``synth``), many per source file, builds each file under every build
config (``build.modules``), runs the modules on the GPU (``execute.fatbin``'s workers) and the
per-thread bodies on the host (``execute.host_check``), and compares every output with the model.
A program whose outputs differ anywhere is confirmed alone, reduced (``synth.reduce``, many
candidates per build), given a stage by the configs it fails under (``triage``), and kept in the
findings database, where a known bug is counted rather than reported again. State is saved after
every file, so a stopped campaign resumes where it stopped.
"""
from __future__ import annotations

import concurrent.futures as cf
import json
import os
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from suitegen.compilers import modules
from suitegen.compilers.modules import DeviceBuild
from suitegen.engine import triage
from suitegen.engine.scheduler import Scheduler
from suitegen.execute import host_check
from suitegen.model import FROZEN, Toolchain, UsageError
from suitegen.synth import emit, ir, populate, reduce

BUILDS = {
    "default": DeviceBuild(name="default"),
    "ptxas-O0": DeviceBuild(name="ptxas-O0", flags=("-Xptxas", "-O0")),
    "cicc-O0": DeviceBuild(name="cicc-O0", flags=("-Xcicc", "-O0")),
    "debug": DeviceBuild(name="debug", flags=("-G",)),
    "maxrreg": DeviceBuild(name="maxrreg", flags=("-maxrregcount=24",)),
    "ptx-jit": DeviceBuild(name="ptx-jit", output="ptx", arch="sm_80"),
}
DEFAULT_BUILDS = ("default", "ptxas-O0", "cicc-O0")


@dataclass(**FROZEN)
class Options:
    """What a campaign does."""

    seed: str
    budget: float  # seconds of generating and checking (reduction of what it finds comes after)
    out: Path
    builds: tuple[str, ...] = DEFAULT_BUILDS
    policy: str | None = None  # None: each program draws a policy
    per_file: int = 32
    jobs: int = os.cpu_count() or 2
    host: bool = False  # also check every body on the host (always on without a GPU)
    host_builds: tuple[str, ...] = ("host-O0",)
    arch: str = "sm_90"
    reduce: bool = True
    reduce_budget: float = 300.0
    max_programs: int | None = None
    use_cache: bool = True


@dataclass
class Tally:
    """Counts a campaign shows while it runs and keeps in its state file."""

    generated: int = 0
    built: int = 0
    ran: int = 0
    host_checked: int = 0
    wrong: int = 0
    build_failures: int = 0
    files: int = 0
    seconds: float = 0.0


def generate_file(seed: str, start: int, count: int, policy: str | None) -> tuple[list, list]:
    """Return programs ``start .. start+count`` of a campaign and their expected buffers (a pool task)."""
    progs, exp = [], []
    for i in range(start, start + count):
        p = populate.generate(seed, i, policy)
        progs.append(p)
        exp.append(reduce.expected(p))
    return progs, exp


@dataclass(**FROZEN)
class ProgramFile:
    """One source file of a campaign's programs and their expected buffers: what a check builds and runs."""

    index: int
    programs: list
    expected: list

    def __str__(self) -> str:
        return f"file {self.index} ({len(self.programs)} programs from {self.programs[0].name})"


def launches(programs) -> list[tuple[str, int, int, int]]:
    return [(f"sg_k_{p.name}", p.blocks, p.threads, emit.cells(p)) for p in programs]


class Campaign:
    """One fuzz campaign: its options, toolchain, GPU runner, findings so far and state on disk."""

    def __init__(self, toolchain: Toolchain, opts: Options, runner=None, say: Callable[[str], None] = print):
        self.tc, self.opts, self.runner, self.say = toolchain, opts, runner, say
        self.builds = [replace(BUILDS[b], arch=opts.arch if BUILDS[b].output == "cubin" else BUILDS[b].arch)
                       for b in opts.builds]
        self.tally = Tally()
        self.lock = threading.Lock()
        self.suspects: list[dict] = []
        self.state_path = opts.out / "campaign.json"
        self.results_path = opts.out / "programs.jsonl"
        self.next_file = 0
        self.scratch = Path(tempfile.mkdtemp(prefix="sg-fuzz-"))
        self.pool = cf.ThreadPoolExecutor(max_workers=max(1, opts.jobs))  # reductions' builds and runs

    # ---- state
    def load_state(self) -> bool:
        """Resume from the state file if there is one for this seed; return whether there was."""
        try:
            data = json.loads(self.state_path.read_text())
        except (OSError, ValueError):
            return False
        if data.get("seed") != self.opts.seed or data.get("per_file") != self.opts.per_file:
            raise UsageError(f"{self.state_path} is a campaign with seed {data.get('seed')!r} and "
                             f"{data.get('per_file')} programs per file; use another --out")
        self.next_file = data["next_file"]
        self.tally = Tally(**data["tally"])
        self.suspects = data.get("suspects", [])
        return True

    def state(self) -> dict:
        """Return what the state file holds (and the report page shows)."""
        return {"seed": self.opts.seed, "per_file": self.opts.per_file, "next_file": self.next_file,
                "policy": self.opts.policy, "builds": list(self.opts.builds), "toolchain": self.tc.version_str,
                "tally": dict(self.tally.__dict__), "suspects": self.suspects}

    def save_state(self) -> None:
        tmp = self.state_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.state(), indent=1))
        os.replace(tmp, self.state_path)

    # ---- one file of programs
    def check_file(self, index: int, programs: list, expected: list) -> list[dict]:
        """Build one file of programs every way, run it, and return one record per program."""
        folder = self.scratch / f"f{index}"
        source = emit.source(programs)
        records = [{"index": int(p.name[1:]), "seed": self.opts.seed, "policy": p.policy, "tags": list(p.tags),
                    "builds": {}, "host": {}} for p in programs]
        for build in self.builds:
            for r, status in zip(records, self.build_and_run(build, programs, expected, folder, index, source)):
                r["builds"][build.name] = status
        if self.opts.host or self.runner is None:
            for name in self.opts.host_builds:
                run = host_check.run(emit.host_check(programs, expected), folder, f"host-{index}",
                                     host_check.HOST_BUILDS[name])
                for r, p in zip(records, programs):
                    r["host"][name] = triage.host_status(run, p)
                    if r["host"][name] == "undefined":
                        r["undefined"] = list(run.undefined[:5])
                if not run.ok and not run.undefined and not run.wrong:
                    for r in records:
                        r["host"][name] = "no-build"
                        r["host_log"] = run.log[-1000:]
        with self.lock:
            self.tally.files += 1
            self.tally.built += len(programs)
            if self.runner is not None:
                self.tally.ran += len(programs)
            if self.opts.host or self.runner is None:
                self.tally.host_checked += len(programs)
        return records

    def build_and_run(self, build: DeviceBuild, programs: list, expected: list, folder: Path, index: int,
                      source: str | None = None) -> list[str]:
        """Return each program's status under one build. A file the compiler crashes on is split in halves
        and built again, so one crashing program costs only itself."""
        source = source if source is not None else emit.source(programs)
        built = modules.build_module(self.tc, build, source, folder, timeout=600, use_cache=self.opts.use_cache)
        if built.ok:
            return self.run_module(built.module, programs, expected) if self.runner is not None else ["built"] * len(programs)
        if len(programs) == 1:
            self._note_build_failure(index, build, built, programs[0])
            return ["crashed" if built.crashed else "no-module"]
        half = len(programs) // 2
        return (self.build_and_run(build, programs[:half], expected[:half], folder / "a", index)
                + self.build_and_run(build, programs[half:], expected[half:], folder / "b", index))

    def run_module(self, module: Path, programs: list, expected: list) -> list[str]:
        """Return each program's status in one module: ok, wrong, or the fault that stopped it."""
        result, outs = self.runner.cells(module, launches(programs))
        if outs is None and len(programs) > 1:  # a fault: run each program alone to find whose it was
            return [s for p, e in zip(programs, expected) for s in self.run_module(module, [p], [e])]
        if outs is None:
            return [f"run-{result.status.value}: {result.detail}"[:300]]
        return ["ok" if got == want else "wrong" for got, want in zip(outs, expected)]

    def _note_build_failure(self, index: int, build: DeviceBuild, built, program: ir.Program) -> None:
        with self.lock:
            self.tally.build_failures += 1
            self.suspects.append({"kind": "crash" if built.crashed else "build", "file": index,
                                  "index": int(program.name[1:]), "build": build.name, "log": built.log[-2000:],
                                  "argv": list(built.argv)})

    # ---- the campaign
    def run(self) -> int:
        """Run until the budget (or ``max_programs``) is spent; return how many programs were checked."""
        o = self.opts
        o.out.mkdir(parents=True, exist_ok=True)
        resumed = self.load_state()
        if resumed:
            self.say(f"fuzz: resuming seed {o.seed!r} at program {self.next_file * o.per_file}")
        start = time.monotonic()
        base_seconds = self.tally.seconds
        deadline = start + o.budget
        done_files: dict[int, list] = {}
        gen_pool = cf.ProcessPoolExecutor(max_workers=max(1, o.jobs // 2))  # the producer of files to check
        checks = Scheduler(lambda f: self.check_file(f.index, f.programs, f.expected), jobs=o.jobs,
                           key=lambda f: f.index)
        gens: dict[int, cf.Future] = {}
        last = 0.0
        try:
            def wanted(i: int) -> bool:
                return o.max_programs is None or i * o.per_file < o.max_programs

            nxt = self.next_file
            while True:
                now = time.monotonic()
                while len(gens) < o.jobs and now < deadline and wanted(nxt):
                    count = o.per_file if o.max_programs is None else min(o.per_file, o.max_programs - nxt * o.per_file)
                    gens[nxt] = gen_pool.submit(generate_file, o.seed, nxt * o.per_file, count, o.policy)
                    nxt += 1
                for i in sorted(gens):
                    if gens[i].done() and len(checks) < o.jobs:
                        progs, exp = gens.pop(i).result()
                        with self.lock:
                            self.tally.generated += len(progs)
                        checks.add(ProgramFile(index=i, programs=progs, expected=exp))
                if not checks and not gens:
                    break
                if checks:
                    checked = checks.poll(timeout=1.0)
                    if checked is not None:
                        done_files[checked.unit.index] = checked.result
                else:
                    cf.wait(list(gens.values()), timeout=1.0, return_when=cf.FIRST_COMPLETED)
                while self.next_file in done_files:  # records and state advance in file order
                    self._record(done_files.pop(self.next_file))
                    self.next_file += 1
                    self.tally.seconds = base_seconds + time.monotonic() - start
                    self.save_state()
                if time.monotonic() - last > 5:
                    last = time.monotonic()
                    self.say(self.progress(time.monotonic() - start))
                if time.monotonic() > deadline:
                    for f in gens.values():
                        f.cancel()
                    gens = {i: f for i, f in gens.items() if not f.cancelled()}
        finally:
            gen_pool.shutdown(cancel_futures=True)
            checks.stop()
        self.tally.seconds = base_seconds + time.monotonic() - start
        self.save_state()
        self.say(self.progress(time.monotonic() - start))
        return self.tally.generated

    def progress(self, elapsed: float) -> str:
        t = self.tally
        rate = t.built / elapsed if elapsed else 0.0
        return (f"fuzz: {t.generated} generated, {t.built} built x{len(self.builds)}, {t.ran} run on the GPU, "
                f"{t.host_checked} checked on the host ({rate:.1f} programs/s); {t.wrong} wrong, "
                f"{t.build_failures} build failures")

    def _record(self, records: list[dict]) -> None:
        with open(self.results_path, "a") as fh:
            for r in records:
                fh.write(json.dumps(r) + "\n")
                bad = [b for b, s in r["builds"].items() if s == "wrong" or s.startswith("run-")] + \
                      [h for h, s in r["host"].items() if s in ("wrong", "undefined")]
                if bad:
                    self.tally.wrong += 1
                    self.suspects.append({"kind": "wrong", "index": r["index"], "policy": r["policy"],
                                          "bad": bad, "builds": r["builds"], "host": r["host"]})

    # ---- after the budget: what was found
    def investigate(self, per_signature: int = 3) -> list[dict]:
        """Confirm and reduce what went wrong (wrong code first, a few per signature; one crash per build),
        file it, and return the findings."""
        deadline = time.monotonic() + self.opts.reduce_budget
        seen: Counter = Counter()
        chosen, findings = [], []
        for s in sorted(self.suspects, key=lambda s: {"wrong": 0, "crash": 1}.get(s["kind"], 2)):
            sig = (s["kind"], tuple(sorted(s["bad"])) if s["kind"] == "wrong" else s["build"])
            seen[sig] += 1
            if s["kind"] == "build":
                findings.append(s)  # a valid program nvcc refused: a finding as it stands (its log says why)
            elif seen[sig] <= (per_signature if s["kind"] == "wrong" else 1):
                chosen.append(s)
        with Scheduler(lambda s: self._investigate_one(s[1], deadline), jobs=min(4, len(chosen))) as pool:
            pool.add(*enumerate(chosen))  # numbered, so findings keep the suspects' order
            findings += [f.result for f in sorted(pool, key=lambda f: f.unit[0]) if f.result is not None]
        for (kind, sig), n in seen.items():
            limit = per_signature if kind == "wrong" else 1
            if kind != "build" and n > limit:
                findings.append({"kind": "repeat", "failing": list(sig) if kind == "wrong" else [sig],
                                 "count": n - limit, "of": kind})
        filed = triage.file_findings(self.opts.out.parent / "findings.json",
                                     [f for f in findings if f["kind"] in ("wrong-code", "crash")], self.opts.seed)
        return filed + [f for f in findings if f["kind"] not in ("wrong-code", "crash")]

    def _investigate_one(self, s: dict, deadline: float) -> dict | None:
        """Investigate one suspect; its finding is appended to ``investigated.jsonl`` as soon as it is known,
        and a harness error becomes a finding of kind ``error`` (never a lost result)."""
        if time.monotonic() > deadline or "index" not in s:
            return None
        try:
            if s["kind"] == "crash":
                self.say(f"fuzz: reducing the {s['build']} crash of program {s['index']}")
                found = triage.investigate_crash(self, s, deadline)
            else:
                self.say(f"fuzz: confirming and reducing program {s['index']} (wrong under {', '.join(s['bad'])})")
                found = triage.investigate(self, s, deadline)
        except Exception as exc:  # noqa: BLE001 - one suspect's harness error must not lose the others
            import traceback
            found = dict(s, kind="error", error=f"{type(exc).__name__}: {exc}", trace=traceback.format_exc()[-3000:])
        if found is not None:
            with self.lock, open(self.opts.out / "investigated.jsonl", "a") as fh:
                fh.write(json.dumps(found) + "\n")
        return found

def parse_budget(text: str) -> float:
    """Return seconds for a budget such as ``90``, ``90s``, ``10m`` or ``1h``."""
    text = text.strip().lower()
    scale = {"s": 1, "m": 60, "h": 3600}.get(text[-1:], None)
    try:
        return float(text[:-1]) * scale if scale else float(text)
    except ValueError:
        raise UsageError(f"--budget {text!r}: expected seconds, or a number with s, m or h") from None


def fuzz_command(args) -> int:
    """``suitegen fuzz``: run (or resume) a campaign, then confirm, reduce and file what it found."""
    from suitegen.compilers import registry, toolchain
    from suitegen.execute.gpus import GpuPool, detect_gpu
    from suitegen.report import fuzz_page
    from suitegen.synth.policies import POLICIES
    if args.invalid:
        return invalid_command(args)
    if args.releases:
        return releases_command(args)
    if args.save:
        return save_command(args)
    if args.policy and args.policy not in POLICIES:
        raise UsageError(f"--policy {args.policy!r}: known policies are {', '.join(sorted(POLICIES))}")
    builds = tuple(b for b in args.builds.split(",") if b)
    unknown = [b for b in builds if b not in BUILDS]
    if unknown:
        raise UsageError(f"--builds: unknown {', '.join(unknown)} (known: {', '.join(BUILDS)})")
    tc = toolchain.probe(registry.resolve(args.nvcc or (toolchain.discover() or ["nvcc"])[0]))
    for b in builds:  # NVRTC has no option for some builds: say so before the campaign starts
        BUILDS[b].argv(tc, "fuzz.cu", "fuzz.out")
    out = Path(args.out or Path("reports") / "fuzz" / f"seed-{args.seed}")
    runner = None
    if not args.no_gpu:
        gpu = detect_gpu()
        if gpu.available:
            try:
                import cupy  # noqa: F401
                from suitegen.execute.fatbin import FatbinRunner
                runner = FatbinRunner(GpuPool(os.environ.get("CUDA_VISIBLE_DEVICES"), gpu.devices), 120.0)
                print(f"fuzz: running programs on {gpu.devices[0]}")
            except ImportError:
                print("fuzz: a GPU is here but cupy is not importable (pip install -e '.[gpu]'): host checks only")
        else:
            print(f"fuzz: no GPU ({gpu.reason}): programs are checked on the host against the model, "
                  "and built for compiler crashes")
    hosts = tuple(h for h in args.host_builds.split(",") if h)
    if any(h not in host_check.HOST_BUILDS for h in hosts) or not hosts:
        raise UsageError(f"--host-builds {args.host_builds!r}: known {', '.join(host_check.HOST_BUILDS)}")
    opts = Options(seed=args.seed, host_builds=hosts, budget=parse_budget(args.budget), out=out, builds=builds, policy=args.policy,
                   per_file=args.per_file, jobs=args.jobs or os.cpu_count() or 2,
                   host=args.host, arch=args.arch, reduce=not args.no_reduce,
                   reduce_budget=parse_budget(args.reduce_budget), max_programs=args.max_programs)
    campaign = Campaign(tc, opts, runner)
    try:
        if args.programs:  # no campaign: these programs of the seed are confirmed and reduced now
            out.mkdir(parents=True, exist_ok=True)
            campaign.suspects = [{"kind": "wrong", "index": i, "bad": ["named"]} for i in args.programs]
            findings = campaign.investigate(per_signature=len(args.programs))
        else:
            campaign.run()
            findings = campaign.investigate()
    finally:
        campaign.pool.shutdown(cancel_futures=True)
        if runner is not None:
            runner.close()
    page = fuzz_page.write(out, campaign.state(), findings)
    new = [f for f in findings if f["kind"] in ("wrong-code", "crash", "build") and not f.get("known")]
    print(f"fuzz: {len(findings)} findings ({len(new)} new); report {page}")
    for f in findings:
        if f["kind"] == "wrong-code":
            print(f"  {'known' if f['known'] else 'NEW'} {f['stage']}: wrong under {', '.join(f['failing'])} "
                  f"(program {f['index']}, {f['lines']} lines) -> {out / 'repro' / f['bucket']}")
    return 1 if new else 0


def invalid_command(args) -> int:
    """``suitegen fuzz --invalid N``: violations of oracle rules injected in context, judged by the real nvcc."""
    from suitegen.compilers import registry, toolchain
    from suitegen.engine import invalid
    nvcc = registry.resolve(args.nvcc or (toolchain.discover() or ["nvcc"])[0])
    out = Path(args.out or Path("reports") / "fuzz" / f"invalid-{args.seed}")
    out.mkdir(parents=True, exist_ok=True)
    results = invalid.campaign([args.seed], per_cell=args.invalid, nvcc=nvcc, jobs=args.jobs or None)
    summary = invalid.summary(results)
    (out / "invalid.md").write_text(invalid.table(results))
    (out / "invalid.json").write_text(json.dumps(summary, indent=1, default=str))
    passed = sum(r.outcome.verdict == "PASS" for r in results)
    print(invalid.table(results))
    print(f"fuzz --invalid: {len(results)} programs, {passed} rejected at the violation's line by the rule's phase; "
          f"{len(summary['differs'])} places where nvcc's verdict in context differs from the hand-written case; "
          f"{out / 'invalid.md'}")
    return 1 if summary["differs"] else 0


def save_command(args) -> int:
    """``suitegen fuzz --save BUCKET``: keep a campaign's confirmed findings as oracle cases."""
    import datetime
    from suitegen import resources
    from suitegen.engine import regression
    from suitegen.oracle import loader
    out = Path(args.out or Path("reports") / "fuzz" / f"seed-{args.seed}")
    try:
        findings = {f.get("bucket"): f for f in json.loads((out / "findings.json").read_text())}
    except (OSError, ValueError):
        raise UsageError(f"--save: {out / 'findings.json'} is missing: run the campaign first") from None
    for bucket in args.save.split(","):
        if bucket not in findings:
            raise UsageError(f"--save: no finding {bucket!r} in {out / 'findings.json'} "
                             f"(there: {', '.join(sorted(b for b in findings if b))})")
        f = findings[bucket]
        if not args.when and f.get("bad") != "default":
            raise UsageError(f"--save {bucket}: it is wrong under {f.get('bad')}, not the default build the oracle "
                             "uses: say with --when where the default build is wrong (fuzz --releases finds out)")
        when = args.when or f"nvcc=={f['toolchain']}"
        written = regression.save(f, resources.oracle_root(), resources.templates_root(), when,
                                  datetime.date.today().isoformat(), args.jit_when)
        print(f"fuzz --save: {bucket} kept as rule {loader.FINDINGS_SECTION}/{bucket}, wrong where {when}: "
              + ", ".join(str(p) for p in written))
    loader.load(resources.oracle_root())  # what was written must load
    return 0


def releases_command(args) -> int:
    """``suitegen fuzz --releases LOW..HIGH``: where each finding of a campaign appears and disappears, over
    every nvcc release in the range (installed as ``toolchain add`` does), through ``engine.releases``."""
    from suitegen.compilers import registry, toolchain
    from suitegen.engine import releases as bisect
    from suitegen.execute.gpus import GpuPool, detect_gpu
    low, _, high = args.releases.partition("..")
    out = Path(args.out or Path("reports") / "fuzz" / f"seed-{args.seed}")
    try:
        findings = [f for f in json.loads((out / "findings.json").read_text())
                    if f["kind"] in ("wrong-code", "crash") and f.get("reproducer")]
    except (OSError, ValueError):
        raise UsageError(f"--releases: {out / 'findings.json'} is missing: run the campaign first") from None
    runner, gpu = None, detect_gpu()
    if gpu.available and not args.no_gpu:
        from suitegen.execute.fatbin import FatbinRunner
        runner = FatbinRunner(GpuPool(os.environ.get("CUDA_VISIBLE_DEVICES"), gpu.devices), 120.0)
    elif any(f["kind"] == "wrong-code" for f in findings):
        print("fuzz --releases: no GPU here: wrong-code findings are not checked (crashes are); "
              "benchmarks/release_range.py builds them here and runs them on a GPU machine")
    tc = toolchain.probe(registry.resolve(args.nvcc or (toolchain.discover() or ["nvcc"])[0]))
    campaign = Campaign(tc, Options(seed=args.seed, budget=0, out=out, arch=args.arch), runner)

    def run(name: str, folder: Path) -> list:
        folder.mkdir(parents=True, exist_ok=True)
        return triage.release_records(campaign, toolchain.probe(registry.resolve(name)), findings, folder)
    try:
        versions, changes, judged = bisect.bisect(low, high or low, run, out / "releases")
    finally:
        if runner is not None:
            runner.close()
    text = [f"{judged} findings over {len(versions)} releases ({', '.join(versions)}):"]
    text += [c.describe() for c in changes] or ["no finding changed between these releases"]
    (out / "releases.md").write_text("\n".join(text) + "\n")
    print("\n".join(text))
    return 0
