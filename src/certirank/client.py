"""A small client of the campaign page's REST API v1, in the standard library only (``urllib``, ``json``): a robot
script, a notebook or another lab machine records results without installing the web stack.

    from certirank.client import CampaignClient
    c = CampaignClient("http://robot-pc:8000", token_file="~/.certirank-token")
    for s in c.next()["suggestions"]:
        c.record(s["policy"], s["trial"], run_on_robot(s), shown_at=s["shown_at"])
    print(c.status()["ranking"])

Every answer is the JSON the CLI's ``--json`` and ``Campaign``'s ``to_dict()`` give. Every write carries an
``Idempotency-Key`` (a fresh UUID unless one is given) and is retried with that same key after a dropped
connection, a timeout or a 5xx answer, so a retried request records once. A refusal of the server is raised as
the certirank error it is (``ParameterError``, ``StateError``, ``DataError``) with the server's one-line reason.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from .errors import CertirankError, DataError, ParameterError, StateError

__all__ = ["CampaignClient", "ClientError", "API"]

#: the API version this client speaks (its paths start with /api/v1)
API = "/api/v1"
TOKEN_HEADER = "X-Certirank-Token"
_ERRORS = {"ParameterError": ParameterError, "StateError": StateError, "DataError": DataError}


class ClientError(CertirankError):
    """The server could not be reached, or answered something this client cannot read (after its retries)."""


class CampaignClient:
    """The campaign page's API v1 at ``base_url`` (e.g. ``"http://127.0.0.1:8000"``).

    Parameters
    ----------
    base_url : str
        Where ``certirank campaign serve`` listens.
    token, token_file : str, path, optional
        The write token (or a file whose first line is it; else ``$CERTIRANK_TOKEN``). Reads need none.
    timeout : float
        Seconds per request.
    retries : int
        How many times a request is sent again after a dropped connection, a timeout or a 5xx answer (writes with
        the same idempotency key); waits ``backoff * 2**k`` seconds before try k.
    """

    def __init__(self, base_url: str, *, token: str | None = None, token_file: str | os.PathLike[str] | None = None,
                 timeout: float = 30.0, retries: int = 3, backoff: float = 0.25) -> None:
        parsed = urllib.parse.urlsplit(str(base_url))
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ParameterError(f"base_url must be an http(s) address such as http://127.0.0.1:8000, got "
                                 f"{base_url!r}")
        self.base_url = f"{parsed.scheme}://{parsed.netloc}{parsed.path.rstrip('/')}"
        if token is None and token_file is not None:
            try:
                lines = Path(token_file).expanduser().read_text(encoding="utf-8").strip().splitlines()
            except OSError as exc:
                raise ParameterError(f"cannot read token_file {token_file}: {exc.strerror or exc}") from None
            token = lines[0].strip() if lines else None
        if token is None:
            token = os.environ.get("CERTIRANK_TOKEN") or None
        self._token = token
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ParameterError(f"retries must be a whole number >= 0, got {retries!r}")
        self.timeout, self.retries, self.backoff = float(timeout), retries, float(backoff)

    def __repr__(self) -> str:
        return f"CampaignClient({self.base_url!r}, token={'set' if self._token else 'none'})"

    # ------------------------------------------------------------------------------------------ reading
    def status(self) -> dict[str, Any]:
        """The campaign's status (``campaign status --json``)."""
        return self._get("/status")

    def next(self, count: int | None = None) -> dict[str, Any]:
        """What to run next (``campaign next --json``): ``{"suggestions": [...], "done", "termination", ...}``."""
        return self._get("/next", {"count": count})

    def plan(self, count: int = 2) -> dict[str, Any]:
        """The schedule of the next blocks (``campaign plan --json``)."""
        return self._get("/plan", {"count": count})

    def log(self) -> dict[str, Any]:
        """The audit trail (``campaign log --json``)."""
        return self._get("/log")

    def design(self) -> dict[str, Any]:
        """The design in force (tags, checklist, launch template, amendments)."""
        return self._get("/design")

    def events(self) -> Iterator[dict[str, Any]]:
        """Server-sent events: the campaign's status each time its log moves on (the first one at once). The
        stream ends when the caller stops iterating (close the generator) or the server closes it."""
        req = self._request("GET", "/events", accept="text/event-stream")
        try:
            resp = urllib.request.urlopen(req, timeout=self.timeout)
        except urllib.error.HTTPError as exc:
            raise self._refusal(exc) from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise ClientError(f"{self.base_url}: cannot open the event stream ({_reason(exc)})") from None
        with resp:
            data: list[str] = []
            for raw in resp:
                line = raw.decode("utf-8").rstrip("\r\n")
                if line.startswith("data:"):
                    data.append(line[5:].lstrip())
                elif not line and data:
                    yield json.loads("\n".join(data))
                    data = []

    # ------------------------------------------------------------------------------------------ writing
    def record(self, policy: str, trial: int, score: float | str | None, *, tags: Sequence[str] | None = None,
               note: str | None = None, by: str | None = None, shown_at: int | None = None, ahead: bool = False,
               idempotency_key: str | None = None) -> dict[str, Any]:
        """Record one rollout (``None`` or "missing": it could not be performed); returns its audit row."""
        return self._post("/record", {"policy": policy, "trial": trial, "score": score, "tags": tags, "note": note,
                                      "by": by, "shown_at": shown_at, "ahead": ahead or None}, idempotency_key)

    def fault(self, policy: str, trial: int, reason: str, *, tags: Sequence[str] | None = None,
              note: str | None = None, by: str | None = None, shown_at: int | None = None, ahead: bool = False,
              idempotency_key: str | None = None) -> dict[str, Any]:
        """Log a rollout that could not be judged (never counted; offered again by ``next``)."""
        return self._post("/fault", {"policy": policy, "trial": trial, "reason": reason, "tags": tags, "note": note,
                                     "by": by, "shown_at": shown_at, "ahead": ahead or None}, idempotency_key)

    def note(self, text: str, *, by: str | None = None, idempotency_key: str | None = None) -> dict[str, Any]:
        return self._post("/note", {"text": text, "by": by}, idempotency_key)

    def undo(self, record_id: int | None = None, *, by: str | None = None, note: str | None = None,
             idempotency_key: str | None = None) -> dict[str, Any]:
        """Undo a record or fault (default: the latest); returns the undone entry."""
        return self._post("/undo", {"record_id": record_id, "by": by, "note": note}, idempotency_key)

    def unblind(self, *, by: str | None = None, note: str | None = None,
                idempotency_key: str | None = None) -> dict[str, Any]:
        return self._post("/unblind", {"by": by, "note": note}, idempotency_key)

    def amend(self, changes: Mapping[str, Any], *, reason: str, by: str | None = None,
              idempotency_key: str | None = None) -> dict[str, Any]:
        """Amend the design (only what keeps the guarantee; see ``Campaign.amend``)."""
        return self._post("/amend", {"changes": dict(changes), "reason": reason, "by": by}, idempotency_key)

    # ------------------------------------------------------------------------------------------ HTTP
    def _request(self, method: str, path: str, query: Mapping[str, Any] | None = None, body: bytes | None = None,
                 *, accept: str = "application/json", key: str | None = None) -> urllib.request.Request:
        url = self.base_url + API + path
        params = {k: v for k, v in (query or {}).items() if v is not None}
        if params:
            url += "?" + urllib.parse.urlencode(params)
        headers = {"Accept": accept}
        if body is not None:
            headers["Content-Type"] = "application/json"
        if self._token:
            headers[TOKEN_HEADER] = self._token
        if key is not None:
            headers["Idempotency-Key"] = key
        return urllib.request.Request(url, data=body, method=method, headers=headers)

    def _get(self, path: str, query: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return self._send(lambda: self._request("GET", path, query))

    def _post(self, path: str, payload: Mapping[str, Any], key: str | None) -> dict[str, Any]:
        body = json.dumps({k: v for k, v in payload.items() if v is not None}).encode("utf-8")
        key = key or str(uuid.uuid4())  # the same key on every retry: the server writes once
        return self._send(lambda: self._request("POST", path, body=body, key=key))

    def _send(self, make: Any) -> dict[str, Any]:
        last: str = ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            try:
                with urllib.request.urlopen(make(), timeout=self.timeout) as resp:
                    return json.loads(resp.read().decode("utf-8"))
            except urllib.error.HTTPError as exc:
                if exc.code < 500:
                    raise self._refusal(exc) from None
                last = f"HTTP {exc.code}"
            except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
                last = _reason(exc)
            except ValueError:
                raise ClientError(f"{self.base_url}: the answer is not JSON") from None
        raise ClientError(f"{self.base_url}: no answer after {self.retries + 1} tries ({last})")

    def _refusal(self, exc: urllib.error.HTTPError) -> CertirankError:
        try:
            data = json.loads(exc.read().decode("utf-8"))
        except (ValueError, OSError):
            data = {}
        text = data.get("error") if isinstance(data, dict) else None
        if not text:
            return ClientError(f"{self.base_url}: HTTP {exc.code}")
        cls = _ERRORS.get(str(data.get("type")), ClientError)
        return cls(str(text))


def _reason(exc: BaseException) -> str:
    inner = getattr(exc, "reason", None)
    return str(inner if inner is not None else exc) or type(exc).__name__
