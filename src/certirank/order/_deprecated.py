"""The spec 07 ``partial_ranking`` / ``PartialRanking`` names of certirank 0.1, kept for one release.

Both now give the one ranking result, :class:`~certirank.order.Ranking` (``items`` became ``names``,
``relations`` are :class:`~certirank.order.Relation` objects with ``via`` "test" / "closure" instead of
dicts with ``kind`` "direct" / "implied"). Use :func:`~certirank.order.make_ranking`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import ParameterError
from .result import Ranking, make_ranking

_VIA = {"direct": "test", "implied": "closure"}


def _via(kind: Any) -> str:
    if kind not in _VIA:
        raise ParameterError(f"relation kind must be one of 'direct', 'implied', got {kind!r}")
    return _VIA[kind]


def warn(old: str) -> None:
    warnings.warn(f"certirank.order.{old} is deprecated and will be removed in certirank 0.3; use "
                  "certirank.order.make_ranking / Ranking (the one ranking result)", DeprecationWarning, stacklevel=3)


def _relation(rel: Any) -> dict[str, Any]:
    if isinstance(rel, Mapping):
        try:
            return {"better": rel["winner"], "worse": rel["loser"], "via": _via(rel.get("kind", "direct"))}
        except KeyError:
            raise ParameterError(f"a relation mapping needs 'winner' and 'loser', got {dict(rel)!r}") from None
    parts = tuple(rel)
    if len(parts) not in (2, 3):
        raise ParameterError(f"a relation must be (winner, loser[, kind]), got {rel!r}")
    return {"better": parts[0], "worse": parts[1], "via": _via(parts[2] if len(parts) == 3 else "direct")}


def partial_ranking(items: Sequence[str], relations: Any, means: Any | None = None) -> Ranking:
    """Deprecated (the warning is given on import): ``make_ranking(items, relations, kind="partial", means=means)``."""
    names = [str(v) for v in items]
    if isinstance(relations, np.ndarray) and relations.dtype == bool:
        if relations.shape != (len(names), len(names)):
            raise ParameterError(f"a relation matrix must be {len(names)} x {len(names)} (items x items), got "
                                 f"{relations.shape}")
        rels = [{"better": names[a], "worse": names[b]} for a, b in zip(*np.nonzero(relations))]
    else:
        rels = [_relation(r) for r in relations]
    return make_ranking(names, rels, kind="partial", means=None if means is None else list(np.asarray(means, float)))
