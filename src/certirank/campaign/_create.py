"""Creating a campaign file: the configuration is checked and locked (stored with its SHA-256, which starts
the hash chain), and the file appears under its name only once complete, never over an existing one."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..errors import CertirankError, ParameterError, StateError
from . import _schema
from ._blind import make_codes
from ._engines import KINDS, AnyRankEngine, LeaderboardEngine, engine_class
from ._util import _canon, _check_range, _config_diff, _now, _operator, _sha

if TYPE_CHECKING:  # pragma: no cover
    from .store import Campaign

__all__ = ["FORMAT", "_Creation"]

FORMAT = "certirank.campaign/1"


class _Creation:
    """Mixin of :class:`~certirank.campaign.store.Campaign`: :meth:`init`."""

    @classmethod
    def init(cls, path: str | os.PathLike[str], policies: Sequence[str] | None = None, *, kind: str = "anyrank",
             models: Sequence[str] | None = None, alpha: float = 0.05, method: str | None = None,
             prior: Any = None, gamma: float = 1.0, n_max: int | None = None, ties: str = "allow",
             guarantee: str = "paper", environments: Sequence[str] | None = None, seed: int | None = None,
             blind: bool = False, score_range: Sequence[float] | None = None, blocks: Any = None,
             tau: float = 0.0, top_k: int | None = None, by: str | None = None, **options: Any) -> Campaign:
        """Create the campaign file at ``path`` with its configuration locked (refused if ``path`` exists).

        ``kind="anyrank"`` (default): ``policies`` and the :class:`certirank.Ranker` settings (``n_max`` is the
        per-comparison budget, default 5000; ``environments`` + ``seed`` draw each trial's environment;
        ``score_range=(lo, hi)`` declares raw scores that are rescaled to [0, 1]; ``blind=True`` gives every
        policy a stable code shown instead of its name). ``kind="leaderboard"``: ``models`` (or ``policies``),
        ``alpha``, ``tau``, ``blocks`` ("items" or "replicate"), ``top_k``, ``method`` (BB-EDGE).
        """
        path = Path(path)
        kind = str(kind).strip().lower()
        if kind not in KINDS:
            raise ParameterError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
        config: dict[str, Any] = {"format": FORMAT, "kind": kind}
        if kind == "anyrank":
            if models is not None:
                raise ParameterError("models= is for --kind leaderboard; an AnyRank campaign takes policies=")
            if policies is None:
                raise ParameterError("give the policies to rank (--policies a,b,c)")
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
        config["blind"] = bool(blind)
        config["codes"] = make_codes(names, seed) if blind else None
        text = _canon(config)
        sha = _sha(text)
        if path.exists():
            cls._refuse_reinit(path, config)
        folder = path.parent if str(path.parent) else Path(".")
        if not folder.is_dir():
            raise ParameterError(f"cannot create campaign {path}: folder {folder} does not exist")
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".init", dir=folder)
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
                cls._refuse_reinit(path, config)
        finally:
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(tmp + suffix):
                    os.unlink(tmp + suffix)
        return cls(path)

    @staticmethod
    def _refuse_reinit(path: Path, config: Mapping[str, Any]) -> None:
        from .store import Campaign  # at call time: store imports this module

        try:
            old = Campaign(path)
        except CertirankError:
            raise ParameterError(f"{path} already exists and is not a campaign file; choose another name") from None
        try:
            before = old.config
        finally:
            old.close()
        changed = _config_diff(before, config)
        if changed:
            raise StateError(f"{path} is already a campaign and its configuration is locked (changed: "
                             f"{', '.join(changed)}); the pre-registered settings cannot change after init -- "
                             "start a new campaign file instead")
        raise StateError(f"{path} is already a campaign with this configuration; use it as it is (campaign next)")
