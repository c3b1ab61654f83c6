"""The campaign page: FastAPI routes over :class:`certirank.Campaign` (a thin shell, like the CLI).

Every request opens the campaign file (O(1): the store keeps a checkpoint), so several server workers and
shell users can share one file; the store serialises writes, and every store call runs in a worker thread, never
on the event loop. Reads need nothing and write nothing. Writes need the campaign token: a program sends it as
the ``X-Certirank-Token`` header; a browser signs in once through a one-time link (or by pasting the token at
``/login``) and then holds an HttpOnly, SameSite=Strict session cookie, so the token is never in a URL, the
history or the page, and its writes must come from this page's own origin. See docs/campaign-page.md.

The REST API v1 (``/api/v1/...``, :mod:`certirank.web.api`) is documented by the app's OpenAPI document
(``/openapi.json``) and a reference page rendered from it on the server (``/docs``: no CDN, no script). The page's
own forms post to the same v1 write routes; the paths before v1 (``/api/status``, ``/api/next``, ``/api/record``,
``/api/undo``, ``/api/add-run``) keep working.
"""

from __future__ import annotations

import hmac
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.background import BackgroundTask

from ..campaign._status import status_json
from ..errors import CertirankError
from .api import V1, api_router, save_upload
from .limits import BodyLimit
from .security import SESSION_COOKIE, HostGuard, Logins, allowed_hosts, same_origin, session_value
from .views import campaign_view, design_view, entry_rows, openapi_reference, run_view

__all__ = ["create_app", "MAX_BODY", "MAX_UPLOAD"]

HERE = Path(__file__).parent
MAX_BODY = 64 * 1024  # a record is a few hundred bytes
MAX_UPLOAD = 32 * 1024 * 1024  # one leaderboard replicate (per-item scores of every model)
TOKEN_HEADER = "x-certirank-token"


class _Refused(Exception):
    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status, self.text = status, text


def create_app(db: str | Path, *, token: str | None = None, read_only: bool = False, host: str = "127.0.0.1",
               allow_hosts: Any = ()) -> FastAPI:
    """The ASGI app for campaign file ``db``. ``token=None`` or ``read_only=True``: nobody can write.

    ``host`` (the address it is served on) and ``allow_hosts`` (more host names) form the Host-header allow-list;
    IP literals and ``localhost`` are always answered. ``app.state.login_path`` is a one-time sign-in link.
    """
    from ..campaign import Campaign

    db = str(db)
    if isinstance(allow_hosts, str):
        allow_hosts = [allow_hosts]
    Campaign.open(db).close()  # fail now, with the store's own message, not on the first request
    app = FastAPI(title="certirank campaign", version="1", docs_url=None, redoc_url=None,
                  openapi_url="/openapi.json", description="The campaign page's REST API v1: every answer is the "
                  "JSON of a certirank.Campaign result (what the CLI's --json prints). Writes need the campaign "
                  "token (header X-Certirank-Token, or a signed-in page) and take an Idempotency-Key header.")
    app.add_middleware(BodyLimit, default=MAX_BODY, limits={"/api/add-run": MAX_UPLOAD, f"{V1}/add-run": MAX_UPLOAD})
    app.add_middleware(HostGuard, allowed=allowed_hosts(host, allow_hosts))
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    templates = Jinja2Templates(directory=HERE / "templates")  # .html templates autoescape
    writable = token is not None and not read_only
    session = session_value(token) if writable else None
    logins = Logins()
    app.state.login_path = f"/login/{logins.new()}" if writable else None

    def can_write(request: Request) -> bool:
        if not writable:
            return False
        header = request.headers.get(TOKEN_HEADER)
        if header is not None:
            return hmac.compare_digest(header.encode(), str(token).encode())
        cookie = request.cookies.get(SESSION_COOKIE)
        if cookie is None or not hmac.compare_digest(cookie.encode(), str(session).encode()):
            return False
        # a browser's write must come from this page: SameSite=Strict keeps other sites' cookies out, and the
        # origin check keeps out other pages of this host (another port is the same "site")
        return request.method == "GET" or same_origin(request.headers)

    def require_write(request: Request) -> None:
        if not writable:
            raise _Refused(403, "this server is read-only: nothing was changed")
        if not can_write(request):
            raise _Refused(403, "a valid campaign token is required to write (sign in with the link printed at "
                           "start, or send the X-Certirank-Token header): nothing was changed")

    def page_context(request: Request, page: str, camp: Any, **extra: Any) -> dict[str, Any]:
        write = can_write(request)
        view = campaign_view(camp)
        pages = [("run", "Run"), ("ranking", "Ranking"), ("design", "Design"), ("history", "History"),
                 ("export", "Export")]
        if view["kind"] == "leaderboard":
            pages = [p for p in pages if p[0] != "run"]

        def link(key: str) -> str:
            return str(request.url_for(key + "_page"))

        return {"request": request, "page": page, "pages": pages, "link": link, "view": view, "can_write": write,
                "signed_in": write and request.headers.get(TOKEN_HEADER) is None, "read_only": not writable,
                "operator": "", "title": page.title(), "message": None, **extra}

    def run_context(request: Request, camp: Any, message: dict[str, str] | None = None) -> dict[str, Any]:
        # a page render never writes (what a reader is shown is computed, not stored): each suggestion carries
        # the entry it was computed at, and the record form sends it back (record(shown_at=...))
        return page_context(request, "run", camp, run=run_view(camp), message=message)

    def design_context(request: Request, camp: Any, message: dict[str, str] | None = None) -> dict[str, Any]:
        return page_context(request, "design", camp, message=message, **design_view(camp))

    def respond(request: Request, name: str, ctx: dict[str, Any], status: int = 200) -> HTMLResponse:
        return templates.TemplateResponse(request, name, ctx, status_code=status)

    def is_htmx(request: Request) -> bool:
        return request.headers.get("hx-request") == "true"

    def wants_page(request: Request) -> bool:
        """A browser (htmx, or a form posted without script) gets the page; a program gets JSON. Before v1 a
        request that did not ask for JSON got the page."""
        accept = request.headers.get("accept", "")
        legacy = not request.url.path.startswith(V1 + "/")
        return is_htmx(request) or "text/html" in accept or (legacy and "application/json" not in accept)

    def write_answer(request: Request, camp: Any, rec: Any, text: str, form: Any) -> Response:
        # a program gets the audit row (what `--json` prints); the page gets the message
        if not wants_page(request):
            return JSONResponse(rec.to_dict())
        return after_write(request, form, camp, text, "ok", 200)

    def write_refused(request: Request, camp: Any, what: str, exc: Exception, form: Any,
                      as_json: Response) -> Response:
        if not wants_page(request):
            return as_json
        return after_write(request, form, camp, f"{what}: {exc}", "error", as_json.status_code)

    def add_run_answer(request: Request, form: Any, filename: str | None, data: bytes, key: str | None) -> Response:
        tmp, path = save_upload(filename, data)
        try:
            with open_campaign() as camp:
                try:
                    rec = camp.add_run(path, by=_field(form, "by"), idempotency_key=key)
                except CertirankError as exc:
                    # name the operator's file, not the server's temporary copy of it
                    text = str(exc).replace(str(path), filename or "the uploaded file")
                    return write_refused(request, camp, "Not added", text, form,
                                         JSONResponse({"error": text, "type": type(exc).__name__}, status_code=400))
                return write_answer(request, camp, rec, f"Added replicate {rec.trial} (entry #{rec.id}).", form)
        finally:
            _remove_tree(tmp)

    def after_write(request: Request, form: Any, camp: Any, text: str, kind: str, status: int) -> Response:
        message = {"kind": kind, "text": text}
        if form is not None and form.get("return_to") == "design":
            return respond(request, "design.html", design_context(request, camp, message), status)
        if form is not None and form.get("return_to") == "history":
            ctx = page_context(request, "history", camp, entries=entry_rows(camp.log().entries), message=message)
            return respond(request, "history.html", ctx, status)
        if camp.kind == "leaderboard":
            ctx = page_context(request, "export", camp, message=message)
            return respond(request, "export.html", ctx, status)
        template = "_run_panel.html" if is_htmx(request) else "run.html"
        return respond(request, template, run_context(request, camp, message), status)

    def open_campaign() -> Any:
        return Campaign.open(db)

    @app.exception_handler(_Refused)
    async def refused(request: Request, exc: _Refused) -> Response:
        if request.url.path.startswith("/api/") and not is_htmx(request) and "text/html" not in \
                request.headers.get("accept", ""):
            return JSONResponse({"error": exc.text}, status_code=exc.status)
        return HTMLResponse(f'<div class="message error" role="alert">{_escape(exc.text)}</div>',
                            status_code=exc.status)

    @app.exception_handler(CertirankError)
    async def store_refused(request: Request, exc: CertirankError) -> Response:
        # a refusal outside the record/undo forms (e.g. /api/next?count=0): the store's line, not a 500
        return await refused(request, _Refused(400, str(exc)))

    def wants_json(request: Request) -> bool:
        return not is_htmx(request) and "application/json" in request.headers.get("accept", "")

    app.include_router(api_router(SimpleNamespace(
        open=open_campaign, require_write=require_write, write_answer=write_answer, write_refused=write_refused,
        add_run=add_run_answer)))

    @app.get("/", name="home", include_in_schema=False)
    def home(request: Request) -> Response:
        with open_campaign() as camp:
            target = "ranking_page" if camp.kind == "leaderboard" else "run_page"
        return RedirectResponse(str(request.url_for(target)), status_code=303)

    @app.get("/run", response_class=HTMLResponse, name="run_page")
    def run_page(request: Request) -> Response:
        with open_campaign() as camp:
            if camp.kind == "leaderboard":
                return RedirectResponse(str(request.url_for("ranking_page")), status_code=303)
            return respond(request, "run.html", run_context(request, camp))

    @app.get("/run/panel", response_class=HTMLResponse, name="run_panel", include_in_schema=False)
    def run_panel(request: Request) -> Response:
        """The run panel alone: what the page swaps in when the campaign moved on (server-sent events)."""
        with open_campaign() as camp:
            return respond(request, "_run_panel.html", run_context(request, camp))

    @app.get("/ranking", response_class=HTMLResponse, name="ranking_page")
    def ranking_page(request: Request) -> Response:
        with open_campaign() as camp:
            return respond(request, "ranking.html", page_context(request, "ranking", camp))

    @app.get("/ranking/panel", response_class=HTMLResponse, name="ranking_panel")
    def ranking_panel(request: Request, since: int | None = None) -> Response:
        with open_campaign() as camp:
            ctx = page_context(request, "ranking", camp)
            if since is not None and since == ctx["view"]["head"]:
                return Response(status_code=204)  # unchanged: htmx keeps what it shows
            return respond(request, "_ranking_panel.html", ctx)

    @app.get("/design", response_class=HTMLResponse, name="design_page")
    def design_page(request: Request) -> Response:
        with open_campaign() as camp:
            return respond(request, "design.html", design_context(request, camp))

    @app.get("/history", response_class=HTMLResponse, name="history_page")
    def history_page(request: Request) -> Response:
        with open_campaign() as camp:
            ctx = page_context(request, "history", camp, entries=entry_rows(camp.log().entries))
            return respond(request, "history.html", ctx)

    @app.get("/export", response_class=HTMLResponse, name="export_page")
    def export_page(request: Request) -> Response:
        with open_campaign() as camp:
            return respond(request, "export.html", page_context(request, "export", camp))

    @app.get("/export/records.{fmt}", name="export_table")
    def export_table(fmt: str) -> Response:
        if fmt not in ("csv", "parquet"):
            raise _Refused(404, f"no export as {fmt!r}: choose csv or parquet")
        tmp = Path(tempfile.mkdtemp(prefix="certirank-export-"))
        out = tmp / f"records.{fmt}"
        with open_campaign() as camp:
            camp.export(out)
        media = "text/csv" if fmt == "csv" else "application/vnd.apache.parquet"
        return FileResponse(out, media_type=media, filename=f"{Path(db).stem}.{fmt}",
                            background=BackgroundTask(_remove_tree, tmp))

    @app.get("/export/report.html", name="export_report")
    def export_report() -> Response:
        from ..report.html import html_report
        with open_campaign() as camp:
            status = camp.status()
        page, _ = html_report(status, title=f"certirank campaign {Path(db).name}")
        return HTMLResponse(page, headers={"Content-Disposition": f'attachment; filename="{Path(db).stem}.html"'})

    @app.get("/api/status", name="api_status")
    def api_status() -> Response:
        with open_campaign() as camp:
            return Response(status_json(camp), media_type="application/json")

    @app.get("/api/next", name="api_next")
    def api_next(count: int | None = None) -> Response:
        with open_campaign() as camp:
            return JSONResponse([s.to_dict() for s in camp.next(count=count, remember=False)])

    @app.get("/docs", response_class=HTMLResponse, name="docs_page", include_in_schema=False)
    def docs_page(request: Request) -> Response:
        """The API reference, rendered from the app's own OpenAPI document (no CDN, no script)."""
        return respond(request, "docs.html", {"request": request, "title": "API", "api": openapi_reference(
            app.openapi()), "read_only": not writable})

    @app.get("/login/{code}", name="login_link", include_in_schema=False)
    def login_link(request: Request, code: str) -> Response:
        # a HEAD (a link preview, a prefetch) never spends the one-time code
        if not writable or request.scope.get("certirank.head") or not logins.use(code):
            return respond(request, "login.html", login_context(request, "This sign-in link was already used or is not "
                                                               "valid. Ask for a new one, or paste the token."), 403)
        return signed_in(request)

    @app.get("/login", name="login_page", include_in_schema=False)
    def login_page(request: Request) -> Response:
        return respond(request, "login.html", login_context(request, None))

    @app.post("/login", name="login", include_in_schema=False)
    async def login(request: Request) -> Response:
        form = await request.form()
        given = form.get("token")
        if not writable or not isinstance(given, str) or not hmac.compare_digest(given.strip().encode(),
                                                                                str(token).encode()):
            return respond(request, "login.html", login_context(request, "That is not this campaign's token "
                                                               "(or this server is read-only)."), 403)
        return signed_in(request)

    @app.post("/logout", name="logout", include_in_schema=False)
    def logout(request: Request) -> Response:
        out = RedirectResponse(str(request.url_for("ranking_page")), status_code=303)
        out.delete_cookie(SESSION_COOKIE, path="/")
        return out

    @app.post("/api/login-link", name="login_link_new", include_in_schema=False)
    @app.post(f"{V1}/login-link", name="v1_login_link", tags=["v1"],
              summary="A one-time sign-in link for another device (a phone), with its QR code as SVG")
    def new_login_link(request: Request) -> Response:
        require_write(request)
        url = str(request.url_for("login_link", code=logins.new()))
        svg = _qr_svg(url)
        if wants_json(request):
            return JSONResponse({"link": url, "qr_svg": svg})
        return HTMLResponse('<div class="login-link"><p>Scan with the phone (the link works once: it signs that '
                            f'browser in and leaves no token in its address):</p>{svg}<p><code>{_escape(url)}</code>'
                            '</p></div>')

    def login_context(request: Request, problem: str | None) -> dict[str, Any]:
        return {"request": request, "title": "Sign in", "problem": problem, "read_only": not writable}

    def signed_in(request: Request) -> Response:
        out = RedirectResponse(str(request.url_for("home")), status_code=303)
        out.set_cookie(SESSION_COOKIE, str(session), httponly=True, samesite="strict", path="/")
        return out

    return app


def _qr_svg(url: str) -> str:
    """The QR code of ``url`` as inline SVG markup (segno, drawn on the server; empty without segno)."""
    try:
        import segno
    except ImportError:  # the web extra installs it; without it the link is still printed as text
        return ""
    return segno.make(url, error="m").svg_inline(scale=5, border=2, title="sign-in link for a phone")


def _escape(text: str) -> str:
    from markupsafe import escape
    return str(escape(text))


def _field(form: Any, name: str, *, required: bool = False) -> str | None:
    from ..errors import ParameterError
    given = form.getlist(name)
    if len(given) > 1:  # which one was meant? (the last would silently win)
        raise ParameterError(f"the form field {name!r} is given {len(given)} times; send it once")
    value = given[0] if given else None
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise ParameterError(f"the form field {name!r} is missing")
        return None
    if not isinstance(value, str):
        raise ParameterError(f"the form field {name!r} must be text")
    return value.strip()


def _remove_tree(path: Path) -> None:
    import shutil
    shutil.rmtree(path, ignore_errors=True)
