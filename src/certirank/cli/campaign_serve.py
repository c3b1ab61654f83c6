"""`certirank campaign serve`: the campaign page (optional extra ``web``)."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path

import typer

from ._common import err_console, one_line
from .campaign import DB_ARG, campaign_app

TOKEN_ENV = "CERTIRANK_TOKEN"


def _read_token(token_file: Path | None, given: str | None) -> str | None:
    """The write token: from ``--token-file``, else ``$CERTIRANK_TOKEN``, else None (a fresh one is made)."""
    from ..errors import ParameterError
    if given is not None:
        # a value on the command line is visible to every local user in `ps` and lands in shell history
        raise ParameterError(f"--token VALUE is visible to every user of this machine (ps, shell history): put the "
                             f"token in a file and pass --token-file FILE, or set ${TOKEN_ENV}; without either, a "
                             "fresh token is made")
    if token_file is not None:
        try:
            text = token_file.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise ParameterError(f"--token-file {token_file} is not a text file") from None
        except OSError as exc:
            raise ParameterError(f"cannot read --token-file {token_file}: {exc.strerror or exc}") from None
        lines = text.strip().splitlines()
        token, what = (lines[0].strip() if lines else ""), f"--token-file {token_file}"
    elif os.environ.get(TOKEN_ENV):
        token, what = os.environ[TOKEN_ENV].strip(), f"${TOKEN_ENV}"
    else:
        return None
    if len(token) < 16 or not token.isascii() or not token.isprintable() or " " in token:
        raise ParameterError(f"the token in {what} must be at least 16 printable ASCII characters without spaces")
    return token


@campaign_app.command("serve")
def serve_cmd(db: Path = DB_ARG,
              host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (default: this machine "
                                       "only)."),
              port: int = typer.Option(8000, "--port", min=1, max=65535, help="TCP port."),
              token_file: Path | None = typer.Option(None, "--token-file", help="File whose first line is the write "
                                                     "token (else $CERTIRANK_TOKEN, else a fresh random one). Without "
                                                     "a token nobody can write."),
              token: str | None = typer.Option(None, "--token", hidden=True),
              read_only: bool = typer.Option(False, "--read-only", help="Nobody can write (reviewers' view)."),
              allow_host: list[str] = typer.Option([], "--allow-host", help="Another host name the page answers "
                                                   "to (repeatable; always: IP addresses, localhost and --host)."),
              ) -> None:
    """Serve the campaign page: what to run next, one-click results, the certified ranking as it forms."""
    from ..web import create_app, make_token

    _check_address(host, port)
    secret = None if read_only else (_read_token(token_file, token) or make_token())
    # refuses a bad file before binding
    app = create_app(db, token=secret, read_only=read_only, host=host, allow_hosts=allow_host)
    shown = f"[{host}]" if ":" in host else host
    base = f"http://{shown}:{port}"
    if read_only:
        typer.echo(f"certirank campaign page (read-only): {base}/ranking")
    else:
        typer.echo(f"certirank campaign page: {base}{app.state.login_path}")
        typer.echo("  a one-time link: it signs this browser in (a session cookie) and leaves no token in the address "
                   "or the history; sign in other devices from the page ('Link for another device') or at "
                   f"{base}/login with the token")
        typer.echo(f"read-only view for reviewers: {base}/ranking")
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if not loopback:
        err_console.print(f"warning: listening on {one_line(host)}, not only on this machine; anyone who can reach it "
                          "can read the campaign (writes still need the token)")
    from ..web import serve
    serve(app, host=host, port=port)


def _check_address(host: str, port: int) -> None:
    """Refuse an address this machine cannot listen on before printing anything (not uvicorn's error later)."""
    import socket

    from ..errors import ParameterError
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        raise ParameterError(f"--host {host!r} is not an address of this machine ({exc})") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise ParameterError(f"cannot listen on {host} port {port}: {exc.strerror or exc}") from None
