"""The rollout verbs of an AnyRank campaign: ``next`` (what to run, where, in which order, with which command),
``record`` (a judged rollout, with tags) and ``fault`` (a rollout that could not be judged: stored, never
counted, offered again by ``next``)."""

from __future__ import annotations

import math
import shlex
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import ParameterError, StateError
from ._design import check_tags_given, launch_words
from ._store import TRIES, Head
from ._util import _canon, _check_note, _check_trial, _operator
from .results import Record, Suggestion

__all__ = ["next_rollouts", "record", "fault", "check_score", "launch_command", "MAX_REASON"]

#: longest fault reason kept (a reason, not a note: printed in one line)
MAX_REASON = 200


def _check_count(count: Any) -> None:
    if count is not None and (isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1):
        raise ParameterError(f"count must be a positive integer, got {count!r}")


def next_rollouts(camp: Any, count: int | None, remember: bool | None) -> list[Suggestion]:
    _check_count(count)
    if remember is None:
        remember = camp.writable
    if camp.kind == "items":
        from ._item_rollouts import next_draw
        return next_draw(camp)
    if camp.kind == "leaderboard":
        if camp.status().done:
            return []  # every pair decided (status says why)
        with camp._store.read() as conn:
            head = camp._sync(conn)
            return [Suggestion(policy=None, trial=camp._store.next_replicate(conn), kind="replicate",
                               shown_at=head.last_id)]
    for attempt in range(TRIES + 1):
        with camp._store.read() as conn:
            head = camp._sync(conn)
            need = _needed(camp, count)
            faults = _fault_counts(camp, conn, need)
        if not (remember and need):
            break
        # the lock is taken only to write the list down, never to compute it (a restore at a moved head under the
        # lock made every other writer wait, issue 33). A moved head means the list is computed again outside the
        # lock; the last try writes down the list it hands out, computed at `head` (its shown_at): a remembered
        # rollout stays acceptable after the campaign moves on, which is what remembering is for.
        with camp._store.write() as conn:
            if camp._store.head(conn).last_id == head.last_id or attempt == TRIES:
                camp._store.remember(conn, need)
                break
    schedule = camp._design.schedule
    out = []
    for p, r in need:
        block = schedule.block(r)
        order = [q for q in schedule.order(r) if (q, r) in set(need)] if schedule.order_seed is not None else None
        out.append(Suggestion(policy=camp._shown(p), trial=int(r), environment=schedule.environment(r),
                              shown_at=head.last_id, block=block, position=None if order is None else
                              order.index(p) + 1, faults=faults.get((p, r), 0), launch=launch_line(camp, p, r),
                              label=_label(camp, r)))
    return out


def _label(camp: Any, trial: int) -> str | None:
    if camp.kind != "proxy":
        return None
    from ._proxy_rollouts import label_text
    return label_text(camp, trial)


def _needed(camp: Any, count: int | None) -> list[tuple[str, int]]:
    need = camp._engine.needed()
    schedule = camp._design.schedule
    if schedule.order_seed is not None:  # the trial's Williams order (seeded: tells nothing in a blind campaign)
        rank = {}
        for _, r in need:
            if r not in rank:
                rank[r] = {p: i for i, p in enumerate(schedule.order(r))}
        need = sorted(need, key=lambda e: (e[1], rank[e[1]][e[0]]))
    elif camp.blind:  # campaigns made before the order: the configured order would leak which code is which
        need = sorted(need, key=lambda e: (e[1], camp._names.code_of[e[0]]))
    return need if count is None else need[:int(count)]


def _fault_counts(camp: Any, conn: sqlite3.Connection, need: Sequence[tuple[str, int]]) -> dict[tuple[str, int], int]:
    if not need:
        return {}
    wanted = set(need)
    out: dict[tuple[str, int], int] = {}
    for _, p, r, _ in camp._store.faults(conn):
        if (p, r) in wanted:
            out[(p, r)] = out.get((p, r), 0) + 1
    return out


def launch_line(camp: Any, name: str, trial: int | None) -> str | None:
    """The command that starts ``name`` for ``trial``: the filled launch template, or while blind the
    `campaign launch` command that fills it without showing the checkpoint (None without a template)."""
    design = camp._design
    if not design.launch:
        return None
    shown = camp._shown(name)
    if camp.blind and not camp._revealed:
        words = ["certirank", "campaign", "launch", str(camp.path), shown]
        return shlex.join(words + ([] if trial is None else [str(trial)]))
    env = None if trial is None else design.schedule.environment(trial)
    return shlex.join(launch_words(design.launch, checkpoint=(design.checkpoints or {}).get(name), policy=shown,
                                   trial=trial, environment=env))


def launch_command(camp: Any, policy: Any, trial: Any) -> list[str]:
    design = camp.design
    if not design.launch:
        raise StateError("this campaign has no launch template (declare one at init with --launch 'CMD "
                         "{checkpoint}' and --checkpoint POLICY=PATH, or amend launch=...)")
    name = camp._resolve(policy)
    r = None if trial is None else _check_trial(trial)
    env = None if r is None else design.schedule.environment(r)
    return launch_words(design.launch, checkpoint=(design.checkpoints or {}).get(name), policy=camp._shown(name),
                        trial=r, environment=env)


def check_score(camp: Any, score: Any) -> tuple[float | None, float | None]:
    """(raw score as given, score in [0, 1] for the engine); None = the run could not be performed."""
    if score is None:
        return None, None
    given = score.strip() if isinstance(score, str) else repr(score)  # quoted back as the operator wrote it
    if isinstance(score, str):
        text = score.strip().lower()
        if not text:  # most often an unset shell variable or an empty form field, not a decision that it was not run
            raise ParameterError("score is empty: give a number, or 'missing' for a run that could not be "
                                 "performed")
        if text in ("none", "na", "missing", "-"):
            return None, None
        try:
            score = float(text)
        except ValueError:
            raise ParameterError(f"score must be a number (or 'missing' for a run that could not be performed), "
                                 f"got {score!r}") from None
    try:
        v = float(score)
    except (TypeError, ValueError):
        raise ParameterError(f"score must be a number, got {score!r}") from None
    if math.isnan(v):  # more often a bug upstream than a deliberate "not run" (the Ranker refuses it too)
        raise ParameterError(f"score is NaN ({given}); write 'missing' (score=None) for a run that could not be "
                             "performed")
    if isinstance(score, (bool, np.bool_)):
        raise ParameterError(f"score must be a number, got {score!r} (write 1 or 0)")
    rng = camp.config.get("score_range")
    lo, hi = (0.0, 1.0) if rng is None else rng
    if not lo <= v <= hi:
        raise ParameterError(f"score {given} is outside [{lo:g}, {hi:g}]"
                             + ("" if rng is not None else " (declare another range with --score-range at init)"))
    if rng is None:
        return None, v
    return v, (v - lo) / (hi - lo)


def _check_reason(reason: Any) -> str:
    from ._util import _has_control
    if not isinstance(reason, str) or not reason.strip():
        raise ParameterError("a fault needs a reason (e-stop, reset failure, ...): why the rollout could not be "
                             f"judged, got {reason!r}")
    reason = reason.strip()
    if len(reason) > MAX_REASON:
        raise ParameterError(f"the fault reason is {len(reason)} characters long; keep it under {MAX_REASON} (a "
                             "note can hold more)")
    if _has_control(reason):
        raise ParameterError(f"the fault reason {reason!r} contains a control character; give one line")
    return reason


def _payload(**fields: Any) -> str | None:
    kept = {k: v for k, v in fields.items() if v}
    return _canon(kept) if kept else None


def _gate(camp: Any, name: str, r: int, facts: dict[str, Any], ahead: bool, shown: int | None, eng: Any,
          verb: str) -> None:
    """The checks a record and a fault share: trial in range, not already recorded, campaign running, and the
    rollout suggested (or run ahead on purpose, or shown by a `next` that did not remember it)."""
    if r > eng.trial_limit():
        raise ParameterError(f"trial {r} is far beyond the budget (n_max = {eng.n_max}); trial indices are "
                             f"environment numbers 0, 1, 2, ... (at most {eng.trial_limit()})")
    old = facts["old"]
    if old is not None:
        sc = "missing" if old[1] is None else f"{old[1]:g}"
        what = ("to correct it, undo record {0} first" if verb == "record" else
                "a fault is for a rollout that could not be judged; undo record {0} first if that one was wrong")
        raise StateError(f"{camp._shown(name)} trial {r} is already recorded (record {old[0]}, score {sc}, by "
                         f"{old[2] or '?'} at {old[3]}); " + what.format(old[0]))
    if eng.done:
        raise StateError(f"the campaign is finished ({eng.result().termination}); nothing more is recorded. "
                         "See `campaign status`")
    if not ahead and not facts["remembered"]:
        need = eng.needed()
        late = (shown is not None and shown < facts["head"]
                and r <= max([facts["reached"], *(t for _, t in need)]))
        if (name, r) not in need and not late:
            listed = [(t, camp._shown(p)) for p, t in need]
            if camp.blind:  # in code order, as `next` lists them: the engine's order would tell
                listed.sort()
            text = ", ".join(f"{p} {t}" for t, p in listed[:6]) or "nothing"
            raise StateError(f"{camp._shown(name)} trial {r} was not suggested; the campaign needs: {text}. "
                             f"{verb.capitalize()} it with --ahead (ahead=True) if it was run in advance on purpose")


def _gather(camp: Any, name: str, r: int, shown: int | None) -> Callable[[sqlite3.Connection, Head], dict[str, Any]]:
    def gather(conn: sqlite3.Connection, head: Head) -> dict[str, Any]:
        return {"old": camp._store.live_rollout(conn, name, r), "head": head.last_id,
                "remembered": camp._store.is_suggested(conn, name, r),
                "reached": None if shown is None else camp._store.furthest_trial(conn)}
    return gather


def _rollout_entry(camp: Any, policy: Any, trial: Any, by: Any, note: Any, shown_at: Any,
                   tags: Any) -> tuple[str, int, str, Any, int | None, Any]:
    """What a record and a fault of one rollout both check before the write: the policy's name, the trial, the
    operator, the note, the trial the operator was shown, the tags (against the design in force now)."""
    name = camp._resolve(policy)
    r = _check_trial(trial)
    who = _operator(by)
    note = _check_note(note)
    shown = None if shown_at is None else _check_trial(shown_at, "shown_at")
    design = camp.design
    return name, r, who, note, shown, check_tags_given(tags, design.tags, design.open_tags)


def record(camp: Any, policy: Any, trial: Any, score: Any, *, by: Any, note: Any, ahead: bool,
           shown_at: Any, tags: Any, idempotency_key: Any, proxy: Any = None) -> Record:
    if camp.kind == "leaderboard":
        raise StateError("a leaderboard campaign records whole runs: use add_run (campaign add-run DB FILE)")
    if camp.kind == "items":
        raise StateError("an item campaign records the scores of the drawn item: use record_item (campaign record DB "
                         "ITEM DRAW --scores MODEL=SCORE,...)")
    name, r, who, note, shown, given = _rollout_entry(camp, policy, trial, by, note, shown_at, tags)
    if camp.kind == "proxy":
        from ._proxy_rollouts import proxy_entry
        raw, value, payload, extra = proxy_entry(camp, r, score, proxy, given, check_score)
    else:
        if proxy is not None:
            raise ParameterError("proxy is for a proxy campaign (one made with --label-rate); this campaign records "
                                 "real scores only")
        raw, value = check_score(camp, score)
        payload, extra = _payload(tags=given), {}

    def build(take: Callable[[], Any], facts: dict[str, Any]) -> tuple[dict[str, Any], Any]:
        # recheck against the design in force at this head (an amendment may have closed the tag list)
        check_tags_given(given, camp._design.tags, camp._design.open_tags)
        _gate(camp, name, r, facts, ahead, shown, camp._engine, "record")
        row = {"action": "record", "policy": name, "trial": r, "score": value, "raw_score": raw, "by": who,
               "note": note, "ahead": int(bool(ahead)), "payload": payload}
        engine = take()
        engine.apply(row)
        return row, engine

    request = {"verb": "record", "policy": name, "trial": r, "score": value, "raw_score": raw, "by": who,
               "note": note, "ahead": bool(ahead), "tags": given, **extra}
    return camp._write(build, _gather(camp, name, r, shown), request, idempotency_key,
                       after=lambda conn, row: camp._store.forget(conn, name, r))


def fault(camp: Any, policy: Any, trial: Any, reason: Any, *, by: Any, note: Any, ahead: bool, shown_at: Any,
          tags: Any, idempotency_key: Any) -> Record:
    if camp.kind in ("leaderboard", "items"):
        raise StateError(f"faults are for rollouts; a {camp.kind} campaign records "
                         + ("whole runs" if camp.kind == "leaderboard" else "the scores of drawn items"))
    name, r, who, note, shown, given = _rollout_entry(camp, policy, trial, by, note, shown_at, tags)
    reason = _check_reason(reason)

    def build(take: Callable[[], Any], facts: dict[str, Any]) -> tuple[dict[str, Any], Any]:
        check_tags_given(given, camp._design.tags, camp._design.open_tags)
        _gate(camp, name, r, facts, ahead, shown, camp._engine, "fault")
        # nothing the engine counts: the rollout stays needed, so `next` offers it again
        row = {"action": "fault", "policy": name, "trial": r, "by": who, "note": note, "ahead": int(bool(ahead)),
               "payload": _payload(reason=reason, tags=given)}
        return row, None

    request = {"verb": "fault", "policy": name, "trial": r, "reason": reason, "by": who, "note": note,
               "ahead": bool(ahead), "tags": given}
    return camp._write(build, _gather(camp, name, r, shown), request, idempotency_key)
