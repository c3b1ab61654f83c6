"""certirank.methods: the certified ranking procedures.

- :mod:`certirank.methods.anyrank` -- AnyRank (spec 03): ``Ranker`` (live), ``anyrank`` (replay),
  ``run_campaign`` / ``run_campaigns`` (simulation fast path), ``RankingResult``.
- :mod:`certirank.methods.anyrank.demo` -- prior-file reading and the simulated campaign of ``certirank demo``.
- :mod:`certirank.methods.bbedge` (spec 04) and :mod:`certirank.methods.rposst` (spec 05).

Submodules are imported on use (``certirank.Ranker`` and ``certirank.anyrank`` load them lazily), so importing
this package stays cheap.
"""
