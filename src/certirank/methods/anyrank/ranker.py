"""The live AnyRank engine (`Ranker`): suggest, record, result, and exact resume from JSON."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..._integrity import edited_note, seal, verify
from ..._saved import Saved, sealed
from ..._compat import keyword_only, warn_renamed
from ..._params import VERBS, check, validated
from ...errors import EditedStateError, ParameterError, StateError
from ...results import warning
from .config import FORMATS, _Setup, _make_setup, _setup_from_dict
from ...evidence.forecast import FUTILITY
from .result import RankingResult, _Table
from .engine import _Campaign


class Ranker(Saved):
    """Live AnyRank engine: ask what to run next, record results, stop whenever you like (spec 03 §9.3).

    Parameters
    ----------
    policies : list of str
        The policies to rank (at least two), in the order used for pairs and tables.
    alpha : float, default 0.05
        Family-wise error rate of the whole answer, valid at any stopping time.
    prior : mapping or sequence, optional
        Prior mean per policy (e.g. from simulation), fixed now, before any trial is run.
    gamma : float, default 1.0
        Prior strength (>= 0).
    n_max : int, optional
        Per-comparison budget of paired trials (default 5000); it may be increased later with
        :meth:`extend`. (``nmax`` before 0.2.)
    method : str, default "anyrank"
        ``anyrank``, ``anyrank0``, ``anyrank-inf``, ``bonferroni``, ``weighted-bonferroni``.
    ties : {"allow", "assume_none"}, default "allow"
    guarantee : {"paper", "strict"}, default "paper"
    environments : list, optional
        Environment names to draw each trial's environment from (see :meth:`environment`).
    seed : int, optional
        Seed of those draws (default: fresh entropy, saved with the campaign).
    **options
        ``graph``, ``forward_fraction``, ``direction_split``, ``bettor``, ``bins`` (``metric`` before 0.2), ``transitive_closure``;
        ``budget``: ``"auto"`` (default) = ``"extendable"`` when ``bins="binary"`` and ``n_max`` is given
        (at most 2500), else ``"none"``; ``"final"`` / ``"extendable"`` = the exact budget test of spec 08
        (a final budget refuses :meth:`extend`; the extendable one adds the e-process and stays valid past
        ``n_max``); ``"none"`` = the anytime e-process alone. Also ``arms``, ``concentration``.

    Notes
    -----
    Trial index = environment index: trial r of every policy must run on the same environment e_r, drawn
    independently of all outcomes. ``suggest()`` lists the runs the current iteration needs; record them
    (``score=None`` for a failed / impossible run, which makes the comparison skip that environment) and the
    engine advances automatically. Recording a run that was not suggested raises :class:`StateError` unless
    ``ahead=True`` (it is then used when the algorithm reaches it); runs suggested earlier in this session
    stay acceptable even if a missing result has since moved the engine on. Re-recording the same score is a no-op; a
    different score is an error. Every error leaves the engine unchanged.

    Examples
    --------
    >>> r = Ranker(["A", "B"], alpha=0.1, n_max=3)
    >>> r.suggest()
    [('A', 0), ('B', 0)]
    >>> r.record("A", 0, 1.0); r.record("B", 0, 0.0); r.suggest()
    [('A', 1), ('B', 1)]
    """

    _what = "saved AnyRank campaign"
    _error = ParameterError
    _indent = 1  # people read these files

    @keyword_only(("prior", "gamma", "n_max", "method", "ties"))
    @validated("Ranker")
    def __init__(self, policies: Sequence[str], alpha: float = 0.05, *, prior: Any = None, gamma: float = 1.0,
                 n_max: int | None = None, method: str = "anyrank", ties: str = "allow",
                 guarantee: str = "paper", environments: Sequence[Any] | None = None, seed: int | None = None,
                 **options: Any) -> None:
        setup = _make_setup(policies, alpha, method, prior, gamma, n_max, ties, guarantee, live=True, **options)
        self._init(setup)
        self._set_environments(environments, seed)

    def _set_environments(self, environments: Sequence[Any] | None, seed: int | None) -> None:
        if environments is None:
            if seed is not None:
                raise ParameterError("seed= draws environments; give environments=[...] as well")
            self._envs: tuple[str, ...] | None = None
            self._env_seed: int | None = None
            return
        envs = check("Ranker", "environments", environments)
        seed = check("Ranker", "seed", seed)
        if seed is None:  # fixed now and saved, so a resumed campaign draws the same environments
            seed = int(np.random.SeedSequence().entropy % (2**63))
        self._envs, self._env_seed = envs, int(seed)

    def environment(self, trial_index: int) -> str:
        """The environment to run trial ``trial_index`` on (every policy runs trial r on the same one).

        Drawn uniformly from ``environments`` with ``numpy.random.default_rng([seed, trial_index])``: i.i.d.
        across trials, fixed in advance and independent of all outcomes, as the guarantee requires
        (spec 03 §9.3).
        """
        if self._envs is None:
            raise StateError("this campaign has no environment list; create it with Ranker(..., environments=[...])")
        rng = np.random.default_rng([self._env_seed, self._trial(trial_index)])
        return self._envs[int(rng.integers(len(self._envs)))]

    def _init(self, setup: _Setup) -> None:
        self._envs = None
        self._env_seed = None
        self._setup = setup
        self._camp = _Campaign(setup, _Table(setup.m))
        self._results: list[dict[str, Any]] = []
        self._index = {p: i for i, p in enumerate(setup.policies)}
        # runs handed out by suggest() and not yet recorded: still welcome even if a missing result
        # elsewhere moved the engine on (the lab may already have run them)
        self._outstanding: set[tuple[int, int]] = set()
        # why this campaign's saved state failed its checksum, when it was loaded with trust_edited=True
        self._edited: str | None = None

    # ------------------------------------------------------------------ properties
    @property
    def policies(self) -> list[str]:
        return list(self._setup.policies)

    @property
    def alpha(self) -> float:
        return self._setup.alpha

    @property
    def n_max(self) -> int:
        """Per-hypothesis budget of paired trials."""
        return self._setup.n_max

    @property
    def nmax(self) -> int:
        """Deprecated spelling of :attr:`n_max` (removed in 0.3)."""
        warn_renamed("Ranker.nmax", "Ranker.n_max")
        return self._setup.n_max

    @property
    def done(self) -> bool:
        """True once the campaign has terminated (complete ranking, budget, or no level left)."""
        return self._camp.termination is not None

    @property
    def iteration(self) -> int:
        return self._camp.t

    # ------------------------------------------------------------------ the loop
    def suggest(self) -> list[tuple[str, int]]:
        """The runs needed next: (policy, trial_index) sorted by trial index, then policy order.

        Empty when the campaign is done. Each trial index is an environment shared by all policies.
        """
        need = self._camp.needed()
        self._outstanding.update(need)
        return [(self._setup.policies[i], r) for i, r in need]

    def record(self, policy: str, trial_index: int, score: float | None, *, ahead: bool = False) -> None:
        """Record the score of ``policy`` on trial ``trial_index`` (``None`` = failed / not run).

        Raises
        ------
        ParameterError
            Unknown policy, negative or non-integer trial index, score outside [0, 1].
        StateError
            The run was not suggested (pass ``ahead=True`` to record it in advance), or it was already
            recorded with a different score. The engine is unchanged after any error.
        """
        i, r, v = self._check_entry(policy, trial_index, score)
        tb = self._camp.table
        if self._already_recorded(i, r, v):
            return
        if not ahead and (i, r) not in self._outstanding:
            need = self._camp.needed()
            if (i, r) not in need:
                wanted = ", ".join(f"({self._setup.policies[a]}, {b})" for a, b in need[:6]) or "nothing (done)"
                raise StateError(f"{policy} trial {r} was not suggested; the engine needs: {wanted}. "
                                 "Pass ahead=True to record a result in advance.")
        tb.set(i, r, v)
        self._outstanding.discard((i, r))
        self._results.append({"policy": self._setup.policies[i], "trial": r,
                              "score": None if np.isnan(v) else v})
        self._camp.run_live()

    @validated("Ranker.record_many")
    def record_many(self, runs: Any, *, ahead: bool = False, until_decided: bool = False) -> int:
        """Record a batch of runs, in order: the same state, decisions and errors as calling :meth:`record` on
        each, at the cost of one scan of the comparisons per iteration instead of one per run.

        Parameters
        ----------
        runs : iterable of (policy, trial_index, score)
            The runs in the order they finished (``score=None`` for a failed run).
        ahead : bool, default False
            As in :meth:`record`, for every run of the batch.
        until_decided : bool, default False
            Stop right after the run that brings a new decision (or ends the campaign); the runs after it are
            not recorded (record them later, or in the next batch).

        Returns
        -------
        int
            How many runs of the batch were taken (all of them unless ``until_decided`` stopped the batch).

        Raises
        ------
        ParameterError, StateError
            What :meth:`record` raises for the first run it would refuse, naming the run's position in the batch.
            The engine is then as it was before the batch: a batch is taken whole or not at all.
        """
        if isinstance(runs, (str, bytes, Mapping)) or not hasattr(runs, "__iter__"):
            raise ParameterError(f"runs must be a list of (policy, trial_index, score) triples, got {runs!r}")
        taken, outstanding = len(self._results), set(self._outstanding)
        try:
            return self._record_many(list(runs), ahead, until_decided)
        except (ParameterError, StateError):
            self._rewind(taken, outstanding)
            raise

    def _rewind(self, taken: int, outstanding: set[tuple[int, int]]) -> None:
        """Back to the state after the first ``taken`` results (a refused batch): the engine re-run over them,
        as :meth:`from_dict` does (the same state as recording them one by one). Costs a replay, but only when a
        batch is refused; copying the state before every batch would cost more than the batch saves."""
        results = self._results[:taken]
        kept = self._envs, self._env_seed, self._edited
        self._init(self._setup)
        self._envs, self._env_seed, self._edited = kept
        tb = self._camp.table
        for rec in results:
            tb.set(self._index[rec["policy"]], rec["trial"], math.nan if rec["score"] is None else rec["score"])
        self._results = results
        self._camp.run_live()
        self._outstanding = outstanding

    def _already_recorded(self, i: int, r: int, v: float, where: str = "") -> bool:
        """True when (policy i, trial r) holds score v already (recording it again changes nothing); a different
        score is refused: a recorded result never changes."""
        tb = self._camp.table
        if not (r < tb.vals.shape[0] and tb.known[r, i]):
            return False
        old = tb.vals[r, i]
        if (np.isnan(old) and np.isnan(v)) or old == v:
            return True
        raise StateError(f"{where}{self._setup.policies[i]} trial {r} is already recorded with score "
                         f"{'missing' if np.isnan(old) else f'{old:g}'}; a recorded result cannot change "
                         f"(got {'missing' if np.isnan(v) else f'{v:g}'})")

    def _record_many(self, runs: list[Any], ahead: bool, until_decided: bool) -> int:
        camp = self._camp
        tb = camp.table
        # what the current iteration still lacks: the engine can only move when a run of this set arrives
        need = set(camp.needed())
        decided = len(camp.decisions)
        for n, run in enumerate(runs):
            try:
                policy, trial_index, score = run
            except (TypeError, ValueError):
                raise ParameterError(f"run {n} of the batch must be (policy, trial_index, score), got {run!r}") from None
            try:
                i, r, v = self._check_entry(policy, trial_index, score)
            except ParameterError as exc:
                raise ParameterError(f"run {n} of the batch: {exc}") from None
            if self._already_recorded(i, r, v, where=f"run {n} of the batch: "):
                continue
            if not ahead and (i, r) not in self._outstanding and (i, r) not in need:
                wanted = ", ".join(f"({self._setup.policies[a]}, {b})"
                                   for a, b in sorted(need, key=lambda e: (e[1], e[0]))[:6]) or "nothing (done)"
                raise StateError(f"run {n} of the batch: {policy} trial {r} was not suggested; the engine needs: "
                                 f"{wanted}. Pass ahead=True to record results in advance.")
            tb.set(i, r, v)
            self._outstanding.discard((i, r))
            self._results.append({"policy": self._setup.policies[i], "trial": r,
                                  "score": None if np.isnan(v) else v})
            if (i, r) in need:
                need.discard((i, r))
                # a missing score moves its comparisons to a later trial (new needs), and an empty set means
                # the iteration is ready: only then can the engine move, exactly as record() would move it
                if not need or np.isnan(v):
                    need = camp.run_until_needed()
                    if until_decided and (len(camp.decisions) > decided or camp.termination is not None):
                        return n + 1
        return len(runs)

    def _trial(self, trial_index: Any) -> int:
        """A trial index: an integer >= 0 and not absurdly beyond the budget (a typo such as 10**9 must not
        allocate a huge table)."""
        r = check("Ranker.record", "trial_index", trial_index)
        limit = 100 * self._setup.n_max + 10_000
        if r > limit:
            raise ParameterError(f"trial_index {r} is far beyond the budget (n_max = {self._setup.n_max}); "
                                 f"trial indices are environment numbers 0, 1, 2, ... (at most {limit:,})")
        return r

    def _check_entry(self, policy: Any, trial_index: Any, score: Any) -> tuple[int, int, float]:
        name = policy if isinstance(policy, str) else None
        if name not in self._index:
            raise ParameterError(f"unknown policy {policy!r}; the policies are: {', '.join(self._setup.policies)}")
        r = self._trial(trial_index)
        if isinstance(score, float) and math.isnan(score):  # more often a bug upstream than a deliberate "not run"
            raise ParameterError(f"score is NaN for {name} trial {r}; pass None for a failed or impossible run")
        v = check("Ranker.record", "score", score)
        v = math.nan if v is None else v
        # refused here, before the engine changes: the binary tests would fail on it half-way through. No
        # policy name in the message: a blind campaign passes this refusal on to the operator
        if self._setup.bins == "binary" and not math.isnan(v) and v not in (0.0, 1.0):
            raise ParameterError(f"score {score!r} (trial {r}): the scores were declared binary "
                                 "(bins='binary'), so only 0 (failure) or 1 (success) is allowed")
        return self._index[name], r, v

    @validated("Ranker.extend")
    def extend(self, n_max: int) -> None:
        """Raise the per-comparison budget (allowed at any time: stopping is free for anytime-valid tests)."""
        if self._setup.budget == "final" and n_max != self._setup.n_max:
            # spec 08 §4: the exact test's guarantee ends at its budget; a larger budget chosen now, after
            # seeing data, would void it
            raise StateError(f"this campaign uses the exact budget test with a final budget of {self._setup.n_max} "
                             "trials per comparison, which cannot be extended; create it with "
                             "budget='extendable' to be able to continue past the budget")
        if n_max < self._setup.n_max:
            raise ParameterError(f"n_max can only grow (now {self._setup.n_max}, got {n_max})")
        data = self.to_dict()
        data["config"]["nmax" if self._setup.legacy else "n_max"] = n_max
        data["config_sha256"] = _setup_from_dict(data["config"]).sha256()
        new = Ranker.from_dict(seal(data))
        self.__dict__.update(new.__dict__)

    @property
    def margin(self) -> float | None:
        """The equivalence margin fixed at creation (None: no equivalence claims)."""
        return self._setup.margin

    def _pair_verdicts(self, res: RankingResult, futility: float = FUTILITY) -> list[dict[str, Any]]:
        """``res.undecided_details`` with the verdicts of issue 35 (equivalent with a margin, futile, and
        ``more_needed``: a forecast at the current estimates) from the paired trials each open pair consumed:
        every trial of the live table where both policies have a score, in trial order."""
        from types import SimpleNamespace

        from .verdicts import open_pair_verdicts
        live = self._camp
        table = live.table
        present = ~np.isnan(table.vals[:table.nrows])
        rows = [np.flatnonzero(present[:, i] & present[:, j]) for i, j in zip(live.pi, live.pj)]
        view = SimpleNamespace(s=live.s, pi=live.pi, pj=live.pj, k=live.k, n=live.n, table=table, _rows=rows)
        return open_pair_verdicts(view, list(res.undecided_details), self.margin, futility, n_max=self.n_max)

    def result(self) -> RankingResult:
        """The certified ranking now (valid at any stopping time); with a margin, the open pairs certified
        equivalent are in ``equivalent`` (each tested at its pair's current level, as in the replay)."""
        res = self._camp.result()
        if self.margin is not None:
            from .verdicts import with_equivalence
            res = with_equivalence(res, self._pair_verdicts(res), self.margin)
        if self._edited:
            note = edited_note(self._edited)
            rk = dataclasses.replace(res.ranking, guarantee=f"{res.ranking.guarantee} {note}.")
            res = dataclasses.replace(res, ranking=rk, warnings=(*res.warnings, warning(note.removeprefix("WARNING: "))))
        return res

    # ------------------------------------------------------------------ persistence
    def to_dict(self) -> dict[str, Any]:
        envs = None
        if self._envs is not None:
            upto = max((r["trial"] for r in self._results), default=-1) + 1
            envs = [self.environment(r) for r in range(upto)]
        out = {"format": self._setup.format, "config": self._setup.to_dict(), "config_sha256": self._setup.sha256(),
               "environments": envs, "results": [dict(r) for r in self._results]}
        if self._envs is not None:
            out["environment_draw"] = {"choices": list(self._envs), "seed": self._env_seed}
        # one checksum over configuration and results: load refuses an edited file (see certirank._integrity)
        return sealed(out, self._edited)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, trust_edited: bool = False) -> Ranker:
        """Rebuild a Ranker by re-running the engine over the saved results (derived state is never trusted
        from disk); it then behaves exactly like the original.

        The file's checksums (``state_sha256`` over configuration and results, ``config_sha256`` over the
        locked configuration) must match; an edited or unsealed file raises :class:`EditedStateError` unless
        ``trust_edited=True``, and then every result states that it came from an edited state.
        """
        data = dict(data)
        if not isinstance(data, dict) or data.get("format") not in FORMATS:
            raise ParameterError(f"not a saved AnyRank campaign (expected format {FORMATS[-1]!r})")
        if not isinstance(data.get("config"), Mapping):
            raise ParameterError("saved campaign: 'config' must be an object with the campaign's settings")
        results = data.get("results") or []
        if not isinstance(results, list) or not all(isinstance(rec, Mapping) for rec in results):
            raise ParameterError("saved campaign: 'results' must be a list of {policy, trial, score} objects")
        edited = verify(data, what="saved campaign", trust_edited=trust_edited)
        setup = _setup_from_dict(data["config"])
        if data.get("config_sha256") != setup.sha256():
            if not trust_edited:
                raise EditedStateError("saved campaign: the configuration does not match its checksum "
                                       "(config_sha256); the pre-registered settings cannot be changed after the "
                                       "first result (pass trust_edited=True to load it anyway)")
            edited = edited or "the configuration does not match config_sha256"
        obj = cls.__new__(cls)
        obj._init(setup)
        obj._edited = edited
        draw = data.get("environment_draw")
        if draw is not None:
            try:
                obj._set_environments(draw["choices"], draw["seed"])
            except (KeyError, TypeError):
                raise ParameterError("saved campaign: environment_draw must have choices and seed") from None
        tb = obj._camp.table
        for n, rec in enumerate(results):
            try:
                i, r, v = obj._check_entry(rec["policy"], rec["trial"], rec["score"])
            except (KeyError, TypeError):
                raise ParameterError(f"saved campaign: result {n} must have policy, trial and score") from None
            if r < tb.vals.shape[0] and tb.known[r, i]:
                raise ParameterError(f"saved campaign: {rec['policy']} trial {r} is recorded twice")
            tb.set(i, r, v)
            obj._results.append({"policy": setup.policies[i], "trial": r, "score": None if np.isnan(v) else v})
        obj._camp.run_live()
        return obj

    def recorded(self) -> dict[str, int]:
        """Results recorded so far per policy (failed runs included), in policy order."""
        tb = self._camp.table
        counts = tb.known[:tb.nrows].sum(axis=0)
        return {p: int(n) for p, n in zip(self._setup.policies, counts)}

    def snapshot(self) -> dict[str, Any]:
        """The derived engine state (configuration, counters, evidence, graph, trial table) as plain data and
        numpy arrays. :meth:`from_snapshot` resumes from it without replaying the history (the campaign store
        checkpoints it after every record); :meth:`from_json` remains the replay that checks it."""
        from .state import snapshot
        return snapshot(self)

    @classmethod
    def from_snapshot(cls, snap: Mapping[str, Any]) -> Ranker:
        """A Ranker equal to the one :meth:`snapshot` was taken from (StateError if the snapshot is corrupt)."""
        from .state import restore
        return restore(cls, snap)

    def __repr__(self) -> str:
        st = self._camp.termination or "running"
        return (f"Ranker({len(self._setup.policies)} policies, method={self._setup.method!r}, "
                f"alpha={self._setup.alpha:g}, iteration={self._camp.t}, decided={len(self._camp.decisions)}/"
                f"{self._camp.k}, {st})")
