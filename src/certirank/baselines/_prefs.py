"""Pairwise comparisons for the Bradley–Terry baselines (spec 06 §0).

A comparison is ``(a, b, y)`` with ``y = 2`` if ``a`` wins, ``0`` if ``b`` wins and ``1`` for a tie.
Comparisons come from

* a preference table: ``policy_a, policy_b, preference`` (also ``A, B, preference``), with
  0 = A preferred, 1 = B preferred, 0.5 = tie; or a battle table ``model_a, model_b, winner`` with
  winner in {model_a, model_b, tie} (also ``a``/``b``/``tie``, ``tie (bothbad)``);
* a score table (long or wide, single or repeated runs): every pair of policies run on the same env
  (and replicate) gives one comparison, the higher score winning and equal scores tying;
* a path (read through :func:`certirank.data.readers.load`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._validate import as_generator, check_choice
from ..data.table import policies as table_policies
from ..data.table import validate_table
from .._compat import keyword_only
from ..errors import DataError

__all__ = ["Comparisons", "as_comparisons", "preference_games"]

_PREF_LAYOUTS = (("policy_a", "policy_b", "preference"), ("a", "b", "preference"),
                 ("model_a", "model_b", "winner"))


@dataclass(frozen=True)
class Comparisons:
    """Indexed comparisons: ``a``, ``b`` policy indices, ``y`` in {0, 1, 2} (2 = a wins).

    ``progress_a``/``progress_b`` (NaN = missing) carry per-trial scores for BT-EM's partial-progress
    term when known; ``means`` is the per-policy mean score (or win rate, see ``means_kind``).
    """

    policies: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    y: np.ndarray
    means: np.ndarray
    means_kind: str
    progress_a: np.ndarray | None = None
    progress_b: np.ndarray | None = None
    source: str | None = None
    notes: tuple[str, ...] = ()  # data left out while building the comparisons, in words

    @property
    def n(self) -> int:
        return int(self.y.size)

    @property
    def n_policies(self) -> int:
        return len(self.policies)

    def win_matrix(self, ties: str = "ignore") -> np.ndarray:
        """W[i, j] = number of times i beat j (ties ignored, or counted as half a win each way)."""
        p = self.n_policies
        w = np.zeros((p, p))
        awin = self.y == 2
        bwin = self.y == 0
        np.add.at(w, (self.a[awin], self.b[awin]), 1.0)
        np.add.at(w, (self.b[bwin], self.a[bwin]), 1.0)
        if ties == "half":
            tie = self.y == 1
            np.add.at(w, (self.a[tie], self.b[tie]), 0.5)
            np.add.at(w, (self.b[tie], self.a[tie]), 0.5)
        return w

    def subset(self, idx: np.ndarray) -> Comparisons:
        pa = None if self.progress_a is None else self.progress_a[idx]
        pb = None if self.progress_b is None else self.progress_b[idx]
        return Comparisons(self.policies, self.a[idx], self.b[idx], self.y[idx], self.means, self.means_kind,
                           pa, pb, self.source)


def _win_rate(p: int, a: np.ndarray, b: np.ndarray, y: np.ndarray) -> np.ndarray:
    won = np.bincount(a, weights=y / 2.0, minlength=p) + np.bincount(b, weights=(2 - y) / 2.0, minlength=p)
    played = np.bincount(a, minlength=p) + np.bincount(b, minlength=p)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(played > 0, won / np.maximum(played, 1), np.nan)


def _find_layout(frame: pd.DataFrame) -> tuple[str, str, str] | None:
    lower = {str(c).strip().lower(): c for c in frame.columns}
    for layout in _PREF_LAYOUTS:
        if all(k in lower for k in layout):
            return tuple(lower[k] for k in layout)  # type: ignore[return-value]
    return None


def _check_policy_list(found: Sequence[str], policies: Sequence[str] | None, source: str | None) -> list[str]:
    if policies is None:
        return list(found)
    wanted = [str(p) for p in policies]
    if len(set(wanted)) != len(wanted):
        raise DataError(f"the policy list has duplicates: {wanted}", source=source)
    unknown = [p for p in found if p not in set(wanted)]
    if unknown:
        raise DataError(f"policies {unknown} appear in the data but not in the given policy list {wanted}",
                        source=source)
    return wanted


def _from_preferences(frame: pd.DataFrame, policies: Sequence[str] | None, source: str | None) -> Comparisons:
    from ..data.readers import validate_preferences

    if frame.attrs.get("format") != "preferences" or list(frame.columns[:3]) != ["policy_a", "policy_b",
                                                                                   "preference"]:
        frame = validate_preferences(frame, policies=policies, source=source)
    a_names = frame["policy_a"].to_numpy(dtype=object)
    b_names = frame["policy_b"].to_numpy(dtype=object)
    y = np.rint(2.0 * (1.0 - frame["preference"].to_numpy(dtype=float))).astype(np.int64)
    found = list(dict.fromkeys(np.column_stack([a_names, b_names]).ravel().tolist()))
    names = _check_policy_list(found, policies, source)
    index = {p: k for k, p in enumerate(names)}
    a = np.array([index[s] for s in a_names], dtype=np.int64)
    b = np.array([index[s] for s in b_names], dtype=np.int64)
    _check_all_compared(names, a, b, source)
    return Comparisons(tuple(names), a, b, y, _win_rate(len(names), a, b, y), "win_rate", source=source)


def _check_all_compared(names: Sequence[str], a: np.ndarray, b: np.ndarray, source: str | None) -> None:
    counts = np.bincount(a, minlength=len(names)) + np.bincount(b, minlength=len(names))
    missing = [names[k] for k in np.flatnonzero(counts == 0)]
    if missing:
        raise DataError(f"policy(ies) {missing} have no comparisons; a paired-comparison model cannot place a "
                        "policy it never saw compared (drop it or add comparisons)", source=source)


def _from_scores(table: pd.DataFrame, policies: Sequence[str] | None, ties: str,
                 seed: Any, source: str | None) -> Comparisons:
    names = _check_policy_list(table_policies(table), policies, source)
    t = table.sort_values("order", kind="stable")
    if t["env"].isna().any():
        # no env: trial j of every policy is paired with trial j of every other (recorded order)
        t = t.assign(env=t.groupby(["policy", "replicate"]).cumcount().astype(str))
    if t.duplicated(["policy", "env", "replicate"]).any():
        raise DataError("several scores for the same (policy, env, replicate); cannot pair them", source=source)
    keys = list(dict.fromkeys(zip(t["replicate"].tolist(), t["env"].tolist())))
    row = {k: r for r, k in enumerate(keys)}
    col = {p: c for c, p in enumerate(names)}
    wide = np.full((len(keys), len(names)), np.nan)
    wide[[row[k] for k in zip(t["replicate"].tolist(), t["env"].tolist())],
         [col[p] for p in t["policy"].tolist()]] = t["score"].to_numpy(dtype=float)
    means = np.array([np.nanmean(wide[:, c]) if np.isfinite(wide[:, c]).any() else np.nan
                      for c in range(len(names))])
    aa, bb, rr = [], [], []
    p = len(names)
    for i in range(p):
        for j in range(i + 1, p):
            rows = np.flatnonzero(np.isfinite(wide[:, i]) & np.isfinite(wide[:, j]))
            aa.append(np.full(rows.size, i))
            bb.append(np.full(rows.size, j))
            rr.append(rows)
    a = np.concatenate(aa).astype(np.int64) if aa else np.zeros(0, np.int64)
    b = np.concatenate(bb).astype(np.int64) if bb else np.zeros(0, np.int64)
    r = np.concatenate(rr).astype(np.int64) if rr else np.zeros(0, np.int64)
    order = np.lexsort((a * p + b, r))  # recorded order: env by env, pairs in policy order
    a, b, r = a[order], b[order], r[order]
    xa, xb = wide[r, a], wide[r, b]
    y = np.where(xa > xb, 2, np.where(xa < xb, 0, 1)).astype(np.int64)
    ties = check_choice("draws", ties, ["keep", "random", "drop"])
    if ties == "random":
        rng = as_generator(seed)
        tie = y == 1
        y[tie] = 2 * rng.integers(0, 2, size=int(tie.sum()))
    notes = []
    alone = np.isfinite(wide) & (np.isfinite(wide).sum(axis=1, keepdims=True) < 2)
    if alone.any():
        k = int(alone.sum())
        notes.append(f"{k} trial{'s' if k != 1 else ''} ignored: no other policy was run on the same environment "
                     f"(and replicate), so there is nothing to compare {'them' if k != 1 else 'it'} with.")
    if ties == "drop":
        keep = y != 1
        k = int((~keep).sum())
        if k:
            notes.append(f"{k} draw{'s' if k != 1 else ''} (equal scores) dropped (draws='drop').")
        a, b, y, xa, xb = a[keep], b[keep], y[keep], xa[keep], xb[keep]
    if y.size == 0:
        raise DataError("no pair of policies was run on the same env; preferences need paired trials",
                        source=source)
    _check_all_compared(names, a, b, source)
    return Comparisons(tuple(names), a, b, y, means, "score", xa, xb, source, tuple(notes))


@keyword_only(renamed={"ties": "draws"})
def as_comparisons(data: Any, *, policies: Sequence[str] | None = None, draws: str = "keep", seed: Any = None,
                   format: str | None = None, score_range: tuple[float, float] | None = None) -> Comparisons:
    """Turn preference data, a score table or a path into :class:`Comparisons`.

    Parameters
    ----------
    data:
        :class:`Comparisons`, a preference/battle DataFrame, a long or validated score table, or a path.
    policies:
        Fixed policy order (every policy in the data must be listed; a listed policy without comparisons
        is an error). Default: order of first appearance.
    draws:
        For score input only, what an equal pair of scores (a draw) becomes: ``"keep"`` a draw (default),
        broken uniformly at random (``"random"``, uses ``seed``), or removed (``"drop"``). (``ties`` before 0.2;
        ``ties`` now only names the tie mode of certified tests.)
    seed:
        Seed for ``draws="random"``.
    format, score_range:
        Passed to :func:`certirank.data.readers.load` for paths / to ``validate_table`` for raw frames.
    """
    if isinstance(data, Comparisons):
        if policies is not None and list(policies) != list(data.policies):
            raise DataError("the comparisons were built with a different policy list")
        return data
    source = None
    if isinstance(data, (str, Path)):
        source = str(data)
        data = _read(Path(data), format, score_range)
    if not isinstance(data, pd.DataFrame):
        raise DataError(f"expected a preference table, a score table or a path, got {type(data).__name__}")
    source = source or data.attrs.get("source")
    if _find_layout(data) is not None:
        return _from_preferences(data, policies, source)
    table = data if _is_validated(data) and score_range is None else validate_table(
        data, score_range=score_range, source=source)
    return _from_scores(table, policies, draws, seed, source)


def _is_validated(frame: pd.DataFrame) -> bool:
    return all(c in frame.columns for c in ("policy", "env", "replicate", "score", "order"))


def _read(path: Path, format: str | None, score_range: tuple[float, float] | None) -> pd.DataFrame:
    from ..data.readers import load  # data layer; imported lazily to keep `import certirank` light

    frame = load(path, format=format, score_range=score_range)
    frame.attrs.setdefault("source", str(path))
    return frame


def preference_games(means: Sequence[float], n_games: int, seed: Any = None,
                     names: Sequence[str] | None = None) -> pd.DataFrame:
    """Synthetic preference games of spec 06 §5 (AnyRank App. F, as in the authors' public code).

    Each game draws a uniformly random pair of distinct policies ``(a, b)``, then
    ``r ~ N(mu, mu(1 - mu)/2)`` (variance, not SD) for both, and records ``a`` preferred iff
    ``r_a > r_b``. Returns a preference table ``policy_a, policy_b, preference``.
    """
    from .._validate import check_positive_int

    mu = np.asarray(means, dtype=float)
    if mu.ndim != 1 or mu.size < 2 or np.any((mu < 0) | (mu > 1)):
        raise DataError("means must be a list of at least two numbers in [0, 1]")
    n_games = check_positive_int("n_games", n_games)
    names = [f"pi{k + 1}" for k in range(mu.size)] if names is None else [str(s) for s in names]
    rng = as_generator(seed)
    p = mu.size
    a = rng.integers(0, p, size=n_games)
    b = (a + rng.integers(1, p, size=n_games)) % p  # uniform over the other policies
    sd = np.sqrt(mu * (1 - mu) / 2.0)
    ra = rng.normal(mu[a], sd[a])
    rb = rng.normal(mu[b], sd[b])
    pref = np.where(ra > rb, 0.0, 1.0)
    return pd.DataFrame({"policy_a": np.asarray(names)[a], "policy_b": np.asarray(names)[b], "preference": pref})
