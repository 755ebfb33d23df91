import pytest

from suitegen.oracle.definitions import (ClassSpec, constructor_is_empty, destructor_is_empty, implicit_member_space,
                                         lambda_execution_space)

C = ClassSpec.from_params


@pytest.mark.parametrize("params, ctor_empty, dtor_empty", [
    ({}, True, True),
    ({"ctor": "defaulted"}, True, True),
    ({"ctor": "empty"}, True, True),
    ({"ctor": "params"}, False, True),  # has a parameter
    ({"ctor": "init-list"}, False, True),  # non-empty initialiser list
    ({"ctor": "body"}, False, True),  # non-empty body
    ({"ctor": "declared"}, False, True),  # not defined
    ({"virtual": True}, False, True),  # the implicit destructor stays trivial, hence empty
    ({"virtual_base": True}, False, True),
    ({"virtual": True, "dtor": "empty"}, False, False),  # a user-provided one is not trivial
    ({"nsdmi": True}, False, True),  # member initialiser affects the constructor only
    ({"base": {"ctor": "body"}}, False, True),
    ({"ctor": "empty", "base": {"ctor": "empty"}}, True, True),
    ({"member": {"ctor": "body"}}, False, True),
    ({"member": {"ctor": "empty"}}, True, True),
    ({"member": {"member": {"ctor": "init-list"}}}, False, True),  # nested members count
    ({"dtor": "empty"}, True, True),
    ({"dtor": "body"}, True, False),
    ({"dtor": "declared"}, True, False),
    ({"base": {"dtor": "body"}}, True, False),
    ({"member": {"dtor": "empty"}}, True, True),
    ({"member": {"dtor": "body"}}, True, False),
])
def test_empty_definitions(params, ctor_empty, dtor_empty):
    spec = C(params)
    assert constructor_is_empty(spec) is ctor_empty
    assert destructor_is_empty(spec) is dtor_empty


def test_label_is_ignored_and_unknown_property_rejected():
    assert C({"label": "x", "ctor": "empty"}) == C({"ctor": "empty"})
    with pytest.raises(ValueError, match="unknown class property"):
        C({"ctr": "empty"})
    with pytest.raises(ValueError, match="ctor must be one of"):
        C({"ctor": "weird"})


@pytest.mark.parametrize("enclosing, space", [
    (None, "__host__"),  # namespace scope
    ("__host__", "__host__"),
    ("__device__", "__device__"),
    ("__host__ __device__", "__host__ __device__"),
    ("__global__", "__device__"),
])
def test_lambda_execution_space(enclosing, space):
    assert lambda_execution_space(enclosing) == space


@pytest.mark.parametrize("callers, space", [
    (["__device__"], "__device__"),  # Derived::Derived in the guide's example
    (["__device__", "__host__"], "__host__ __device__"),  # Other::Other
    (["__global__"], "__device__"),
    (["__host__"], "__host__"),
    ([], "__host__"),
])
def test_implicit_member_space(callers, space):
    assert implicit_member_space(callers) == space
