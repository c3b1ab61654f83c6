"""certirank.evidence — anytime-valid evidence for bounded means and paired differences (spec 01).

User-facing API
---------------
- ``compare(x, y, alpha=0.05, bettor=None, ties="allow", *, bins="progress", n_max=None, arms="paired",
  extendable=False)`` -> ``CompareResult`` (``decision`` "x>y" / "x<y" / None, ``pvalue``, ``decided_at``
  (1-based), ``n``, ``test`` (which test), ``horizon`` (trials up to which the guarantee holds; None = for
  ever)). With ``n_max`` and ``bins="binary"`` the exact budget test of spec 08 is used
  (:mod:`certirank.evidence.budget`: ``BudgetTest``, ``BudgetDesign``, ``make_design``, ``budget_batch``); with
  ``arms="independent"`` (up to n_max = 400) its Barnard-type form of both success counts
  (:mod:`certirank.evidence.barnard`: exact level over every nuisance rate, proven between grid points).
- ``PairedTest(alpha=0.05, *, bettor, ties, bins)`` — streaming mirrored comparison: ``update(x, y)``,
  ``update_many(xs, ys)``, ``.pvalue``, ``.log_pvalue``, ``.p_less``, ``.p_more``, ``.log_evalue``
  (log of (E_less + E_more)/2), ``.log_evalue_less/_more``, ``.lam_next``, ``.decision``, ``.decided_at``,
  ``.n``, ``to_state()/from_state()``.
- ``OneSampleTest`` — streaming one-sided test of H0: E[X] <= m for X in [0, 1].
- ``paired_batch(x, y, alpha, *, bettor, ties, bins, trace=False)`` / ``one_sample_batch(z, m, alpha, ...)``
  — many independent streams at once, arrays shaped (runs, time); identical numbers to the streaming
  objects (same engine). Returns ``BatchResult``: ``decision`` (+1 "x<y", -1 "x>y", 0), ``decided_at``
  (0 = never), final ``pvalue``/``p_less``/``p_more``/``log_wealth``, ``crossed_at`` (runs, 2) one-sided
  rejection times, optional traces.
- ``paired_to_unit(x, y, tau)`` -> (Z, m) for the margin null E[y - x] <= tau (feed ``OneSampleTest``).
- ``oracle_kelly(...)`` — the oracle-Kelly rejection-time yardstick (spec 01 §7).
- ``FiniteMeanTest``, ``FiniteConfidenceSequence``, ``finite_confidence_sequence``, ``finite_mean_batch``
  — the same guarantees for the average of a finite population sampled without replacement (a benchmark's
  items in random order); see docs/finite-population.md.

Low-level streaming API for engines (AnyRank, simulators) — STABLE
------------------------------------------------------------------
``PairedStreams(n, *, bettor="nscore", ties="allow", bins="progress", **options)``
    ``n`` independent mirrored paired tests (one per hypothesis / policy pair; for a vectorised
    simulation use ``n = runs * K`` and flat index ``run * K + k``). Stream i sees pairs (x, y):
    x = score of the baseline policy (spec 03 "data0", policy i of pair (i, j)), y = the challenger
    ("data1", policy j). Column ``LESS = 0`` tests E[y - x] <= 0 (rejection claims mu_x < mu_y, i.e.
    y is better); column ``MORE = 1`` tests E[x - y] <= 0 (claims mu_x > mu_y).

    - ``update(index, x, y)``: one pair for each stream in ``index`` (int, unique int array, bool mask,
      or ``None`` = all streams); ``x``, ``y`` scalars or arrays of matching length. Validates first
      (DataError for scores outside [0, 1] / NaN; ParameterError for bad indices), then mutates.
      Stakes were fixed before the call (predictable), so the order of calls across streams is free.
    - per-stream arrays (copies): ``count`` (n,) pairs consumed; ``log_wealth`` (n, 2) log M_t;
      ``log_wealth_max`` (n, 2) running max of log M (>= 0); ``stakes`` (n, 2) next stakes;
      ``pvalue_less``, ``pvalue_more`` (n,) running-min p-processes = exp(-log_wealth_max);
      ``pvalue`` (n,) combined per tie mode (allow: min(1, 2 min(p_less, p_more)); assume_none:
      min(p_less, p_more)); ``sign`` (n,) +1 if p_less < p_more (evidence x < y), -1 if
      p_more < p_less, 0 if equal; ``rejects(level)`` (n,) = sign where pvalue <= level (level scalar
      or (n,) array of local levels) and sign != 0, else 0; ``log_evalue_tie`` (n,).
    - ``to_state()`` -> plain JSON-able dict (format ``"certirank.evidence.streams.v1"``; floats
      round-trip exactly through ``json``); ``PairedStreams.from_state(d)`` resumes bit-for-bit.
    - The bet never depends on any level, so changing local levels only changes the threshold.
``OneSampleStreams(n, *, m=0.5, bettor="agrapa", **options)``
    same for H0: E[X] <= m, X in [0, 1]: ``update(index, z)``, ``pvalue``, ``log_wealth`` (n, 1),
    ``lower_bound(alpha)`` (prpl_eb only), ``to_state()/from_state()``.

Bettors (``BETTORS``): ``calibrated`` (default of `compare`/`PairedTest`: DP-chosen mixture prior with the
overshoot recovered while every score is 0/1, N-SCORE after; option ``target`` = 2/alpha), ``adaptive``
(previous default: conjugate Beta-mixture stake while
every score seen is 0/1, N-SCORE stake after the first partial score; option ``concentration``=1.5),
``beta_mixture`` (binary only, ``concentration``=1), ``mixture`` (grid mixture of constant bets, any
scores; ``concentration``, ``grid_size``), ``nscore`` (Kelly grid with Dirichlet plug-in over score bins,
default of `PairedStreams` and AnyRank; ``bins``
``"progress"`` = (0, 0.1, ..., 1) or ``"binary"`` = (0, 1)), ``bernoulli_kelly`` (binary scores only),
``agrapa`` (option ``c``=0.5), ``ons``, ``prpl_eb`` (``c``=0.5, ``alpha_bet``=0.05,
``predictor``="regularized"|"running_mean"), ``hoeffding`` (``alpha_bet``=0.05). Tie modes
(``TIES``): ``allow`` (alias ``ranking``), ``assume_none`` (alias ``assume_no_ties``).
"""

from __future__ import annotations

from ._core import BETTORS, BINARY_BINS, PROGRESS_BINS, TIES
from .streams import LESS, MORE, OneSampleStreams, PairedStreams, combine

__all__ = ["BETTORS", "TIES", "BINARY_BINS", "PROGRESS_BINS", "LESS", "MORE", "PairedStreams",
           "OneSampleStreams", "combine", "compare", "CompareResult", "PairedTest", "OneSampleTest",
           "paired_batch", "one_sample_batch", "BatchResult", "oracle_kelly", "paired_to_unit",
           "FiniteMeanTest", "FiniteConfidenceSequence", "FiniteCS", "FiniteBatchResult",
           "finite_confidence_sequence", "finite_mean_batch"]

_LAZY = {"compare": ".compare", "CompareResult": ".compare",
         "PairedTest": ".sequential", "OneSampleTest": ".sequential", "paired_batch": ".sequential",
         "one_sample_batch": ".sequential", "BatchResult": ".sequential", "paired_to_unit": ".sequential",
         "oracle_kelly": ".oracle",
         **{name: ".finite" for name in ("FiniteMeanTest", "FiniteConfidenceSequence", "FiniteCS",
                                         "FiniteBatchResult", "finite_confidence_sequence", "finite_mean_batch")}}


def __getattr__(name: str):  # noqa: ANN202 - module-level lazy import
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'certirank.evidence' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(mod, __name__), name)
    globals()[name] = value
    return value
