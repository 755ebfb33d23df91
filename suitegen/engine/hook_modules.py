"""Every module that defines hooks, imported here so that the hook registry is complete.

The registry (``suitegen.hooks``) imports no stage: the top of the pipeline decides who registers. Importing
this module imports each hook module and completes the registry; the session (so every command that loads
the oracle, and the pytest plugin) does it before the oracle loads.
"""
from suitegen import hooks
from suitegen.cases import strategies
from suitegen.compilers import features
from suitegen.execute import checks
from suitegen.oracle import definitions

MODULES = (definitions, strategies, checks, features)
hooks.complete()
