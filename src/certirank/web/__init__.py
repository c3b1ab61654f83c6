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
    from .._extras import missing_extra
    try:
        from .app import create_app as _create
    except ImportError as exc:  # fastapi, jinja2 or python-multipart missing
        raise missing_extra("the campaign page", "web", (exc.name or "fastapi").split(".")[0]) from None
    return _create(db, token=token, read_only=read_only, host=host, allow_hosts=allow_hosts)


def serve(app: Any, *, host: str = "127.0.0.1", port: int = 8000, log_level: str = "warning") -> None:
    """Run the page made by :func:`create_app` with uvicorn until interrupted (blocking)."""
    from .._extras import require
    uvicorn = require("uvicorn", "web", "the campaign page")
    uvicorn.run(app, host=host, port=port, log_level=log_level)


def check_installed() -> None:
    """Refuse, in one line, before anything is printed, when a module of the 'web' extra is missing."""
    import importlib.util

    from .._extras import missing_extra, require
    for module in ("fastapi", "jinja2", "uvicorn"):
        require(module, "web", "the campaign page")
    # python-multipart (form posts) is imported as python_multipart since 0.0.13, as multipart before
    if importlib.util.find_spec("python_multipart") is None and importlib.util.find_spec("multipart") is None:
        raise missing_extra("the campaign page", "web", "python-multipart")
