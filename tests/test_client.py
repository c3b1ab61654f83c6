"""The REST API v1 and its stdlib client (``certirank.client``) against a live server: uvicorn on a free port in a
thread, the campaign file on disk.

What is checked: the client, the CLI's ``--json`` and the Python API's ``to_dict()`` give the same JSON (status,
next, plan, log, design and each write); a POST retried with its ``Idempotency-Key`` records once, also after
the server restarts and also when the first answer was lost on the way back (a proxy drops it); a key reused for
another request is refused (422, ``StateError``) with nothing written; refusals reach the client as the
certirank error they are; server-sent events follow writes; ``/openapi.json`` documents every v1 route and
``/docs`` renders it; the paths before v1 keep answering.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the page needs the web extra")
pytest.importorskip("uvicorn", reason="the live server needs the web extra")

from certirank.campaign import Campaign  # noqa: E402
from certirank.client import CampaignClient, ClientError  # noqa: E402
from certirank.errors import ParameterError, StateError  # noqa: E402

TOKEN = "t0ken-for-the-client-tests"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Live:
    """A campaign server in a thread; ``restart()`` stops it and serves the same file on a new port."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.start()

    def start(self) -> None:
        import uvicorn

        from certirank.web import create_app
        self.port = _free_port()
        self.server = uvicorn.Server(uvicorn.Config(create_app(self.db, token=TOKEN), host="127.0.0.1",
                                                    port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                pytest.fail("the campaign server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(15)
        assert not self.thread.is_alive(), "the campaign server did not stop"

    def restart(self) -> None:
        self.stop()
        self.start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@pytest.fixture
def live(tmp_path):
    db = tmp_path / "robot.campaign"
    Campaign.init(db, ["pi0", "octo", "diffusion"], alpha=0.1, n_max=40, seed=5,
                  environments=["left", "right"], tags=["grasp", "place"]).close()
    srv = Live(db)
    yield srv
    srv.stop()


def _cli_json(cli, *args: str) -> dict:
    r = cli(["campaign", *args, "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def test_the_client_the_cli_and_the_api_give_the_same_json(cli, live):
    c = CampaignClient(live.base, token=TOKEN, retries=0)
    db = str(live.db)
    with Campaign.open(db) as camp:
        assert c.status() == _cli_json(cli, "status", db) == camp.status().to_dict()
        assert c.plan(3) == _cli_json(cli, "plan", db, "--count", "3") == camp.plan(3).to_dict()
    # next: what the client is shown is what the CLI hands out (the CLI remembers it; the API only looks)
    shown = c.next()
    assert shown == _cli_json(cli, "next", db)
    first = shown["suggestions"][0]
    rec = c.record(first["policy"], first["trial"], 1.0, tags=["grasp"], by="ana", shown_at=first["shown_at"])
    with Campaign.open(db) as camp:
        assert rec == camp.log().entries[-1].to_dict() and rec["tags"] == ["grasp"] and rec["by"] == "ana"
    second = shown["suggestions"][1]
    fault = c.fault(second["policy"], second["trial"], "e-stop", by="ana")
    assert fault["action"] == "fault" and fault["fault"] == "e-stop"
    note = c.note("gripper pads changed", by="ana")
    undone = c.undo(fault["id"], by="ana")
    assert undone["id"] == fault["id"] and undone["undone_by"] == note["id"] + 1
    with Campaign.open(db) as camp:
        assert c.log() == _cli_json(cli, "log", db) == camp.log().to_dict()
        assert c.status() == _cli_json(cli, "status", db) == camp.status().to_dict()
        assert c.design() == {"config_sha256": camp.config_sha256, "design": camp.design.to_dict()}
    # an amendment through the client is the one the CLI would write, and the status moves on with it
    amended = c.amend({"n_max": 60}, reason="a longer day", by="ana")
    assert amended["action"] == "amend"
    with Campaign.open(db) as camp:
        assert camp.status().remaining["n_max"] == 60 and camp.log().entries[-1].to_dict() == amended


def test_a_retried_post_records_once_across_a_restart_and_a_lost_answer(live):
    c = CampaignClient(live.base, token=TOKEN, retries=0)
    s = c.next()["suggestions"][0]
    key = "3f0c6a9e-retry-me"
    first = c.record(s["policy"], s["trial"], 0.0, idempotency_key=key)
    assert c.record(s["policy"], s["trial"], 0.0, idempotency_key=key) == first
    # the key is kept in the campaign file: a new server process answers the same and writes nothing
    live.restart()
    c = CampaignClient(live.base, token=TOKEN, retries=0)
    assert c.record(s["policy"], s["trial"], 0.0, idempotency_key=key) == first
    # the same key with another request: refused (HTTP 422), nothing written
    with pytest.raises(StateError, match="already used for another request"):
        c.record(s["policy"], s["trial"], 1.0, idempotency_key=key)
    with Campaign.open(live.db) as camp:
        assert [e.id for e in camp.log().entries] == [first["id"]]
    # the answer of a write is lost on the way back (the connection drops after the server wrote): the client
    # sends the request again with the same key, and the campaign holds it once
    t = c.next()["suggestions"][0]
    with _Dropper(live.port, drop_first_post=True) as proxy:
        via = CampaignClient(f"http://127.0.0.1:{proxy.port}", token=TOKEN, retries=2, backoff=0.05)
        rec = via.record(t["policy"], t["trial"], 1.0, by="bob")
        assert proxy.dropped == 1 and proxy.posts == 2
    with Campaign.open(live.db) as camp:
        entries = camp.log().entries
        assert len(entries) == 2 and entries[-1].to_dict() == rec
        assert [(e.policy, e.trial) for e in entries].count((t["policy"], t["trial"])) == 1


def test_refusals_reach_the_client_as_certirank_errors(live):
    reader = CampaignClient(live.base, retries=0)
    assert reader.status()["details"]["records"] == 0  # reads need no token
    s = reader.next()["suggestions"][0]
    with pytest.raises(ClientError, match="a valid campaign token is required to write"):
        reader.record(s["policy"], s["trial"], 1.0)
    c = CampaignClient(live.base, token=TOKEN, retries=0)
    with pytest.raises(ParameterError, match=r"outside \[0, 1\]"):
        c.record(s["policy"], s["trial"], 1.5)
    with pytest.raises(ParameterError, match="unknown tag 'slip'"):
        c.record(s["policy"], s["trial"], 1.0, tags=["slip"])
    with pytest.raises(ParameterError, match="alpha cannot be amended"):
        c.amend({"alpha": 0.2}, reason="more power")
    with pytest.raises(ClientError, match="no answer after 2 tries"):
        CampaignClient(f"http://127.0.0.1:{_free_port()}", retries=1, backoff=0.01, timeout=2).status()
    with pytest.raises(ParameterError, match="base_url must be an http"):
        CampaignClient("ftp://robot")
    with Campaign.open(live.db) as camp:
        assert camp.log().entries == []


def test_server_sent_events_follow_the_log(live):
    c = CampaignClient(live.base, token=TOKEN, retries=0, timeout=20)
    stream = c.events()
    try:
        first = next(stream)
        assert first == c.status() and first["details"]["last_record_id"] == 0
        s = c.next()["suggestions"][0]
        rec = c.record(s["policy"], s["trial"], 1.0)
        moved = next(stream)  # the server looks at the head every 0.5 s
        assert moved["details"]["last_record_id"] == rec["id"] and moved["details"]["records"] == 1
    finally:
        stream.close()


def test_openapi_documents_every_v1_route_and_the_old_paths_still_answer(live):
    with urllib.request.urlopen(f"{live.base}/openapi.json", timeout=20) as r:
        doc = json.loads(r.read())
    paths = doc["paths"]
    for route, method in (("status", "get"), ("next", "get"), ("plan", "get"), ("log", "get"), ("design", "get"),
                          ("events", "get"), ("record", "post"), ("fault", "post"), ("note", "post"),
                          ("undo", "post"), ("amend", "post"), ("unblind", "post"), ("add-run", "post"),
                          ("login-link", "post")):
        assert method in paths[f"/api/v1/{route}"], route
    record = paths["/api/v1/record"]["post"]
    assert any(p["name"] == "Idempotency-Key" for p in record["parameters"])
    assert set(record["requestBody"]["content"]) == {"application/json", "application/x-www-form-urlencoded"}
    with urllib.request.urlopen(f"{live.base}/docs", timeout=20) as r:
        page = r.read().decode()
    assert "/api/v1/record" in page and "Idempotency-Key" in page and "<script" not in page
    # the paths before v1: the old read routes and form posts keep working
    with urllib.request.urlopen(f"{live.base}/api/status", timeout=20) as r:
        assert json.loads(r.read())["details"]["records"] == 0
    s = CampaignClient(live.base).next()["suggestions"][0]
    req = urllib.request.Request(f"{live.base}/api/record", method="POST", data=(
        f"policy={s['policy']}&trial={s['trial']}&score=1").encode(), headers={
        "X-Certirank-Token": TOKEN, "Accept": "application/json",
        "Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(req, timeout=20) as r:
        assert json.loads(r.read())["policy"] == s["policy"]


class _Dropper:
    """A TCP proxy in front of the server that, for the first POST, forwards the request, reads the server's
    whole answer, and closes the client's connection without sending it: a write whose answer was lost."""

    def __init__(self, backend: int, *, drop_first_post: bool) -> None:
        self.backend, self.drop = backend, drop_first_post
        self.posts = self.dropped = 0
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> _Dropper:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()
        self.thread.join(10)

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                request = _read_request(conn)
                is_post = request.startswith(b"POST ")
                with socket.create_connection(("127.0.0.1", self.backend), timeout=20) as up:
                    up.sendall(request)
                    answer = b""
                    while chunk := up.recv(65536):
                        answer += chunk
                if is_post:
                    self.posts += 1
                    if self.drop and self.dropped == 0:
                        self.dropped += 1
                        conn.shutdown(socket.SHUT_RDWR)  # the server wrote; the client never hears it
                        continue
                conn.sendall(answer)


def _read_request(conn: socket.socket) -> bytes:
    """One HTTP/1.1 request (headers and a Content-Length body); urllib sends ``Connection: close``."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        body += conn.recv(65536)
    return head + b"\r\n\r\n" + body
