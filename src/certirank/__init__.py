"""certirank: anytime-valid, certified ranking of policies and models, and small robust tests.

The public names are loaded lazily so that `import certirank` stays fast for the CLI and a layer is only
imported when it is used.
"""

from __future__ import annotations

import importlib
from typing import Any

from .errors import CertirankError, DataError, ParameterError, StateError

__version__ = "0.2.0"

# public name -> module that defines it (spec 00, "Public Python API")
_LAZY = {
    "load": "certirank.data.readers",
    "compare": "certirank.evidence.compare",
    "check": "certirank.integrations.check",
    "graph_test": "certirank.multitest.bretz",
    "e_holm": "certirank.multitest.eholm",
    "letters": "certirank.order.letters",
    "Ranking": "certirank.order.result",
    "Ranker": "certirank.methods.anyrank",
    "anyrank": "certirank.methods.anyrank",
    "Leaderboard": "certirank.methods.bbedge",
    "leaderboard": "certirank.methods.bbedge",
    "baseline": "certirank.baselines",
    "simulate": "certirank.sim",
    "preference_graph": "certirank.methods.preferences",
    "shuffled_ranking": "certirank.methods.shuffled",
    "compose_test": "certirank.methods.rposst",
    "evaluate_test_designs": "certirank.methods.rposst",
    "Campaign": "certirank.campaign",
}

__all__ = ["CertirankError", "DataError", "ParameterError", "StateError", "__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'certirank' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
