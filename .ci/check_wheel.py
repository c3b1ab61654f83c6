"""CI step: the wheel a user builds carries everything certirank needs at run time.

Builds the sdist and the wheel with `python -m build`, installs the wheel with the `web` extra into a fresh
virtual environment in a temporary folder outside the checkout, and uses the installed package there:
`certirank --version`, `certirank demo`, `certirank campaign init`, and `certirank campaign serve`, whose page and
vendored htmx are fetched over HTTP. Exit 0 when all of it worked; otherwise one line saying what failed, exit 1.

Run from the project root:  .venv/bin/python .ci/check_wheel.py
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(cmd: list[str], **kw) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        sys.exit(f"check_wheel: {' '.join(map(str, cmd))} failed (exit {proc.returncode}): "
                 f"{(proc.stderr or proc.stdout).strip()[-2000:]}")
    return proc.stdout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(url: str, timeout: float = 30.0) -> tuple[int, bytes]:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                return r.status, r.read()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="certirank-wheel-") as tmp:
        tmp = Path(tmp)
        run([sys.executable, "-m", "build", "--outdir", str(tmp / "dist"), str(ROOT)])
        wheels = sorted((tmp / "dist").glob("certirank-*.whl"))
        sdists = sorted((tmp / "dist").glob("certirank-*.tar.gz"))
        if len(wheels) != 1 or len(sdists) != 1:
            sys.exit(f"check_wheel: expected one wheel and one sdist, got {[p.name for p in (tmp / 'dist').iterdir()]}")
        import zipfile
        names = set(zipfile.ZipFile(wheels[0]).namelist())
        for needed in ("certirank/web/templates/run.html", "certirank/web/static/htmx.min.js",
                       "certirank/web/static/htmx-LICENSE.txt", "certirank/py.typed"):
            if needed not in names:
                sys.exit(f"check_wheel: {wheels[0].name} lacks {needed}")
        venv = tmp / "venv"
        run([sys.executable, "-m", "venv", str(venv)])
        bin_ = venv / "bin"
        run([str(bin_ / "pip"), "install", "--quiet", f"{wheels[0]}[web]"])
        work = tmp / "work"
        work.mkdir()
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        exe = str(bin_ / "certirank")
        # the installed package, not the checkout: run from a folder outside it
        where = run([str(bin_ / "python"), "-c", "import certirank, sys; print(certirank.__file__)"], cwd=work, env=env)
        if str(ROOT) in where:
            sys.exit(f"check_wheel: the fresh venv imported certirank from the checkout ({where.strip()})")
        version = run([exe, "--version"], cwd=work, env=env).strip()
        run([exe, "demo"], cwd=work, env=env)
        run([exe, "campaign", "init", "lab.campaign", "--policies", "A,B,C"], cwd=work, env=env)
        port = free_port()
        server = subprocess.Popen([exe, "campaign", "serve", "lab.campaign", "--port", str(port), "--read-only"],
                                  cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            status, page = fetch(f"http://127.0.0.1:{port}/ranking")
            if status != 200 or b"<html" not in page.lower():
                sys.exit(f"check_wheel: /ranking answered {status} without a page")
            status, js = fetch(f"http://127.0.0.1:{port}/static/htmx.min.js")
            if status != 200 or len(js) < 1000:
                sys.exit(f"check_wheel: /static/htmx.min.js answered {status} ({len(js)} bytes)")
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
        print(f"check_wheel: ok ({version}; {wheels[0].name}, {sdists[0].name}; demo, campaign init, campaign serve)")


if __name__ == "__main__":
    main()
