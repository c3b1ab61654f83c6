"""Inputs and the simulated demo of ``certirank rank`` / ``certirank demo`` (no printing: the CLI renders).

``parse_prior_means`` / ``read_prior_file`` read prior means; :func:`run_demo` runs the seeded simulated
campaign of ``certirank demo`` through the live :class:`Ranker` and Bonferroni on the same rollouts.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import ParameterError
from ...results import ResultMixin
from .ranker import Ranker
from .result import RankingResult
from .replay import run_campaign

__all__ = ["parse_prior_means", "read_prior_file", "compute_ranking", "DemoResult", "demo_scores", "run_demo",
           "DEMO_POLICIES"]


# ------------------------------------------------------------------------------------------- priors

def parse_prior_means(text: str) -> dict[str, float]:
    """``"p=0.3,q=0.5"`` -> {"p": 0.3, "q": 0.5}."""
    out: dict[str, float] = {}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        name, sep, val = part.rpartition("=")
        if not sep or not name.strip():
            raise ParameterError(f"--prior-means must look like 'policyA=0.3,policyB=0.5', got {part!r}")
        key = name.strip()
        if key in out:
            raise ParameterError(f"--prior-means names {key} twice")
        try:
            out[key] = float(val)
        except ValueError:
            raise ParameterError(f"--prior-means: {val!r} (for {key}) is not a number") from None
    if not out:
        raise ParameterError("--prior-means is empty; give 'policyA=0.3,policyB=0.5'")
    return out


def read_prior_file(path: str | Path) -> dict[str, float]:
    """Prior means from a JSON object {policy: mean} or a two-column CSV/TSV ``policy,mean`` (header optional)."""
    from ..._io import read_saved_text

    p = Path(path)
    text = read_saved_text(path, "prior file")  # a binary or unreadable file is one line
    if p.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ParameterError(f"prior file {path} is not valid JSON: {exc}") from None
        except RecursionError:
            raise ParameterError(f"prior file {path}: JSON nested too deeply to be {{policy: mean}}") from None
        if not isinstance(data, dict):
            raise ParameterError(f"prior file {path} must hold a JSON object {{policy: mean}}")
        out = {}
        for k, v in data.items():
            try:
                out[str(k)] = float(v)
            except (TypeError, ValueError):
                raise ParameterError(f"prior file {path}: the prior of {k} is not a number ({v!r})") from None
        return out
    sep = "\t" if p.suffix.lower() in (".tsv", ".tab") else ","
    out = {}
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        cells = [c.strip() for c in line.split(sep)]
        if len(cells) != 2:
            raise ParameterError(f"prior file {path}, line {n}: expected two columns 'policy{sep}mean', got {line!r}")
        try:
            out[cells[0]] = float(cells[1])
        except ValueError:
            if n == 1 and not out:  # header
                continue
            raise ParameterError(f"prior file {path}, line {n}: {cells[1]!r} is not a number") from None
    if not out:
        raise ParameterError(f"prior file {path} has no 'policy,mean' rows")
    return out


# ------------------------------------------------------------------------------------------- demo

DEMO_POLICIES = ("diffusion-v1", "act-baseline", "pi0-finetune", "pi0-ft+dagger", "scripted")
# partial-credit scores: each rollout scores in {0, 0.05, ..., 1}; Beta shapes give means of about
# 0.35, 0.45, 0.6, 0.75, 0.2 (fixed here, "unknown" to the ranking)
_DEMO_BETA = ((1.4, 2.6), (1.8, 2.2), (2.4, 1.6), (3.0, 1.0), (0.8, 3.2))


def demo_scores(seed: int = 0, n: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """Simulated partial-credit rollouts of the demo policies: (scores (n, 5), true means)."""
    rng = np.random.default_rng(seed)
    a = np.array([b[0] for b in _DEMO_BETA])
    b = np.array([b[1] for b in _DEMO_BETA])
    raw = rng.beta(a, b, size=(n, len(a)))
    scores = np.round(raw * 20) / 20
    return scores, a / (a + b)


@dataclass(frozen=True)
class DemoResult(ResultMixin):
    """Outcome of ``certirank demo``: the live AnyRank campaign and Bonferroni on the same rollouts."""

    RESULT_KIND = "demo"

    seed: int
    true_means: dict[str, float]
    anyrank: RankingResult
    bonferroni: RankingResult
    rollouts_saved: int


def compute_ranking(data: Any, *, alpha: float, method: str, prior: Path | None, prior_means: str | None,
                    gamma: float, n_max: int | None, ties: str, guarantee: str, format: str | None = None,
                    score_range: tuple[float, float] | None = None, heldout_prior_rows: int = 0,
                    bins: str = "progress", pairing: str = "by_row", budget: str = "auto",
                    arms: str = "paired", statistic: str | None = None) -> RankingResult:
    """The ranking behind ``certirank rank`` (no output): priors parsed, then `anyrank`."""
    from .replay import anyrank
    if prior is not None and prior_means is not None:
        raise ParameterError("give either --prior FILE or --prior-means, not both")
    pri = read_prior_file(prior) if prior is not None else (
        parse_prior_means(prior_means) if prior_means is not None else None)
    return anyrank(data, alpha=alpha, method=method, prior=pri, gamma=gamma, n_max=n_max, ties=ties,
                   guarantee=guarantee, format=format, score_range=score_range,
                   heldout_prior_rows=heldout_prior_rows, bins=bins, pairing=pairing, budget=budget, arms=arms,
                   statistic=statistic)


def run_demo(seed: int = 0, alpha: float = 0.05, *, n_max: int = 1000,
             progress: Callable[[int, int, int], None] | None = None) -> DemoResult:
    """The seeded simulated campaign of ``certirank demo``, run through the live engine.

    ``progress(certified_pairs, total_pairs, rollouts)`` is called after every round of suggestions.
    """
    scores, mu = demo_scores(seed, n_max)
    pols = list(DEMO_POLICIES)
    ranker = Ranker(pols, alpha=alpha, n_max=n_max)
    k = len(pols) * (len(pols) - 1) // 2
    while not ranker.done:
        todo = ranker.suggest()
        if not todo:
            break
        for p, t in todo:
            ranker.record(p, t, float(scores[t, pols.index(p)]))
        if progress is not None:
            res = ranker.result()
            progress(len(res.decisions), k, res.total_samples)
    res = ranker.result()
    bonf = run_campaign(scores, alpha=alpha, method="bonferroni", policies=pols, n_max=n_max)
    return DemoResult(seed=seed, true_means={p: float(m) for p, m in zip(pols, mu)}, anyrank=res,
                      bonferroni=bonf, rollouts_saved=int(bonf.total_samples - res.total_samples))
