import pytest

from suitegen.model import Std
from suitegen.oracle.conditions import ConditionError, Env, flag_features, parse

ENV = Env(std=Std.CXX17, arch="sm_90", nvcc=(13, 0, 88), features=frozenset({"linux", "host-gcc"}))


@pytest.mark.parametrize("text, expected", [
    ("std>=c++17", True),
    ("std>c++17", False),
    ("std<c++14", False),
    ("std==c++17", True),
    ("arch>=sm_90", True),
    ("arch<sm_90", False),
    ("nvcc==13.0", True),
    ("nvcc>=13.2", False),
    ("nvcc<13.1", True),
    ("nvcc==13.0.88", True),
    ("nvcc==13.0.48", False),
    ("linux && host-gcc", True),
    ("windows || host-msvc", False),
    ("!windows", True),
    ("!(linux && !host-gcc)", True),
    ("std>=c++20 || linux && !windows", True),
    ("(std>=c++20 || linux) && windows", False),
])
def test_evaluates(text, expected):
    assert parse(text)(ENV) is expected


def test_std_levels_are_ordered_not_strings():
    # "c++11" < "c++9x" as strings would be wrong; the enum orders by year.
    assert Std.CXX11 < Std.CXX14 < Std.CXX17 < Std.CXX20
    assert parse("std>=c++11")(ENV)


@pytest.mark.parametrize("text, fragment", [
    ("std>=c++17 &&", "expected more"),
    ("wndows", "unknown feature 'wndows'"),
    ("std>=c++99", "unknown -std level"),
    ("linux &&& host-gcc", "cannot read"),
    ("(linux", "expected )"),
    ("host-gcc>=3", "cannot be compared"),
    ("", "empty"),
])
def test_errors_quote_the_expression(text, fragment):
    with pytest.raises(ConditionError) as err:
        parse(text)
    assert fragment in str(err.value)
    if text:
        assert repr(text) in str(err.value)


def test_flag_features():
    assert flag_features(["--extended-lambda"]) == {"extended-lambda", "whole-program"}
    assert flag_features(["-rdc=true"]) == {"rdc"}
    assert flag_features([]) == {"whole-program"}
