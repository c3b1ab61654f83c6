"""Creating a campaign file: the configuration is checked and locked (stored with its SHA-256, which starts
the hash chain), and the file appears under its name only once complete, never over an existing one."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import __version__
from ..errors import CertirankError, ParameterError, StateError
from . import _schema
from ._blind import make_codes
from ._engines import KINDS, AnyRankEngine, LeaderboardEngine, engine_class
from ._store import _Store
from ._util import _canon, _check_range, _config_diff, _has_control, _now, _operator, _sha

__all__ = ["FORMAT", "make_config", "create_file"]

FORMAT = "certirank.campaign/1"
#: longest policy or model name a campaign takes
MAX_NAME = 200


def make_config(policies: Sequence[str] | None, *, kind: str, models: Sequence[str] | None, alpha: float,
                method: str | None, prior: Any, gamma: float, n_max: int | None, ties: str, guarantee: str,
                environments: Sequence[str] | None, seed: int | None, blind: bool,
                score_range: Sequence[float] | None, blocks: Any, tau: float, top_k: int | None,
                options: Mapping[str, Any]) -> dict[str, Any]:
    """The campaign's configuration, every setting checked by the engine that will run it."""
    kind = str(kind).strip().lower()
    if kind not in KINDS:
        raise ParameterError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    config: dict[str, Any] = {"format": FORMAT, "kind": kind}
    if kind == "anyrank":
        if models is not None:
            raise ParameterError("models= is for --kind leaderboard; an AnyRank campaign takes policies=")
        if policies is None:
            raise ParameterError("give the policies to rank (--policies a,b,c)")
        if environments is not None and not isinstance(environments, str):
            envs = [str(e).strip() for e in environments]
            repeated = sorted({e for e in envs if envs.count(e) > 1})
            if repeated:  # a repeated name would be drawn twice as often, silently
                raise ParameterError(f"environments must be distinct; repeated: {', '.join(repeated[:5])}")
        if seed is not None and environments is None and not blind:
            raise ParameterError("seed draws the environments and the blind codes; give environments or blind "
                                 "as well")
        config["engine"] = AnyRankEngine.make_config(
            policies, alpha=alpha, method=method or "anyrank", prior=prior, gamma=gamma, n_max=n_max, ties=ties,
            guarantee=guarantee, environments=environments, seed=None if environments is None else seed,
            options=options)
        names = list(config["engine"]["ranker"]["policies"])
        config["score_range"] = None if score_range is None else _check_range(score_range)
    else:
        given = {"prior": prior, "n_max": n_max, "environments": environments, "seed": seed,
                 "score_range": score_range}
        bad = [k for k, v in given.items() if v is not None] + (["blind"] if blind else []) + sorted(options)
        if bad:
            raise ParameterError(f"{', '.join(bad)}: not used by a leaderboard campaign (--kind leaderboard "
                                 "takes --models, --alpha, --tau, --blocks, --top-k, --method)")
        names_in = models if models is not None else policies
        if names_in is None:
            raise ParameterError("give the models of the leaderboard (--models a,b,c)")
        config["engine"] = LeaderboardEngine.make_config(names_in, alpha=alpha, tau=tau, blocks=blocks,
                                                         top_k=top_k, method=method or "bb-edge")
        names = list(config["engine"]["models"])
    _check_names(names, "policy" if kind == "anyrank" else "model")
    config["blind"] = bool(blind)
    config["codes"] = make_codes(names, seed) if blind else None
    return config


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
