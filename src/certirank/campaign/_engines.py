"""The engines a campaign drives: AnyRank (one rollout per record) and BB-EDGE (one replicate per record).

Each adapter builds a fresh engine from the locked configuration, applies one stored record, and turns its
derived state into bytes for the checkpoint and back. ``verify`` and ``undo`` rebuild an engine by applying
the live records in id order to a fresh one: exactly the sequence of calls the live campaign made.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import CertirankError, DataError, ParameterError, StateError
from . import _blob

KINDS = ("anyrank", "leaderboard", "proxy", "items")


class AnyRankEngine:
    kind = "anyrank"
    fmt = "certirank.anyrank.snapshot/1"

    def __init__(self, ranker: Any) -> None:
        self.ranker = ranker

    # ---------------------------------------------------------------- configuration
    @staticmethod
    def make_config(policies: Sequence[str], *, alpha: float, method: str, prior: Any, gamma: float,
                    n_max: int | None, ties: str, guarantee: str, environments: Sequence[str] | None,
                    seed: int | None, options: Mapping[str, Any]) -> dict[str, Any]:
        """Validate through the Ranker itself and return the canonical engine configuration."""
        import inspect

        from ..methods.anyrank import Ranker
        # the budget's keyword is being renamed nmax -> n_max (issue 14); pass whichever this Ranker takes
        budget = "n_max" if "n_max" in inspect.signature(Ranker.__init__).parameters else "nmax"
        options = dict(options)
        if "metric" in options:  # the campaign's name for the Ranker's bins (kept in saved configurations)
            options["bins"] = options.pop("metric")
        r = Ranker(policies, alpha=alpha, prior=prior, gamma=gamma, method=method, ties=ties, guarantee=guarantee,
                   environments=environments, seed=seed, **{budget: n_max}, **options)
        snap = r.snapshot()
        return {"ranker": snap["config"], "environment_draw": snap["environment_draw"]}

    @classmethod
    def fresh(cls, config: Mapping[str, Any]) -> AnyRankEngine:
        """A Ranker with nothing recorded, built from the locked configuration (through the snapshot format,
        which reads the configuration exactly as it was stored)."""
        from ..methods.anyrank import Ranker
        from ..methods.anyrank.state import empty
        return cls(empty(Ranker, config["ranker"], config.get("environment_draw")))

    @classmethod
    def restore(cls, blob: bytes) -> AnyRankEngine:
        from ..methods.anyrank import Ranker
        return cls(Ranker.from_snapshot(_blob.unpack(blob)))

    def checkpoint(self) -> bytes:
        return _blob.pack(self.ranker.snapshot())

    @staticmethod
    def differences(a: bytes, b: bytes) -> list[str]:
        from ..methods.anyrank.state import snapshot_differences
        return snapshot_differences(_blob.unpack(a), _blob.unpack(b))

    @staticmethod
    def test_line(config: Mapping[str, Any]) -> str:
        """Which test the campaign runs and why, in one line: everything comes from its locked design."""
        r = config["ranker"]
        budget, arms = r.get("budget", "none"), r.get("arms", "paired")
        bins, n_max = r.get("bins", r.get("metric")), r.get("n_max", r.get("nmax"))  # configurations before 0.2
        if budget in (None, "none"):
            scale = "binary scores" if bins == "binary" else "partial-progress scores"
            why = "" if bins != "binary" else " (no budget declared at init)"
            return (f"anytime e-process ({scale}{why}), at most n_max = {n_max} paired trials per comparison, "
                    f"paired by trial: valid at any stop")
        horizon = r.get("budget_horizon") or n_max
        pairing = ("independent arms, declared at init (separate rollouts, e.g. a blind A/B study)"
                   if arms == "independent" else "paired arms (trial r of every policy shares its environment; "
                   "valid for any correlation)")
        statistic = {"barnard": "Barnard-type, both success counts", "bayes": "fastest-decision boundary",
                     "mixture": "Beta-mixture statistic"}.get(r.get("statistic") or "mixture", r.get("statistic"))
        extend = ("valid at every stop up to the budget" if budget == "final"
                  else "valid at every stop, and past the budget with the e-process")
        return (f"exact budget test ({statistic}): binary scores declared at init, budget N = {horizon} rollouts "
                f"per policy and comparison, {pairing}; {extend}")

    def mismatch(self, live: Sequence[Mapping[str, Any]], config: Mapping[str, Any]) -> str | None:
        """How the live log rows differ from the results this engine holds (None: they agree). The engine keeps
        every live result in recording order, so a log whose rows were edited and re-hashed consistently is
        still caught against the checkpoint, in one pass and without a replay."""
        held = self.ranker._results
        if len(held) != len(live):
            return f"the log has {len(live)} live records, the checkpoint holds {len(held)}"
        for row, res in zip(live, held):
            score = None if row["score"] is None else float(row["score"])
            if (row["policy"], int(row["trial"]), score) != (res["policy"], int(res["trial"]), res["score"]):
                return f"entry {row['id']} ({row['policy']} trial {row['trial']}) is not the result the checkpoint holds"
        return None

    def settings(self) -> dict[str, Any]:
        """What the locked configuration fixes, as this engine holds it (compared with :meth:`locked_settings`
        on every open: a checkpoint that runs other settings than the configuration was edited)."""
        r = self.ranker
        draw = None if r._envs is None else {"choices": list(r._envs), "seed": r._env_seed}
        return {"setup": r._setup.locked(), "environment_draw": draw}

    @staticmethod
    def locked_settings(config: Mapping[str, Any]) -> dict[str, Any]:
        import warnings

        from ..methods.anyrank.config import _setup_from_dict
        with warnings.catch_warnings():  # read back, not given: its warnings were shown at init
            warnings.simplefilter("ignore")
            setup = _setup_from_dict(config["ranker"])
        return {"setup": setup.locked(), "environment_draw": config.get("environment_draw")}

    # ---------------------------------------------------------------- the loop
    @property
    def policies(self) -> list[str]:
        return self.ranker.policies

    @property
    def n_max(self) -> int:
        return int(self.ranker._setup.n_max)

    @property
    def done(self) -> bool:
        return self.ranker.done

    def needed(self) -> list[tuple[str, int]]:
        return self.ranker.suggest()

    def trial_limit(self) -> int:
        return 100 * self.n_max + 10_000  # the Ranker's own guard against typos such as 10**9

    def apply(self, row: Mapping[str, Any]) -> None:
        """Apply one log entry: a record, or an amendment that raised the budget (the only one the engine sees)."""
        if row["action"] == "amend":
            change = json.loads(row["payload"])["changes"].get("n_max")
            if change is not None:
                self.ranker.extend(int(change["to"]))
            return
        score = row["score"]
        self.ranker.record(row["policy"], int(row["trial"]), None if score is None else float(score), ahead=True)

    def result(self) -> Any:
        return self.ranker.result()


class LeaderboardEngine:
    """A leaderboard campaign's engine: one :class:`~certirank.methods.bbedge.Leaderboard` board, or with a margin
    (``config["margin"]``) the difference and equivalence boards of
    :class:`~certirank.methods.bbedge.margin.MarginBoards`, the pair ``leaderboard(..., margin=)`` runs. A
    configuration without a margin has no ``margin`` key and a checkpoint of today's bytes (``board.to_json()``)."""

    kind = "leaderboard"

    def __init__(self, board: Any) -> None:
        self.board = board

    @property
    def fmt(self) -> str:
        from ..methods.bbedge.margin import FORMAT, MarginBoards
        return FORMAT if isinstance(self.board, MarginBoards) else "certirank.bbedge.state/1"

    @staticmethod
    def make_config(models: Sequence[str], *, alpha: float, tau: float, blocks: Any, top_k: int | None,
                    method: str, margin: float | None = None, n_max: int | None = None) -> dict[str, Any]:
        if blocks is not None and not isinstance(blocks, str):
            raise ParameterError("a leaderboard campaign takes blocks='items' or 'replicate' (block labels per "
                                 "item are not supported in campaigns yet)")
        config: dict[str, Any] = {"models": list(models), "alpha": alpha, "tau": tau, "blocks": blocks,
                                  "top_k": top_k, "method": method}
        # each only when given: a configuration without it keeps its bytes and its hash
        if margin is not None:
            config["margin"] = margin
        if n_max is not None:  # the budget of replicates (its futility level is the default, FUTILITY)
            config["n_max"] = n_max
        held = LeaderboardEngine.fresh(config).board
        lb = getattr(held, "board", held)  # with a margin, the difference board holds the checked settings
        return {"models": list(lb.models), "alpha": held.alpha, "tau": lb.tau, "blocks": blocks, "top_k": lb.top_k,
                "method": lb.method, **({} if margin is None else {"margin": held.margin}),
                **({} if n_max is None else {"n_max": lb.n_max})}

    @classmethod
    def fresh(cls, config: Mapping[str, Any]) -> LeaderboardEngine:
        from ..methods.bbedge import Leaderboard
        c = config
        args = dict(tau=c["tau"], blocks=c["blocks"], top_k=c["top_k"], method=c["method"])
        if c.get("n_max") is not None:
            args["n_max"] = c["n_max"]
        if c.get("margin") is None:
            return cls(Leaderboard(c["models"], alpha=c["alpha"], **args))
        from ..methods.bbedge.margin import MarginBoards
        return cls(MarginBoards(c["models"], alpha=c["alpha"], margin=c["margin"], **args))

    @classmethod
    def restore(cls, blob: bytes) -> LeaderboardEngine:
        from ..methods.bbedge import Leaderboard
        from ..methods.bbedge.margin import FORMAT, MarginBoards
        from .._saved import parse
        state = parse(blob, Leaderboard._what, Leaderboard._error)
        if state.get("format") == FORMAT:
            return cls(MarginBoards.from_dict(state))
        return cls(Leaderboard.from_dict(state))

    def checkpoint(self) -> bytes:
        return self.board.to_json().encode()  # with its checksum(s), which from_dict requires

    @staticmethod
    def differences(a: bytes, b: bytes) -> list[str]:
        sa, sb = json.loads(a), json.loads(b)
        return [k for k in sorted(set(sa) | set(sb)) if sa.get(k) != sb.get(k)]

    @classmethod
    def agreement(cls, a: bytes, b: bytes) -> str | None:
        """Whether a replayed state ``b`` that is not ``a``'s bytes still agrees with checkpoint ``a`` on what it
        decides: None if not; else the sentence verify reports. A checkpoint written by an older BB-EDGE (its log
        e-values were sums, today's are products of 64 factors: equal within a few ulps) replays to other last
        digits, never to other decisions: every integer, text and flag must be equal, every number within
        :data:`REPLAY_RTOL` (relative), and the result (edges, rank intervals, top-k, first certified at) equal
        under the same rule."""
        try:
            sa, sb = json.loads(a), json.loads(b)
            ra, rb = cls.restore(a).result().to_dict(), cls.restore(b).result().to_dict()
        except (CertirankError, ValueError, TypeError, KeyError):
            return None
        for res in (ra, rb):  # forecasts are not decisions: a last-digit change may move a ceil by one
            res.get("details", {}).pop("undecided_details", None)
        for state in (sa, sb):  # the checksums of the two byte strings (of each board, with a margin)
            for part in (state, state.get("differences"), state.get("equivalence")):
                if isinstance(part, dict):
                    part.pop("state_sha256", None)
        worst = [0.0]
        if not (_close(sa, sb, worst) and _close(ra, rb, worst)):
            return None
        return (f"what it decides agrees with the checkpoint (the same edges, rank intervals and stopping); its "
                f"numbers differ by at most {worst[0]:.1e} (relative), within the tolerance {REPLAY_RTOL:g} for a "
                "checkpoint written by an older BB-EDGE, whose arithmetic differs in the last digits")

    def mismatch(self, live: Sequence[Mapping[str, Any]], config: Mapping[str, Any]) -> str | None:
        """How the live replicates differ from the engine state (None: they agree): a leaderboard holds few
        replicates, so they are replayed and compared with the checkpoint."""
        fresh = self.fresh(config)
        try:
            for row in live:
                fresh.apply(row)
        except (CertirankError, ValueError, TypeError, KeyError) as exc:
            return f"a live replicate is refused by the engine ({exc})"
        # the recorded data, not the betting state: that is recomputed by the engine version that wrote it, and a
        # newer BB-EDGE may differ in its last digits (verify compares it strictly)
        differ: list[str] = []
        for board, replayed in zip(_boards(self.board), _boards(fresh.board)):
            mine, theirs = board.to_dict(), replayed.to_dict()
            keys = sorted(k for k in set(mine) | set(theirs) if k not in ("families", "state_sha256", "history"))
            differ += [k for k in keys if mine.get(k) != theirs.get(k) and k not in differ]
        return None if not differ else f"the live replicates are not the ones the checkpoint holds ({', '.join(differ[:4])})"

    @staticmethod
    def test_line(config: Mapping[str, Any]) -> str:
        margin = config.get("margin")
        eq = ("" if margin is None else f", equivalence margin {margin:g} (alpha/2 for the edges, alpha/2 for "
              "the equivalence claims)")
        if config.get("n_max") is not None:
            eq += f", a budget of {config['n_max']} replicates"
        return (f"BB-EDGE ({config['method']}) on whole runs of every model, alpha = {config['alpha']:g}{eq}: valid "
                "at any stop, for the benchmark's items as fixed")

    _SETTINGS = ("models", "alpha", "tau", "method", "stake", "top_k", "resolution", "blocks_source", "n_max")

    def settings(self) -> dict[str, Any]:
        boards = _boards(self.board)
        state = boards[0].to_dict()
        out = {k: state.get(k) for k in self._SETTINGS}
        if len(boards) == 1:
            return out
        return {**out, "alpha": self.board.alpha, "margin": self.board.margin,
                "boards": [[b.alpha, b.tau, b.method, b.stake, b.resolution] for b in boards]}

    @classmethod
    def locked_settings(cls, config: Mapping[str, Any]) -> dict[str, Any]:
        return cls.fresh(config).settings()

    @property
    def policies(self) -> list[str]:
        return list(self.board.models)

    @property
    def done(self) -> bool:
        """At its budget of replicates (every pair decided is the status's to say: it reads the result)."""
        n_max = getattr(self.board, "board", self.board).n_max  # with a margin, the difference board's
        return n_max is not None and int(self.board.R) >= int(n_max)

    @property
    def replicates(self) -> int:
        return int(self.board.R)

    def apply(self, row: Mapping[str, Any]) -> None:
        import pandas as pd
        if row["action"] != "record":  # a leaderboard's amendments change no engine state
            return
        panel = json.loads(row["payload"])
        frame = pd.DataFrame(panel["scores"], index=panel["items"], columns=self.board.models, dtype=float)
        self.board.add_replicate(frame, replicate=int(row["trial"]))

    def result(self) -> Any:
        return self.board.result()

    def canonical_panel(self, panel: Any, source: str) -> str:
        """A replicate as stored: {"items": [...], "scores": [[model scores] per item]} in board model order.

        Checked by the Leaderboard itself on a copy first, so a refused panel changes nothing.
        """
        import pandas as pd

        from ..data.readers import load
        if isinstance(panel, pd.DataFrame) and not {"score"} & {str(c).lower() for c in panel.columns}:
            wide = panel.copy()
        else:
            try:
                table = load(panel)
            except DataError as err:
                if "--score-range" not in str(err):
                    raise
                # the reader's hint does not apply: a leaderboard campaign fixes its scores to [0, 1] at init
                msg = err.bare_message().split(" (pass score_range", 1)[0]
                raise DataError(f"{msg} (a leaderboard campaign takes scores in [0, 1]; rescale the run's scores "
                                "before add-run)", source=err.source, row=err.row, column=err.column) from None
            if table["env"].isna().any():
                raise DataError("a replicate file needs an item column ('item' or 'env') to pair scores across "
                                "models", source=source)
            if "replicate" in table.columns and table["replicate"].nunique() > 1:
                raise DataError("a replicate file must hold one run (one replicate id); split it and add each "
                                "run with its own add-run", source=source)
            dup = table.duplicated(["policy", "env"])
            if dup.any():
                i = int(np.flatnonzero(dup.to_numpy())[0])
                raise DataError(f"model {table['policy'].iloc[i]!r} is scored twice on item "
                                f"{table['env'].iloc[i]!r}", source=source)
            wide = table.pivot(index="env", columns="policy", values="score")
            wide = wide.reindex(index=list(dict.fromkeys(table["env"])))
        wide.index = [str(i) for i in wide.index]
        wide.columns = [str(c) for c in wide.columns]
        unknown = [c for c in wide.columns if c not in self.board.models]
        if unknown:
            raise DataError(f"unknown model(s) {', '.join(map(repr, unknown[:5]))}; the campaign's models are: "
                            f"{', '.join(self.board.models)}", source=source)
        absent = [m for m in self.board.models if m not in wide.columns]
        if absent:
            raise DataError(f"model(s) {', '.join(map(repr, absent[:5]))} have no scores in this run; every model "
                            "must be scored on every item", source=source)
        wide = wide[self.board.models]
        arr = wide.to_numpy(dtype=float)
        bad = ~np.isfinite(arr) | (arr < 0) | (arr > 1)
        if bad.any():
            i, j = (int(v[0]) for v in np.nonzero(bad))
            what = "missing" if math.isnan(arr[i, j]) else f"{arr[i, j]!r}, outside [0, 1]"
            raise DataError(f"score of model {self.board.models[j]!r} on item {wide.index[i]!r} is {what}",
                            source=source)
        payload = {"items": list(wide.index), "scores": arr.tolist()}
        # a dry run on a copy of the engine: every refusal of the Leaderboard (items not in the benchmark, ...)
        # happens before anything is written
        from ..methods.bbedge import Leaderboard
        probe = Leaderboard.from_json(_boards(self.board)[0].to_json())  # both boards take the same panels
        try:
            probe.add_replicate(pd.DataFrame(payload["scores"], index=payload["items"], columns=self.board.models),
                                replicate=10**12)
        except StateError:  # the board's state refuses it (its budget of replicates is reached), not the file
            raise
        except CertirankError as exc:  # the Leaderboard does not know the file: name it, as the checks above do
            raise DataError(str(exc), source=source) from None
        return json.dumps(payload, separators=(",", ":"))


#: how far (relative) a replayed leaderboard number may be from a checkpoint written by an older engine: BB-EDGE's
#: log e-values changed from sums to products of 64 factors (equal within 4 ulps, about 1e-15 relative); a
#: tolerance a million times wider still cannot move a decision unnoticed, since decisions are compared exactly
REPLAY_RTOL = 1e-9


def _close(a: Any, b: Any, worst: list[float]) -> bool:
    """``a`` and ``b`` (parsed JSON) equal, floats within REPLAY_RTOL; numpy arrays saved as {dtype, shape, b64}
    are decoded (integer and boolean arrays must be equal). ``worst`` keeps the largest relative difference."""
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return False
        if {"dtype", "shape", "b64"} <= set(a) and a.get("dtype") == b.get("dtype") and a.get("shape") == b.get("shape"):
            import base64
            x = np.frombuffer(base64.b64decode(a["b64"]), dtype=a["dtype"])
            y = np.frombuffer(base64.b64decode(b["b64"]), dtype=b["dtype"])
            if x.dtype.kind != "f":
                return bool(np.array_equal(x, y))
            return _close(x.tolist(), y.tolist(), worst)
        return all(_close(a[k], b[k], worst) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y, worst) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        if a == b or (math.isnan(a) and math.isnan(b)):
            return True
        if not (math.isfinite(a) and math.isfinite(b)):
            return False
        rel = abs(a - b) / max(1.0, abs(a), abs(b))
        worst[0] = max(worst[0], rel)
        return rel <= REPLAY_RTOL
    return type(a) is type(b) and a == b


def _boards(board: Any) -> tuple[Any, ...]:
    """The BB-EDGE boards an engine holds: one, or with a margin the difference and equivalence boards."""
    return tuple(getattr(board, "boards", (board,)))


def engine_class(kind: str) -> type:
    if kind == "proxy":
        from ._proxy import ProxyEngine
        return ProxyEngine
    if kind == "items":
        from ._items import ItemEngine
        return ItemEngine
    return AnyRankEngine if kind == "anyrank" else LeaderboardEngine
