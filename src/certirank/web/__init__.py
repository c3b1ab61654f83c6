"""The campaign web page (optional extra ``web``): ``certirank campaign serve DB``.

A thin shell over :class:`certirank.Campaign`: the run page (what to run next, one-click results, undo),
the ranking page (certified table, letters, pairs, confidence graph; refreshes itself), the history page
(audit trail) and exports. FastAPI + Jinja2 (autoescaped) + vendored htmx: no network, no CDN.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

__all__ = ["create_app", "serve", "make_token"]


def make_token() -> str:
    """A fresh random write token (URL-safe)."""
    return secrets.token_urlsafe(18)


def create_app(db: str | Path, *, token: str | None = None, read_only: bool = False, host: str = "127.0.0.1",
               allow_hosts: Any = ()) -> Any:
    """The ASGI app for campaign ``db`` (see :mod:`certirank.web.app`)."""
    from ..errors import ParameterError
    try:
        from .app import create_app as _create
    except ImportError as exc:  # fastapi, jinja2 or python-multipart missing
        raise ParameterError(f"the campaign page needs the 'web' extra (pip install 'certirank[web]'): "
                             f"{exc.name or exc} is not installed") from None
    return _create(db, token=token, read_only=read_only, host=host, allow_hosts=allow_hosts)


def serve(app: Any, *, host: str = "127.0.0.1", port: int = 8000, log_level: str = "warning") -> None:
    """Run the page made by :func:`create_app` with uvicorn until interrupted (blocking)."""
    from ..errors import ParameterError
    try:
        import uvicorn
    except ImportError:
        raise ParameterError("the campaign page needs the 'web' extra (pip install 'certirank[web]'): uvicorn "
                             "is not installed") from None
    uvicorn.run(app, host=host, port=port, log_level=log_level)
