"""The oracle's field table: the loaders' fields, their type checks and docs/oracle-format.md come from it."""
import pytest

from suitegen.oracle import fields, loader

from conftest import REPO


def test_the_format_reference_is_written_from_the_table():
    assert (REPO / "docs" / "oracle-format.md").read_text() == fields.reference(), \
        "regenerate it: suitegen rules --format > docs/oracle-format.md"
    assert loader.RULE_KEYS == fields.keys("rule") and "value" in loader.VARIANT_KEYS


def test_a_mistyped_field_is_refused_with_its_meaning(tmp_path):
    assert fields.mistyped({"line": "no"}, "variant") == ("line", "line is a boolean: whether the diagnostic must "
                                                         "point at the marked line (default true)")
    assert fields.mistyped({"value": True}, "variant")[0] == "value", "a boolean is not an integer"
    assert fields.mistyped({"flags": ["-G"], "expect": "accept"}, "variant") is None
    path = tmp_path / "d.toml"
    path.write_text('when = "nvcc==13.0"\nrange = "13.0"\n')
    with pytest.raises(loader.OracleError, match="unknown field"):
        loader.load_deviations(path, {})
    path.write_text('when = "nvcc==13.0"\n[[deviation]]\nrule = "a/b"\nvariants = "neg-x"\n')
    with pytest.raises(loader.OracleError, match="variants is a list of strings"):
        loader.load_deviations(path, {"a/b": "x"})
