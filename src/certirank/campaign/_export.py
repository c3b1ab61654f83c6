"""`export`: the long table of live records, and the `certirank rank` command that replays it."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any

import numpy as np

from .._escape import csv_guarded
from ..errors import ParameterError
from ._audit import row_extras
from .results import ExportResult


def export(camp: Any, out: str | os.PathLike[str], *, unblind: bool = False, by: str | None = None) -> ExportResult:
    """Write the long table of live records (CSV or Parquet, atomically).

    AnyRank: ``policy, trial, score, environment, schedule_block, tags, faults, fault_reasons, by, note,
    recorded_at, record_id`` sorted by trial then policy, so that ``certirank rank OUT`` replays it in trial order (``rank_command`` is the exact command
    line with this campaign's settings). Leaderboard: ``model, item, replicate, score``. Items: see :func:`_item_frame`. In blind mode the
    policies are written as codes unless ``unblind=True`` (which unblinds the campaign, see :meth:`unblind`).
    """
    import pandas as pd

    from .._io import atomic_path
    if not isinstance(out, (str, os.PathLike)) or "\0" in os.fspath(out):
        raise ParameterError(f"export needs a file name (OUT.csv or OUT.parquet), got {out!r}")
    out = Path(out)
    suffix = out.suffix.lower()
    if suffix not in (".csv", ".parquet"):
        raise ParameterError(f"export writes .csv or .parquet, got {out.name!r}")
    # a campaign named lab.csv would otherwise be replaced by its own export, history and all
    db = camp.path.resolve()
    if out.resolve() in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        raise ParameterError(f"{out} is the campaign file itself; export to another file")
    if unblind:
        camp.unblind(by=by)
    with camp._store.read() as conn:
        camp._sync(conn)
        # every row is read anyway: the whole chain is checked, so an edited entry is refused, never exported
        every = camp._checked_rows(conn)
    rows = [r for r in every if r["action"] == "record" and r["undone_by"] is None]
    faults: dict[tuple[str, int], list[str]] = {}
    for r in every:
        if r["action"] == "fault" and r["undone_by"] is None:
            faults.setdefault((r["policy"], int(r["trial"])), []).append(row_extras(r).get("fault") or "")
    show = camp._revealed or not camp.blind
    names = camp._names.names
    if camp.kind == "items":
        frame, command = _item_frame(rows), ""
    elif camp.kind != "leaderboard":
        # under codes, the configured order within a trial would tell which code is which policy
        ordered = names if show else sorted(names, key=lambda p: camp._shown(p))
        order = {p: i for i, p in enumerate(ordered)}
        proxy = camp.kind == "proxy"
        data = (_unit_order(rows, order) if proxy else
                sorted(rows, key=lambda r: (r["trial"], order[r["policy"]])))
        frame = pd.DataFrame({
            "policy": [camp._shown(r["policy"], show) for r in data],
            "trial": [int(r["trial"]) for r in data],
            "score": pd.array([r["score"] for r in data], dtype="Float64"),
        })
        if proxy:  # blank score: the trial was not drawn for a real label
            payloads = [json.loads(r["payload"]) for r in data]
            frame["proxy"] = [float(x["proxy"]) for x in payloads]
        if camp.config.get("score_range") is not None:
            frame["raw_score"] = pd.array([r["raw_score"] for r in data], dtype="Float64")
            if proxy:
                frame["raw_proxy"] = [x.get("raw_proxy") for x in payloads]
        schedule = camp._design.schedule
        if schedule.has_environments:
            frame["environment"] = [schedule.environment(int(r["trial"])) for r in data]
            # not "block": readers take a block column as the items' block design (BB-EDGE)
            frame["schedule_block"] = pd.array([schedule.block(int(r["trial"])) for r in data], dtype="Int64")
        extras = [row_extras(r) for r in data]
        frame["tags"] = [",".join(x.get("tags", [])) for x in extras]
        # faults logged on a rollout before it was judged (faults never judged are in `log` and `status`)
        frame["faults"] = [len(faults.get((r["policy"], int(r["trial"])), [])) for r in data]
        frame["fault_reasons"] = ["; ".join(faults.get((r["policy"], int(r["trial"])), [])) for r in data]
        frame["by"] = [r["by"] for r in data]
        frame["note"] = [r["note"] for r in data]
        frame["recorded_at"] = [r["at"] for r in data]
        frame["record_id"] = [int(r["id"]) for r in data]
        command = _proxy_command(camp, out) if proxy else _rank_command(camp, out, show)
    else:
        parts = []
        for r in rows:
            p = json.loads(r["payload"])
            arr = np.asarray(p["scores"], dtype=float)
            for j, m in enumerate(names):
                parts.append(pd.DataFrame({"model": m, "item": p["items"], "replicate": int(r["trial"]),
                                           "score": arr[:, j]}))
        frame = (pd.concat(parts, ignore_index=True) if parts
                 else pd.DataFrame(columns=["model", "item", "replicate", "score"]))
        e = camp.config["engine"]
        words = ["certirank", "leaderboard", str(out), "--alpha", f"{e['alpha']:g}", "--tau", f"{e['tau']:g}",
                 "--method", e["method"]]
        if e["blocks"]:
            words += ["--blocks", e["blocks"]]
        if e["top_k"]:
            words += ["--top-k", str(e["top_k"])]
        if e.get("margin") is not None:  # the batch verb runs the same two boards (methods.bbedge.margin)
            words += ["--margin", repr(float(e["margin"]))]
        command = shlex.join(words)
    with atomic_path(out) as tmp:
        if suffix == ".csv":
            csv_guarded(frame).to_csv(tmp, index=False)
        else:
            frame.to_parquet(tmp, index=False)
    return ExportResult(path=str(out), rows=len(frame), columns=[str(c) for c in frame.columns],
                        rank_command=command)


def _item_frame(rows: list[dict[str, Any]]) -> Any:
    """An item campaign's draws, one row per score: ``draw, item, model, score, probability`` (the item's draw
    probability, which the guarantee's importance weight 1/(N q) needs), in draw order. No batch command replays it:
    the weights depend on the draw order and the board's state (``campaign verify`` replays the campaign itself)."""
    import pandas as pd
    out: dict[str, list[Any]] = {"draw": [], "item": [], "model": [], "score": [], "probability": [], "by": [],
                                 "recorded_at": [], "record_id": []}
    for r in sorted(rows, key=lambda r: int(r["trial"])):
        x = row_extras(r)
        for m, v in x["scores"].items():
            for k, val in (("draw", int(r["trial"])), ("item", x["item"]), ("model", m), ("score", v),
                           ("probability", x["probability"]), ("by", r["by"]), ("recorded_at", r["at"]),
                           ("record_id", int(r["id"]))):
                out[k].append(val)
    return pd.DataFrame(out)


def _unit_order(rows: list[dict[str, Any]], order: dict[str, int]) -> list[dict[str, Any]]:
    """A proxy campaign's rows in the order its engine reads the units: the trials every policy recorded, in
    the order they were completed (the entry that completed each), then the trials not complete yet (which the
    campaign does not count, and `rank --proxy` on the file counts for the pairs that ran them)."""
    by_trial: dict[int, list[dict[str, Any]]] = {}
    for r in rows:
        by_trial.setdefault(int(r["trial"]), []).append(r)
    complete = sorted((max(int(r["id"]) for r in rs), t) for t, rs in by_trial.items() if len(rs) == len(order))
    rest = sorted(t for t, rs in by_trial.items() if len(rs) != len(order))
    return [r for t in [t for _, t in complete] + rest
            for r in sorted(by_trial[t], key=lambda r: order[r["policy"]])]


def _proxy_command(camp: Any, out: Path) -> str:
    """The `certirank rank --proxy` command that reads the export as the campaign reads its units."""
    e = camp.config["engine"]
    margin = [] if e.get("margin") is None else ["--margin", repr(e["margin"])]
    return shlex.join(["certirank", "rank", str(out), "--proxy", "proxy", "--label-rate", repr(e["label_rate"]),
                       "--alpha", repr(e["alpha"]), "--n-max", str(e["n_max"]), *margin, "--order", "file"])


def _rank_command(camp: Any, out: Path, show: bool) -> str:
    """The exact `certirank rank` command line (every word shell-quoted: names and paths are anyone's text)."""
    r = camp.config["engine"]["ranker"]
    n_max, bins = r.get("n_max", r.get("nmax")), r.get("bins", r.get("metric"))  # configurations before 0.2
    words = ["certirank", "rank", str(out), "--alpha", repr(r["alpha"]), "--method", r["method"], "--n-max",
             str(n_max), "--ties", r["ties"], "--guarantee", r["guarantee"], "--bins", bins,
             "--budget", r.get("budget", "none"),  # the campaign's test, not the replay's default
             "--order", "file"]  # rows in trial order: the run order (spec 09 §3), not a random one
    if r.get("budget", "none") != "none":
        # a campaign saved before the statistic option ran the mixture
        words += ["--arms", r.get("arms", "paired"), "--statistic", r.get("statistic") or "mixture"]
    if r["prior"] is not None:
        pairs = [f"{camp._shown(p, show)}={v!r}" for p, v in zip(r["policies"], r["prior"])]
        if not show:  # sorted, as everything under codes is: the configured order would tell which code is which
            pairs.sort()
        words += ["--prior-means", ",".join(pairs), "--gamma", repr(r["gamma"])]
    return shlex.join(words)
