"""The campaign page in a real browser: Playwright driving the system Chromium (no browser download).

Records 30 rollouts by clicking, watches a second tab's ranking page update without a reload, undoes one
record, and checks the campaign file. Screenshots go to ``$CERTIRANK_SCREENSHOTS`` when it is set (that is
how docs/campaign-*.png are made), else to the test's temporary folder.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the campaign page needs the 'web' extra (fastapi)")
pytest.importorskip("uvicorn", reason="the campaign page needs the 'web' extra (uvicorn)")
sync_api = pytest.importorskip("playwright.sync_api", reason="the browser test needs playwright (pip)")

CHROMIUM = next((p for p in (os.environ.get("CERTIRANK_CHROMIUM"), shutil.which("chromium"),
                             shutil.which("chromium-browser"), "/usr/bin/chromium") if p and Path(p).exists()), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)")

# closed network here: Chromium's own background connections would only fail
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TOKEN = "browser-test-token"
# each click is a full round trip through Chromium (~2 s here); a dozen exercise every policy and the live panel
CLICKS = 12


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    import uvicorn

    from certirank.campaign import Campaign
    from certirank.web import create_app

    db = tmp_path / "robot.db"
    Campaign.init(db, ["pi0_fast", "pi0", "octo", "<b>paligemma</b>"], alpha=0.2, seed=0,
                  environments=["kitchen", "bench", "sink"]).close()
    port = _free_port()
    app = create_app(db, token=TOKEN)
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the campaign server did not start")
        time.sleep(0.05)
    yield db, f"http://127.0.0.1:{port}", app.state.login_path
    srv.should_exit = True
    thread.join(10)


def test_operator_records_by_clicking_and_ranking_updates_live(server, tmp_path):
    from certirank.campaign import Campaign

    db, base, login = server
    shots = Path(os.environ.get("CERTIRANK_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    quality = {"pi0_fast": 0.9, "pi0": 0.6, "octo": 0.3, "<b>paligemma</b>": 0.1}
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            ctx = browser.new_context(viewport={"width": 1100, "height": 900})
            run = ctx.new_page()
            ranking = ctx.new_page()
            dialogs: list[str] = []
            console: list[str] = []
            for p in (run, ranking):
                p.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
                p.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
                p.on("pageerror", lambda e: console.append(str(e)))
            ranking.goto(f"{base}/ranking")
            head0 = ranking.locator("#ranking-panel").get_attribute("data-head")
            # the one-time link signs the browser in: the address bar and the history keep no token
            run.goto(f"{base}{login}")
            assert run.url == f"{base}/run" and TOKEN not in run.url
            session = next(ck for ck in ctx.cookies() if ck["name"] == "certirank_session")
            assert session["httpOnly"] and session["sameSite"] == "Strict" and TOKEN not in session["value"]
            assert run.evaluate("document.cookie") == ""  # HttpOnly: no script can read it
            run.fill("#operator", "ci-operator")
            clicks = 0
            k = 0
            while clicks < CLICKS:
                row = run.locator(".suggestion").first
                row.wait_for(timeout=10_000)
                name = row.locator(".what strong").first.inner_text()
                # deterministic pseudo-outcomes: policy quality against a fixed sequence
                success = ((k * 0.6180339887) % 1.0) < quality[name]
                k += 1
                button = row.locator("button.success" if success else "button.failure")
                with run.expect_response(lambda r: r.url.endswith("/api/record")):
                    button.click()
                clicks += 1
                run.locator(".message.ok", has_text=f"Recorded #{clicks}:").wait_for(timeout=10_000)
            run.screenshot(path=str(shots / "campaign-run.png"), full_page=True)
            # the other tab was never reloaded: its panel is swapped in by polling
            assert head0 is not None
            ranking.wait_for_function(
                "() => document.querySelector('#ranking-summary').innerText.includes('%d rollouts recorded')" % CLICKS,
                timeout=15_000)
            ranking.screenshot(path=str(shots / "campaign-ranking.png"), full_page=True)
            assert ranking.evaluate("performance.getEntriesByType('navigation').length") == 1
            # undo the last record from the run page
            with run.expect_response(lambda r: r.url.endswith("/api/undo")):
                run.locator("form[action$='/api/undo'] button").click()
            run.locator(".message.ok", has_text="Undid record").wait_for(timeout=10_000)
            ranking.wait_for_function(
                "() => document.querySelector('#ranking-summary').innerText.includes('%d rollouts recorded')" % (CLICKS - 1),
                timeout=15_000)
            # a second device signs in with a fresh one-time link made by the signed-in page
            run.locator("#login-link").evaluate("el => el.innerHTML = ''")
            run.get_by_role("button", name="Link for another device").click()
            link = run.locator(".login-link code").inner_text(timeout=10_000)
            phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                        is_mobile=True, has_touch=True).new_page()
            phone.goto(link)
            assert phone.url == f"{base}/run" and phone.locator("button.success").count() > 0
            assert phone.evaluate("document.documentElement.scrollWidth") <= 390
            phone.screenshot(path=str(shots / "campaign-phone.png"), full_page=True)
            assert not dialogs  # the hostile policy name never ran as markup
            assert not [m for m in console if "Content Security Policy" in m or "Refused" in m], "\n".join(console)
        finally:
            browser.close()
    with Campaign.open(db) as c:
        live = [e for e in c.log().entries if e.live]
        undone = [e for e in c.log().entries if e.action == "undo"]
        assert len(live) == CLICKS - 1 and len(undone) == 1
        assert {e.by for e in live} == {"ci-operator"}
        assert c.verify().ok
    assert (shots / "campaign-run.png").stat().st_size > 5_000
