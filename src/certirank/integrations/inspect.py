"""`CertifiedStopping`: an inspect_ai early-stopping manager with an anytime-valid guarantee.

inspect_ai (>= 0.3.285, Python >= 3.11; ``pip install certirank[inspect]``) asks a task's ``early_stopping``
manager before it schedules each (sample, epoch) whether to skip it, and tells it every completed sample's
scores. `CertifiedStopping` stops scheduling once its goal is met:

- ``threshold=tau``: the benchmark average is certified above or below tau;
- ``precision=eps``: the anytime-valid confidence sequence for the benchmark average is narrower than eps;
- ``reference=LOG_OR_TABLE``: the model is certified better or worse than a reference model's recorded
  scores on the same sample ids (paired), or, with ``margin=m``, within +-m of it.

The statistics (without-replacement betting over the shuffled sample order, one test per epoch pass) live in
`certirank.integrations._stopping` and `certirank.evidence.finite`; see docs/inspect.md. Importing this module
does not import inspect_ai; the manager needs it only at run time.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._validate import check_alpha, check_positive_int
from ..errors import DataError, ParameterError, StateError
from ._stopping import StoppingCore

__all__ = ["CertifiedStopping", "score_value", "UnshuffledWarning"]

_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}


class UnshuffledWarning(UserWarning):
    """The dataset runs in file order, so the without-replacement guarantee does not apply."""


def score_value(value: Any, *, scorer: str, sample: Any, epoch: int) -> float:
    """A score value as a number: inspect's own mapping (C/I/P/N -> 1/0/0.5/0, yes/no/true/false, numbers).

    inspect's `value_to_float` maps anything it cannot read to 0 with a log warning; a certified decision must
    not rest on such a silent zero, so unreadable values are a DataError here.
    """
    where = f"sample {sample!r} epoch {epoch}, scorer {scorer!r}"
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        v = float(value)
        if not math.isfinite(v):
            raise DataError(f"{where}: score value {value!r} is not a finite number")
        return v
    if isinstance(value, str):
        s = value.strip()
        if s in _LETTERS:
            return _LETTERS[s]
        if s.lower() in _WORDS:
            return _WORDS[s.lower()]
        try:
            v = float(s)
        except ValueError:
            v = math.nan
        if math.isfinite(v):
            return v
    raise DataError(f"{where}: score value {value!r} is not C, I, P, N, yes/no, true/false or a number")


def _number(name: str, value: Any) -> float:
    # float("0.7") would pass a string through; a goal given as text is a mistake in the call
    try:
        if isinstance(value, (str, bytes, bool)):
            raise TypeError
        v = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(v):
        raise ParameterError(f"{name} must be a finite number, got {value!r}")
    return v


def _is_table(v: Any) -> bool:
    import pandas as pd

    return isinstance(v, pd.DataFrame)


def _label(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v).strip()


class CertifiedStopping:
    """An inspect_ai `EarlyStopping` manager that stops once a certified goal is met.

    Pass exactly one of `threshold`, `precision`, `reference`:

    >>> Task(dataset=dataset.shuffle(seed=0), solver=..., scorer=match(),
    ...      early_stopping=CertifiedStopping(threshold=0.7, alpha=0.05))

    Parameters
    ----------
    threshold : float, optional
        Stop once the benchmark average is certified above or below this value.
    precision : float, optional
        Stop once the confidence sequence for the benchmark average is narrower than this.
    reference : path, table or mapping, optional
        The reference model's scores: an inspect log (.eval/.json) or folder, any table `certirank.load`
        reads, a loaded table, or a mapping {sample id: score}. Per sample id its scores are averaged over
        epochs/replicates. Every sample of the task needs a reference score.
    reference_model : str, optional
        Which model of the reference data (needed when it holds several).
    margin : float
        With `reference`: also stop once the mean difference is certified inside (-margin, margin).
    alpha : float
        Level of the guarantee (default 0.05).
    scorer : str, optional
        Scorer whose value is used when the task has several (default: the first one reported);
        ``"NAME/KEY"`` picks one value of a scorer that returns a dict.
    score_range : (lo, hi)
        Range of the score values (default (0, 1)); a value outside is a DataError.
    warn_unshuffled : bool
        Warn (once) when the dataset was not shuffled.

    After the run, ``summary()`` (also written by inspect into the log's ``results.early_stopping.metadata``)
    holds the decision, samples used, the confidence sequence and the e-value.
    """

    name = "certirank"

    def __init__(self, *, threshold: float | None = None, precision: float | None = None,
                 reference: Any = None, reference_model: str | None = None, margin: float = 0.0,
                 alpha: float = 0.05, scorer: str | None = None, score_range: tuple[float, float] = (0.0, 1.0),
                 warn_unshuffled: bool = True, grid: int = 2001) -> None:
        given = [k for k, v in (("threshold", threshold), ("precision", precision), ("reference", reference))
                 if v is not None]
        if len(given) != 1:
            raise ParameterError("CertifiedStopping needs exactly one goal: threshold=, precision= or reference= "
                                 f"(got {', '.join(given) or 'none'})")
        self.goal = given[0]
        self.alpha = check_alpha(alpha)
        # every mistake in the arguments is reported here, when the task is built, not samples into the run
        try:
            lo, hi = (_number("score_range", v) for v in score_range)
        except (TypeError, ValueError, ParameterError):
            raise ParameterError(f"score_range must be (lo, hi), two finite numbers, got {score_range!r}") from None
        if not lo < hi:
            raise ParameterError(f"score_range must have lo < hi, got {score_range!r}")
        self.score_range = (lo, hi)
        self.threshold = None if threshold is None else _number("threshold", threshold)
        if self.threshold is not None and not lo <= self.threshold <= hi:
            raise ParameterError(f"threshold {threshold!r} is outside the score range [{lo:g}, {hi:g}]")
        self.precision = None if precision is None else _number("precision", precision)
        if self.precision is not None and not self.precision > 0:
            raise ParameterError(f"precision must be > 0, got {precision!r}")
        self.margin = _number("margin", margin)
        if self.margin < 0:
            raise ParameterError(f"margin must be >= 0, got {margin!r}")
        if self.goal != "reference" and (self.margin > 0 or reference_model is not None):
            what = "margin" if self.margin > 0 else "reference_model"
            raise ParameterError(f"{what} applies to the reference goal only (reference=...), not to {self.goal}=")
        if reference is not None:
            if isinstance(reference, (str, Path)):
                if not Path(reference).exists():
                    raise ParameterError(f"reference {str(reference)!r}: no such file or folder")
            elif not isinstance(reference, Mapping) and not _is_table(reference):
                raise ParameterError(f"reference must be a path, a table or a mapping {{sample id: score}}, got "
                                     f"{type(reference).__name__}")
        if scorer is not None and (not isinstance(scorer, str) or not scorer.strip()):
            raise ParameterError(f"scorer must be a scorer name, got {scorer!r}")
        grid = check_positive_int("grid", grid, minimum=2)
        self.scorer = scorer
        self.warn_unshuffled = warn_unshuffled
        self.grid = grid
        self._reference_source = reference
        self._reference_model = reference_model
        self._reference: dict[str, float] | None = None
        self._core: StoppingCore | None = None
        self._active = False
        self._run_id: str | None = None
        self._warned = False
        self._meta: dict[str, Any] = {}

    # -- the EarlyStopping protocol -----------------------------------------------------------------

    async def start_task(self, task: Any, samples: list[Any], epochs: int) -> str:
        run_id = getattr(task, "run_id", None)
        # inspect runs a task's models concurrently within one eval() call (one run_id); a run that failed never
        # calls complete_task, and re-running the same Task in a later eval() must not be refused for it
        if self._active and (run_id is None or run_id == self._run_id):
            raise StateError("this CertifiedStopping is already running a task; use one manager per task and model")
        self._active = False
        self._run_id = run_id
        ids = [s.id for s in samples]
        if not ids:
            raise DataError("the task has no samples")
        if any(i is None for i in ids):
            raise DataError("every sample needs an id (inspect assigns them unless the dataset disables it)")
        shuffled = bool(getattr(getattr(task, "dataset", None), "shuffled", False))
        if not shuffled and self.warn_unshuffled and not self._warned:
            self._warned = True
            warnings.warn("certirank: the dataset is not shuffled, so samples run in file order and the "
                          "without-replacement guarantee does not hold; shuffle it (dataset.shuffle(seed=...) "
                          "or --sample-shuffle)", UnshuffledWarning, stacklevel=2)
        lo, hi = self.score_range
        if self.goal == "reference":
            self._reference = self._load_reference(getattr(task, "task", None))
            missing = [i for i in ids if _label(i) not in self._reference]
            if missing:
                shown = ", ".join(map(repr, missing[:5])) + (" ..." if len(missing) > 5 else "")
                raise DataError(f"the reference has no score for {len(missing)} of the task's {len(ids)} sample "
                                f"ids ({shown}); paired comparison needs the same sample ids")
            bounds = (lo - hi, hi - lo)
        else:
            bounds = (lo, hi)
        self._core = StoppingCore(self.goal, len(ids), epochs, alpha=self.alpha, threshold=self.threshold,
                                  precision=self.precision, margin=self.margin, bounds=bounds, grid=self.grid)
        self._epochs = epochs
        self._order: dict[int, list[str]] = {e: [] for e in range(1, epochs + 1)}
        self._scheduled: dict[int, set[str]] = {e: set() for e in range(1, epochs + 1)}
        self._pending: dict[int, dict[str, float]] = {e: {} for e in range(1, epochs + 1)}
        self._fed: dict[int, int] = {e: 0 for e in range(1, epochs + 1)}
        self._stopped = 0
        self._scorer_used: str | None = None
        self._meta = {"task": getattr(task, "task", None), "model": getattr(task, "model", None),
                      "shuffled": shuffled}
        self._active = True
        return self.name

    async def schedule_sample(self, id: Any, epoch: int) -> Any:
        core = self._require()
        if core.pass_done(epoch):
            from inspect_ai.util import EarlyStop

            self._stopped += 1
            p = core.pass_summary(epoch)
            return EarlyStop(id=id, epoch=epoch, reason=f"certirank: {core.goal} goal met ({p['decision']}) "
                             f"after {p['decided_at']} samples of epoch {epoch}")
        key = _label(id)
        # an error retry schedules the sample again (at the back of inspect's queue); it keeps its first
        # place, which is its place in the shuffled order, and a second entry would never be filled
        if key not in self._scheduled[epoch]:
            self._scheduled[epoch].add(key)
            self._order[epoch].append(key)
        return None

    async def complete_sample(self, id: Any, epoch: int, scores: Mapping[str, Any]) -> None:
        core = self._require()
        value = self._value(id, epoch, scores)
        key = _label(id)
        if self.goal == "reference":
            assert self._reference is not None
            value = value - self._reference[key]
        self._pending[epoch][key] = value
        # feed in scheduled order: completion order could favour fast samples
        order, pending = self._order[epoch], self._pending[epoch]
        while self._fed[epoch] < len(order) and order[self._fed[epoch]] in pending:
            core.observe(epoch, pending.pop(order[self._fed[epoch]]))
            self._fed[epoch] += 1

    async def complete_task(self) -> dict[str, Any]:
        self._require()
        self._active = False
        return self.summary()

    # -- results -----------------------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """JSON-able summary: decision, samples used, confidence sequence, e-value, per-epoch detail."""
        core = self._core
        if core is None:
            raise StateError("no task has started yet")
        out = core.to_dict()
        # a sample that ended in an error has no score, and the test may not skip it (errors can depend on
        # the answer), so the scores scheduled after it wait: they ran but were never used
        unscored, held = [], 0
        for e in range(1, self._epochs + 1):
            rest = self._order[e][self._fed[e]:]
            unscored += [(k, e) for k in rest if k not in self._pending[e]]
            held += sum(k in self._pending[e] for k in rest)
        out.update({"samples_saved": self._stopped, "samples_unscored": len(unscored), "samples_held": held,
                    "manager": "certirank.CertifiedStopping", "scorer": self._scorer_used,
                    "samples_stopped": self._stopped, **self._meta})
        if unscored:
            shown = ", ".join(f"{k} (epoch {e})" for k, e in unscored[:5]) + (" ..." if len(unscored) > 5 else "")
            out["note"] = (f"{len(unscored)} scheduled sample(s) got no score (errors): {shown}; the {held} "
                           "score(s) scheduled after them ran but were not used. Set score_on_error=True (errors "
                           "are scored, e.g. as wrong) or retry_on_error so that every sample is scored.")
        if self.goal == "reference":
            out["reference_model"] = self._reference_model
            out["reference_mean"] = sum(self._reference.values()) / len(self._reference) if self._reference else None
        if not self._meta.get("shuffled"):
            out["guarantee"] += " Warning: the dataset was not shuffled."
        return out

    # -- helpers -----------------------------------------------------------------------------------

    def _require(self) -> StoppingCore:
        if self._core is None or not self._active:
            raise StateError("start_task was not called (inspect_ai calls the manager's methods in order)")
        return self._core

    def _value(self, id: Any, epoch: int, scores: Mapping[str, Any]) -> float:
        if not scores:
            raise DataError(f"sample {id!r} epoch {epoch} has no scores")
        name = self.scorer
        if name is None:
            name = self._scorer_used or next(iter(scores))
        key = None
        if name not in scores and "/" in name:
            # "NAME/KEY": one value of a scorer that returns a dict (as `certirank.load` reads inspect logs)
            name, key = name.rsplit("/", 1)
        if name not in scores:
            raise DataError(f"sample {id!r} epoch {epoch} has no score from scorer {name!r} "
                            f"(scorers: {', '.join(scores)})")
        self._scorer_used = name if key is None else f"{name}/{key}"
        sample_score = scores[name]
        score = getattr(sample_score, "score", sample_score)
        raw = getattr(score, "value", score)
        if key is not None:
            if not isinstance(raw, Mapping) or key not in raw:
                held = ", ".join(map(str, raw)) if isinstance(raw, Mapping) else f"the single value {raw!r}"
                raise DataError(f"sample {id!r} epoch {epoch}: scorer {name!r} gives no value {key!r} ({held})")
            raw = raw[key]
        elif isinstance(raw, Mapping):
            raise DataError(f"sample {id!r} epoch {epoch}: scorer {name!r} gives several values "
                            f"({', '.join(map(str, raw))}); choose one with scorer='{name}/{next(iter(raw), 'KEY')}'")
        v = score_value(raw, scorer=self._scorer_used, sample=id, epoch=epoch)
        lo, hi = self.score_range
        if not lo <= v <= hi:
            raise DataError(f"sample {id!r} epoch {epoch}: score {v:g} of scorer {name!r} is outside the score "
                            f"range [{lo:g}, {hi:g}] (set score_range=(lo, hi))")
        return v

    def _load_reference(self, task_name: str | None = None) -> dict[str, float]:
        ref = self._reference_source
        lo, hi = self.score_range
        if isinstance(ref, Mapping):
            out = {}
            for k, v in ref.items():
                val = score_value(v, scorer="reference", sample=k, epoch=1)
                if not lo <= val <= hi:
                    raise DataError(f"reference score {val:g} for sample {k!r} is outside [{lo:g}, {hi:g}]")
                out[_label(k)] = val
            return out
        import pandas as pd

        if isinstance(ref, pd.DataFrame):
            table = ref
        elif isinstance(ref, (str, Path)):
            from ..data.formats.inspect_logs import inspect_log_files, is_inspect_json
            from ..data.readers import load

            sr = None if (lo, hi) == (0.0, 1.0) else (lo, hi)
            p = Path(ref)
            opts: dict[str, Any] = {}
            if (p.is_dir() and inspect_log_files(p)) or p.suffix == ".eval" or \
                    (p.suffix == ".json" and is_inspect_json(p)):
                # inspect logs are scored like this run: with the chosen scorer (a log's default is its first
                # scorer, which may be another one), and on this task when the folder holds several
                opts = {"format": "inspect"} | ({"scorer": self.scorer} if self.scorer is not None else {})
            table = load(ref, score_range=sr, **opts)
            tasks = table.attrs.get("tasks") or []
            if opts and len(tasks) > 1 and task_name in tasks:
                table = load(ref, score_range=sr, task=task_name, **opts)
        else:
            raise ParameterError(f"reference must be a path, a table or a mapping {{sample id: score}}, got "
                                 f"{type(ref).__name__}")
        if "policy" not in table.columns or "env" not in table.columns:
            raise DataError("the reference table needs policy, env (sample id) and score columns")
        models = list(dict.fromkeys(table["policy"].astype(str)))
        name = self._reference_model
        if name is None:
            if len(models) != 1:
                raise ParameterError(f"the reference holds {len(models)} models ({', '.join(models)}); choose one "
                                     "with reference_model=")
            name = models[0]
        elif name not in models:
            raise ParameterError(f"reference_model {name!r} not in the reference ({', '.join(models)})")
        self._reference_model = name
        rows = table[table["policy"].astype(str) == name]
        means = rows.groupby(rows["env"].astype(str))["score"].mean()
        # tables hold scores rescaled to [0, 1]; express them back in the manager's units
        return {str(k): lo + (hi - lo) * float(v) for k, v in means.items()}
