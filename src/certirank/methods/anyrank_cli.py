"""People-facing output of AnyRank for the command line: ``certirank rank`` and ``certirank demo``.

The commands in :mod:`certirank.cli` parse options and call :func:`rank_command` / :func:`demo_command`;
everything printed for people is built here (rich tables, plain sentences), and ``--json`` prints exactly
``result.to_dict()``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ParameterError
from ..results import ResultMixin
from .anyrank import Ranker, RankingResult, anyrank, run_campaign

__all__ = ["parse_prior_means", "read_prior_file", "render_ranking", "rank_command", "demo_command",
           "DemoResult", "demo_scores", "DEMO_POLICIES"]


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
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ParameterError(f"cannot read prior file {path}: {exc.strerror or exc}") from None
    if p.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ParameterError(f"prior file {path} is not valid JSON: {exc}") from None
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


# ------------------------------------------------------------------------------------------- rendering

def _conf(alpha: float) -> str:
    return f"{100 * (1 - alpha):g}%"


def render_ranking(res: RankingResult, console: Any, *, title: str | None = None) -> None:
    """Print a ranking for people: a table (policy, mean, trials used, letters) and every pair in words."""
    from rich.table import Table

    order = list(res.letters)  # display order: mean descending
    t = Table(title=title or f"AnyRank ({res.method}, {res.guarantee} guarantee): certified at {_conf(res.alpha)}")
    for col, just in (("policy", "left"), ("mean of trials used", "right"), ("trials used", "right"),
                      ("letters", "left")):
        t.add_column(col, justify=just)
    for p in order:
        m = res.means.get(p)
        t.add_row(p, "-" if m is None else f"{m:.3f}", str(res.samples[p]), res.letters[p])
    console.print(t)
    console.print("Policies that share a letter are not certified to differ.")
    if res.decisions:
        console.print(f"\nCertified ({_conf(res.alpha)}, alpha = {res.alpha:g}, family-wise over all pairs and all "
                      "times):", style="bold",
                      markup=False)
        for d in res.decisions:
            how = " by transitivity" if d["via"] == "transitivity" else f" after {d['decided_at']} paired trials"
            console.print(f"  {d['better']} is better than {d['worse']} (certified at {_conf(res.alpha)},{how})",
                          markup=False)
    if res.undecided:
        console.print("\nUndecided (not enough evidence yet):", style="bold", markup=False)
        for det in res.undecided_details:
            a, b = det["pair"]
            console.print(f"  {a} vs {b}: undecided after {det['trials']} paired trials", markup=False)
    else:
        console.print("\nEvery pair is decided: the ranking is complete.")
    console.print(f"\nRollouts used: {res.total_samples} in total; stopped because: {res.termination}.")
    if res.inconsistent:
        console.print("Warning: the decisions contain a cycle, which can only happen after an error.", style="red",
                      markup=False)
    console.print(res.statement)


def compute_ranking(data: Any, *, alpha: float, method: str, prior: Path | None, prior_means: str | None,
                    gamma: float, nmax: int | None, ties: str, guarantee: str, format: str | None = None,
                    score_range: tuple[float, float] | None = None, heldout_prior_rows: int = 0,
                    metric: str = "progress", pairing: str = "by_row") -> RankingResult:
    """The ranking behind ``certirank rank`` (no output): priors parsed, then `anyrank`."""
    if prior is not None and prior_means is not None:
        raise ParameterError("give either --prior FILE or --prior-means, not both")
    pri = read_prior_file(prior) if prior is not None else (
        parse_prior_means(prior_means) if prior_means is not None else None)
    if pri is not None and heldout_prior_rows:
        raise ParameterError("give either a prior or --heldout-prior-rows, not both")
    return anyrank(data, alpha=alpha, method=method, prior=pri, gamma=gamma, nmax=nmax, ties=ties,
                   guarantee=guarantee, format=format, score_range=score_range,
                   heldout_prior_rows=heldout_prior_rows, metric=metric, pairing=pairing)


def rank_command(data: Any, *, alpha: float, method: str, prior: Path | None, prior_means: str | None,
                 gamma: float, nmax: int | None, ties: str, guarantee: str, as_json: bool, emit: Callable,
                 console: Any, format: str | None = None, score_range: tuple[float, float] | None = None,
                 heldout_prior_rows: int = 0, metric: str = "progress", label: Any = None,
                 pairing: str = "by_row") -> RankingResult:
    """Implementation of ``certirank rank`` (``label`` names the data in the title; default ``data``)."""
    res = compute_ranking(data, alpha=alpha, method=method, prior=prior, prior_means=prior_means, gamma=gamma,
                          nmax=nmax, ties=ties, guarantee=guarantee, format=format, score_range=score_range,
                          heldout_prior_rows=heldout_prior_rows, metric=metric, pairing=pairing)
    name = data if label is None else label
    emit(res, as_json, lambda r: render_ranking(r, console, title=f"{name}: AnyRank ({r.method}, {r.guarantee} "
                                                 f"guarantee), certified at {_conf(r.alpha)} "
                                                 f"(alpha = {r.alpha:g})"))
    return res


def render_preferences(res: Any, console: Any, *, title: str) -> None:
    """Print a certified preference graph: every pair that met, the certified edges, cycles, the guarantee."""
    from rich.table import Table

    t = Table(title=title)
    for col in ("policy A", "policy B", "battles", "A preferred", "B preferred", "draws", "certified"):
        t.add_column(col, justify="left" if col.startswith("policy") or col == "certified" else "right")
    for p in res.pairs:
        dec = {"a>b": f"{p['a']} > {p['b']}", "a<b": f"{p['b']} > {p['a']}"}.get(p["decision"], "undecided")
        t.add_row(p["a"], p["b"], str(p["battles"]), str(p["wins_a"]), str(p["wins_b"]), str(p["draws"]), dec)
    console.print(t)
    if res.edges:
        console.print(f"Certified preferences ({len(res.edges)} edge(s)):", style="bold", markup=False)
        for line in res.sentences():
            console.print(f"  {line}", markup=False)
    else:
        console.print("No preference is certified yet.")
    for c in res.cycles:
        console.print(f"Cycle among certified edges (preferences are not transitive): {' , '.join(c)}", markup=False)
    if res.never_met:
        console.print(f"Never met ({len(res.never_met)} pair(s), nothing can be said): "
                      + ", ".join(f"{a} vs {b}" for a, b in res.never_met), markup=False)
    if res.mapping:
        console.print(f"Ties: {res.mapping}.", markup=False)
    console.print(res.statement, markup=False)


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


def demo_command(*, seed: int, as_json: bool, emit: Callable, console: Any, nmax: int = 1000,
                 alpha: float = 0.05) -> DemoResult:
    """Implementation of ``certirank demo``: a seeded simulated campaign run through the live engine."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    scores, mu = demo_scores(seed, nmax)
    pols = list(DEMO_POLICIES)
    ranker = Ranker(pols, alpha=alpha, nmax=nmax)
    k = len(pols) * (len(pols) - 1) // 2

    def run(progress: Any = None, task: Any = None) -> None:
        while not ranker.done:
            todo = ranker.suggest()
            if not todo:
                break
            for p, t in todo:
                ranker.record(p, t, float(scores[t, pols.index(p)]))
            if progress is not None:
                res = ranker.result()
                progress.update(task, completed=len(res.decisions),
                                description=f"rollouts {res.total_samples:5d}  pairs certified")

    if as_json:
        run()
    else:
        console.print(f"Simulated campaign (seed {seed}): {len(pols)} robot policies, partial-credit scores; "
                      f"AnyRank asks which rollouts to run next and stops when the ranking is certified.")
        with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                      TimeElapsedColumn(), console=console, transient=False) as progress:
            task = progress.add_task("rollouts     0  pairs certified", total=k)
            run(progress, task)
    res = ranker.result()
    bonf = run_campaign(scores, alpha=alpha, method="bonferroni", policies=pols, nmax=nmax)
    out = DemoResult(seed=seed, true_means={p: float(m) for p, m in zip(pols, mu)}, anyrank=res,
                     bonferroni=bonf, rollouts_saved=int(bonf.total_samples - res.total_samples))

    def render(o: DemoResult) -> None:
        render_ranking(o.anyrank, console, title=f"Certified ranking (AnyRank, {_conf(o.anyrank.alpha)})")
        b = o.bonferroni
        console.print(f"\nBonferroni on the same rollouts: {b.total_samples} rollouts, {len(b.decisions)} of "
                      f"{len(b.decisions) + len(b.undecided)} pairs certified.")
        pct = 100 * o.rollouts_saved / b.total_samples if b.total_samples else 0.0
        console.print(f"AnyRank saved {o.rollouts_saved} rollouts ({pct:.0f}%) against Bonferroni.", style="bold",
                      markup=False)
        truth = ", ".join(f"{p} {m:.2f}" for p, m in sorted(o.true_means.items(), key=lambda x: -x[1]))
        console.print(f"(True mean scores, unknown to the ranking: {truth}.)")

    emit(out, as_json, render)
    return out
