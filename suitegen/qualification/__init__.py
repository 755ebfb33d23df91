"""Qualification: ``suitegen run`` and the pytest plugin. The session loads and probes once and plans the (case,
config) items; ``item`` takes each one through prepare, build, run, judge and record, alone or in units of a kind
(``unit_kinds``); ``facts`` gathers what the judge is given; ``run`` schedules the units, records the results and
triages the run's wrong generated programs (``run_findings``, with the campaigns' triage). Also ``coverage``,
``explore`` (a hypothesis search over rules' variants, through the same route) and ``record`` (a run's deviations)."""
