"""`export`: the long table of live records, and the `certirank rank` command that replays it."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ParameterError
from ._util import _environment
from .results import ExportResult


def export(camp: Any, out: str | os.PathLike[str], *, unblind: bool = False, by: str | None = None) -> ExportResult:
    """Write the long table of live records (CSV or Parquet, atomically).

    AnyRank: ``policy, trial, score, environment, by, note, recorded_at, record_id`` sorted by trial then
    policy, so that ``certirank rank OUT`` replays it in trial order (``rank_command`` is the exact command
    line with this campaign's settings). Leaderboard: ``model, item, replicate, score``. In blind mode the
    policies are written as codes unless ``unblind=True`` (which unblinds the campaign, see :meth:`unblind`).
    """
    import pandas as pd

    from .._io import atomic_path
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
    with camp._read() as conn:
        camp._current(conn)
        show = camp._revealed or not camp.blind
        rows = conn.execute("SELECT id, policy, trial, score, raw_score, payload, by, note, at FROM records WHERE "
                            "action = 'record' AND undone_by IS NULL ORDER BY id").fetchall()
    if camp.kind == "anyrank":
        # under codes, the configured order within a trial would tell which code is which policy
        names = camp._names() if show else sorted(camp._names(), key=lambda p: camp._shown(p))
        order = {p: i for i, p in enumerate(names)}
        draw = camp.config["engine"].get("environment_draw")
        data = sorted(rows, key=lambda r: (r[2], order[r[1]]))
        frame = pd.DataFrame({
            "policy": [camp._shown(r[1], show) for r in data],
            "trial": [int(r[2]) for r in data],
            "score": pd.array([r[3] for r in data], dtype="Float64"),
        })
        if camp.config.get("score_range") is not None:
            frame["raw_score"] = pd.array([r[4] for r in data], dtype="Float64")
        if draw:
            frame["environment"] = [_environment(draw, int(r[2])) for r in data]
        frame["by"] = [r[6] for r in data]
        frame["note"] = [r[7] for r in data]
        frame["recorded_at"] = [r[8] for r in data]
        frame["record_id"] = [int(r[0]) for r in data]
        command = _rank_command(camp, out, show)
    else:
        parts = []
        for r in rows:
            p = json.loads(r[5])
            arr = np.asarray(p["scores"], dtype=float)
            for j, m in enumerate(camp._names()):
                parts.append(pd.DataFrame({"model": m, "item": p["items"], "replicate": int(r[2]),
                                           "score": arr[:, j]}))
        frame = (pd.concat(parts, ignore_index=True) if parts
                 else pd.DataFrame(columns=["model", "item", "replicate", "score"]))
        e = camp.config["engine"]
        command = (f"certirank leaderboard {out} --alpha {e['alpha']:g} --tau {e['tau']:g} --method {e['method']}"
                   + (f" --blocks {e['blocks']}" if e["blocks"] else "") + (f" --top-k {e['top_k']}" if e["top_k"]
                                                                            else ""))
    with atomic_path(out) as tmp:
        if suffix == ".csv":
            frame.to_csv(tmp, index=False)
        else:
            frame.to_parquet(tmp, index=False)
    return ExportResult(path=str(out), rows=len(frame), columns=[str(c) for c in frame.columns],
                        rank_command=command)

def _rank_command(camp: Any, out: Path, show: bool) -> str:
    r = camp.config["engine"]["ranker"]
    n_max, bins = r.get("n_max", r.get("nmax")), r.get("bins", r.get("metric"))  # configurations before 0.2
    parts = [f"certirank rank {out}", f"--alpha {r['alpha']!r}", f"--method {r['method']}", f"--n-max {n_max}",
             f"--ties {r['ties']}", f"--guarantee {r['guarantee']}", f"--bins {bins}",
             f"--budget {r.get('budget', 'none')}"]  # the campaign's test, not the replay's default
    if r.get("budget", "none") != "none":
        # a campaign saved before the statistic option ran the mixture
        parts.append(f"--arms {r.get('arms', 'paired')} --statistic {r.get('statistic') or 'mixture'}")
    if r["prior"] is not None:
        # sorted, as everything under codes is: the configured order would tell which code is which policy
        pairs = ",".join(sorted(f"{camp._shown(p, show)}={v!r}" for p, v in zip(r["policies"], r["prior"])) if not show
                         else [f"{p}={v!r}" for p, v in zip(r["policies"], r["prior"])])
        parts += [f"--prior-means '{pairs}'", f"--gamma {r['gamma']!r}"]
    return " ".join(parts)

# ------------------------------------------------------------------------------------------ verify
