"""The renderer: strict holes, the CHECK mark, reproducible bytes."""
import pytest

from suitegen.cases.render import CHECK_MARK, Renderer, RenderError
from suitegen.oracle import loader as oracle


def test_renders_and_marks_the_line(mini_oracle):
    orc = oracle.load(mini_oracle[0])
    cases = Renderer(mini_oracle[1]).render_all(orc.rules)
    neg = next(c for c in cases if c.variant.name == "neg-device")
    main = neg.files["main.cu"]
    assert "__device__ void f" in main and "long double v = 1;" in main
    assert main.splitlines()[neg.violation_line - 1].count(CHECK_MARK) == 1
    assert neg.violation_line == 2


def test_same_input_same_bytes_and_keys(mini_oracle):
    orc = oracle.load(mini_oracle[0])
    a = Renderer(mini_oracle[1]).render_all(orc.rules)
    b = Renderer(mini_oracle[1]).render_all(oracle.load(mini_oracle[0]).rules)
    assert [dict(c.files) for c in a] == [dict(c.files) for c in b]
    assert [c.key for c in a] == [c.key for c in b]
    assert len({c.key for c in a}) == len(a)


def test_undefined_hole_names_template_rule_and_variant(mini_oracle):
    (mini_oracle[1] / "demo" / "ld.cu.j2").write_text("{{ typ }} v; {{ CHECK }}\n")
    orc = oracle.load(mini_oracle[0])
    with pytest.raises(RenderError) as err:
        Renderer(mini_oracle[1]).render_all(orc.rules)
    msg = str(err.value)
    assert "ld.cu.j2" in msg and "demo/no-long-double" in msg and "'typ' is undefined" in msg


def test_syntax_error_names_template_and_line(mini_oracle):
    (mini_oracle[1] / "demo" / "ld.cu.j2").write_text("ok\n{% if %}\n")
    orc = oracle.load(mini_oracle[0])
    with pytest.raises(RenderError, match=r"ld.cu.j2:2: template syntax error"):
        Renderer(mini_oracle[1]).check_templates(orc.rules)


def test_missing_template(mini_oracle):
    (mini_oracle[1] / "demo" / "ld.cu.j2").unlink()
    orc = oracle.load(mini_oracle[0])
    with pytest.raises(RenderError, match="template 'demo/ld.cu.j2' not found"):
        Renderer(mini_oracle[1]).check_templates(orc.rules)


def test_reject_variant_needs_exactly_one_mark(mini_oracle):
    tpl = mini_oracle[1] / "demo" / "ld.cu.j2"
    tpl.write_text("__{{ fn }}__ void f() { {{ type }} v = 1; }\n")
    orc = oracle.load(mini_oracle[0])
    with pytest.raises(RenderError, match="must mark its violation"):
        Renderer(mini_oracle[1]).render_all(orc.rules)
    tpl.write_text("{{ CHECK }}\n__{{ fn }}__ void f() { {{ type }} v = 1; {{ CHECK }} }\n")
    with pytest.raises(RenderError, match="at most one line"):
        Renderer(mini_oracle[1]).render_all(orc.rules)
