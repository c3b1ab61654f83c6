"""Request-body size limits, enforced while the body streams in (a missing or false Content-Length too)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["BodyLimit"]


class _TooLarge(Exception):
    pass


class BodyLimit:
    """ASGI middleware: answer 413 when a request body exceeds its path's limit, before any handler reads it."""

    def __init__(self, app: Any, *, default: int, limits: Mapping[str, int] | None = None) -> None:
        self.app, self.default, self.limits = app, default, dict(limits or {})

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limits.get(scope.get("path", ""), self.default)
        for key, value in scope.get("headers", []):
            if key == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = limit + 1
                if declared > limit:
                    await _reply_413(send, limit)
                    return
        seen = 0
        started = False

        async def limited_receive() -> dict[str, Any]:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _TooLarge
            return message

        async def tracking_send(message: dict[str, Any]) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not started:
                await _reply_413(send, limit)


async def _reply_413(send: Any, limit: int) -> None:
    body = f"request body too large (limit {limit} bytes): nothing was changed".encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
