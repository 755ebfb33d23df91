"""Shared fixtures: fake toolchains for error paths, real nvcc detection for integration tests."""
from __future__ import annotations

import shutil
import stat
import struct
import textwrap
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from suitegen.engine import hook_modules  # noqa: F401 - every hook registered, as the command line and plugin do
from suitegen.qualification import unit_kinds  # noqa: F401 - every unit kind registered, as the run and plugin do
from suitegen.frontends.cli import main

REPO = Path(__file__).resolve().parent.parent
HAVE_NVCC = shutil.which("nvcc") is not None
needs_nvcc = pytest.mark.skipif(not HAVE_NVCC, reason="needs a real nvcc on PATH")
# A pytest session in a subprocess loads the plugin through its entry point: an install (pip install -e .).
PLUGIN_INSTALLED = any(ep.value.startswith("suitegen.") for ep in entry_points(group="pytest11"))


@pytest.fixture
def pytester(pytester):
    """pytest's pytester, for sessions that load the suitegen plugin by its entry point."""
    if not PLUGIN_INSTALLED:
        pytest.skip("the suitegen plugin is not installed here (run from a checkout with PYTHONPATH); "
                    "pip install -e . registers it")
    return pytester

VERSION = """nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2025 NVIDIA Corporation
Cuda compilation tools, release 13.0, V13.0.88
Build cuda_13.0.r13.0/compiler.36424714_0"""


def write_fake_nvcc(folder: Path, body: str, version: str = VERSION, name: str = "nvcc") -> Path:
    """Write an executable fake nvcc: answers --version, then runs ``body`` (bash) for compiles."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/bash\n"
                    f"if [ \"$1\" = \"--version\" ]; then cat <<'EOV'\n{version}\nEOV\nexit 0; fi\n"
                    + textwrap.dedent(body) + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


# Answers suitegen's config probe (nvcc --dryrun -keep -keep-dir DIR ...) like nvcc 13.5 with g++ 12: every dialect
# is honoured but c++23, which is ignored with nvcc's warning. The listing's preprocessor stages run this fake
# again (PROBE_STAGE), which writes the preprocessed probe string of one side. Builds fall through to the fake's
# own body.
PROBE_STAGE = r"""
if [ "$1" = "--sg-preprocess" ]; then
  echo "const char *sg_probe = \"SUITEGEN-PROBE side=$2 cplusplus=$3 arch=$4 end\";" > "$7"
  exit 0
fi
"""
PROBE_ANSWER = PROBE_STAGE + r"""
if [[ " $* " == *" -keep-dir "* ]]; then
  keep=""; std=""; gpu=90
  while [ $# -gt 0 ]; do
    case "$1" in
      -keep-dir) keep="$2"; shift;;
      -std=*) std="${1#-std=}";;
      -arch=*) gpu="${1##*_}";;
    esac
    shift
  done
  case "$std" in
    c++03) v=199711L;; c++11) v=201103L;; c++14) v=201402L;; c++20) v=202002L;;
    c++23) v=201703L; echo "nvcc warning : The -std=c++23 flag is not supported with the configured host compiler. Flag will be ignored.";;
    *) v=201703L;;
  esac
  echo "#\$ _NVVM_BRANCH_=nvvm"
  echo "#\$ \"$0\" --sg-preprocess host $v none -E -o \"$keep/probe.cpp4.ii\""
  echo "#\$ \"$0\" --sg-preprocess device $v ${gpu}0 -E -o \"$keep/probe.cpp1.ii\""
  echo "#\$ fatbinary --create=\"$keep/probe.fatbin\" \"--image3=kind=elf,sm=$gpu,file=a\" \"--image3=kind=ptx,sm=$gpu,file=b\""
  exit 0
fi
"""


# Does what the guide says for the mini oracle: rejects long double in device code, in cudafe++, at its line,
# for a single case (main.cu) and for each member of a batch (batch.cu, members' #line file names).
_FOLLOWS_THE_GUIDE = r'''
case " $* " in *" --dryrun "*|*" --version "*) exit 0;; esac
[ -e main.cu ] || [ -e batch.cu ] && echo "build gpu=${CUDA_VISIBLE_DEVICES:-}" >> "BUILDS"
status=0
for f in main.cu batch.cu; do
  [ -e "$f" ] || continue
  member=""
  while IFS= read -r line; do
    case "$line" in '#line 1 '*) member=$(echo "$line" | cut -d'"' -f2);; esac
    case "$line" in *"long double"*)
      echo '#$ cudafe++ --gen_c_file_name x.cudafe1.cpp x.cpp1.ii'
      echo "${member:-main.cu}(2): error: type long double is not supported in device code"
      status=1;;
    esac
  done < "$f"
done
[ $status = 1 ] && echo '# --error 0x1 --'
[ $status = 0 ] && write_output "$@"
exit $status
'''


def follows_the_guide(builds: Path | str = "/dev/null") -> str:
    """Return the body of a fake nvcc that does what the guide says for the mini oracle, noting each build
    (a line ``build gpu=<its CUDA_VISIBLE_DEVICES>``) in ``builds``."""
    return f"write_output() {{ {WRITES_OUTPUT}\n}}\n" + _FOLLOWS_THE_GUIDE.replace("BUILDS", str(builds))


@pytest.fixture
def fake_nvcc(tmp_path):
    """Return a factory: fake_nvcc(body) -> path of a fake nvcc running ``body`` on compiles (after the probe)."""
    counter = iter(range(1000))

    def make(body: str, version: str = VERSION, probe: bool = True) -> Path:
        # Like a real nvcc, a fake answers suitegen's config probe unless a test is about the probe itself.
        return write_fake_nvcc(tmp_path / f"fake{next(counter)}", (PROBE_ANSWER if probe else "") + body, version)

    return make


@pytest.fixture(scope="session")
def _session_cache(tmp_path_factory, worker_id):
    """One build cache for the whole test session, shared by its xdist workers as a farm's workers share one (a case
    that several tests build, on whichever worker, is built once)."""
    root = tmp_path_factory.getbasetemp()
    folder = (root if worker_id == "master" else root.parent) / "suitegen-cache"
    folder.mkdir(exist_ok=True)
    return folder


def minimal_elf(e_type: int, machine: int = 62, sections: tuple[str, ...] = ()) -> bytes:
    """Return a small ELF64 file (little-endian) of a type and machine with empty sections of these names
    (and its section-name table): what an accepted build's output is checked for, and nothing else."""
    names = ["", *sections, ".shstrtab"]
    table = b"".join(n.encode() + b"\0" for n in names)
    offsets = [sum(len(n) + 1 for n in names[:i]) for i in range(len(names))]
    shoff = 64 + len(table)
    header = (b"\x7fELF\x02\x01\x01" + bytes(9) + struct.pack("<HHIQQQIHHHHHH", e_type, machine, 1, 0, 0, shoff,
                                                                  0, 64, 0, 0, 64, len(names), len(names) - 1))
    shdrs = b"".join(struct.pack("<IIQQQQIIQQ", offsets[i], 3 if names[i] == ".shstrtab" else (1 if i else 0), 0, 0,
                                 64 if names[i] == ".shstrtab" else 0, len(table) if names[i] == ".shstrtab" else 0,
                                 0, 0, 1, 0) for i in range(len(names)))
    return header + table + shdrs


@pytest.fixture(scope="session")
def fake_artifacts(tmp_path_factory) -> Path:
    """Return a folder of outputs a fake nvcc copies (see ``WRITES_OUTPUT``): an object with a device module,
    a program, a fatbin image."""
    folder = tmp_path_factory.mktemp("fake-artifacts")
    (folder / "object.o").write_bytes(minimal_elf(1, sections=(".text", ".nv_fatbin")))
    (folder / "program").write_bytes(minimal_elf(2))
    (folder / "program").chmod(0o755)
    (folder / "module.fatbin").write_bytes(b"\x50\xed\x55\xba" + bytes(60))
    return folder


def plain_config(toolchains, options):
    """The one config of a run's profile that adds no flags (the quick profile's math flag sets aside)."""
    from suitegen.engine.options import resolve_profile
    from suitegen.qualification.session import configs_for
    (config,) = [c for c in configs_for(toolchains, resolve_profile(options)) if not c.flags]
    return config


def batch_of(session, cases, config):
    """Judge cases of one config as one batch, its leftovers built alone (as the pytest plugin does)."""
    from suitegen.qualification.item import Unit, run_all
    return run_all(session, Unit(config=config, cases=tuple(cases)))


@pytest.fixture(autouse=True)
def isolated_cache(monkeypatch, _session_cache, fake_artifacts):
    """Keep feature probes and registries of fake toolchains out of the user's cache (and tell fakes where
    their outputs are: ``WRITES_OUTPUT``)."""
    monkeypatch.setenv("SUITEGEN_CACHE", str(_session_cache))
    monkeypatch.setenv("SUITEGEN_TEST_ARTIFACTS", str(fake_artifacts))


# For a fake nvcc's accepting path: writes the output its command names (-o), of the format asked for, as a
# real nvcc does; an acceptance without its output is not evidence (build.artifacts).
WRITES_OUTPUT = r'''
sg_out=""; sg_prev=""
for sg_arg in "$@"; do [ "$sg_prev" = "-o" ] && sg_out="$sg_arg"; sg_prev="$sg_arg"; done
if [ -n "$sg_out" ]; then
  case " $* " in
    *" -fatbin "*) cp "$SUITEGEN_TEST_ARTIFACTS/module.fatbin" "$sg_out";;
    *" -ptx "*) printf '.version 9.0\n.target sm_75\n' > "$sg_out";;
    *" -c "*) cp "$SUITEGEN_TEST_ARTIFACTS/object.o" "$sg_out";;
    *) cp "$SUITEGEN_TEST_ARTIFACTS/program" "$sg_out";;
  esac
fi
'''


MINI_SECTIONS = '[sections]\ndemo = "A demo section"\n'


# Planted faults: the real nvcc behind a wrapper that edits each .cu source before compiling it.
MULTIPLY_TO_ADD = 's| \\* | + |g'  # every multiplication in the source becomes an addition
DIVISION_TO_MULTIPLY = 's| / | * |g'  # every division becomes a multiplication


def real_nvcc_behind(folder: Path, edit: str = "", flags: str = "") -> Path:
    """Write an nvcc wrapper into ``folder``: it applies the sed script ``edit`` to every .cu argument and runs
    the real nvcc with ``flags`` appended."""
    edits = f'for a in "$@"; do case "$a" in *.cu) sed -i "{edit}" "$a";; esac; done\n' if edit else ""
    nvcc = folder / "nvcc"
    nvcc.write_text(f'#!/bin/sh\n{edits}exec {shutil.which("nvcc")} "$@"{" " + flags if flags else ""}\n')
    nvcc.chmod(0o755)
    return nvcc


def write_demo_oracle(root: Path, rules_toml: str, templates: dict[str, str]) -> tuple[Path, Path]:
    """Write a one-section oracle ('demo') and its templates under ``root``; return (oracle, templates).

    The repo's templates/common (the self-check header) is linked in, so runtime templates can include it.
    """
    orc, tpl = root / "oracle", root / "templates"
    (orc / "deviations").mkdir(parents=True)
    (tpl / "demo").mkdir(parents=True)
    (tpl / "common").symlink_to(REPO / "templates" / "common")
    (orc / "sections.toml").write_text(MINI_SECTIONS)
    (orc / "demo.toml").write_text(textwrap.dedent(rules_toml))
    for name, text in templates.items():
        (tpl / "demo" / name).write_text(textwrap.dedent(text))
    return orc, tpl


@pytest.fixture
def mini_oracle(tmp_path):
    """Return (oracle_dir, templates_dir) holding one small valid section 'demo'."""
    return write_demo_oracle(tmp_path, '''
        section = "demo"

        [[rule]]
        id = "no-long-double"
        statement = "long double may not be used in device code."
        template = "demo/ld.cu.j2"
        phase = "front-end"
        diagnostic = "long double"

          [[rule.variant]]
          name = "pos-{fn}"
          expect = "accept"
          params = { type = "double" }
          matrix = { fn = ["host"] }

          [[rule.variant]]
          name = "neg-{fn}"
          expect = "reject"
          params = { type = "long double" }
          matrix = { fn = ["device", "global"] }
        ''', {"ld.cu.j2": '''\
        __{{ fn }}__ void f(double *out) {
          {{ type }} v = 1; {{ CHECK }}
          *out = (double)v;
        }
        '''})
pytest_plugins = ["pytester"]


EVIL = "</script><img src=x onerror=alert(1)><!--"


@pytest.fixture
def run_folder(fake_nvcc, mini_oracle, tmp_path, capsys):
    """A real run folder made with a fake nvcc that rejects everything at line 2 (so some cases fail)."""
    tpl = mini_oracle[1] / "demo" / "ld.cu.j2"
    tpl.write_text(tpl.read_text() + f"// {EVIL}\n")
    fake = fake_nvcc('echo "#$ cudafe++ --c++17 x"; echo "main.cu(2): error: type long double is not '
                     f'supported {EVIL}"; echo "# --error 0x2 --"; exit 2')
    out = tmp_path / "run"
    code = main(["run", "--nvcc", str(fake), "--oracle", str(mini_oracle[0]), "--templates", str(mini_oracle[1]),
                 "--std", "c++14,c++17", "--arch", "sm_90", "--out", str(out), "-q"])
    capsys.readouterr()
    assert code == 1
    return out


def a_record(**fields):
    """Return a results record with plain defaults (a PASS of demo/r[pos] under c++17, sm_90), ``fields`` in
    their place: for tests of what reads records."""
    from suitegen.model import Record, RecordConfig, Verdict
    config = RecordConfig(toolchain="nvcc-13.0", compiler="nvcc", fingerprint="f" * 16, nvcc="/usr/bin/nvcc",
                          nvcc_version="13.0.88", host_compiler="g++", host_version="g++ 12", std="c++17", arch="sm_90")
    base = dict(case_id="demo/r[pos]", case_key="c" * 16, config_id="c++17,sm_90", config_key="k" * 16,
                rule="demo/r", section="demo", variant="pos", config=config, verdict=Verdict.PASS,
                reason="accepted as expected", started="2026-01-01T00:00:00+00:00")
    return Record(**{**base, **fields})


def pytest_collection_modifyitems(items):
    """Start the slow tests first (``@pytest.mark.slow``), so that a run spread over workers does not end waiting
    on one of them."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
