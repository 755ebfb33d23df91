"""The hook registry: every name the oracle uses resolves, names are unique, the registry imports no stage."""
import re
import subprocess
import sys

import pytest

from suitegen import hooks
from suitegen.engine import hook_modules
from suitegen.model import Std
from suitegen.oracle import conditions, loader

from conftest import REPO


def _used_names() -> dict[str, set[str]]:
    """Return the hook names the real oracle uses, by kind (features: those its conditions name)."""
    orc = loader.load(REPO / "oracle")
    used: dict[str, set[str]] = {k: set() for k in hooks.KINDS}
    texts = []
    for rule in orc.rules:
        texts.append(rule.requires)
        for v in rule.variants:
            texts.append(v.requires)
            refs = [v.predicate, v.check, *v.strategies.values()]
            for ref in filter(None, refs):
                used[ref.kind].add(ref.name)
    for dev in orc.deviations:
        texts.append(dev.when)
        if dev.select:
            used["selector"].add(dev.select.name)
    for cond in texts:
        if cond is not None:
            used["feature"].update(re.findall(r"(?<![\w.+-])has-[a-z0-9+\-_.]*", cond.text))
    return used


def test_every_name_the_oracle_uses_resolves():
    used = _used_names()
    assert used["predicate"] and used["selector"] and used["strategy"] and used["check"] and used["feature"]
    for kind, names in used.items():
        for name in names:
            ref = hooks.resolve(kind, name)
            assert (ref.kind, ref.name) == (kind, name) and callable(ref.fn)


@pytest.mark.parametrize("kind", ["predicate", "selector", "strategy", "check"])
def test_every_registered_hook_is_used_by_the_oracle(kind):
    # Dead hooks are deleted, not kept "in case": a hook nothing names is untested code.
    assert set(hooks.names(kind)) == _used_names()[kind]


def test_feature_probes_are_the_four_and_return_sources():
    assert hooks.names("feature") == ["has-float128", "has-int128", "has-libcudacxx", "has-nvfunctional"]
    for probe in hooks.refs("feature"):
        source = probe()
        assert isinstance(source, str) and source.strip()


def test_known_features_include_every_registered_feature():
    known = conditions.known_features()
    assert set(hooks.names("feature")) <= known
    assert set(conditions.FLAG_FEATURES.values()) <= known
    assert {"linux", "windows", "host-gcc", "gpu", "whole-program"} <= known
    # a condition can name a probed feature; an unknown has-* name fails with the known list
    env = conditions.Env(std=Std.CXX17, arch="sm_90", nvcc=(13, 0), features=frozenset({"has-int128"}))
    assert conditions.parse("has-int128 && !has-float128")(env)
    with pytest.raises(conditions.ConditionError, match="unknown feature 'has-int256'.*has-int128"):
        conditions.parse("has-int256")


def test_unknown_names_and_kinds_are_refused_with_the_known_ones():
    with pytest.raises(hooks.UnknownHook, match=r"unknown predicate 'nope' \(known: \[.*'kernel_parameters_fit'"):
        hooks.resolve("predicate", "nope")
    with pytest.raises(hooks.UnknownHook, match=r"'class_spec' \(did you mean 'class_specs'\? known: \["):
        hooks.resolve("strategy", "class_spec")
    assert hooks.resolve("check", None) is None
    with pytest.raises(ValueError, match="unknown hook kind 'predicates'"):
        hooks.names("predicates")


def test_duplicates_are_refused_naming_both_places():
    reg = hooks.Registry()
    reg.complete()

    def first(params):
        """One."""

    def second(params):
        """Two."""

    reg.register("selector", "same", first)
    reg.register("selector", "same", first)  # the same definition again (a re-import) is no clash
    with pytest.raises(ValueError) as err:
        reg.register("selector", "same", second)
    msg = str(err.value)
    assert "'same' is registered twice" in msg and ".first (" in msg and ".second (" in msg
    assert reg.resolve("selector", "same").fn is first
    # the shared registry refuses a second function under a name it already has, and keeps the first
    before = hooks.resolve("predicate", "kernel_parameters_fit").fn

    def kernel_parameters_fit(params, env):
        """Imposter."""

    with pytest.raises(ValueError, match="registered twice.*suitegen.oracle.definitions.kernel_parameters_fit"):
        hooks.predicate(kernel_parameters_fit)
    assert hooks.resolve("predicate", "kernel_parameters_fit").fn is before


def test_feature_names_must_be_writable_in_conditions():
    with pytest.raises(ValueError, match="cannot be written in a condition"):
        hooks.feature("Has Int128")


def test_describe_lists_all_five_kinds_with_docstrings():
    rows = hooks.describe()
    assert {r.kind for r in rows} == set(hooks.KINDS)
    assert len(rows) == sum(len(hooks.names(k)) for k in hooks.KINDS)
    for row in rows:
        assert row.summary, f"{row.kind} {row.name} has no docstring"
        assert row.module in {m.__name__ for m in hook_modules.MODULES}
    assert ("feature", "has-int128") in {(r.kind, r.name) for r in rows}


def test_the_registry_imports_no_stage_and_waits_to_be_completed():
    # Who registers is decided at the top of the pipeline: hooks.py names no suitegen module, and imports none.
    text = (REPO / "suitegen" / "hooks.py").read_text()
    assert not re.findall(r"suitegen\.\w+", text) and not hasattr(hooks, "HOOK_MODULES")
    code = ("import sys, suitegen.hooks as hooks\n"
            "heavy = [m for m in ('hypothesis', 'jinja2') if m in sys.modules]\n"
            "mine = sorted(m for m in sys.modules if m.startswith('suitegen') and m not in ('suitegen', 'suitegen.hooks'))\n"
            "assert not heavy and not mine, (heavy, mine)\n"
            "try:\n"
            "    hooks.names('predicate')\n"
            "except hooks.Incomplete as exc:\n"
            "    assert 'hooks.complete()' in str(exc), exc\n"
            "else:\n"
            "    raise AssertionError('a lookup before the registry is complete answered')\n"
            "import suitegen.engine.hook_modules\n"
            "assert 'kernel_parameters_fit' in hooks.names('predicate')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
