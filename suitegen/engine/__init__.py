"""What every job shares: the options layer, the run matrix and its profiles, the scheduler of units on threads,
stop signals, progress, the hook modules, and the generated corpus drawn from its seed. The jobs live in rooms of
their own: ``qualification`` (``suitegen run`` and the pytest plugin), ``campaigns`` (``suitegen fuzz``: search,
triage, reduction, findings) and ``history`` (release ranges and bisection)."""
