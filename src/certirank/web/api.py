"""The page's REST API v1 (``/api/v1/...``), documented by the app's OpenAPI (``/openapi.json``, ``/docs``).

Every answer is the JSON of a :class:`certirank.Campaign` result, exactly what the CLI's ``--json`` prints
(``status``, ``next``, ``plan``, ``log``, a written entry). Writes take JSON (or a form) and the
``Idempotency-Key`` header: a retried request writes nothing more and gets the first answer (the key is kept in
the campaign file, so this holds across server restarts). A refusal is one line,
``{"error": "...", "type": "ParameterError" | "StateError" | "DataError"}``, with status 400 (403 without write
access, 422 for a key reused with another request). ``/api/v1/events`` streams the status as server-sent events.

The page's own forms post to the same write routes; an htmx request gets the updated run panel instead of JSON.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import weakref
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import anyio
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from ..campaign._status import status_json
from ..campaign.results import AuditLog, CampaignStatus, Plan, Record
from ..errors import CertirankError, ParameterError

__all__ = ["api_router", "IDEMPOTENCY_HEADER", "V1"]

V1 = "/api/v1"
IDEMPOTENCY_HEADER = "idempotency-key"
#: how often the event stream looks at the campaign's head (one indexed read), and sends a keep-alive comment
POLL_SECONDS = 0.5
KEEPALIVE_SECONDS = 15.0
#: worker threads for writes, apart from the threads that serve reads: a write waiting for the campaign's lock
#: (SQLite's busy wait, up to its 30 s timeout) holds its thread, and reads and writes shared anyio's one default
#: limiter (40 threads), so 40 waiting writes made every read queue behind them; now writes past this many wait
#: for a thread of their own and reads keep the default limiter to themselves
WRITE_THREADS = 16
_WRITERS: weakref.WeakKeyDictionary[Any, anyio.CapacityLimiter] = weakref.WeakKeyDictionary()


async def _in_write_thread(fn: Callable[..., Any], *args: Any) -> Any:
    """Run the blocking write ``fn(*args)`` in a worker thread of the writes' own limiter (one per event loop:
    a limiter belongs to the loop it is first used in)."""
    loop = asyncio.get_running_loop()
    limiter = _WRITERS.get(loop)
    if limiter is None:
        limiter = _WRITERS[loop] = anyio.CapacityLimiter(WRITE_THREADS)
    return await anyio.to_thread.run_sync(lambda: fn(*args), limiter=limiter)


def _schema(cls: type) -> dict[str, Any]:
    """The OpenAPI answer of a result class (its to_dict() keys), for the documentation."""
    import dataclasses
    props = {f.name: {} for f in dataclasses.fields(cls) if not f.name.startswith("_")}
    return {200: {"description": cls.__doc__.strip().splitlines()[0] if cls.__doc__ else cls.__name__,
                  "content": {"application/json": {"schema": {"type": "object", "title": cls.__name__,
                                                              "properties": props}}}}}


def _body(fields: Mapping[str, str], required: list[str]) -> dict[str, Any]:
    """The OpenAPI request body of a write: JSON or a form with these fields (read by the handler itself, so its
    refusals stay one-line messages)."""
    types = {"string": {"type": "string"}, "integer": {"type": "integer"}, "number": {"type": ["number", "string"]},
             "array": {"type": "array", "items": {"type": "string"}}, "boolean": {"type": "boolean"},
             "object": {"type": "object"}}
    schema = {"type": "object", "properties": {k: types[v] for k, v in fields.items()}, "required": required}
    return {"requestBody": {"required": bool(required), "content": {
        "application/json": {"schema": schema}, "application/x-www-form-urlencoded": {"schema": schema}}},
        "parameters": [{"name": "Idempotency-Key", "in": "header", "required": False,
                        "schema": {"type": "string", "maxLength": 200},
                        "description": "A key unique to this request (a UUID): sent again, nothing more is written "
                                       "and the first answer is returned."}],
        "responses": {"400": {"description": "refused: nothing was written ({\"error\", \"type\"})"},
                      "403": {"description": "no write access: nothing was written"},
                      "422": {"description": "the Idempotency-Key was used for another request"}}}


class Body:
    """A write's fields, from a JSON object or a form, each checked with a one-line refusal."""

    def __init__(self, data: Mapping[str, Any], lists: Mapping[str, list[Any]]) -> None:
        self.data, self.lists = data, lists

    @classmethod
    async def read(cls, request: Request) -> Body:
        if "application/json" in request.headers.get("content-type", ""):
            try:
                data = json.loads(await request.body() or b"{}")
            except ValueError:
                raise ParameterError("the request body is not valid JSON") from None
            if not isinstance(data, dict):
                raise ParameterError("the request body must be a JSON object")
            return cls(data, {})
        form = await request.form()
        lists = {k: form.getlist(k) for k in form.keys()}
        for k, v in lists.items():
            if len(v) > 1 and k != "tags":  # which one was meant? (the last would silently win)
                raise ParameterError(f"the form field {k!r} is given {len(v)} times; send it once")
        return cls({k: v[0] for k, v in lists.items()}, lists)

    def get(self, name: str, *, required: bool = False) -> Any:
        value = self.data.get(name)
        if isinstance(value, str):
            value = value.strip() or None
        if value is None and required:
            raise ParameterError(f"the field {name!r} is missing")
        return value

    def text(self, name: str, *, required: bool = False) -> str | None:
        value = self.get(name, required=required)
        if value is not None and not isinstance(value, str):
            raise ParameterError(f"the field {name!r} must be text, got {value!r}")
        return value

    def whole(self, name: str, *, required: bool = False) -> int | None:
        value = self.get(name, required=required)
        if value is None:
            return None
        if isinstance(value, str):
            # ASCII digits only: int() also reads full-width and other scripts' digits, which no operator means
            if not (value.isascii() and value.isdigit()):
                raise ParameterError(f"{name} must be a whole number (digits 0-9), got {value!r}")
            return int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ParameterError(f"{name} must be a whole number, got {value!r}")
        return value

    def flag(self, name: str) -> bool:
        value = self.get(name)
        if value in (None, False, "false", "0", "off"):
            return False
        if value in (True, "true", "1", "on"):
            return True
        raise ParameterError(f"{name} must be true or false, got {value!r}")

    def tags(self) -> list[str] | None:
        value = self.lists.get("tags") if self.lists else self.data.get("tags")
        if value is None:
            return None
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
            raise ParameterError(f"tags must be a list of text, got {value!r}")
        out = [p.strip() for t in value for p in t.split(",") if p.strip()]  # a form may send "grasp,fold"
        return out or None


def _error(exc: CertirankError, status: int = 400) -> JSONResponse:
    from ..campaign._campaign import KeyReused
    if isinstance(exc, KeyReused):
        status = 422
    return JSONResponse({"error": str(exc), "type": type(exc).__name__ if type(exc).__name__ in
                         ("ParameterError", "StateError", "DataError") else
                         next(c.__name__ for c in type(exc).__mro__ if c.__name__ in
                              ("ParameterError", "StateError", "DataError", "CertirankError"))},
                        status_code=status)


def api_router(page: Any) -> APIRouter:
    """The v1 routes over ``page``: ``page.open()`` (a Campaign), ``page.require_write(request)``,
    ``page.write_answer(request, camp, rec, text, body)`` (what the page shows after a write, for htmx) and
    ``page.write_refused(request, camp, what, exc, body)``."""
    r = APIRouter(tags=["v1"])

    def read(fn: Callable[[Any], Any]) -> Response:
        """``fn(campaign)`` as JSON: a dict, or JSON text made already (the status's, kept until the next write)."""
        with page.open() as camp:
            try:
                out = fn(camp)
            except CertirankError as exc:
                return _error(exc)
            return Response(out, media_type="application/json") if isinstance(out, str) else JSONResponse(out)

    @r.get(f"{V1}/status", name="v1_status", responses=_schema(CampaignStatus),
           summary="The certified ranking now, rollouts, faults, tags and the budget left (campaign status --json)")
    def status() -> Response:
        return read(status_json)

    @r.get(f"{V1}/next", name="v1_next", summary="What to run next, in order (campaign next --json); never writes")
    def next_(count: int | None = None) -> Response:
        from ..campaign._status import next_rollouts
        return read(lambda c: next_rollouts(c, count, remember=False).to_dict())

    @r.get(f"{V1}/plan", name="v1_plan", responses=_schema(Plan),
           summary="The schedule of the next blocks (campaign plan --json)")
    def plan(count: int = 2) -> Response:
        return read(lambda c: c.plan(count).to_dict())

    @r.get(f"{V1}/log", name="v1_log", responses=_schema(AuditLog), summary="The audit trail (campaign log --json)")
    def log() -> Response:
        return read(lambda c: c.log().to_dict())

    @r.get(f"{V1}/design", name="v1_design", summary="The design in force: estimand, tags, checklist, launch template "
                                                 "(without checkpoints), amendments")
    def design() -> Response:
        return read(lambda c: {"config_sha256": c.config_sha256, "design": c.design.to_dict()})

    @r.get(f"{V1}/events", name="v1_events", summary="Server-sent events: the status each time the log moves on",
           responses={200: {"content": {"text/event-stream": {}}, "description": "event: status, data: the status "
                                                                                 "JSON (first one at once)"}})
    async def events(request: Request) -> Response:
        return StreamingResponse(_event_stream(page, request), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def write(request: Request, call: Callable[[Any, Body, str | None], Any], what: str,
                    said: Callable[[Any], str]) -> Response:
        page.require_write(request)
        try:
            body = await Body.read(request)
        except CertirankError as exc:
            return _error(exc)
        key = request.headers.get(IDEMPOTENCY_HEADER)

        def run() -> Response:
            with page.open() as camp:
                try:
                    rec = call(camp, body, key)
                except CertirankError as exc:
                    return page.write_refused(request, camp, what, exc, body, _error(exc))
                return page.write_answer(request, camp, rec, said(rec), body)
        return await _in_write_thread(run)

    @r.post(f"{V1}/record", name="v1_record", responses=_schema(Record), openapi_extra=_body(
        {"policy": "string", "trial": "integer", "score": "number", "tags": "array", "note": "string",
         "by": "string", "shown_at": "integer", "ahead": "boolean", "proxy": "number"}, ["policy", "trial", "score"]),
        summary="Record one rollout (campaign record --json; a proxy campaign: proxy, and score null on the "
                "trials not drawn for a real label)")
    async def record(request: Request) -> Response:
        return await write(request, lambda c, b, k: c.record(
            b.text("policy", required=True), b.whole("trial", required=True), _score(b), by=b.text("by"),
            note=b.text("note"), ahead=b.flag("ahead"), shown_at=b.whole("shown_at"), tags=b.tags(),
            idempotency_key=k, **({"proxy": b.get("proxy")} if b.get("proxy") is not None else {})), "Not recorded",
            lambda rec: f"Recorded #{rec.id}: {rec.policy}, trial {rec.trial}, score {rec.score_text}"
                        + ("" if rec.proxy is None else f", proxy {rec.proxy:g}")
                        + (f" [{', '.join(rec.tags)}]" if rec.tags else "") + ".")

    @r.post(f"{V1}/record-item", name="v1_record_item", responses=_schema(Record), openapi_extra=_body(
        {"item": "string", "draw": "integer", "scores": "object", "note": "string", "by": "string"},
        ["item", "draw", "scores"]),
        summary="An item campaign: record the scores of the pending draw (campaign record DB ITEM DRAW --scores; a "
                "form sends one field 'score:MODEL' per model)")
    async def record_item(request: Request) -> Response:
        return await write(request, lambda c, b, k: c.record_item(
            b.text("item", required=True), _item_scores(b), draw=b.whole("draw", required=True), by=b.text("by"),
            note=b.text("note"), idempotency_key=k), "Not recorded",
            lambda rec: f"Recorded #{rec.id}: draw {rec.trial}, item {rec.item}: {rec.score_text}.")

    @r.post(f"{V1}/fault", name="v1_fault", responses=_schema(Record), openapi_extra=_body(
        {"policy": "string", "trial": "integer", "reason": "string", "tags": "array", "note": "string",
         "by": "string", "shown_at": "integer", "ahead": "boolean"}, ["policy", "trial", "reason"]),
        summary="Log a rollout that could not be judged: never counted, offered again (campaign record --fault)")
    async def fault(request: Request) -> Response:
        return await write(request, lambda c, b, k: c.fault(
            b.text("policy", required=True), b.whole("trial", required=True), b.text("reason", required=True),
            by=b.text("by"), note=b.text("note"), ahead=b.flag("ahead"), shown_at=b.whole("shown_at"), tags=b.tags(),
            idempotency_key=k), "Not logged",
            lambda rec: f"Logged fault #{rec.id}: {rec.policy}, trial {rec.trial} ({rec.fault}); it is offered again.")

    @r.post(f"{V1}/note", name="v1_note", responses=_schema(Record), openapi_extra=_body(
        {"text": "string", "by": "string"}, ["text"]), summary="A free note in the audit trail (campaign note)")
    async def note(request: Request) -> Response:
        return await write(request, lambda c, b, k: c.note(b.text("text", required=True), by=b.text("by"),
                                                           idempotency_key=k),
                           "Not noted", lambda rec: f"Noted #{rec.id}.")

    @r.post(f"{V1}/undo", name="v1_undo", responses=_schema(Record), openapi_extra=_body(
        {"record_id": "integer", "by": "string", "note": "string"}, []),
        summary="Undo a record or fault (default: the latest); answers the undone entry (campaign undo --json)")
    async def undo(request: Request) -> Response:
        return await write(request, lambda c, b, k: c.undo(b.whole("record_id"), by=b.text("by"), note=b.text("note"),
                                                           idempotency_key=k),
                           "Not undone", lambda rec: f"Undid {'fault' if rec.action == 'fault' else 'record'} #{rec.id}.")

    @r.post(f"{V1}/amend", name="v1_amend", responses=_schema(Record), openapi_extra=_body(
        {"changes": "object", "reason": "string", "by": "string"}, ["changes", "reason"]),  # a form: KEY=VALUE lines
        summary="Amend the design, logged in the audit chain; only what keeps the guarantee (campaign amend --json)")
    async def amend(request: Request) -> Response:
        def call(c: Any, b: Body, k: str | None) -> Record:
            changes = b.get("changes", required=True)
            if isinstance(changes, str):
                try:
                    changes = json.loads(changes)
                except ValueError:  # the page's form: KEY=VALUE per line, as `campaign amend` takes them
                    from ..campaign._amend import parse_settings
                    changes = parse_settings([x for x in changes.splitlines() if x.strip()])
            if not isinstance(changes, dict):
                raise ParameterError("changes must be an object such as {\"n_max\": 400}")
            return c.amend(changes, reason=b.text("reason", required=True), by=b.text("by"), idempotency_key=k)
        return await write(request, call, "Not amended", lambda rec: f"Amended as #{rec.id}.")

    @r.post(f"{V1}/unblind", name="v1_unblind", openapi_extra=_body({"by": "string", "note": "string"}, []),
            summary="Reveal the names of a blind campaign, for good (campaign unblind --json)")
    async def unblind(request: Request) -> Response:
        from ..campaign._status import unblinding

        def call(c: Any, b: Body, k: str | None) -> Any:
            return unblinding(c, by=b.text("by"), note=b.text("note"), idempotency_key=k)
        return await write(request, call, "Not unblinded", lambda out: "Unblinded: every view shows names from now "
                           "on." if out.entry is not None else "Already unblinded.")

    @r.post(f"{V1}/add-run", name="v1_add_run", responses=_schema(Record), summary="Record one leaderboard replicate "
            "(multipart: file, by)", openapi_extra={"requestBody": {"required": True, "content": {
                "multipart/form-data": {"schema": {"type": "object", "required": ["file"], "properties": {
                    "file": {"type": "string", "format": "binary"}, "by": {"type": "string"}}}}}}})
    async def add_run(request: Request) -> Response:
        page.require_write(request)
        form = await request.form()
        upload = form.get("file")
        if upload is None or not hasattr(upload, "read"):
            return _error(ParameterError("attach the replicate file as 'file': nothing was changed"))
        data = await upload.read()
        key = request.headers.get(IDEMPOTENCY_HEADER)
        return await _in_write_thread(page.add_run, request, form, upload.filename, data, key)

    # the paths before v1 keep answering (the page's old forms, scripts written for them)
    for path, endpoint, name in (("/api/record", record, "record"), ("/api/undo", undo, "undo"),
                                 ("/api/add-run", add_run, "add_run")):
        r.add_api_route(path, endpoint, methods=["POST"], name=name, include_in_schema=False)
    return r


def _item_scores(body: Body) -> Any:
    """An item draw's scores: the JSON field ``scores`` (an object, or 'model=score,...' text), or from a form one
    field ``score:MODEL`` per model."""
    given = body.data.get("scores")
    if given is not None:
        return given
    return {k[len("score:"):]: v for k, v in body.data.items() if k.startswith("score:")}


def _score(body: Body) -> Any:
    value = body.data.get("score", ...)
    if body.get("proxy") is not None and (value is ... or value is None or
                                          (isinstance(value, str) and not value.strip())):
        return None  # a proxy campaign's trial not drawn for a real label: the proxy alone
    if value is ...:
        raise ParameterError("the field 'score' is missing (null or \"missing\" for a run that could not be "
                             "performed)")
    if isinstance(value, bool):
        raise ParameterError(f"score must be a number, got {value!r} (write 1 or 0)")
    return value


async def _event_stream(page: Any, request: Request) -> Any:
    """``event: status`` with the status JSON now and whenever the log's head moves; a comment line every
    KEEPALIVE_SECONDS keeps proxies from closing a quiet stream. The campaign file is opened once and its head
    read off the event loop (O(1))."""
    camp = await run_in_threadpool(page.open)
    try:
        last = None
        quiet = 0.0
        while not await request.is_disconnected():
            head = await run_in_threadpool(_head, camp)
            if head != last:
                data = await run_in_threadpool(status_json, camp)  # one line: compact JSON
                last, quiet = head, 0.0
                yield f"event: status\nid: {head}\ndata: {data}\n\n"
            elif quiet >= KEEPALIVE_SECONDS:
                quiet = 0.0
                yield ": keep-alive\n\n"
            await asyncio.sleep(POLL_SECONDS)
            quiet += POLL_SECONDS
    finally:
        await run_in_threadpool(camp.close)


def _head(camp: Any) -> int:
    with camp._store.read() as conn:
        return camp._store.head(conn).last_id


def save_upload(filename: str | None, data: bytes) -> tuple[Path, Path]:
    """(folder, file) holding an uploaded replicate under a safe name that keeps its type suffix."""
    parts = [p for p in Path(filename or "run.csv").suffixes[-2:] if p[1:].isalnum() and len(p) <= 10]
    tmp = Path(tempfile.mkdtemp(prefix="certirank-upload-"))
    path = tmp / f"replicate{''.join(parts) or '.csv'}"
    path.write_bytes(data)
    return tmp, path
