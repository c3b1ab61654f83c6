"""What keeps the campaign page safe on a shared machine or a lab network: the Host-header allow-list (DNS
rebinding), the security headers of every answer, the browser session (an HttpOnly, SameSite=Strict cookie
obtained through a one-time link, so the token never sits in a URL or the history) and the same-origin check of
a browser's writes."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import threading
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

__all__ = ["SESSION_COOKIE", "CSP", "HostGuard", "Logins", "session_value", "host_allowed", "allowed_hosts",
           "same_origin"]

SESSION_COOKIE = "certirank_session"
#: scripts and styles from the page's own /static only (no inline code, no eval), nothing framed, nothing sent
#: elsewhere
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
_HEADERS = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
            (b"x-frame-options", b"DENY"), (b"content-security-policy", CSP.encode())]
_WILDCARDS = {"0.0.0.0", "::", ""}


def allowed_hosts(bind: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """Host names the page answers to: ``localhost``, the name it was started on, and ``--allow-host`` names.
    IP literals are always answered (a DNS-rebinding page needs a *name* that it can point at this machine)."""
    names = {"localhost"} | {h.strip().lower().rstrip(".") for h in extra if h.strip()}
    if bind.strip().lower() not in _WILDCARDS:
        names.add(bind.strip().lower().strip("[]").rstrip("."))
    return frozenset(names)


def host_allowed(header: str | None, allowed: frozenset[str]) -> bool:
    if not header:
        return False
    host = header.strip().lower()
    if host.startswith("["):  # [IPv6]:port
        name = host[1:host.find("]")] if "]" in host else ""
    else:
        name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return not host.startswith("[") and name.rstrip(".") in allowed


def same_origin(headers: Any) -> bool:
    """A browser's write comes from this page: its Origin (or, without one, its Referer) is this host."""
    source = headers.get("origin") or headers.get("referer")
    if not source or source == "null":
        return False
    return urlsplit(source).netloc.lower() == (headers.get("host") or "").lower()


def session_value(token: str) -> str:
    """The session cookie's value: derived from the token (valid as long as it is), never the token itself."""
    return hmac.new(token.encode(), b"certirank-session/1", hashlib.sha256).hexdigest()


class Logins:
    """One-time sign-in codes: each opens one browser session, once."""

    def __init__(self) -> None:
        self._codes: set[str] = set()
        self._lock = threading.Lock()

    def new(self) -> str:
        code = secrets.token_urlsafe(24)
        with self._lock:
            self._codes.add(code)
        return code

    def use(self, code: str) -> bool:
        with self._lock:
            if code in self._codes:
                self._codes.discard(code)
                return True
        return False


class HostGuard:
    """ASGI middleware: refuse a request whose Host is not allowed (400), add the security headers to every
    answer (``Cache-Control: no-store`` to everything but the static files), and answer HEAD like GET."""

    def __init__(self, app: Any, *, allowed: frozenset[str]) -> None:
        self.app, self.allowed = app, allowed

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"host"), None)
        static = scope.get("path", "").startswith("/static/")
        # every GET route answers HEAD: the same answer without its body (the schema lists the GETs once)
        head = scope.get("method") == "HEAD" and not static
        if head:
            scope = {**scope, "method": "GET", "certirank.head": True}

        async def secured(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                extra = list(_HEADERS) + ([] if static else [(b"cache-control", b"no-store")])
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            elif message["type"] == "http.response.body" and head:
                message = {**message, "body": b""}
            await send(message)

        if not host_allowed(host, self.allowed):
            shown = (host or "(none)")[:100].encode("ascii", "replace")
            body = (b"this page does not answer to the host name " + shown + b": start it with --allow-host NAME "
                    b"to allow that name (a guard against DNS rebinding)")
            await secured({"type": "http.response.start", "status": 400,
                           "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                       (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, secured)
