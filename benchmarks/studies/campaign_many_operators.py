"""Many operators on one campaign file: do shell and page recorders lose, duplicate or refuse anything, and does the
page stay responsive while a write waits for the lock?

Starts one campaign (one policy per recorder, equal policies, a budget it never reaches), a campaign page
(`certirank campaign serve`, in its own process) and, for ``--seconds``:

* ``--shell`` recorders, each a loop of `certirank campaign next --json` + `certirank campaign record --json`
  processes for its own policy;
* ``--http`` recorders, each a loop of ``GET /api/next`` + ``POST /api/record`` (token header) for its own policy;
* one page reader, timing ``GET /ranking`` and ``GET /api/status`` back to back;
* one lock holder, which every ``--hold-every`` seconds takes the campaign's write lock from another process for
  ``--hold`` seconds (so writes wait), while the reader keeps timing the page.

At the end it counts acknowledged records (a record id returned to a recorder), live records, lost ones
(acknowledged, not live), duplicates, refusals that mention the lock, 5xx answers, and runs `verify`.
The question is answered when: 0 lock errors, 0 lost, 0 duplicates, 0 5xx, verify ok, and the page's p99
stays under 1 s, also while the lock is held.

    python benchmarks/studies/campaign_many_operators.py --shell 20 --http 20 --seconds 60

The default suite runs a small version (tests/test_campaign_concurrency.py). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve()


def _certirank() -> list[str]:
    exe = Path(sys.executable).with_name("certirank")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "certirank"]


@dataclass
class Tally:
    acked: list[tuple[int, str, int]] = field(default_factory=list)
    lock_errors: list[str] = field(default_factory=list)
    server_errors: list[str] = field(default_factory=list)
    other_refusals: list[str] = field(default_factory=list)
    page_ms: list[float] = field(default_factory=list)
    page_ms_held: list[float] = field(default_factory=list)
    static_ms: list[float] = field(default_factory=list)
    record_ms: list[float] = field(default_factory=list)
    lock = threading.Lock()

    def add(self, name: str, value: Any) -> None:
        with self.lock:
            getattr(self, name).append(value)


def _score(policy: str, trial: int) -> int:
    return int(np.random.default_rng([sum(map(ord, policy)), trial]).random() < 0.5)


def _is_lock_error(text: str) -> bool:
    return "lock" in text.lower() and ("database is locked" in text or "could not lock" in text)


# ------------------------------------------------------------------------------------------ recorders
def shell_recorder(db: str, policy: str, end: float, tally: Tally, nice: int = 0) -> None:
    cli = _certirank()
    # an operator's shell runs on its own machine; --operator-nice keeps the 20 CLI start-ups of one shared test
    # box from taking the page's CPU (the lock, not the box, is what this study is about)
    lower = (lambda: os.nice(nice)) if nice else None
    while time.monotonic() < end:
        nxt = subprocess.run([*cli, "campaign", "next", db, "--json"], capture_output=True, text=True,
                             preexec_fn=lower)
        if nxt.returncode != 0:
            _refusal(tally, nxt.stderr + nxt.stdout)
            continue
        mine = [s for s in json.loads(nxt.stdout)["suggestions"] if s["policy"] == policy]
        if not mine:
            time.sleep(0.2)
            continue
        s = mine[0]
        t0 = time.monotonic()
        rec = subprocess.run([*cli, "campaign", "record", db, policy, str(s["trial"]), str(_score(policy, s["trial"])),
                              "--by", f"sh-{policy}", "--json"], capture_output=True, text=True, preexec_fn=lower)
        if rec.returncode == 0:
            tally.add("record_ms", 1000 * (time.monotonic() - t0))
            tally.add("acked", (int(json.loads(rec.stdout)["id"]), policy, int(s["trial"])))
        else:
            _refusal(tally, rec.stderr + rec.stdout)


def http_recorder(base: str, token: str, policy: str, end: float, tally: Tally) -> None:
    while time.monotonic() < end:
        try:
            todo = _get_json(f"{base}/api/next")
        except _HttpError as exc:
            _refusal(tally, str(exc), status=exc.status)
            continue
        mine = [s for s in todo if s["policy"] == policy]
        if not mine:
            time.sleep(0.05)
            continue
        s = mine[0]
        form = {"policy": policy, "trial": s["trial"], "score": _score(policy, s["trial"]), "by": f"web-{policy}",
                "shown_at": s.get("shown_at", "")}
        t0 = time.monotonic()
        try:
            rec = _post_json(f"{base}/api/record", form, token)
        except _HttpError as exc:
            _refusal(tally, str(exc), status=exc.status)
            continue
        tally.add("record_ms", 1000 * (time.monotonic() - t0))
        tally.add("acked", (int(rec["id"]), policy, int(s["trial"])))


def _refusal(tally: Tally, text: str, status: int | None = None) -> None:
    if status is not None and status >= 500:
        tally.add("server_errors", text[:200])
    elif _is_lock_error(text):
        tally.add("lock_errors", text[:200])
    else:
        tally.add("other_refusals", text[:200])


def page_reader(base: str, end: float, held: threading.Event, tally: Tally) -> None:
    """Times the page's reads, split by whether the write lock was held for the whole GET. A static file (no
    campaign, no SQLite) is timed in the same loop: it measures how long the machine makes any request wait
    (CPU starvation), so a page p99 close to it is the machine's, not the lock's."""
    while time.monotonic() < end:
        for path in ("/ranking", "/api/status", "/static/style.css"):
            t0 = time.monotonic()
            waiting = held.is_set()
            try:
                with urllib.request.urlopen(f"{base}{path}", timeout=60) as r:
                    r.read()
            except urllib.error.HTTPError as exc:
                _refusal(tally, f"GET {path}: {exc.code}", status=exc.code)
                continue
            ms = 1000 * (time.monotonic() - t0)
            if path.startswith("/static/"):
                tally.add("static_ms", ms)
            else:
                tally.add("page_ms_held" if waiting and held.is_set() else "page_ms", ms)
        time.sleep(0.05)


def lock_holder(db: str, end: float, hold: float, every: float, held: threading.Event) -> int:
    """Take the write lock from a separate connection for ``hold`` s every ``every`` s; returns how often."""
    n = 0
    while time.monotonic() + hold < end:
        time.sleep(every)
        con = sqlite3.connect(db, timeout=30, isolation_level=None)
        try:
            con.execute("BEGIN IMMEDIATE")
            held.set()
            time.sleep(hold)
            held.clear()
            con.execute("ROLLBACK")
            n += 1
        finally:
            held.clear()
            con.close()
    return n


# ------------------------------------------------------------------------------------------ HTTP
class _HttpError(Exception):
    def __init__(self, status: int, text: str) -> None:
        super().__init__(f"{status}: {text}")
        self.status = status


def _get_json(url: str) -> Any:
    req = urllib.request.Request(url, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as exc:
        raise _HttpError(exc.code, exc.read().decode(errors="replace")) from None


def _post_json(url: str, form: dict[str, Any], token: str) -> Any:
    from urllib.parse import urlencode
    req = urllib.request.Request(url, data=urlencode(form).encode(), method="POST",
                                 headers={"Accept": "application/json", "X-Certirank-Token": token})
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as exc:
        raise _HttpError(exc.code, exc.read().decode(errors="replace")) from None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _ThreadServer:
    """The page served by uvicorn in a thread of this process (for the test suite: no second interpreter to start);
    stopped like a process."""

    def __init__(self, db: str, token: str, port: int) -> None:
        import uvicorn

        from certirank.web import create_app
        self.server = uvicorn.Server(uvicorn.Config(create_app(db, token=token), host="127.0.0.1", port=port,
                                                    log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()

    def poll(self) -> int | None:
        return None if self.thread.is_alive() else 1

    def terminate(self) -> None:
        self.server.should_exit = True

    def wait(self, timeout: float) -> None:
        self.thread.join(timeout)


def start_server(db: str, token_file: str, *, in_process: bool = False) -> tuple[Any, str]:
    """`certirank campaign serve DB --token-file FILE` on a free port (or the same app in a thread of this
    process); returns (server, base URL) once it answers."""
    port = _free_port()
    if in_process:
        proc: Any = _ThreadServer(db, Path(token_file).read_text().strip(), port)
    else:
        proc = subprocess.Popen([*_certirank(), "campaign", "serve", db, "--port", str(port), "--token-file",
                                 token_file], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("the page did not start" + (f": {proc.stderr.read().decode()}" if not in_process
                                                          else ""))
        try:
            with urllib.request.urlopen(f"{base}/api/status", timeout=5):
                return proc, base
        except OSError:
            time.sleep(0.1)
    proc.terminate()
    raise RuntimeError("the page did not answer within 120 s")


# ------------------------------------------------------------------------------------------ the run
def run(shell: int, http: int, seconds: float, *, hold: float = 2.0, hold_every: float = 6.0,
        folder: str | None = None, in_process: bool = False, operator_nice: int = 0) -> dict[str, Any]:
    from certirank import Campaign

    own = folder is None
    folder = folder or tempfile.mkdtemp(prefix="certirank-operators-")
    try:
        db = os.path.join(folder, "many.campaign")
        policies = [f"s{i}" for i in range(shell)] + [f"h{i}" for i in range(http)]
        if len(policies) < 2:
            policies += ["spare"]  # a campaign ranks two or more; nobody records the spare, so it waits
        Campaign.init(db, policies, alpha=0.05, n_max=100_000, by="bench").close()
        token_file = os.path.join(folder, "token")
        token = "t-" + os.urandom(12).hex()
        Path(token_file).write_text(token + "\n")
        os.chmod(token_file, 0o600)
        server, base = start_server(db, token_file, in_process=in_process)
        tally, held = Tally(), threading.Event()
        end = time.monotonic() + seconds
        threads = [threading.Thread(target=shell_recorder, args=(db, f"s{i}", end, tally, operator_nice))
                   for i in range(shell)]
        threads += [threading.Thread(target=http_recorder, args=(base, token, f"h{i}", end, tally))
                    for i in range(http)]
        threads.append(threading.Thread(target=page_reader, args=(base, end, held, tally)))
        holds: list[int] = []
        threads.append(threading.Thread(target=lambda: holds.append(lock_holder(db, end, hold, hold_every, held))))
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - t0
        server.terminate()
        server.wait(timeout=60)
        con = sqlite3.connect(db)
        live = con.execute("SELECT id, policy, trial FROM records WHERE action = 'record' AND undone_by IS NULL"
                           ).fetchall()
        con.close()
        with Campaign.open(db) as c:
            verified = c.verify().ok
        acked = set(tally.acked)
        live_set = set(live)
        pairs = [(p, t) for _, p, t in live]

        def pct(xs: list[float], q: float) -> float | None:
            return None if not xs else round(float(np.quantile(xs, q)), 1)

        return {
            "shell_recorders": shell, "http_recorders": http, "operator_nice": operator_nice, "seconds": seconds, "elapsed_s": round(elapsed, 1),
            "acknowledged": len(tally.acked), "live": len(live), "lost": len(acked - live_set),
            "duplicates": len(pairs) - len(set(pairs)) + (len(tally.acked) - len(acked)),
            "unacknowledged_live": len(live_set - acked), "lock_errors": len(tally.lock_errors),
            "server_errors": len(tally.server_errors), "other_refusals": len(tally.other_refusals),
            "refusal_examples": (tally.lock_errors + tally.server_errors + tally.other_refusals)[:3],
            "verify_ok": verified, "lock_holds": holds[0] if holds else 0,
            "page_ms": {"n": len(tally.page_ms), "p50": pct(tally.page_ms, 0.5), "p99": pct(tally.page_ms, 0.99),
                        "max": pct(tally.page_ms, 1.0)},
            "page_ms_while_a_write_waits": {"n": len(tally.page_ms_held), "p50": pct(tally.page_ms_held, 0.5),
                                            "p99": pct(tally.page_ms_held, 0.99),
                                            "max": pct(tally.page_ms_held, 1.0)},
            "static_file_ms": {"n": len(tally.static_ms), "p50": pct(tally.static_ms, 0.5),
                               "p99": pct(tally.static_ms, 0.99), "max": pct(tally.static_ms, 1.0)},
            "load_1min": round(os.getloadavg()[0], 1), "cpus": os.cpu_count(),
            "record_ms": {"n": len(tally.record_ms), "p50": pct(tally.record_ms, 0.5),
                          "p99": pct(tally.record_ms, 0.99),
                          "median_s": None if not tally.record_ms else round(statistics.median(tally.record_ms) / 1000,
                                                                               2)},
        }
    finally:
        if own:
            shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shell", type=int, default=20)
    ap.add_argument("--http", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--hold", type=float, default=2.0, help="seconds the lock holder keeps the write lock")
    ap.add_argument("--hold-every", type=float, default=6.0, help="seconds between two holds")
    ap.add_argument("--operator-nice", type=int, default=0,
                    help="run the shell recorders' processes at this nice value (0-19): on one shared box, their "
                         "start-ups otherwise take the CPU the page needs, which real operators' machines do not")
    a = ap.parse_args()
    print(json.dumps(run(a.shell, a.http, a.seconds, hold=a.hold, hold_every=a.hold_every,
                         operator_nice=a.operator_nice), indent=2))


if __name__ == "__main__":
    main()
