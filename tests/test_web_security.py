"""The campaign page's security (issue 33 item 5) and the campaign/page rows of the findings' table 1a: the token
only in a header or a one-time sign-in link exchanged for an HttpOnly SameSite=Strict cookie, the Host-header
allow-list, security headers, HEAD, same-origin browser writes, read-only opening that leaves nothing behind,
and hostile inputs answered in one line (never a 5xx)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("fastapi", reason="the campaign page needs the 'web' extra (fastapi)")
pytest.importorskip("multipart", reason="the campaign page needs the 'web' extra (python-multipart)")
from fastapi.testclient import TestClient  # noqa: E402

from certirank.campaign import Campaign  # noqa: E402
from certirank.errors import CertirankError, ParameterError  # noqa: E402
from certirank.web import create_app  # noqa: E402

TOKEN = "security-test-token-0123"
BASE = "http://127.0.0.1:8000"
GET_ROUTES = ("/", "/run", "/ranking", "/ranking/panel", "/history", "/export", "/api/status", "/api/next",
              "/export/records.csv", "/export/report.html", "/openapi.json", "/login")


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "sec.campaign"
    Campaign.init(path, ["a", "b", "c"], alpha=0.1, n_max=100).close()
    return path


def _client(db, **kw):
    return TestClient(create_app(db, token=TOKEN, **kw), base_url=BASE, follow_redirects=False)


# ------------------------------------------------------------------------------------------ host, headers, HEAD
@pytest.mark.parametrize("host, ok", [("127.0.0.1:8000", True), ("localhost:8000", True), ("[::1]:8000", True),
                                      ("192.168.1.20:8000", True), ("attacker.example", False),
                                      ("attacker.example:8000", False), ("localhost.attacker.example", False),
                                      ("[not-an-ip]:80", False), ("", False)])
def test_host_header_allow_list(db, host, ok):
    client = _client(db)
    r = client.get("/api/status", headers={"host": host})
    assert (r.status_code == 200) == ok, (host, r.status_code)
    if not ok:
        assert r.status_code == 400 and "--allow-host" in r.text


def test_allow_host_and_the_serving_name_are_answered(db):
    client = _client(db, host="robot-pc.lab", allow_hosts=["phone.lab"])
    for host in ("robot-pc.lab:8000", "phone.lab:8000", "PHONE.LAB"):
        assert client.get("/api/status", headers={"host": host}).status_code == 200, host
    assert client.get("/api/status", headers={"host": "other.lab"}).status_code == 400


@pytest.mark.parametrize("path", GET_ROUTES)
def test_every_answer_has_the_security_headers_and_head_is_answered(db, path):
    client = _client(db)
    r = client.get(path, headers={"X-Certirank-Token": TOKEN})
    assert r.status_code in (200, 303), path
    csp = r.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "unsafe" not in csp
    assert r.headers["x-content-type-options"] == "nosniff" and r.headers["cache-control"] == "no-store"
    h = client.head(path)
    assert h.status_code == r.status_code and h.content == b"", path
    static = client.get("/static/style.css")
    assert static.status_code == 200 and "no-store" not in static.headers.get("cache-control", "")
    assert client.head("/static/htmx.min.js").status_code == 200


def test_pages_carry_no_inline_script_and_no_token(db):
    client = _client(db)
    login = client.get(client.app.state.login_path)
    cookie = login.cookies.get("certirank_session")
    for path in ("/run", "/ranking", "/history", "/export", "/login"):
        for kw in ({"headers": {"X-Certirank-Token": TOKEN}}, {"cookies": {"certirank_session": cookie}}, {}):
            page = client.get(path, **kw).text
            assert TOKEN not in page and "token=" not in page, path
            for tag in re.findall(r"<script[^>]*>", page):
                assert "src=" in tag, (path, tag)  # the CSP allows no inline script
            assert not re.search(r"\son[a-z]+=", page), path


# ------------------------------------------------------------------------------------------ signing in
def test_one_time_link_gives_an_httponly_strict_cookie_once(db):
    client = _client(db)
    link = client.app.state.login_path
    assert link.startswith("/login/") and TOKEN not in link
    r = client.get(link)
    assert r.status_code == 303 and r.headers["location"] == f"{BASE}/"  # then to the run page
    set_cookie = r.headers["set-cookie"].lower()
    assert "httponly" in set_cookie and "samesite=strict" in set_cookie and "path=/" in set_cookie
    assert TOKEN not in r.headers["set-cookie"]  # a value derived from the token, not the token
    again = TestClient(client.app, base_url=BASE, follow_redirects=False).get(link)
    assert again.status_code == 403 and "already used" in again.text  # one time only
    cookie = r.cookies.get("certirank_session")
    run = client.get("/run", cookies={"certirank_session": cookie}).text
    assert "Success" in run and "sign out" in run
    s = client.get("/api/next").json()[0]
    form = {"policy": s["policy"], "trial": s["trial"], "score": "1"}
    same = {"origin": BASE}
    assert client.post("/api/record", data=form, cookies={"certirank_session": cookie},
                       headers={**same, "accept": "application/json"}).status_code == 200
    # a browser write from another origin (another site, or another page of this host), or with no origin: refused
    for headers in ({"origin": "http://evil.example"}, {"origin": "http://127.0.0.1:9999"}, {"origin": "null"}, {}):
        r = client.post("/api/undo", data={}, cookies={"certirank_session": cookie}, headers=headers)
        assert r.status_code == 403, headers
    assert client.post("/api/undo", data={}, cookies={"certirank_session": cookie},
                       headers={"referer": f"{BASE}/run"}).status_code == 200  # a Referer of this page will do
    other = TestClient(create_app(db, token="another-token-0000000"), base_url=BASE)
    assert other.post("/api/undo", data={}, cookies={"certirank_session": cookie}, headers=same).status_code == 403


def test_login_with_the_token_a_new_link_and_sign_out(db):
    client = _client(db)
    assert client.post("/login", data={"token": "wrong"}).status_code == 403
    r = client.post("/login", data={"token": TOKEN})
    assert r.status_code == 303 and "httponly" in r.headers["set-cookie"].lower()
    cookie = r.cookies.get("certirank_session")
    client.cookies.clear()
    assert client.post("/api/login-link", headers={"origin": BASE}).status_code == 403  # needs to be signed in
    fresh = client.post("/api/login-link", cookies={"certirank_session": cookie},
                        headers={"origin": BASE, "accept": "application/json"}).json()["link"]
    assert fresh.startswith(f"{BASE}/login/") and TOKEN not in fresh
    assert client.get(fresh[len(BASE):]).status_code == 303
    out = client.post("/logout")
    assert out.status_code == 303 and "certirank_session=" in out.headers["set-cookie"]
    ro = TestClient(create_app(db, read_only=True), base_url=BASE, follow_redirects=False)
    assert ro.app.state.login_path is None and ro.post("/login", data={"token": TOKEN}).status_code == 403


# ------------------------------------------------------------------------------------------ hostile inputs (table 1a)
@pytest.mark.parametrize("form, words", [
    ({"record_id": "18446744073709551616"}, "between 1 and"),
    ({"record_id": "99999999999999999999"}, "between 1 and"),
    ({"record_id": "-1"}, "whole number"),
    ({"record_id": "１"}, "digits 0-9"),
])
def test_page_undo_refuses_hostile_ids_in_one_line(db, form, words):
    r = _client(db).post("/api/undo", data=form, headers={"X-Certirank-Token": TOKEN, "accept": "application/json"})
    assert r.status_code == 400 and words in r.json()["error"]


@pytest.mark.parametrize("field, value, words", [
    ("trial", "１", "digits 0-9"), ("trial", "١", "digits 0-9"), ("score", "nan", "NaN"), ("score", "NaN ", "NaN"),
    ("by", "y" * 32_000, "got 32,000 characters"), ("by", "eve\n\x1b[2J", "control character"),
    ("shown_at", "x", "whole number"),
])
def test_page_record_refuses_hostile_fields(db, field, value, words):
    client = _client(db)
    s = client.get("/api/next").json()[0]
    form = {"policy": s["policy"], "trial": str(s["trial"]), "score": "1", field: value}
    r = client.post("/api/record", data=form, headers={"X-Certirank-Token": TOKEN, "accept": "application/json"})
    assert r.status_code == 400 and words in r.json()["error"], r.text
    with Campaign.open(db) as c:
        assert c.records() == []


def test_a_repeated_form_field_is_refused_not_last_wins(db):
    client = _client(db)
    r = client.post("/api/record", content="policy=c&policy=a&trial=0&score=1",
                    headers={"X-Certirank-Token": TOKEN, "accept": "application/json",
                             "content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 400 and "given 2 times" in r.json()["error"]


def test_upload_with_a_250_character_suffix_is_not_a_server_error(tmp_path):
    db = tmp_path / "board.campaign"
    Campaign.init(db, kind="leaderboard", models=["m1", "m2"]).close()
    run = pd.DataFrame([{"model": m, "item": f"q{i}", "score": 0.5} for m in ("m1", "m2") for i in range(4)])
    body = run.to_csv(index=False).encode()
    r = _client(db).post("/api/add-run", files={"file": ("r." + "y" * 250, body, "text/csv")},
                         headers={"X-Certirank-Token": TOKEN})
    assert r.status_code == 200 and "Added replicate 1" in r.text


@pytest.mark.parametrize("call, words", [
    (lambda p: Campaign.open(None), "must be a file path"),
    (lambda p: Campaign.open(123), "must be a file path"),
    (lambda p: Campaign.init(None, ["a", "b"]), "must be a file path"),
    (lambda p: Campaign.init(p.with_name("a\0.db"), ["a", "b"]), "NUL"),
    (lambda p: Campaign.open(p).export(None), "must be a file path"),
    (lambda p: Campaign.open(p).undo(2**64), "between 1 and"),
    (lambda p: Campaign.open(p).record("a", 0, float("nan")), "NaN"),
    (lambda p: Campaign.open(p).record("a", 0, True), "must be a number"),
    (lambda p: Campaign.open(p).record("a", 0, 1.0, by="b" * 10**6), "got 1,000,000 characters"),
    (lambda p: Campaign.open(p).record("a", 0, 1.0, note=object()), "note must be text of at most"),
    (lambda p: Campaign.init(p.with_name("n.db"), ["A\0x", "B"]), "control character"),
    (lambda p: Campaign.init(p.with_name("n.db"), ["x" * 10**6, "B"]), "characters long"),
    (lambda p: Campaign.init(p.with_name("n.db"), ["A", "B"], environments=["e1", "e1", "e2"]), "repeated: e1"),
    (lambda p: Campaign.init(p.with_name("n.db"), ["A", "B"], score_range=(-1e308, 1e308)), "too wide"),
])
def test_api_refuses_hostile_arguments_with_certirank_errors(db, call, words):
    with pytest.raises(CertirankError) as info:
        call(db)
    assert words in str(info.value) and "\n" not in str(info.value)


def _cli(cli, *args):
    return cli(["campaign", *map(str, args)])


@pytest.mark.parametrize("args, words", [
    (["init", "{d}/x.db", "--policies", "A,,B"], "name 2 is empty"),
    (["init", "{d}/x.db", "--policies", "A, ,B"], "name 2 is empty"),
    (["init", "{d}/x.db", "--policies", "A,B", "--environments", "{db}"], "not a UTF-8 text file"),
    (["init", "{d}/x.db", "--policies", "A,B", "--score-range=-1e308,1e308"], "too wide"),
    (["undo", "{db}", "99999999999999999999"], "between 1 and"),
    (["record", "{db}", "a", "0", "1", "--by", "eve\n\x1b[2J"], "control character"),
    (["record", "{db}", "a", "0", "1", "--by", "y" * 32_000], "at most 200 characters"),
    (["record", "{db}", "a", "0", "nan"], "NaN"),
    (["serve", "{db}", "--host", "999.1.1.1"], "not an address of this machine"),
    (["serve", "{db}", "--token", "my-secret-token-value"], "visible to every user"),
    (["serve", "{db}", "--token-file", "{d}/missing-token"], "cannot read --token-file"),
])
def test_cli_refuses_hostile_input_in_one_line(cli, db, args, words):
    d = db.parent
    r = _cli(cli, *[a.format(d=d, db=db) for a in args])
    text = " ".join(r.output.split())
    assert r.exit_code == 2 and r.output.startswith("error:") and words in text, r.output
    assert "Traceback" not in r.output and "http://" not in r.output  # nothing printed before the refusal


# ------------------------------------------------------------------------------------------ output safety
def test_export_guards_formulas_and_prints_a_shell_safe_replay_command(cli, tmp_path):
    hostile = "x'; touch PWNED; echo '"
    prior = tmp_path / "prior.json"
    prior.write_text('{"=1+2": 0.3, "%s": 0.7}' % hostile.replace('"', '\\"'))
    db = tmp_path / "inj.campaign"
    r = _cli(cli, "init", db, "--policies", f"=1+2,{hostile}", "--prior", prior, "--n-max", "40")
    assert r.exit_code == 0, r.output
    c = Campaign.open(db)
    c.record("=1+2", 0, 0.0, by="@SUM(1)", note='=HYPERLINK("http://evil.example")', ahead=True)
    c.record(hostile, 0, 1.0, ahead=True)
    out = tmp_path / "out dir" / "x.csv"
    out.parent.mkdir()
    res = c.export(out)
    cells = [cell for line in out.read_text().splitlines()[1:] for cell in line.split(",")]
    assert not any(cell.strip('"')[:1] and cell.strip('"')[0] in "=+-@" for cell in cells), cells
    back = pd.read_csv(out)
    assert back["policy"].tolist() == ["'=1+2", hostile] and back["by"].tolist()[0] == "'@SUM(1)"
    words = shlex.split(res.rank_command)
    assert words[2] == str(out) and f"{hostile}=0.7" in words[words.index("--prior-means") + 1]
    # pasted into a shell, the command runs exactly its words: nothing else
    echo = res.rank_command.replace("certirank", "printf '%s\\n'", 1)
    done = subprocess.run(["bash", "-c", echo], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and not (tmp_path / "PWNED").exists()
    assert done.stdout.splitlines() == words[1:]
    from certirank import load
    assert set(load(out)["policy"]) == {"=1+2", hostile}  # the reader undoes the guard: the replay sees the names
    client = TestClient(create_app(db, token=TOKEN), base_url=BASE)
    page_csv = client.get("/export/records.csv").text
    assert "\n=1+2" not in page_csv and "'=1+2" in page_csv


# ------------------------------------------------------------------------------------------ read-only opening
def test_a_file_this_user_may_not_write_opens_read_only_and_leaves_nothing(cli, db, tmp_path, monkeypatch):
    """As root the folder's permissions stop nothing, so the store's own judgement (``may_write``) is what is
    exercised here; the real unprivileged run follows when the machine allows one."""
    from certirank.campaign import _schema
    with Campaign.open(db) as c:
        c.record("a", 0, 1.0, ahead=True)
    folder = db.parent
    before = sorted(os.listdir(folder))
    monkeypatch.setattr(_schema, "may_write", lambda path: False)
    with Campaign.open(db) as c:
        assert not c.writable and c.status().records == 1 and c.verify().ok
        assert len(c.log().entries) == 1 and c.next()  # next only looks
        c.export(tmp_path / "ro.csv")
        with pytest.raises(CertirankError, match="may not write the campaign file"):
            c.record("b", 0, 1.0, ahead=True)
    r = _cli(cli, "status", db)
    assert r.exit_code == 0, r.output
    page = TestClient(create_app(db, read_only=True), base_url=BASE)
    assert page.get("/ranking").status_code == 200 and page.get("/api/next").status_code == 200
    assert sorted(os.listdir(folder)) == sorted(before + ["ro.csv"]) if (tmp_path / "ro.csv").parent == folder \
        else sorted(os.listdir(folder)) == before


def _unprivileged_python() -> list[str] | None:
    """A command running a Python of this minor version as user 'nobody', or None where that cannot be."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return None
    system = Path(f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}")
    if not system.exists():
        return None
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", str(system)]


def test_an_unprivileged_reviewer_reads_a_campaign_in_a_folder_they_cannot_write(db, tmp_path):
    runner = _unprivileged_python()
    if runner is None:
        pytest.skip("needs root, setpriv and a system Python of this minor version to run as an unprivileged user")
    import numpy
    site = Path(numpy.__file__).parents[1]
    src = Path(__file__).resolve().parents[1] / "src"
    probe = subprocess.run([*runner, "-c", "import numpy, pandas"], env={"PYTHONPATH": f"{src}:{site}"},
                           capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"the unprivileged Python cannot read this environment's packages: {probe.stderr[-200:]}")
    import tempfile
    outer = Path(tempfile.mkdtemp(prefix="certirank-reviewer-", dir="/tmp"))  # pytest's own folders are 0700
    request_cleanup = outer
    folder = outer / "locked"
    folder.mkdir()
    target = folder / "c.campaign"
    with Campaign.open(db) as c:
        c.record("a", 0, 1.0, ahead=True)
    shutil.copy(db, target)
    for path, mode in ((outer, 0o755), (folder, 0o755), (target, 0o644)):
        os.chmod(path, mode)
    try:
        _read_as_nobody(runner, target, folder, src, site)
    finally:
        shutil.rmtree(request_cleanup, ignore_errors=True)


def _read_as_nobody(runner, target, folder, src, site):
    code = ("from certirank.campaign import Campaign; c = Campaign.open(%r); s = c.status(); "
            "assert c.verify().ok and s.records == 1 and not c.writable; print('ok', s.records)" % str(target))
    done = subprocess.run([*runner, "-c", code], env={"PYTHONPATH": f"{src}:{site}", "HOME": "/tmp"},
                          capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok 1", done.stderr[-500:]
    assert sorted(os.listdir(folder)) == ["c.campaign"]  # no -wal, no -shm left behind
    refused = subprocess.run([*runner, "-c", "from certirank.campaign import Campaign; "
                                            "Campaign.open(%r).record('b', 0, 1.0, ahead=True)" % str(target)],
                             env={"PYTHONPATH": f"{src}:{site}", "HOME": "/tmp"}, capture_output=True, text=True)
    assert refused.returncode != 0 and "may not write the campaign file" in refused.stderr


def test_operator_names_are_limited_like_notes(db):
    with Campaign.open(db) as c, pytest.raises(ParameterError, match="keep it under 100"):
        c.record("a", 0, 1.0, by="z" * 101, ahead=True)
