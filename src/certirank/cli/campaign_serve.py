"""`certirank campaign serve`: the campaign page (optional extra ``web``)."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import typer

from ._common import err_console
from .campaign import DB_ARG, campaign_app


@campaign_app.command("serve")
def serve_cmd(db: Path = DB_ARG,
              host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (default: this machine "
                                       "only)."),
              port: int = typer.Option(8000, "--port", min=1, max=65535, help="TCP port."),
              token: str = typer.Option("auto", "--token", help="Write token: 'auto' (a fresh random one, printed "
                                        "with the URL) or your own. Without it the page is read-only."),
              read_only: bool = typer.Option(False, "--read-only", help="Nobody can write (reviewers' view)."),
              ) -> None:
    """Serve the campaign page: what to run next, one-click results, the certified ranking as it forms."""
    from ..errors import ParameterError
    from ..web import create_app, make_token

    if token == "auto":
        token = make_token()
    elif len(token) < 8:
        raise ParameterError("--token must be at least 8 characters (or 'auto')")
    create_app(db, token=None if read_only else token, read_only=read_only)  # refuses a bad file before binding
    shown = f"[{host}]" if ":" in host else host
    base = f"http://{shown}:{port}"
    if read_only:
        typer.echo(f"certirank campaign page (read-only): {base}/ranking")
    else:
        typer.echo(f"certirank campaign page: {base}/run?token={token}")
        typer.echo(f"read-only view for reviewers: {base}/ranking")
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if not loopback:
        err_console.print(f"warning: listening on {host}, not only on this machine; anyone who can reach it can "
                          "read the campaign (writes still need the token)")
    from ..web import serve
    serve(db, host=host, port=port, token=None if read_only else token, read_only=read_only)
