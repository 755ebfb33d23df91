"""Campaigns: ``suitegen fuzz``, the open-ended search with generated programs (``fuzz``), the triage of what it
finds (confirm, reduce, blame, file: ``triage``), its invalid programs (``invalid``) and the findings kept as oracle
cases (``regression``). A qualification run's wrong generated programs go through the same triage."""
