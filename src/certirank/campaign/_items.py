"""The item campaign (issue 35 item 4): a leaderboard scored item by item, the items drawn by the campaign toward the
undecided pairs with known probabilities (:class:`~certirank.methods.bbedge.adaptive.AdaptiveBoard`, whose guarantee
is documented in docs/adaptive-items.md).

The engine holds no logic of its own: its state is an ``AdaptiveBoard`` built from the locked configuration and fed
the recorded draws in order (each record is one draw: the item, the scores of the models the board asked for, and the
draw probability the board gave it). After every record it asks the board for the next draw, which is therefore
part of the state: ``next`` shows it (twice the same), ``record`` accepts exactly it, and a replay of the log draws
the same items with the same probabilities (the board's generator is seeded by the locked seed and takes one number
per draw, so draw t is a function of the seed, t and the scores recorded before it). The checkpoint is the list of
draws; a restore replays it, and a replay that would draw another item or probability than the log holds is refused.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._params import ITEM
from .._validate import check_alpha, is_number_text
from ..errors import CertirankError, DataError, ParameterError, StateError
from ._util import check_budget, json_differences, ranked_names, replay_mismatch

__all__ = ["ItemEngine", "check_items", "check_difficulty", "item_scores"]

#: the most items an item campaign takes (the board holds a models x items array per draw)
MAX_ITEMS = 1_000_000


def check_items(items: Any) -> list[str]:
    """The benchmark's item names, fixed at init: a count N (items "0" .. "N-1"), a list of names, or the path of
    a text file with one name per line (blank lines and lines starting with '#' left out)."""
    if isinstance(items, (bool, np.bool_)):
        raise ParameterError(f"items must be a number of items, a list of item names or a file, got {items!r}")
    if isinstance(items, (int, np.integer)):
        if not 1 <= int(items) <= MAX_ITEMS:
            raise ParameterError(f"items must be between 1 and {MAX_ITEMS}, got {items}")
        return [str(i) for i in range(int(items))]
    if isinstance(items, str) and items.strip().isascii() and items.strip().isdigit() and not Path(items).exists():
        return check_items(int(items))  # `--items N` (a file named like a number is read as a file)
    if isinstance(items, (str, os.PathLike)):
        lines = _read_text(Path(items), "items", "one item name per line")
        names = [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
        if not names:
            raise ParameterError(f"items file {os.fspath(items)} lists no item (one name per line)")
        source = f"items file {os.fspath(items)}"
    elif isinstance(items, Sequence):
        names, source = ["" if i is None else str(i).strip() for i in items], "items"
    else:
        raise ParameterError(f"items must be a number of items, a list of item names or a file, got {items!r}")
    if not names or len(names) > MAX_ITEMS:
        raise ParameterError(f"{source}: give between 1 and {MAX_ITEMS} items, got {len(names)}")
    seen: set[str] = set()
    for k, name in enumerate(names):
        if not name:
            raise ParameterError(f"{source}: item {k + 1} has an empty name")
        ITEM.check(name, f"{source}: item {k + 1}")  # what record_item takes
        if name in seen:
            raise ParameterError(f"{source}: item {name!r} is listed twice")
        if name.startswith("-"):  # `campaign record DB ITEM DRAW` would read it as an option: the draw is stuck
            raise ParameterError(f"{source}: item {name!r} starts with '-', which the command line reads as an "
                                 "option; rename it")
        seen.add(name)
    return names


def check_difficulty(difficulty: Any, items: Sequence[str]) -> list[float] | None:
    """Each item's success rate from earlier models (speed only; fixed at init, before the data): a sequence in
    item order, a mapping item -> rate, or the path of a CSV file 'item,rate' (a header line is allowed)."""
    if difficulty is None:
        return None
    source = "difficulty"
    known = set(items)
    if isinstance(difficulty, (str, os.PathLike)):
        source = f"difficulty file {os.fspath(difficulty)}"
        rates: dict[str, str] = {}
        first = True
        for k, line in enumerate(_read_text(Path(difficulty), "difficulty", "'item,rate' lines"), start=1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            name, sep, value = line.rpartition(",")
            if not sep:
                raise ParameterError(f"{source}, line {k}: expected 'item,rate', got {line.strip()!r}")
            header, first = first and name.strip().strip('"') not in known and not is_number_text(value), False
            if header:  # only the first line may be one: a later row's bad rate is refused below
                continue
            name = name.strip().strip('"')
            if name not in known:
                raise ParameterError(f"{source}, line {k}: item {name!r} is not one of the campaign's items")
            if name in rates:
                raise ParameterError(f"{source}, line {k}: item {name!r} is listed twice")
            rates[name] = value.strip()
        difficulty = rates
    if isinstance(difficulty, Mapping):
        unknown = [str(k) for k in difficulty if str(k) not in known]
        if unknown:
            raise ParameterError(f"{source}: item {unknown[0]!r} is not one of the campaign's items")
        missing = [i for i in items if i not in {str(k) for k in difficulty}]
        if missing:
            raise ParameterError(f"{source}: item {missing[0]!r} has no rate (give one for every item)")
        by_name = {str(k): v for k, v in difficulty.items()}
        values = [by_name[i] for i in items]
    elif isinstance(difficulty, (Sequence, np.ndarray)):  # text was read as a path above
        values = list(difficulty)
        if len(values) != len(items):
            raise ParameterError(f"{source}: {len(values)} rates for {len(items)} items (one per item, in order)")
    else:
        raise ParameterError(f"difficulty must be one success rate per item (a list, a mapping or a file), got "
                             f"{difficulty!r}")
    return [_unit_number(v, f"{source}: the rate of item {name!r}") for name, v in zip(items, values)]


def _unit_number(v: Any, what: str) -> float:
    """A rate or score in [0, 1] (a number or its text; not a boolean), refused in one line naming `what`."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise ParameterError(f"{what} is {v!r}, expected a number in [0, 1]") from None
    if isinstance(v, (bool, np.bool_)) or not (math.isfinite(x) and 0.0 <= x <= 1.0):
        raise ParameterError(f"{what} is {v!r}, outside [0, 1]")
    return x


def _read_text(path: Path, what: str, shape: str) -> list[str]:
    try:
        return path.read_text(encoding="utf-8-sig").splitlines()  # a spreadsheet's BOM is no part of a name
    except UnicodeDecodeError:
        raise ParameterError(f"{what} file {path} is not a UTF-8 text file ({shape})") from None
    except OSError as exc:
        raise ParameterError(f"cannot read {what} file {path}: {exc.strerror or exc}") from None



def item_scores(scores: Any) -> dict[str, float]:
    """The scores of one drawn item as {model: score in [0, 1]}: a mapping, or 'a=1,b=0.5' text (the CLI's)."""
    if scores is None:
        return {}
    if isinstance(scores, str):
        out: dict[str, Any] = {}
        for part in (p for p in scores.split(",") if p.strip()):
            name, sep, value = part.rpartition("=")  # a score holds no '=', a model name may
            if not sep or not name.strip():
                raise ParameterError(f"scores take MODEL=SCORE pairs separated by commas, got {part.strip()!r}")
            if name.strip() in out:
                raise ParameterError(f"scores: model {name.strip()!r} is given twice")
            out[name.strip()] = value.strip()
        scores = out
    if not isinstance(scores, Mapping):
        raise ParameterError(f"scores must be a mapping model -> score, got {scores!r}")
    return {str(name): _unit_number(v, f"the score of model {name!r}") for name, v in scores.items()}


class ItemEngine:
    """An item campaign's state: the :class:`AdaptiveBoard` of the locked configuration fed the recorded draws, and
    the draw it asks for next (``pending``: item, models, probability; None when the board is done)."""

    kind = "items"
    fmt = "certirank.items.state/1"
    _SETTINGS = ("models", "items", "alpha", "difficulty", "about", "seed", "n_max")

    def __init__(self, config: Mapping[str, Any], records: Sequence[Sequence[Any]] = ()) -> None:
        from ..methods.bbedge.adaptive import AdaptiveBoard
        c = self.config = dict(config)
        self.board = AdaptiveBoard(c["models"], len(c["items"]), c["alpha"], difficulty=c["difficulty"],
                                   seed=c["seed"], n_max=c["n_max"], about=c["about"])
        self._index = {name: i for i, name in enumerate(c["items"])}
        self.records: list[tuple[int, str, dict[str, float], float]] = []
        self.pending: dict[str, Any] | None = None
        self._result: Any = None
        self._ask()
        for draw, item, scores, prob in records:
            self._add(int(draw), str(item), {str(k): float(v) for k, v in scores.items()}, float(prob))

    # ---------------------------------------------------------------- configuration
    @staticmethod
    def make_config(models: Sequence[str], *, items: Any, difficulty: Any, alpha: float, about: str, seed: int,
                    n_max: int | None) -> dict[str, Any]:
        names = ranked_names(models, "model", "models", "an item campaign")
        n_max = check_budget(n_max, "item draws")
        item_names = check_items(items)
        return {"models": names, "items": item_names, "alpha": check_alpha(alpha),
                "difficulty": check_difficulty(difficulty, item_names), "about": about, "seed": int(seed),
                "n_max": n_max}

    @classmethod
    def fresh(cls, config: Mapping[str, Any]) -> ItemEngine:
        return cls(config)

    @classmethod
    def restore(cls, blob: bytes) -> ItemEngine:
        try:
            state = json.loads(blob.decode())
            if state.get("format") != cls.fmt:
                raise ValueError(state.get("format"))
            config, records = state["config"], state["records"]
        except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError) as exc:
            raise StateError(f"the item campaign's checkpoint is not readable ({exc})") from None
        try:
            return cls(config, records)
        except CertirankError as exc:
            raise StateError(f"the item campaign's checkpoint does not replay ({exc})") from None

    def checkpoint(self) -> bytes:
        state = {"format": self.fmt, "config": self.config, "records": [list(r) for r in self.records]}
        return json.dumps(state, sort_keys=True, separators=(",", ":")).encode()

    differences = staticmethod(json_differences)

    @staticmethod
    def test_line(config: Mapping[str, Any]) -> str:
        m = len(config["models"])
        budget = "" if config["n_max"] is None else f", at most n_max = {config['n_max']} draws"
        table = (" (about = table: the claims are about these scores' averages, a score once seen is not asked "
                 "again)" if config["about"] == "table" else "")
        return (f"BB-EDGE variant for items drawn one at a time (docs/adaptive-items.md): each item drawn by the "
                f"campaign with a known probability toward the undecided pairs and weighted by 1/(N q), direct "
                f"e-Holm over the {m * (m - 1)} directions, alpha = {config['alpha']:g}{budget}: valid at any stop "
                f"for the means over the {len(config['items'])} items{table}, when exactly the drawn items are "
                "scored, in order")

    def mismatch(self, live: Sequence[Mapping[str, Any]], config: Mapping[str, Any]) -> str | None:
        return replay_mismatch(live, self.records, _row_values, "an item draw")

    def settings(self) -> dict[str, Any]:
        return {k: self.config.get(k) for k in self._SETTINGS}

    @classmethod
    def locked_settings(cls, config: Mapping[str, Any]) -> dict[str, Any]:
        return {k: config.get(k) for k in cls._SETTINGS}

    # ---------------------------------------------------------------- the loop
    @property
    def policies(self) -> list[str]:
        return list(self.config["models"])

    @property
    def n_max(self) -> int | None:
        return self.config["n_max"]

    @property
    def done(self) -> bool:
        return self.pending is None

    @property
    def draws(self) -> int:
        return len(self.records)

    def evaluations(self) -> dict[str, int]:
        """Item evaluations (scores recorded) per model."""
        out = dict.fromkeys(self.policies, 0)
        for _, _, scores, _ in self.records:
            for m in scores:
                out[m] += 1
        return out

    def _ask(self) -> None:
        if self.board.done:
            self.pending = None
            return
        s = self.board.suggest_items(1)[0]
        self.pending = {"draw": len(self.records) + 1, "item": self.config["items"][s["item"]],
                        "models": list(s["models"]), "probability": float(s["probability"])}

    def check_entry(self, draw: int | None, item: str, scores: Mapping[str, float]) -> None:
        """A record is the pending draw exactly: its item, the scores of exactly its models (one line each)."""
        p = self.pending
        if p is None:
            raise StateError(f"the campaign is finished ({self.result().termination}); nothing more is recorded")
        if draw is not None and draw != p["draw"]:
            raise ParameterError(f"draw {draw} is not the pending draw (draw {p['draw']}, item {p['item']!r}): items "
                                 "are recorded in the order drawn (campaign next)")
        if item != p["item"]:
            raise ParameterError(f"item {item!r} is not the pending draw: draw {p['draw']} is item {p['item']!r} "
                                 "(record exactly the drawn item: its draw probability must be known)")
        if sorted(scores) != sorted(p["models"]):
            extra = sorted(set(scores) - set(p["models"]))
            missing = sorted(set(p["models"]) - set(scores))
            what = (f"model {extra[0]!r} was not asked for" if extra else f"model {missing[0]!r} has no score")
            raise ParameterError(f"item {item!r} (draw {p['draw']}): {what}; give the scores of exactly "
                                 f"{', '.join(p['models']) or 'no model'}")

    def _add(self, draw: int, item: str, scores: dict[str, float], prob: float) -> None:
        self.check_entry(draw, item, scores)
        if prob != self.pending["probability"]:
            raise DataError(f"draw {draw}: the log's draw probability {prob!r} is not the board's "
                            f"{self.pending['probability']!r}")
        self.board.record(self._index[item], scores)
        self.records.append((draw, item, dict(scores), prob))
        self._result = None
        self._ask()

    def apply(self, row: Mapping[str, Any]) -> None:
        if row["action"] != "record":  # amendments change no engine state here
            return
        try:
            self._add(*_row_values(row))
        except ParameterError as exc:  # a draw depends on every earlier one: only the latest can be taken back
            raise StateError(f"entry {row.get('id')}: {exc}; each draw depends on every earlier one, so draws are "
                             "undone from the latest back") from None

    def result(self) -> Any:
        if self._result is None:
            self._result = _result(self)
        return self._result


def _row_values(row: Mapping[str, Any]) -> tuple[int, str, dict[str, float], float]:
    payload = json.loads(row["payload"]) if row.get("payload") else {}
    try:
        return (int(row["trial"]), str(payload["item"]), {str(k): float(v) for k, v in payload["scores"].items()},
                float(payload["probability"]))
    except (KeyError, TypeError, ValueError, AttributeError):  # a row edited outside certirank
        raise DataError(f"entry {row.get('id')}: an item campaign's record holds an item draw (item, scores by "
                        "model, probability)") from None


def _result(eng: ItemEngine) -> Any:
    """The board now as a ranking result: the certified edges (cumulative), the open pairs with the draws so far."""
    from ..methods.anyrank.result import RankingResult
    from ..order import Relation, make_ranking
    b, c = eng.board, eng.config
    models = eng.policies
    log_e = b.bank.log_wealth[0]
    rels = [Relation(models[a], models[z], "test", int(b.certified_at[k]), None, None,
                     {"draws": int(b.certified_at[k]), "log_e": float(log_e[k])})
            for k, (a, z) in enumerate(zip(b.a_idx, b.b_idx)) if b.certified[k]]
    evals = eng.evaluations()
    budget_out = c["n_max"] is not None and eng.draws >= c["n_max"]
    m = len(models)
    if int(b.certified.sum()) and len({frozenset(e) for e in b.edges()}) == m * (m - 1) // 2:
        stopped = "complete ranking"
    elif budget_out:
        stopped = "budget used up"
    else:  # pairs set aside wait for the others, then take the draws left: a board stops complete or at its budget
        stopped = None
    guarantee = (f"With probability at least {100 * (1 - c['alpha']):g}%, every ordering reported is correct, at "
                 "whatever time the campaign stops (importance-weighted e-processes over items drawn with known "
                 "probabilities, direct e-Holm; docs/adaptive-items.md).")
    rk = make_ranking(models, rels, kind="adaptive-items", alpha=c["alpha"], guarantee=guarantee,
                      n=evals, when_unit="draws", about=c["about"], stopped=stopped)
    details = []
    idx = {m: j for j, m in enumerate(models)}
    pair_log_e = np.full((m, m), -np.inf)
    pair_log_e[b.a_idx, b.b_idx] = log_e
    pair_log_e = np.maximum(pair_log_e, pair_log_e.T)  # a pair's evidence: the stronger of its two directions
    for a, z in rk.undecided:
        ia, iz = idx[a], idx[z]
        aside = bool(b.dormant[ia, iz])
        details.append({"pair": [a, z], "trials": eng.draws, "log_e": float(pair_log_e[ia, iz]),
                        "budget_exhausted": budget_out, "futile": False, "set_aside": aside,
                        "verdict": "futile" if aside else "undecided", "more_needed": None, "forecast": None})
    return RankingResult(method="adaptive-items", alpha=c["alpha"], guarantee="paper", ties="allow", policies=models,
                         ranking=rk, undecided_details=details, total_samples=int(sum(evals.values())),
                         iterations=eng.draws, n_max=c["n_max"], about=c["about"], order={"kind": "drawn"})
