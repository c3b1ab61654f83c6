"""The operator's read views: ``status`` (the certified ranking, rollouts, faults and tags per policy, each open
pair's verdict, the budget left) and ``plan`` (the schedule of the next blocks)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import pickle
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from ..errors import ParameterError, StateError
from ._design import design_now
from ._views import relabel, remaining
from .results import CampaignStatus, NextRollouts, Plan, Unblinding

__all__ = ["status", "status_json", "plan", "next_rollouts", "unblinding", "STATUS_SCHEMA"]

STATUS_SCHEMA = "certirank.campaign.status/1"
#: the forecasts (futile at the budget, about N more) are shown once a pair has this many paired trials: before,
#: the estimates they extrapolate are a handful of outcomes (two failures each would read "futile")
MIN_FORECAST_TRIALS = 10
#: a policy whose share of the faults is this unlikely under its share of the attempts gets a warning
FAULT_WARNING_P = 0.01


#: statuses already computed in this process (the page is read by every operator's screen and the ranking panel's
#: polling between two writes; at 40 policies one status is ~0.2 s of CPU, most of it the 780 pairs' forecasts),
#: keyed by a digest of everything a status is computed from (see :func:`_inputs`); most recent last
_MEMO: OrderedDict[str, _Kept] = OrderedDict()
_MEMO_SIZE = 16
_MEMO_LOCK = threading.Lock()


class _Kept:
    """One kept status: pickled (each caller gets its own copy: a caller may change the dicts it is given, the
    kept status must not change; unpickling is ~5x cheaper than a deep copy) and, once asked for, its JSON text
    (immutable: shared as it is by the page's JSON reads and every open event stream)."""

    __slots__ = ("pickled", "text")

    def __init__(self, st: CampaignStatus) -> None:
        self.pickled = pickle.dumps(st, pickle.HIGHEST_PROTOCOL)
        self.text: str | None = None


#: why a leaderboard campaign whose every pair is decided has stopped (status, `next`, the page)
LEADERBOARD_SETTLED = "every pair is certified{}: another run cannot add a claim"
#: why a leaderboard campaign at its budget of replicates has stopped
LEADERBOARD_BUDGET = "the budget of {} replicates is reached: another run is refused"


def status(camp: Any) -> CampaignStatus:
    """The status of ``camp`` now (``Campaign.status``)."""
    return pickle.loads(_kept(camp).pickled)


def status_json(camp: Any) -> str:
    """The status's JSON (its ``to_dict()``), compact, as the page's JSON answers and event stream send it."""
    kept = _kept(camp)
    if kept.text is None:  # two readers may both build it: the same text
        kept.text = json.dumps(pickle.loads(kept.pickled).to_dict(), ensure_ascii=False, allow_nan=False,
                               separators=(",", ":"))
    return kept.text


def _kept(camp: Any) -> _Kept:
    """The status of ``camp`` now, from the memo when every input is the same as for a status computed before in
    this process (the same file content as far as a status reads it), else computed and kept.

    Correct by construction: the memo key is a digest of every value :func:`_status` reads, taken in the same read
    transaction as the computation: the file's path as given, the configuration's checksum, the open mode, the
    head (last id, head hash, live count, the state's checksum), the engine state's own bytes (hashed here, so a
    checkpoint edited by hand is a miss, or refused by its checksum check), the amendments (the design in force
    is built from the ones read here), whether a blind campaign is revealed, the undo count, the live faults and
    whether each was run since, the live tagged entries. A record, fault, undo, note, amendment or unblinding
    appends an entry (a new head); a hand edit of a row a status reads changes the digest even where the O(1)
    head check of every open cannot see it."""
    store = camp._store
    with store.read() as conn:
        head = store.check_head(conn) if camp._checks else store.head(conn)
        amendments = store.amendments(conn)
        camp._design, camp._design_id = design_now(camp.config, amendments), head.last_id
        blob = store.state(conn)  # its checksum checked, as a restore would
        if camp.blind and not camp._revealed:
            camp._revealed = store.revealed(conn)
        undone = store.undone_count(conn)
        faults = store.faults(conn)
        tagged = store.tagged(conn)
        run_since = {(p, r) for _, p, r, _ in faults if store.live_rollout(conn, p, r) is not None}
        key = _inputs(camp, head, blob, amendments, undone, faults, tagged, run_since)
        with _MEMO_LOCK:
            kept = _MEMO.get(key)
            if kept is not None:
                _MEMO.move_to_end(key)
                return kept
        if camp._blob != blob:  # the engine is restored from exactly the bytes in the key
            camp._engine_id = -1
        head = camp._sync(conn)
        eng = camp._engine
        res = eng.result()
    kept = _Kept(_status(camp, head, eng, undone, res, faults, tagged, run_since))
    with _MEMO_LOCK:
        _MEMO[key] = kept
        while len(_MEMO) > _MEMO_SIZE:
            _MEMO.popitem(last=False)
    return kept


def _inputs(camp: Any, head: Any, blob: bytes, amendments: Any, undone: int, faults: Any, tagged: Any,
            run_since: Any) -> str:
    """The memo key: a SHA-256 over every input of a status (nothing else it reads may be left out of here)."""
    shown = bool(camp._revealed or not camp.blind)
    parts = [str(camp.path), camp.kind, camp.config_sha256, bool(camp._checks), head.last_id, head.head_hash,
             head.live_records, head.state_sha256, hashlib.sha256(blob).hexdigest(), amendments, shown, undone,
             faults, tagged, sorted(run_since)]
    return hashlib.sha256(json.dumps(parts, default=repr).encode()).hexdigest()


def _status(camp: Any, head: Any, eng: Any, undone: int, res: Any, faults: Any, tagged: Any,
            run_since: Any) -> CampaignStatus:
    """The status at ``head`` from what was read in one transaction (a pure function of it: see :func:`_kept`)."""
    show_names = camp._revealed or not camp.blind
    names = camp._names.names

    def shown(p: str) -> str:
        return camp._shown(p, show_names)

    if camp.kind == "anyrank":
        counts = eng.ranker.recorded()
        rollouts = {shown(p): int(counts[p]) for p in names}
        complete, done = bool(res.complete), bool(eng.done)
        termination = None if not done else res.termination
        res = dataclasses.replace(res, undecided_details=_forecasts(eng, res))
        left = remaining(res, eng.n_max)
    elif camp.kind == "proxy":  # every policy runs every trial; the open pairs' details are proxy_rank's own
        counts = eng.recorded()
        rollouts = {shown(p): int(counts[p]) for p in names}
        complete, done = bool(res.complete), bool(eng.done)
        termination = None if not done else ("budget used up" if eng.units >= eng.n_max else res.termination)
        left = remaining(res, eng.n_max)
    elif camp.kind == "items":  # item evaluations per model; the draws and the pending one in `items`
        counts = eng.evaluations()
        rollouts = {shown(p): int(counts[p]) for p in names}
        complete, done = bool(res.complete), bool(eng.done)
        termination = None if not done else res.termination
        left = None
    else:
        rollouts = {shown(p): int(eng.replicates) for p in names}
        m = len(names)
        # with a margin, a pair certified equivalent is decided too (the ranking lists it as equivalent)
        decided = {frozenset(e) for e in res.edges} | {frozenset(e) for e in res.ranking.equivalent}
        complete = len(decided) == m * (m - 1) // 2 and not res.inconsistent
        # once every pair is decided another run cannot add a claim, and at its budget the engine takes none: the
        # campaign has stopped, and `next` asks for nothing more
        done, left = complete or bool(eng.done), None
        termination = (LEADERBOARD_SETTLED.format(" or equivalent" if res.margin is not None else "") if complete
                       else LEADERBOARD_BUDGET.format(res.n_max) if done else None)
    ranking = res if show_names else relabel(res, camp._names.code_of)
    per_fault = {shown(p): 0 for p in names}
    for _, p, _, _ in faults:
        per_fault[shown(p)] += 1
    open_faults = _open_faults(faults, run_since, shown)
    tags = _tag_counts(tagged, shown)
    warnings = _fault_warnings(rollouts, per_fault)
    if not show_names:  # in code order: the configured order would tell which code is which policy
        rollouts = dict(sorted(rollouts.items()))
        per_fault = dict(sorted(per_fault.items()))
        if left is not None:
            left["per_policy"] = dict(sorted((camp._names.code_of[p], v) for p, v in left["per_policy"].items()))
    design = camp._design
    verdicts = (_board_verdicts(ranking) if camp.kind == "leaderboard" else _item_verdicts(ranking, eng)
                if camp.kind == "items" else _verdicts(ranking, left))
    estimates = _estimates(eng, camp.config["engine"]["ranker"]["alpha"], shown) if camp.kind == "anyrank" else {}
    if not show_names:
        estimates = dict(sorted(estimates.items()))
    return CampaignStatus(path=str(camp.path), campaign=camp.kind, blind=camp.blind,
                          unblinded=bool(camp.blind and show_names), ranking=ranking.ranking, result=ranking,
                          rollouts=rollouts, order={"kind": "arrival"},
                          records=head.live_records, undone=undone, complete=complete,
                          done=done,
                          termination=termination, remaining=left, last_record_id=head.last_id,
                          head_hash=head.head_hash, config_sha256=camp.config_sha256, about=design.about,
                          faults=per_fault, open_faults=open_faults, tags=tags,
                          amendments=len(design.amendments), checklist=list(design.checklist),
                          warnings=[*ranking.warnings, *warnings],
                          test=camp._engine_cls.test_line(_engine_config(camp, eng)), verdicts=verdicts,
                          estimates=estimates, items=_item_counts(eng) if camp.kind == "items" else None)


def _engine_config(camp: Any, eng: Any) -> Mapping[str, Any]:
    """The locked engine configuration with the budget in force (an amendment may have raised n_max)."""
    config = camp.config["engine"]
    if camp.kind != "anyrank":
        return config
    return {**config, "ranker": {**config["ranker"], "n_max": int(eng.n_max)}}


def _forecasts(eng: Any, res: Any) -> list[dict[str, Any]]:
    """The open pairs' details with the verdict fields of issue 35 (``verdict``: futile or undecided,
    ``more_needed``: a forecast at the current estimates, never a guarantee) from
    :func:`methods.anyrank.verdicts.open_pair_verdicts`, which reads the paired trials each pair consumed: a live
    engine keeps them in its table (every trial where both policies have a score, in trial order)."""
    return eng.ranker._pair_verdicts(res)


def _verdicts(res: Any, left: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """One verdict per pair (names as shown): certified pairs from the ranking's relations, then the open ones
    from the engine's details (equivalent, futile, or undecided with the budget left and, when the method gives
    one, its forecast of the rollouts still needed)."""
    out: list[dict[str, Any]] = []
    ranking = res.ranking
    alpha = ranking.alpha if ranking.alpha is not None else res.alpha
    for r in ranking.relations:
        how = "directly" if r.via == "test" else "by transitivity"
        when = "" if r.when is None else f" after {r.when:g} paired trials"
        out.append({"pair": [r.better, r.worse], "verdict": "certified", "better": r.better,
                    "sentence": f"{r.better} is better than {r.worse} (certified {how}{when}, alpha = {alpha:g})"})
    n_max = None if left is None else left["n_max"]
    for d in res.undecided_details:
        a, b = d["pair"]
        trials = int(d["trials"])
        budget_left = None if n_max is None else max(0, int(n_max) - trials)
        item = {"pair": [a, b], "trials": trials, "budget_left": budget_left, "more_needed": d.get("more_needed")}
        kind = d.get("verdict")
        if kind == "equivalent":
            within = "" if getattr(res, "margin", None) is None else f" of {res.margin:g}"
            item.update(verdict="equivalent", sentence=f"{a} and {b} are equivalent within the margin{within} "
                        f"(certified, alpha = {alpha:g})")
        elif d.get("futile"):  # the engine's own: certain, not a forecast
            item.update(verdict="futile", sentence=f"{a} vs {b} cannot be decided within the budget of {n_max} paired "
                        "trials: no continuation can pass its test (stop running it)")
        elif kind == "futile" and trials >= MIN_FORECAST_TRIALS:
            fc = d.get("forecast") or {}
            chance = "" if fc.get("p_decide") is None else f" (about {100 * fc['p_decide']:.0f}% chance)"
            item.update(verdict="futile", forecast=True, sentence=f"{a} vs {b}: futile at the budget — unlikely to be "
                        f"decided in the {budget_left} paired trials left{chance}; a forecast at the current "
                        "estimates, not a guarantee")
        elif d.get("budget_exhausted"):
            item.update(verdict="undecided", sentence=f"{a} vs {b}: undecided, the budget is used up")
        elif trials < MIN_FORECAST_TRIALS:
            left_text = "" if budget_left is None else f"; at most {budget_left} more rollouts each (the budget left)"
            item.update(verdict="undecided", more_needed=None, sentence=f"{a} vs {b}: undecided after {trials} "
                        f"paired trial{'s' if trials != 1 else ''}; too early for a forecast{left_text}")
        else:
            more = d.get("more_needed")
            beyond = ("" if more is None or budget_left is None or int(more) <= budget_left
                      else f", more than the {budget_left} the budget has left")
            guess = (f"about {int(more)} more rollouts each{beyond} (a forecast at the current estimates, not a "
                     "guarantee)" if more is not None else f"at most {budget_left} more rollouts each (the budget left)")
            item.update(verdict="undecided", sentence=f"{a} vs {b}: undecided after {trials} paired trials; {guess}")
        out.append(item)
    return out


def _board_verdicts(res: Any) -> list[dict[str, Any]]:
    """A leaderboard campaign's verdict per pair: certified (a relation of the ranking), equivalent (certified
    within the margin, a campaign with one), or undecided after the replicates so far with the forecast of the
    replicates still needed (``more_needed``, from the result's ``undecided_details``: a forecast at the current
    estimates, never a guarantee), or with a budget of replicates (``--n-max``) futile when the forecast chance of a
    decision in the replicates left is below the futility level, in AnyRank's words."""
    from ..evidence.forecast import FORECAST_NOTE
    ranking, runs = res.ranking, int(res.replicates)
    left = None if res.n_max is None else max(0, int(res.n_max) - runs)
    alpha = ranking.alpha if ranking.alpha is not None else res.alpha
    out = _certified(ranking, alpha, "replicate")
    for a, b in ranking.equivalent:
        out.append({"pair": [a, b], "verdict": "equivalent", "sentence": f"{a} and {b} are equivalent within the "
                    f"margin of {ranking.margin:g} (certified, alpha = {alpha:g})"})
    details = {frozenset(d["pair"]): d for d in getattr(res, "undecided_details", None) or []}
    after = f"after {runs} replicate{'s' if runs != 1 else ''}"
    for a, b in ranking.undecided:
        d = details.get(frozenset((a, b)), {})
        more = d.get("more_needed")
        item: dict[str, Any] = {"pair": [a, b], "verdict": "undecided", "more_needed": more,
                                **({} if left is None else {"budget_left": left})}
        if left == 0:
            item["sentence"] = f"{a} vs {b}: undecided, the budget of {res.n_max} replicates is used up"
        elif d.get("verdict") == "futile":
            fc = d.get("forecast") or {}
            chance = "" if fc.get("p_decide") is None else f" (about {100 * fc['p_decide']:.0f}% chance)"
            item.update(verdict="futile", forecast=True, sentence=f"{a} vs {b}: futile at the budget — unlikely to be "
                        f"decided in the {left} replicate{'s' if left != 1 else ''} left{chance}; {FORECAST_NOTE}")
        else:
            beyond = "" if more is None or left is None or int(more) <= left else f", more than the {left} left"
            guess = (f"about {int(more)} more replicate{'s' if int(more) != 1 else ''}{beyond} ({FORECAST_NOTE})"
                     if more is not None else "no forecast yet (fewer than 2 replicates, or no direction gains "
                     "evidence); add more runs")
            item["sentence"] = f"{a} vs {b}: undecided {after}; {guess}"
        out.append(item)
    return out


def _certified(ranking: Any, alpha: float, unit: str) -> list[dict[str, Any]]:
    """The certified verdict of every relation of a board's ranking, with the `unit` (replicate, draw) it came at."""
    out: list[dict[str, Any]] = []
    for r in ranking.relations:
        how = "directly" if r.via == "test" else "by transitivity"
        when = "" if r.when is None else f" at {unit} {r.when:g}"
        out.append({"pair": [r.better, r.worse], "verdict": "certified", "better": r.better,
                    "sentence": f"{r.better} is better than {r.worse} (certified {how}{when}, alpha = {alpha:g})"})
    return out


def _item_verdicts(res: Any, eng: Any) -> list[dict[str, Any]]:
    """An item campaign's verdict per pair: certified (a relation of the ranking, with the draw it was certified
    at), set aside (the board forecasts it futile within the budget of draws and draws nothing for it until every
    other pair is decided: a forecast, never a guarantee) or undecided after the draws so far."""
    ranking, draws = res.ranking, eng.draws
    out = _certified(ranking, res.alpha, "draw")
    left = None if eng.n_max is None else max(0, int(eng.n_max) - draws)
    budget = "" if left is None else f"; {left} draws left in the budget"
    for d in res.undecided_details:
        a, b = d["pair"]
        item = {"pair": [a, b], "trials": draws, "budget_left": left, "more_needed": None}
        if d["set_aside"]:
            item.update(verdict="futile", forecast=True, sentence=f"{a} vs {b}: set aside after {draws} draws — "
                        "forecast unlikely to be certified within the budget, so no items are drawn for it until "
                        "every other pair is decided (a forecast, not a guarantee)")
        else:
            item.update(verdict="undecided", sentence=f"{a} vs {b}: undecided after {draws} draw"
                        f"{'s' if draws != 1 else ''}{budget}")
        out.append(item)
    return out


def _item_counts(eng: Any) -> dict[str, Any]:
    draws, n_max = eng.draws, eng.n_max
    return {"draws": draws, "evaluations": int(sum(eng.evaluations().values())), "n_items": len(eng.config["items"]),
            "n_max": n_max, "draws_left": None if n_max is None else max(0, int(n_max) - draws),
            "pending": None if eng.pending is None else dict(eng.pending)}


def _estimates(eng: Any, alpha: float, shown: Any) -> dict[str, dict[str, Any]]:
    """Each policy's mean score so far and a two-sided anytime interval for its mean: the running intersection
    of PrPl-EB lower confidence sequences (spec 01 §5.3) for the score and for one minus the score, each at
    alpha / 2, over the policy's scores in recording order (missing runs left out)."""
    import numpy as np

    from ..evidence import OneSampleStreams
    names = eng.policies
    seqs: dict[str, list[float]] = {p: [] for p in names}
    for r in eng.ranker._results:
        if r["score"] is not None:
            seqs[r["policy"]].append(float(r["score"]))
    m = len(names)
    streams = OneSampleStreams(2 * m, m=0.5, bettor="prpl_eb", alpha_bet=alpha / 2)
    longest = max((len(v) for v in seqs.values()), default=0)
    lo = np.zeros(2 * m)
    for t in range(longest):
        idx = [i for i, p in enumerate(names) if t < len(seqs[p])]
        if not idx:
            break
        x = np.array([seqs[names[i]][t] for i in idx])
        streams.update(np.array(idx + [i + m for i in idx]), np.concatenate([x, 1.0 - x]))
        lo = np.maximum(lo, streams.lower_bound(alpha / 2))
    out = {}
    for i, p in enumerate(names):
        v = seqs[p]
        out[shown(p)] = {"n": len(v), "mean": float(np.mean(v)) if v else None,
                         "lower": float(lo[i]) if v else 0.0, "upper": float(1.0 - lo[i + m]) if v else 1.0}
    return out


def next_rollouts(camp: Any, count: Any = None, remember: Any = None) -> NextRollouts:
    """What ``campaign next --json`` prints and ``/api/v1/next`` answers."""
    todo = camp.next(count, remember=remember)
    st = None if todo else camp.status()
    return NextRollouts(path=str(camp.path), suggestions=todo, done=bool(st and st.done),
                        termination=st.termination if st else None)


def unblinding(camp: Any, *, by: Any = None, note: Any = None, idempotency_key: Any = None) -> Unblinding:
    """What ``campaign unblind --json`` prints and ``/api/v1/unblind`` answers."""
    if not camp.blind:
        raise StateError(f"{camp.path.name} is not a blind campaign: its names are shown already")
    rec = camp.unblind(by=by, note=note, idempotency_key=idempotency_key)
    return Unblinding(path=str(camp.path), unblinded=True, entry=rec, codes=dict(camp._names.code_of))


def _open_faults(faults: list[tuple[int, str, int, str | None]], run_since: Any, shown: Any) -> list[dict[str, Any]]:
    """The faulted rollouts not recorded since (``run_since``: those that were): what `next` offers again, with
    the latest reason."""
    latest: dict[tuple[str, int], dict[str, Any]] = {}
    for rid, p, r, payload in faults:
        if (p, r) not in run_since:
            reason = json.loads(payload).get("reason") if payload else None
            entry = latest.setdefault((p, r), {"policy": shown(p), "trial": r, "faults": 0})
            entry["faults"] += 1
            entry["reason"], entry["entry"] = reason, rid
    return sorted(latest.values(), key=lambda e: (e["trial"], e["policy"]))


def _tag_counts(tagged: list[tuple[str, str, str]], shown: Any) -> dict[str, dict[str, int]]:
    """{tag: {policy: live records and faults carrying it}} (tags in order, policies as shown)."""
    out: dict[str, dict[str, int]] = {}
    for _, p, payload in tagged:
        try:
            data = json.loads(payload)
        except ValueError:
            continue
        for t in data.get("tags") or []:
            row = out.setdefault(t, {})
            row[shown(p)] = row.get(shown(p), 0) + 1
    return {t: dict(sorted(out[t].items())) for t in sorted(out)}


def _fault_warnings(rollouts: Mapping[str, int], faults: Mapping[str, int]) -> list[str]:
    """A line for each policy that has far more of the faults than its share of the attempts: a policy that
    causes its own e-stops is failing, and re-running its faults would select its better rollouts."""
    total = sum(faults.values())
    attempts = sum(rollouts.values()) + total
    if total < 3 or attempts == 0:
        return []
    from scipy.stats import binomtest
    out = []
    for p, f in faults.items():
        share = (rollouts.get(p, 0) + f) / attempts
        if f >= 3 and 0 < share < 1:
            pv = binomtest(f, total, share, alternative="greater").pvalue
            if pv < FAULT_WARNING_P:
                out.append(f"faults fall unevenly: {p} has {f} of the {total} faults with {share:.0%} of the "
                           f"attempts (binomial p = {pv:.2g}); if the policy causes them they are failures (score "
                           "0), not faults")
    return out


# ---------------------------------------------------------------------------------------------- plan
def plan(camp: Any, count: Any = 2) -> Plan:
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 1000:
        raise ParameterError(f"count (blocks to show) must be a whole number from 1 to 1000, got {count!r}")
    if camp.kind == "leaderboard":
        raise StateError("a leaderboard campaign has no schedule of environments: each run scores every model on "
                         "every item")
    if camp.kind == "items":
        raise StateError("an item campaign has no schedule of environments: the campaign draws each item (campaign "
                         "next shows the pending draw)")
    with camp._store.read() as conn:
        head = camp._sync(conn)
        schedule = camp._design.schedule
        if not schedule.has_environments:
            raise StateError(f"{camp.path.name} has no environments, so there is no schedule to plan (declare them at "
                             "init with --environments FILE, or add them with `campaign amend DB environments=...`)")
        need = camp._engine.needed()
        first = min((r for _, r in need), default=camp._store.handed_out(conn) + 1)
        start = schedule.block_start(first)
        n = len(schedule.segment(start).environments)
        lo, hi = start, start + count * n - 1
        seen = camp._store.rollouts_between(conn, lo, hi)
    show = camp._revealed or not camp.blind
    shown = lambda p: camp._shown(p, show)  # noqa: E731
    recorded = {(p, r) for a, p, r in seen if a == "record"}
    faulted: dict[tuple[str, int], int] = {}
    for a, p, r in seen:
        if a == "fault":
            faulted[(p, r)] = faulted.get((p, r), 0) + 1
    needed = set(need)
    code_order = schedule.order_seed is None and camp.blind and not show
    out_blocks: dict[Any, list[dict[str, Any]]] = {}
    for r in range(lo, hi + 1):
        order = schedule.order(r)
        if code_order:
            order = sorted(order, key=shown)
        out_blocks.setdefault(schedule.block(r), []).append({
            "trial": r, "environment": schedule.environment(r), "order": [shown(p) for p in order],
            "recorded": [shown(p) for p in order if (p, r) in recorded],
            "faults": {shown(p): faulted[(p, r)] for p in order if (p, r) in faulted},
            "needed": [shown(p) for p in order if (p, r) in needed]})
    seg = schedule.segments[-1]
    return Plan(path=str(camp.path), rule="balanced blocks" if seg.rule == "blocks" else "independent draws",
                environments=list(seg.environments), seed=seg.seed,
                order="williams" if schedule.order_seed is not None else "configured",
                segments=[s.to_dict() for s in schedule.segments],
                blocks=[{"block": b, "trials": t} for b, t in out_blocks.items()], head=head.last_id)
