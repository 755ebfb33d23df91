"""Every unit kind with a runner of its own, imported here so that ``item.UNIT_KINDS`` is complete.

A new kind is a module that registers its runner (``item.unit_kind``) and one line here. The run and the pytest
plugin import this module before they form units.
"""
from suitegen.qualification import batch_units, check_units, module_units

MODULES = (batch_units, module_units, check_units)
