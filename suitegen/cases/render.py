"""The only jinja2 environment: renders rule variants into cases, and the driver programs.

Templates mark the line under test with ``{{ CHECK }}``; a reject or warn diagnostic must
point at that line, so a rejection is attributed to the rule and not to a stray error.
Driver programs (a batch's dispatcher, the host value checks' ``main``) are the packaged
``templates/drivers/``, whatever ``--templates`` names.
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Iterable

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError

from suitegen import resources
from suitegen.cases import cxx, expressions
from suitegen.model import Case, Expect, Rule, UsageError, Variant

CHECK_MARK = "/* @check */"
DRIVERS = "drivers"  # the folder of driver programs under the packaged templates


class RenderError(UsageError):
    """A template that does not load or render; the message names template, rule and variant."""


def _compiled_templates() -> jinja2.BytecodeCache | None:
    """Return jinja2's cache of compiled templates, beside the other data no toolchain changes: compiling every
    template takes a run 2 s, loading them compiled a tenth of that. jinja2 keys an entry by the template's file and
    serves it only for the same source text, jinja2 and Python; None where the folder cannot be made."""
    folder = resources.data_cache_root() / "templates"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return jinja2.FileSystemBytecodeCache(str(folder))


class Renderer:
    """Renders cases from templates under one root, in jinja2's immutable sandbox: a template reaches no Python
    internals (``cycler.__init__.__globals__``) and changes no value it is given; one that tries is a RenderError."""

    def __init__(self, root: Path | str | None = None):
        self.root = Path(root) if root else resources.templates_root()
        self.env = ImmutableSandboxedEnvironment(
            loader=jinja2.FileSystemLoader(str(self.root)),
            undefined=jinja2.StrictUndefined,
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
            autoescape=False,
            bytecode_cache=_compiled_templates(),
        )
        self.env.globals.update(CHECK=CHECK_MARK, class_decls=cxx.class_decls, c_expr=expressions.to_c,
                                c_literal=expressions.to_c)

    def check_templates(self, rules: Iterable[Rule]) -> None:
        """Load (parse) every template the rules name, raising RenderError on the first bad one."""
        for rule in rules:
            for name in rule.templates.values():
                self._template(name, rule)

    def _template(self, name: str, rule: Rule) -> jinja2.Template:
        try:
            return self.env.get_template(name)
        except jinja2.TemplateNotFound:
            raise RenderError(f"{rule.source_file}: rule {rule.id!r}: template {name!r} not found "
                              f"under {self.root}") from None
        except jinja2.TemplateSyntaxError as exc:
            raise RenderError(f"{self.root / name}:{exc.lineno}: template syntax error: {exc.message} "
                              f"(rule {rule.id!r})") from None

    def render(self, rule: Rule, variant: Variant) -> Case:
        """Render one variant of a rule into a case."""
        files: dict[str, str] = {}
        context = {**variant.params, "variant": variant.name, "rule_id": rule.id}
        for out_name, tmpl_name in rule.templates.items():
            template = self._template(tmpl_name, rule)
            try:
                files[out_name] = template.render(**context)
            except SecurityError as exc:
                raise RenderError(f"{self._raised_in(exc, tmpl_name)}: rule {rule.id!r} variant {variant.name!r}: "
                                  f"refused by the template sandbox: {exc}") from None
            except jinja2.UndefinedError as exc:
                raise RenderError(f"{self.root / tmpl_name}: rule {rule.id!r} variant {variant.name!r}: "
                                  f"{exc.message}") from None
            except Exception as exc:  # a helper raising on bad params is still a template error
                raise RenderError(f"{self.root / tmpl_name}: rule {rule.id!r} variant {variant.name!r}: "
                                  f"{type(exc).__name__}: {exc}") from None
        line = _check_line(files, rule, variant)
        return Case(rule=rule, variant=variant, files=files, violation_line=line)

    def _raised_in(self, exc: BaseException, name: str) -> str:
        """Return the template file ``exc`` was raised in (an included one, say): the last frame of its traceback
        that jinja2 points at a file under the root; else template ``name``'s file."""
        frames, tb = [], exc.__traceback__
        while tb is not None:
            frames.append(tb.tb_frame.f_code.co_filename)
            tb = tb.tb_next
        return next((f for f in reversed(frames) if f.startswith(f"{self.root}/")), str(self.root / name))

    def render_all(self, rules: Iterable[Rule]) -> list[Case]:
        """Render every variant of every rule, in oracle order."""
        return [self.render(rule, v) for rule in rules for v in rule.variants]


def driver(name: str, **context) -> str:
    """Render driver program ``name`` (under ``templates/drivers/``) with ``context``."""
    return _packaged().env.get_template(f"{DRIVERS}/{name}").render(**context)


@functools.cache
def _packaged() -> Renderer:
    return Renderer()


def _check_line(files: dict[str, str], rule: Rule, variant: Variant) -> int | None:
    main = next(iter(files))
    marks = [i + 1 for i, text in enumerate(files[main].splitlines()) if CHECK_MARK in text]
    others = [n for n in list(files)[1:] if CHECK_MARK in files[n]]
    if len(marks) > 1 or others:
        raise RenderError(f"{rule.source_file}: rule {rule.id!r} variant {variant.name!r}: "
                          f"the main file must mark at most one line with {{{{ CHECK }}}} "
                          f"(found {len(marks)} in {main}, and marks in {others or 'no other file'})")
    needs = variant.predicate is not None or variant.expectation.expect in (Expect.REJECT, Expect.WARN, Expect.DIAGNOSE)
    if needs and variant.expectation.check_line and not marks:
        raise RenderError(f"{rule.source_file}: rule {rule.id!r} variant {variant.name!r}: "
                          f"a reject or warn variant must mark its violation with {{{{ CHECK }}}} "
                          f"(or set line = false)")
    return marks[0] if marks else None
