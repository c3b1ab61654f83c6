"""Batch entry points: :func:`leaderboard` on an evaluation table, :func:`bbedge_path` on a panel stack."""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import numpy as np
import pandas as pd

from ..._params import validated
from ..._compat import keyword_only
from ...errors import DataError, ParameterError
from ...evidence.forecast import FUTILITY
from .engine import Leaderboard
from .result import LeaderboardResult

__all__ = ["leaderboard", "bbedge_path", "resolve_blocks", "table_panels"]


def _table(data: Any, score_range: Any = None, format: str | None = None) -> pd.DataFrame:
    from ...data.table import validate_table
    if isinstance(data, (str, os.PathLike)):
        from ...data.readers import load
        table = load(data, format=format, score_range=score_range)
    elif isinstance(data, pd.DataFrame):
        table = data
    else:
        raise DataError(f"data must be a file path or a DataFrame (long table), got {type(data).__name__}")
    if table.attrs.get("format") == "preferences" or "preference" in table.columns:
        # preference rows carry no per-item score, so the panel view would fail deep inside pandas
        raise DataError("these are pairwise preferences, not per-item scores; a leaderboard needs one score "
                        "per model and item (a long model,item,score table). For preferences use the certified "
                        "preference graph (certirank rank) or the Bradley-Terry baselines (certirank baseline bt)",
                        source=table.attrs.get("source"))
    if table is data:
        from ...data.readers import is_validated
        if score_range is None and is_validated(data):
            return data  # read by `load` (the CLI's one read), unchanged since: checked once is enough
        return validate_table(data, score_range=score_range, source=data.attrs.get("source"))
    return table


def resolve_blocks(table: pd.DataFrame, blocks: Any) -> tuple[Any, str, str | None]:
    """Map the user's ``blocks`` choice and the table onto (Leaderboard blocks argument, source, column).

    ``None`` means the table's ``block`` column if it has one, else singleton items (spec 04 §3).
    """
    env = table["env"]
    if env.isna().any():
        items = [str(i) for i in pd.unique(env)]
    else:  # the same labels in the same order (first appearance), from the codes the reader already has
        from ...data._cells import label_codes
        items = [str(i) for i in label_codes(env)[1]]
    if blocks is None:
        if "block" in table.columns:
            return _item_labels(table, "block", items), "default: the data's 'block' column", "block"
        return "items", "default: the data has no 'block' column", None
    if isinstance(blocks, str):
        key = blocks.strip()
        if key.lower() in ("items", "item", "singleton"):
            return "items", "chosen: --blocks items", None
        if key.lower() in ("replicate", "run"):
            return "replicate", "chosen: --blocks replicate", None
        if key not in table.columns:
            extra = [c for c in table.columns if c not in ("policy", "env", "replicate", "score", "order", "weight")]
            raise DataError(f"blocks column {key!r} not found; use 'items', 'replicate' or one of the table's columns"
                            f"{': ' + ', '.join(map(repr, extra)) if extra else ' (the table has no extra columns)'}",
                            source=table.attrs.get("source"))
        return _item_labels(table, key, items), f"chosen: column {key!r}", key
    return blocks, "given by the caller", None


def _item_labels(table: pd.DataFrame, column: str, items: list[str]) -> dict[str, str]:
    sub = table[["env", column]].copy()
    if sub[column].isna().any():
        raise DataError(f"column {column!r} has missing block labels", source=table.attrs.get("source"), column=column)
    sub[column] = sub[column].astype(str)
    per = sub.groupby("env")[column].nunique()
    split = per[per > 1]
    if len(split):
        item = split.index[0]
        labs = sorted(sub.loc[sub["env"] == item, column].unique())
        raise DataError(f"item {item!r} is in more than one block ({', '.join(labs[:4])}); each item belongs to "
                        "exactly one block", source=table.attrs.get("source"), column=column)
    first = sub.drop_duplicates("env").set_index("env")[column]
    return {i: str(first[i]) for i in items}


def _item_weights(table: pd.DataFrame, items: list[str]) -> dict[str, float] | None:
    if "weight" not in table.columns:
        return None
    per = table.groupby("env")["weight"].nunique()
    if (per > 1).any():
        raise DataError(f"item {per[per > 1].index[0]!r} has different weights in different rows; give each item "
                        "one weight", source=table.attrs.get("source"), column="weight")
    first = table.drop_duplicates("env").set_index("env")["weight"]
    return {i: float(first[i]) for i in items}


def table_panels(table: pd.DataFrame) -> tuple[list[str], list[str], list[int], list[np.ndarray]]:
    """Split a validated table into complete panels: (models, items, replicate ids, [(L, N) arrays])."""
    src = table.attrs.get("source")
    if table["env"].isna().any():
        raise DataError("BB-EDGE needs an item column ('item' or 'env') so that models are compared on the same "
                        "items", source=src)
    # codes in order of first appearance: the order of policies() and of the items as written
    from ...data._cells import label_codes
    mi, models = label_codes(table["policy"])  # the reader's codes (each label column is factorised once)
    ii, items = label_codes(table["env"])
    models, items = [str(m) for m in models], [str(i) for i in items]
    reps = sorted(table["replicate"].unique())
    rr = np.searchsorted(reps, table["replicate"].to_numpy())
    cube = np.full((len(reps), len(models), len(items)), np.nan)
    cube[rr, mi, ii] = table["score"].to_numpy(dtype=float)
    missing = np.isnan(cube)
    if missing.any():
        r, m, i = (int(v[0]) for v in np.nonzero(missing))
        n_miss = int(missing[r, m].sum())
        raise DataError(f"model {models[m]!r} is missing item {items[i]!r}"
                        f"{f' (and {n_miss - 1} more)' if n_miss > 1 else ''} in replicate {reps[r]}; every model "
                        "must be scored on every item in every replicate", source=src)
    return models, items, [int(v) for v in reps], [cube[r] for r in range(len(reps))]


@keyword_only(("tau", "blocks", "top_k", "pilot"))
@validated("leaderboard")
def leaderboard(data: Any, alpha: float = 0.05, *, tau: float = 0.0, blocks: Any = None, top_k: int | None = None,
                pilot: int | None = None, method: str | None = None, weights: Any = None, output: str = "current",
                score_range: Any = None, format: str | None = None, stake: str | None = None,
                backend: str | None = None, jobs: int = 1, scheduler: Any = None,
                about: str | None = None, margin: float | None = None, group_by: Any = None,
                alpha_across_groups: bool = False, n_max: int | None = None,
                futility: float = FUTILITY) -> LeaderboardResult:
    """Certify a leaderboard from per-item scores of L models over R replicates (BB-EDGE, spec 04).

    Parameters
    ----------
    data : path, DataFrame or validated table
        Long table with ``model`` (``policy``), ``item`` (``env``), ``score`` in [0, 1] and, for repeated
        runs, ``replicate``; optional ``block`` and ``weight`` columns.
    alpha : float, default 0.05
        FWER of the whole answer: all L(L-1) directions and every replicate.
    tau : float, default 0
        Margin; an edge a -> b certifies Delta_{a,b} > tau.
    blocks : None, "items", "replicate" or a column name
        Design-determined resolution (spec 04 §3). ``None``: the ``block`` column if present, otherwise
        singleton items. The result states the resolution and the assumption it rests on.
    top_k : int, optional
        Certify a Top-k set (full graph; with ``pilot``, the pilot-targeted procedure).
    pilot : int, optional
        Number of pilot replicates (R0) that choose the Top-k candidates; their data are not evidence.
    method : {"bb-edge", "bfh-e-holm", "cr-edge", "bb-edge-pi"}, optional
        Default: on a whole single-run table of binary scores (no margin, Top-k, blocks or weights asked for), each
        pair of models by the exact budget test with the number of items as its budget and most of its level on
        McNemar's exact test at the table's end, Holm over the pairs (`certirank.methods.item_tables`; the result's
        method is ``"exact-budget"``); otherwise ``"bb-edge"``. The result's ``warnings`` say which ran and why.
    weights : optional item weights (mapping item -> weight, summing to 1); default the ``weight`` column,
        else 1/N.
    output : {"current", "cumulative"}
    stake : {"plugin", "plugin-eb", "grid"}, optional
        For "bb-edge" / "cr-edge": the predictable plug-in stake on the exact betting factor (default), the
        same on the empirical-Bernstein factor, or the 41-point stake mixture of spec 04 (see
        :class:`Leaderboard`).
    backend, jobs, scheduler :
        Where the betting factor of each update is computed (in this process by default; ``jobs`` local
        processes; a Dask or Ray cluster, see :func:`certirank._parallel.run_tasks`). Same result on every
        backend, bit for bit.
    margin : float, optional
        Equivalence margin in (0, 1), fixed before the data: a pair is listed in ``equivalent`` when
        |Delta_{a,b}| < margin is certified. The level is split in half (Bonferroni across two families):
        difference edges by direct e-Holm at alpha/2 over the L(L-1) directions (margin `tau`), equivalence by
        direct e-Holm at alpha/2 over the L(L-1) directions a -> b with margin -margin (each certifies
        Delta_{a,b} > -margin; both directions of a pair give |Delta| < margin). FWER <= alpha over both kinds
        of claim (Theorem 1 for each family, union bound). The equivalent pairs that no edge orders are the
        ranking's ``equivalent`` (not undecided). The two boards: :class:`~certirank.methods.bbedge.margin.MarginBoards`
        (a leaderboard campaign with a margin runs the same).
    group_by : str or list of str, optional
        Certify a leaderboard within each group of these columns (``--group-by``): one result per group.
    alpha_across_groups : bool, default False
        With ``group_by``: split ``alpha`` over the groups (Bonferroni) instead of holding it within each.
    n_max : int, optional
        Budget of replicates (whole runs; ``--n-max``), at least the replicates in the data: undecided pairs whose
        forecast chance of a decision in the replicates left is below ``futility`` get ``verdict: "futile"`` in
        ``undecided_details`` (a forecast at the current estimates, never a guarantee). BB-EDGE only: the exact
        budget test of a single-run table of 0/1 scores has the table as its budget.
    futility : float, default 0.1
        With ``n_max``: the forecast chance below which an undecided pair is futile.

    Returns
    -------
    LeaderboardResult
        ``.to_dict()`` is what ``certirank leaderboard --json`` prints (with ``group_by``: a
        :class:`~certirank.methods.groups.GroupedResult`).

    Examples
    --------
    >>> import pandas as pd, certirank
    >>> rows = [("A", i, 1.0) for i in range(60)] + [("B", i, 0.0) for i in range(60)]
    >>> res = certirank.leaderboard(pd.DataFrame(rows, columns=["model", "item", "score"]))
    >>> res.edges
    [['A', 'B']]
    """
    if group_by is not None:
        given = dict(locals())
        from ..groups import run_verb_by_group
        return run_verb_by_group(leaderboard, given, method=method or "leaderboard")  # type: ignore[return-value]
    table = _table(data, score_range=score_range, format=format)
    about, table, runs_note = _estimand(table, about)
    routed, route_note = _item_table_plan(table, about, method=method, tau=tau, blocks=blocks, top_k=top_k,
                                          pilot=pilot, weights=weights, margin=margin, stake=stake, output=output)
    method = method or "bb-edge"
    if routed is not None and n_max is not None:
        raise ParameterError(f"n_max = {n_max} is a budget of replicates for BB-EDGE; this single-run table of 0/1 "
                             "scores is tested pair by pair by the exact budget test, whose budget is the table's "
                             "items (no futility verdict): leave n_max out, or give method='bb-edge' "
                             "(--method bb-edge)")
    if routed is not None:
        from ...data.table import dropped_notes
        from ...results import note, reader_warnings
        from ..item_tables import item_table_board
        res = item_table_board(table, alpha=alpha, plan=routed, share=_whole_table_share())
        rk = res.ranking
        notes = dropped_notes(table)
        rk = dataclasses.replace(rk, guarantee=rk.guarantee + _POLICY_SENTENCE, notes=(*rk.notes, *notes))
        src = table.attrs.get("source")
        said = [note(runs_note)] if runs_note else []
        return dataclasses.replace(res, ranking=rk, source=None if src is None else str(src),
                                   warnings=(*reader_warnings(table), *said, note(route_note)),
                                   **_item_fields(table, res))
    models, items, reps, panels = table_panels(table)
    if len(models) < 2:
        raise DataError(f"a leaderboard needs at least two models; the data has {len(models)}",
                        source=table.attrs.get("source"))
    blk, source, column = resolve_blocks(table, blocks)
    if weights is None:
        weights = _item_weights(table, items)
    if pilot is not None and top_k is None:
        raise ParameterError("--pilot needs --top-k: the pilot replicates choose the candidate Top-k set")
    from ..._parallel import resolve_backend, session
    resolve_backend(backend, jobs, scheduler)
    level = alpha if margin is None else alpha / 2.0  # margin: alpha split between edges and equivalences
    board_args = dict(tau=tau, blocks=blk, weights=weights, items=items, method=method, top_k=top_k,
                      pilot=pilot, output=output, keep_history=False, blocks_source=source, blocks_column=column,
                      stake=stake, n_max=n_max, futility=futility)
    Leaderboard(models, alpha=level, **board_args)  # checks every option before a cluster is started
    if n_max is not None and len(panels) > n_max:
        raise DataError(f"the budget n_max = {n_max} is smaller than the data in hand ({len(panels)} replicates); give "
                        f"n_max >= {len(panels)} or leave it out", source=table.attrs.get("source"))
    if pilot is not None and pilot >= len(panels):
        raise DataError(f"the data has {len(panels)} replicate(s); a pilot of {pilot} leaves none for confirmation",
                        source=table.attrs.get("source"))
    with session(backend, jobs, scheduler) as where:  # one cluster or runtime for every replicate
        where_args = dict(backend=backend, jobs=jobs, scheduler=where)
        if margin is None:
            board: Any = Leaderboard(models, alpha=alpha, **board_args, **where_args)
        else:  # the difference and equivalence boards, each at alpha/2 (one home: margin.MarginBoards)
            from .margin import MarginBoards
            board = MarginBoards(models, alpha=alpha, margin=margin, **board_args, **where_args)
        for rid, arr in zip(reps, panels):
            board.add_replicate(arr, replicate=rid)
    res = board.result()
    from ...data.table import dropped_notes
    from ...results import note, reader_warnings
    notes = dropped_notes(table)
    rk = res.ranking
    if about == "policy":  # one run (or runs averaged): the items stand for the population they were drawn from
        rk = dataclasses.replace(rk, about="policy", guarantee=rk.guarantee + _POLICY_SENTENCE)
    if notes:
        rk = dataclasses.replace(rk, notes=(*rk.notes, *notes))
    src = table.attrs.get("source")
    said = [note(runs_note)] if runs_note else []
    if route_note:
        said.append(note(route_note))
    # replicates are read in their recorded order (blocks multiply within one, so item order plays no part)
    return dataclasses.replace(res, ranking=rk, about=about, order={"kind": "given"},
                               source=None if src is None else str(src),
                               warnings=(*reader_warnings(table), *said, *res.warnings), **_item_fields(table, res))


def _item_fields(table: pd.DataFrame, res: LeaderboardResult) -> dict[str, Any]:
    """Each model's mean score per item in the table, for `LeaderboardResult.suggest_items`."""
    from .adaptive import table_rates
    names, rates = table_rates(table, res._names)
    return {"_item_names": names, "_item_rates": rates}


_POLICY_SENTENCE = (" The claims are about the models' expected scores on new items like these: the items are taken as "
                    "draws from the population they were sampled from.")


def _whole_table_share() -> float:
    from ..plan import WHOLE_TABLE_SHARE
    return WHOLE_TABLE_SHARE


def _item_table_plan(table: pd.DataFrame, about: str, **given: Any) -> tuple[Any, str | None]:
    """(the exact budget test's plan, the note line) when a leaderboard runs each pair of models by the exact
    budget test (issue 31 item 7), else (None, why BB-EDGE runs, or None when nothing needs saying)."""
    if about != "policy":
        return None, None  # the benchmark estimand (runs of this item set) is BB-EDGE's
    declared = [name for name, value in given.items()
                if value is not None and not (name == "tau" and value == 0.0) and not (name == "output"
                                                                                     and value == "current")]
    for column in ("block", "weight"):
        if column in table.columns:
            declared.append(f"the {column!r} column")
    if declared:
        if given.get("method") is not None and len(declared) == 1:
            return None, None  # the method was chosen: nothing to explain
        return None, (f"BB-EDGE (not the exact budget test of each pair) because of {', '.join(declared)}")
    from ..plan import plan_whole_data

    if table["env"].isna().any():
        return None, None
    plan = plan_whole_data(table["score"], units=int(table["env"].nunique()),
                           layout=("paired", "an item table (every model answers the same items)"))
    if not plan.exact:
        return None, f"BB-EDGE: {plan.describe()}"
    from ..plan import WHOLE_TABLE_SHARE
    pairs = int(table["policy"].nunique())
    pairs = pairs * (pairs - 1) // 2
    return plan, (f"{plan.describe()}; {WHOLE_TABLE_SHARE:.0%} of each pair's level on McNemar's exact test at the "
                  f"table's end, Holm over {pairs} pairs (--method bb-edge runs BB-EDGE)")


def _estimand(table: pd.DataFrame, about: str | None) -> tuple[str, pd.DataFrame, str | None]:
    """What the leaderboard's claims are about (spec 09 §2): ``benchmark`` for two or more runs (the default),
    ``policy`` for a single-run item table (the default; with several runs, each item's runs are averaged)."""
    runs = int(table["replicate"].nunique()) if "replicate" in table.columns else 1
    if about is None:
        about = "benchmark" if runs >= 2 else "policy"
        if runs < 2:
            return about, table, ("one run per item: claims about the models' expected scores on items like these "
                                  "(about='policy'); --about benchmark claims them about this item set over runs")
    if about == "table":
        raise ParameterError("a leaderboard's claims are about the models (about='policy' or 'benchmark'); claims "
                             "about the averages over exactly these rows are rank's (--about table)")
    if about == "policy" and runs >= 2:
        grouped = table.groupby(["policy", "env"], sort=False)
        out = grouped.agg(score=("score", "mean"), order=("order", "min")).reset_index()
        out["replicate"] = 0
        keep = [c for c in table.columns if c not in out.columns and c in ("block", "weight")]
        for c in keep:
            out[c] = grouped[c].first().to_numpy()
        out.attrs = {k: v for k, v in table.attrs.items() if k != "validated"}
        return about, out, (f"about='policy' with {runs} runs: each item's score is the mean over its runs, and the "
                            "claims are about the models' expected scores on new items like these")
    return about, table, None


def bbedge_path(panels: Any, alpha: float = 0.05, tau: float = 0.0, blocks: Any = "items", *,
                method: str = "bb-edge", weights: Any = None, top_k: int | None = None,
                pilot: int | None = None, stake: str | None = None) -> dict[str, Any]:
    """Run BB-EDGE over a stack of panels (R, L, N) and return the whole certification path.

    For simulations: no names, no validation beyond the engine's. Returns a dict with ``certified``
    (R, L, L) bool (edges reported after each replicate), ``log_e`` (R, L, L; NaN for untested directions),
    ``top_k_at`` (first replicate with a certified Top-k set, or None) and ``top_k_set`` (model indices).
    """
    stack = np.asarray(panels, dtype=float)
    if stack.ndim != 3:
        raise ParameterError(f"panels must have shape (replicates, models, items), got {stack.shape}")
    R, L, _ = stack.shape
    board = Leaderboard([str(i) for i in range(L)], alpha=alpha, tau=tau, blocks=blocks, weights=weights,
                        method=method, top_k=top_k, pilot=pilot, keep_history=False, stake=stake)
    cert = np.zeros((R, L, L), dtype=bool)
    log_e = np.full((R, L, L), np.nan)
    for r in range(R):
        board.add_replicate(stack[r])
        cert[r] = board.certified_matrix()
        log_e[r] = board.log_e_matrix()
    return {"certified": cert, "log_e": log_e, "top_k_at": board._topk_at,
            "top_k_set": None if board._topk_set is None else list(board._topk_set)}
