"""BB-EDGE: anytime-valid LLM leaderboards from benchmark-weighted, block-factorised e-processes (spec 04).

Public entry points (re-exported at the top level of ``certirank``):

- :class:`Leaderboard` -- the streaming engine (``add_replicate`` after every complete run, ``result``,
  ``add_model``, ``expand_benchmark``, ``to_json`` / ``from_json`` / ``save`` / ``load``);
- :func:`leaderboard` -- the batch entry point on an evaluation table (CLI ``certirank leaderboard``);
- :func:`bbedge_path` -- the certification path over a (replicates, models, items) stack, for simulations.
"""

from .batch import bbedge_path, leaderboard, resolve_blocks, table_panels
from .core import BlockDesign, default_grid, make_design, psi_e
from .engine import METHODS, Leaderboard, block_statement
from .result import LeaderboardResult

__all__ = ["Leaderboard", "leaderboard", "bbedge_path", "LeaderboardResult", "METHODS", "BlockDesign",
           "make_design", "default_grid", "psi_e", "block_statement", "resolve_blocks", "table_panels"]
