"""Creating a campaign file: the configuration is checked and locked (stored with its SHA-256, which starts
the hash chain), and the file appears under its name only once complete, never over an existing one."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from ..errors import CertirankError, ParameterError, StateError
from . import _schema
from ._blind import make_codes
from ._design import check_design, default_about, merged, read_design
from ._plan import check_environments, fresh_seed
from ._engines import KINDS, AnyRankEngine, LeaderboardEngine, engine_class
from ._store import _Store
from ._util import _canon, _check_range, _config_diff, _has_control, _now, _operator, _sha

__all__ = ["FORMAT", "make_config", "create_file", "config_of", "init_config", "INIT_DEFAULTS"]

FORMAT = "certirank.campaign/1"
#: longest policy or model name a campaign takes
MAX_NAME = 200


def make_config(policies: Sequence[str] | None, *, kind: str, models: Sequence[str] | None, alpha: float,
                method: str | None, prior: Any, gamma: float, n_max: int | None, ties: str, guarantee: str,
                environments: Sequence[str] | None, seed: int | None, blind: bool,
                score_range: Sequence[float] | None, blocks: Any, tau: float, top_k: int | None,
                options: Mapping[str, Any], about: str | None = None, tags: Any = None, open_tags: Any = None,
                checklist: Any = None, launch: Any = None, checkpoints: Any = None,
                source: Mapping[str, str] | None = None, label_rate: Any = None, items: Any = None,
                difficulty: Any = None) -> dict[str, Any]:
    """The campaign's configuration, every setting checked by the engine that will run it, with its design
    (estimand, schedule seed, tags, checklist, launch template; see ``_design``)."""
    kind = str(kind).strip().lower()
    if label_rate is not None and kind == "anyrank":  # --label-rate declares the proxy campaign
        kind = "proxy"
    if kind not in KINDS:
        raise ParameterError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    config: dict[str, Any] = {"format": FORMAT, "kind": kind, "about": _check_about(about, kind)}
    if kind != "items" and (items is not None or difficulty is not None):
        raise ParameterError("items and difficulty are for an item campaign (--kind items)")
    if kind == "anyrank":
        if models is not None:
            raise ParameterError("models= is for --kind leaderboard; an AnyRank campaign takes policies=")
        if policies is None:
            raise ParameterError("give the policies to rank (--policies a,b,c)")
        _check_seed(seed)
        # the schedule (environments in balanced blocks, Williams order) is the campaign's, not the Ranker's
        config["engine"] = AnyRankEngine.make_config(
            policies, alpha=alpha, method=method or "anyrank", prior=prior, gamma=gamma, n_max=n_max, ties=ties,
            guarantee=guarantee, environments=None, seed=None, options=options)
        names = list(config["engine"]["ranker"]["policies"])
        config["score_range"] = None if score_range is None else _check_range(score_range)
        config["plan"] = {"environments": None if environments is None else check_environments(environments),
                          "seed": fresh_seed() if seed is None else int(seed)}
    elif kind == "items":
        config["engine"], names = _item_engine(policies, models=models, alpha=alpha, method=method, prior=prior,
                                                label_rate=label_rate, items=items, difficulty=difficulty,
                                                about=config["about"], seed=seed, n_max=n_max, blind=blind,
                                                given={"environments": environments, "score_range": score_range,
                                                       "blocks": blocks, "top_k": top_k, "tau": tau or None,
                                                       "gamma": None if gamma == 1.0 else gamma,
                                                       "ties": None if ties == "allow" else ties,
                                                       "guarantee": None if guarantee == "paper" else guarantee},
                                                options=options)
    elif kind == "proxy":
        config["engine"], names = _proxy_engine(policies, models=models, alpha=alpha, method=method, prior=prior,
                                                 label_rate=label_rate, seed=seed, n_max=n_max, options=options)
        config["score_range"] = None if score_range is None else _check_range(score_range)
        config["plan"] = {"environments": None if environments is None else check_environments(environments),
                          "seed": config["engine"]["label_seed"]}
    else:
        if label_rate is not None:
            raise ParameterError("label_rate is for a proxy campaign (--label-rate π with --policies); a leaderboard "
                                 "campaign records whole runs")
        given = {"prior": prior, "environments": environments, "seed": seed, "score_range": score_range}
        options = dict(options)
        margin = options.pop("margin", None)  # checked by the contract (Campaign.init's margin), as for AnyRank
        bad = [k for k, v in given.items() if v is not None] + (["blind"] if blind else []) + sorted(options)
        if bad:
            raise ParameterError(f"{', '.join(bad)}: not used by a leaderboard campaign (--kind leaderboard "
                                 "takes --models, --alpha, --tau, --blocks, --top-k, --method, --margin, --n-max)")
        names_in = models if models is not None else policies
        if names_in is None:
            raise ParameterError("give the models of the leaderboard (--models a,b,c)")
        config["engine"] = LeaderboardEngine.make_config(names_in, alpha=alpha, tau=tau, blocks=blocks,
                                                         top_k=top_k, method=method or "bb-edge", margin=margin,
                                                         n_max=n_max)
        names = list(config["engine"]["models"])
    _check_names(names, "model" if kind in ("leaderboard", "items") else "policy")
    config["blind"] = bool(blind)
    config["codes"] = make_codes(names, seed) if blind else None
    design = check_design(kind, names, tags=tags, open_tags=open_tags, checklist=checklist, launch=launch,
                          checkpoints=checkpoints)
    config["design"] = {**design, "source": None if source is None else dict(source)}
    return config


def _proxy_engine(policies: Any, *, models: Any, alpha: Any, method: Any, prior: Any, label_rate: Any, seed: Any,
                  n_max: Any, options: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A proxy campaign's engine configuration: the policies, alpha, the label rate π, the locked seed of the
    label draw (and of the schedule), the budget of trials. AnyRank's own settings do not apply."""
    from ._proxy import ProxyEngine
    if label_rate is None:
        raise ParameterError("a proxy campaign needs label_rate (--label-rate π): the probability with which the "
                             "campaign draws each trial for a real label")
    if models is not None:
        raise ParameterError("models= is for --kind leaderboard; a proxy campaign takes policies=")
    if policies is None:
        raise ParameterError("give the policies to rank (--policies a,b,c)")
    options = dict(options)
    margin = options.pop("margin", None)  # checked by the contract (Campaign.init's margin)
    bad = ([] if method in (None, "proxy-bonferroni") else ["method"]) + (["prior"] if prior is not None else []) \
        + sorted(k for k, v in options.items() if v is not None)
    if bad:
        raise ParameterError(f"{', '.join(bad)}: not used by a proxy campaign (--label-rate takes --policies, "
                             "--alpha, --n-max, --margin, --seed, --environments, --score-range, --blind and the design)")
    _check_seed(seed)
    engine = ProxyEngine.make_config(list(policies), alpha=alpha, label_rate=label_rate,
                                     seed=fresh_seed() if seed is None else int(seed), n_max=n_max, margin=margin)
    return engine, list(engine["policies"])


def _item_engine(policies: Any, *, models: Any, alpha: Any, method: Any, prior: Any, label_rate: Any, items: Any,
                 difficulty: Any, about: str, seed: Any, n_max: Any, blind: Any, given: Mapping[str, Any],
                 options: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """An item campaign's engine configuration: the models, the benchmark's items and their success rates from
    earlier models (both fixed now, before the data, and hashed with the rest), alpha, the estimand, the locked
    seed of the item draws and the budget of draws. Nothing of AnyRank's or BB-EDGE's settings applies."""
    from ._items import ItemEngine
    if items is None:
        raise ParameterError("an item campaign needs the benchmark's items (--items FILE or --items N)")
    names_in = models if models is not None else policies
    if names_in is None:
        raise ParameterError("give the models to rank (--models a,b,c)")
    bad = (["method"] if method is not None else []) + (["prior"] if prior is not None else []) \
        + (["label_rate"] if label_rate is not None else []) + (["blind"] if blind else []) \
        + [k for k, v in given.items() if v is not None] + sorted(k for k, v in options.items() if v is not None)
    if bad:
        raise ParameterError(f"{', '.join(bad)}: not used by an item campaign (--kind items takes --models, --items, "
                             "--difficulty, --alpha, --about, --seed, --n-max)")
    _check_seed(seed)
    engine = ItemEngine.make_config(list(names_in), items=items, difficulty=difficulty, alpha=alpha, about=about,
                                    seed=fresh_seed() if seed is None else int(seed), n_max=n_max)
    return engine, list(engine["models"])


def _check_seed(seed: Any) -> None:
    """A campaign's seed (also read from design files, which the API's contract does not see)."""
    if seed is not None and (isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer))
                             or seed < 0):
        raise ParameterError(f"seed must be a non-negative integer, got {seed!r}")


def _check_about(about: Any, kind: str) -> str:
    default = default_about(kind)
    if about is None:
        return default
    text = str(about).strip().lower() if isinstance(about, str) else about
    if kind == "items":  # one recorded run per model (a cached table) or fresh runs on every draw
        if text not in ("benchmark", "table"):
            raise ParameterError(f"about must be 'benchmark' or 'table' for an item campaign, got {about!r}: "
                                 "benchmark = each model's expected score over fresh runs on these items, table = "
                                 "the averages of one fixed run (a score once seen is known)")
        return text
    if text != default:
        what = ("a robot campaign's claims are about the policies: their expected score per rollout in the "
                "environments drawn (spec 09 §2)" if kind != "leaderboard" else
                "a leaderboard campaign's claims are about the benchmark: each model's expected score on its "
                "fixed items over independent runs (spec 09 §2)")
        raise ParameterError(f"about must be {default!r} for a {kind} campaign, got {about!r}: {what}")
    return default


def _check_names(names: Sequence[str], what: str) -> None:
    # a name is printed in one terminal line, a table cell and a file name column: no controls, no essays
    for name in names:
        if len(name) > MAX_NAME:
            raise ParameterError(f"{what} name {name[:20]!r}... is {len(name)} characters long; keep names under "
                                 f"{MAX_NAME}")
        if _has_control(name):
            raise ParameterError(f"{what} name {name!r} contains a control character (newline, NUL, escape, ...)")


def create_file(path: Path, config: Mapping[str, Any], *, by: str | None) -> None:
    """Write a new campaign file at ``path`` holding ``config`` (refused if ``path`` exists)."""
    kind = config["kind"]
    text = _canon(config)
    sha = _sha(text)
    if path.exists():
        _refuse_reinit(path, config)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise ParameterError(f"cannot create campaign {path}: folder {folder} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".init", dir=folder)
    except OSError as exc:
        raise ParameterError(f"cannot create campaign {path}: {exc.strerror or exc}") from None
    os.close(fd)
    os.unlink(tmp)
    try:
        conn = _schema.connect(tmp)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute(f"PRAGMA application_id = {_schema.APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version = {_schema.SCHEMA_VERSION}")
            conn.execute("BEGIN IMMEDIATE")
            for stmt in _schema.DDL.split(";"):
                if stmt.strip():
                    conn.execute(stmt)
            meta = {"schema_version": str(_schema.SCHEMA_VERSION), "kind": kind, "config": text,
                    "config_sha256": sha, "created_at": _now(), "created_by": _operator(by) or "",
                    "certirank_version": __version__}
            conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", meta.items())
            engine = engine_class(kind).fresh(config["engine"])
            blob = engine.checkpoint()
            conn.execute("INSERT INTO checkpoint VALUES (1, 0, ?, 0, ?, ?, ?, ?)",
                         (sha, engine.fmt, blob, _sha(blob), _now()))
            conn.execute("COMMIT")
        finally:
            conn.close()
        try:  # a hard link never replaces an existing file: two concurrent inits cannot clobber each other
            os.link(tmp, path)
        except FileExistsError:
            _refuse_reinit(path, config)
    finally:
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(tmp + suffix):
                os.unlink(tmp + suffix)


def _refuse_reinit(path: Path, config: Mapping[str, Any]) -> None:
    try:
        old = _Store(path)
    except CertirankError:
        raise ParameterError(f"{path} already exists and is not a campaign file; choose another name") from None
    try:
        before = old.config()
    except CertirankError:
        raise ParameterError(f"{path} already exists and is not a campaign file; choose another name") from None
    finally:
        old.close()
    changed = _config_diff(before, config)
    if changed:
        raise StateError(f"{path} is already a campaign and its configuration is locked (changed: "
                         f"{', '.join(changed)}); the pre-registered settings cannot change after init -- "
                         "start a new campaign file instead")
    raise StateError(f"{path} is already a campaign with this configuration; use it as it is (campaign next)")


#: Campaign.init's defaults for the settings that have one (the rest default to None)
INIT_DEFAULTS = {"kind": "anyrank", "alpha": 0.05, "method": None, "gamma": 1.0, "ties": "allow",
                 "guarantee": "paper", "blind": False, "tau": 0.0}
#: make_config's named settings; any other key goes to the engine as an option (metric, budget, arms, ...)
_NAMED = ("kind", "policies", "models", "alpha", "method", "prior", "gamma", "n_max", "ties", "guarantee",
          "environments", "seed", "blind", "score_range", "blocks", "tau", "top_k", "about", "tags", "open_tags",
          "checklist", "launch", "checkpoints", "label_rate", "items", "difficulty")


def config_of(settings: Mapping[str, Any], source: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The configuration of a mapping of Campaign.init settings (defaults filled in)."""
    args = {k: settings.get(k, INIT_DEFAULTS.get(k)) for k in _NAMED}
    rest = {k: v for k, v in settings.items() if k not in _NAMED}
    return make_config(args.pop("policies"), options=rest, source=source, **args)


def init_config(policies: Any, *, design: Any, options: Mapping[str, Any], **named: Any) -> dict[str, Any]:
    """The configuration Campaign.init locks: from its arguments, or from a design file beside them (a setting
    given in both places is refused: a locked design has one home for each)."""
    given = {"policies": policies, **{k: v for k, v in named.items() if k not in INIT_DEFAULTS}, **options}
    chosen = {k: named[k] for k in INIT_DEFAULTS}
    if design is None:
        return config_of({**chosen, **{k: v for k, v in given.items() if v is not None}})
    values, source = read_design(design)
    values = _checked_design(values, design)
    changed = {k: v for k, v in chosen.items() if v != INIT_DEFAULTS[k]}
    settings = merged(values, {**given, **changed}, str(design))
    try:
        if isinstance(settings.get("budget"), int):  # budget = N, as `campaign init --budget N`
            settings["n_max"], declared = declared_budget(settings.pop("budget"), settings.get("n_max"),
                                                          settings.pop("arms", None), settings.get("bins", "progress"))
            settings.update(declared)
        return config_of(settings, source)
    except ParameterError as exc:
        raise ParameterError(f"design file {design}: {exc}") from None


def _checked_design(values: Mapping[str, Any], design: Any) -> dict[str, Any]:
    """A design file's values checked by Campaign.init's declarations, as its arguments are (the contract
    checks the arguments once, at the call; what a file holds is checked here)."""
    from .._params import VERBS
    decl = VERBS["Campaign.init"]
    out = dict(values)
    for k, v in values.items():
        if k in decl.by_name and k != "budget":  # budget = N is a design file's own spelling (declared_budget)
            try:
                out[k] = decl.by_name[k].check(v)
            except ParameterError as exc:
                raise ParameterError(f"design file {design}: {exc}") from None
    return out


def declared_budget(budget: Any, n_max: Any, arms: Any, bins: str) -> tuple[Any, dict[str, Any]]:
    """(n_max, Ranker options) of a design that declares its budget N (``--budget N`` / ``budget = N``), its
    scale and its arms: the budget is the per-comparison n_max, final with binary scores (the campaign never
    extends it); independent arms belong to the exact budget test."""
    from ..methods.anyrank.config import ARMS
    options: dict[str, Any] = {}
    if budget is not None:
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise ParameterError(f"--budget must be a positive number of rollouts, got {budget}")
        if n_max is not None and n_max != budget:
            raise ParameterError(f"--budget {budget} and --n-max {n_max} disagree: give one (the budget is the "
                                 "per-comparison n_max)")
        n_max = budget
        if bins == "binary":  # a declared, final budget: the campaign never extends it
            options["budget"] = "final"
    if arms is not None:
        key = str(arms).strip().lower()
        if key not in ARMS:
            raise ParameterError(f"--arms must be one of {', '.join(ARMS)}, got {arms!r}")
        if key == "independent" and (bins != "binary" or budget is None):
            raise ParameterError("--arms independent is a property of the exact budget test: declare binary "
                                 "scores (--bins binary) and the budget (--budget N)")
        options["arms"] = key
    return n_max, options
