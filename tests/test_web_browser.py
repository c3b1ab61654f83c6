"""The campaign page in a real browser: Playwright driving the system Chromium (no browser download).

Records rollouts with the big buttons, then with the keys a foot pedal sends, logs a fault, tags a record, undoes,
signs a phone in through the QR link, watches the ranking page and the run page follow writes made elsewhere
without a reload, and checks the campaign file. Screenshots go to ``$CERTIRANK_SCREENSHOTS`` when it is set (that is
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


def _serve(db: Path):
    import uvicorn

    from certirank.web import create_app

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
    return srv, thread, f"http://127.0.0.1:{port}", app.state.login_path


@pytest.fixture
def server(tmp_path):
    from certirank.campaign import Campaign

    db = tmp_path / "robot.db"
    Campaign.init(db, ["pi0_fast", "pi0", "octo", "<b>paligemma</b>"], alpha=0.2, seed=0,
                  environments=["kitchen", "bench", "sink"]).close()
    srv, thread, base, login = _serve(db)
    yield db, base, login
    srv.should_exit = True
    thread.join(10)


@pytest.fixture
def robot(tmp_path):
    """A campaign with the operator's design: tags, a rig checklist, a launch template."""
    from certirank.campaign import Campaign

    db = tmp_path / "towel.campaign"
    Campaign.init(db, ["pi0", "octo", "diffusion"], alpha=0.1, n_max=200, seed=3,
                  environments=["kitchen_left", "kitchen_right", "sink"], tags=["grasp", "fold", "place"],
                  checklist=["gripper pads clean", "towel flat, corner at the mark", "camera exposure locked"],
                  launch="python serve_policy.py --checkpoint {checkpoint}",
                  checkpoints={"pi0": "/ckpt/pi0", "octo": "/ckpt/octo", "diffusion": "/ckpt/dp"}).close()
    srv, thread, base, login = _serve(db)
    yield db, base, login
    srv.should_exit = True
    thread.join(10)


def _watch(page, dialogs: list[str], console: list[str]) -> None:
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("console", lambda m: console.append(f"{m.text} at {m.location}") if m.type == "error" else None)
    page.on("pageerror", lambda e: console.append(str(e)))


def _shots(tmp_path: Path) -> Path:
    shots = Path(os.environ.get("CERTIRANK_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    return shots


def test_operator_records_by_clicking_and_ranking_updates_live(server, tmp_path):
    from certirank.campaign import Campaign

    db, base, login = server
    shots = _shots(tmp_path)
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
                _watch(p, dialogs, console)
            ranking.goto(f"{base}/ranking")
            head0 = ranking.locator("#ranking-panel").get_attribute("data-head")
            # the one-time link signs the browser in: the address bar and the history keep no token
            run.goto(f"{base}{login}")
            assert run.url == f"{base}/run" and TOKEN not in run.url
            session = next(ck for ck in ctx.cookies() if ck["name"] == "certirank_session")
            assert session["httpOnly"] and session["sameSite"] == "Strict" and TOKEN not in session["value"]
            assert run.evaluate("document.cookie") == ""  # HttpOnly: no script can read it
            run.fill("#operator", "ci-operator")
            k = 0
            for clicks in range(1, CLICKS + 1):
                name = run.locator("#current-policy").inner_text(timeout=10_000)
                # deterministic pseudo-outcomes: policy quality against a fixed sequence
                success = ((k * 0.6180339887) % 1.0) < quality[name]
                k += 1
                with run.expect_response(lambda r: r.url.endswith("/api/v1/record")):
                    run.locator("#btn-success" if success else "#btn-failure").click()
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
            with run.expect_response(lambda r: r.url.endswith("/api/v1/undo")):
                run.locator("#btn-undo").click()
            run.locator(".message.ok", has_text="Undid record").wait_for(timeout=10_000)
            ranking.wait_for_function(
                "() => document.querySelector('#ranking-summary').innerText.includes('%d rollouts recorded')" % (CLICKS - 1),
                timeout=15_000)
            # a phone signs in with a fresh one-time link, shown as a QR code (server-side SVG) and as text
            run.locator("#btn-phone").click()
            run.locator("#login-link svg").wait_for(timeout=10_000)
            link = run.locator("#login-link code").inner_text()
            assert link.startswith(f"{base}/login/") and TOKEN not in link
            phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                        is_mobile=True, has_touch=True).new_page()
            _watch(phone, dialogs, console)
            phone.goto(link)
            assert phone.url == f"{base}/run" and phone.locator("#btn-success").count() == 1
            assert phone.evaluate("document.documentElement.scrollWidth") <= 390
            phone.goto(link)  # the link works once
            assert "already used" in phone.locator("body").inner_text()
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


def test_the_page_at_the_robot_keys_faults_tags_timer_checklist_and_live_updates(robot, tmp_path):
    """What an operator does with a foot pedal and a phone: keys record (S / PageDown success, F / PageUp failure,
    X fault, U undo), a fault keeps the rollout current, a ticked tag goes with the record, the timer runs, the
    checklist stays ticked across reloads, and a record made in the shell reaches the page by server-sent events
    (no reload). Screenshots for docs/campaign-at-the-robot.md."""
    from certirank.campaign import Campaign

    db, base, login = robot
    shots = _shots(tmp_path)
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            ctx = browser.new_context(viewport={"width": 1100, "height": 1000})
            page = ctx.new_page()
            dialogs: list[str] = []
            console: list[str] = []
            _watch(page, dialogs, console)
            # the live stream refetches the run panel only for news (an entry made elsewhere): a refetch swaps the
            # panel under the operator (ticked tags cleared, a key press ignored while it loads)
            refetched: list[str] = []
            page.on("request", lambda r: refetched.append(r.url) if r.url.endswith("/run/panel") else None)
            page.goto(f"{base}{login}")
            page.fill("#operator", "ana")
            page.locator("body").click(position={"x": 5, "y": 5})  # focus out of the field: keys act on the page

            def current() -> tuple[str, str]:
                return (page.locator("#current-policy").inner_text(), page.locator("#current-trial").inner_text())

            def press(key: str, endpoint: str, text: str) -> None:
                # a key pressed while htmx swaps the panel in is the operator's race the page guards against;
                # the test waits for the page to settle, as an operator waits for the next rollout to show
                page.wait_for_function("() => !document.querySelector('.htmx-request, .htmx-swapping, "
                                       ".htmx-settling')", timeout=10_000)
                with page.expect_response(lambda r: r.url.endswith(endpoint)):
                    page.keyboard.press(key)
                page.locator(".message.ok", has_text=text).wait_for(timeout=10_000)

            first = current()
            assert page.locator("#current-launch").inner_text().startswith("python serve_policy.py --checkpoint /ckpt/")
            page.wait_for_function("() => document.querySelector('#timer').innerText !== '0:00'", timeout=5_000)
            press("s", "/api/v1/record", "Recorded #1:")
            press("PageUp", "/api/v1/record", "Recorded #2:")
            # a fault: logged, never counted, and the same rollout is offered again
            held = current()
            press("x", "/api/v1/fault", "Logged fault #3:")
            assert current() == held and "1 fault so far" in page.locator("#current .order").inner_text()
            # a tag ticked before the key goes with the record
            page.locator("#tags input[value='fold']").check()
            press("f", "/api/v1/record", "Recorded #4:")
            press("PageDown", "/api/v1/record", "Recorded #5:")
            press("u", "/api/v1/undo", "Undid record #5.")
            # the checklist is ticked on this device and stays ticked across reloads (ticked on a settled page, as
            # an operator does after the undo's panel has come in)
            page.wait_for_function("() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')",
                                   timeout=10_000)
            page.locator(".check-item").first.check()
            page.wait_for_function("() => JSON.parse(localStorage.getItem('certirank-checklist:' + location.host + "
                                   "location.pathname) || '[]').length === 1", timeout=10_000)
            # a record made elsewhere (the shell, another operator) reaches the page without a reload
            head = page.locator("#run-state").get_attribute("data-head")
            todo = [s for s in Campaign.open(db).next(remember=False)]
            Campaign.open(db).record(todo[0].policy, todo[0].trial, 1.0, by="bob")
            page.wait_for_function("(h) => document.querySelector('#run-state').getAttribute('data-head') !== h",
                                   arg=head, timeout=15_000)
            assert page.evaluate("performance.getEntriesByType('navigation').length") == 1
            # once: for bob's record; never for the stream's first event nor around this page's own writes
            assert len(refetched) == 1, refetched
            page.screenshot(path=str(shots / "campaign-robot.png"), full_page=True)
            page.reload()
            page.wait_for_function("() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')",
                                   timeout=10_000)
            assert page.locator(".check-item").first.is_checked()
            assert not page.locator(".check-item").nth(1).is_checked()
            phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                        is_mobile=True, has_touch=True)
            page.locator("#btn-phone").click()
            page.locator("#login-link svg").wait_for(timeout=10_000)
            page.screenshot(path=str(shots / "campaign-qr.png"), clip={"x": 0, "y": 0, "width": 1100, "height": 520})
            p2 = phone.new_page()
            _watch(p2, dialogs, console)
            p2.goto(page.locator("#login-link code").inner_text())
            assert p2.evaluate("document.documentElement.scrollWidth") <= 390
            assert p2.locator("#current-policy").inner_text() == current()[0]
            p2.screenshot(path=str(shots / "campaign-phone.png"), full_page=True)
            p2.locator("#btn-success").tap()
            p2.locator(".message.ok", has_text="Recorded #").wait_for(timeout=10_000)
            assert not dialogs
            assert not [m for m in console if "Content Security Policy" in m or "Refused" in m], "\n".join(console)
        finally:
            browser.close()
    with Campaign.open(db) as c:
        entries = c.log().entries
        assert [e.action for e in entries[:6]] == ["record", "record", "fault", "record", "record", "undo"]
        assert entries[2].fault == "e-stop" and (entries[2].policy, str(entries[2].trial)) == held
        assert entries[3].tags == ["fold"] and entries[0].score == 1.0 and entries[1].score == 0.0
        assert entries[0].policy == first[0] and {e.by for e in entries[:6]} == {"ana"}
        assert c.status().faults[held[0]] == 1 and c.verify().ok


def test_a_record_made_elsewhere_keeps_what_the_operator_has_entered(robot):
    """The live refetch for another device's record swaps the run panel in; what this operator has ticked or typed
    and not yet sent survives it: tags and a typed partial score while the same rollout is current, a note always.
    Then the record this operator sends carries the kept tag."""
    from certirank.campaign import Campaign

    db, base, login = robot
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_context(viewport={"width": 1100, "height": 1000}).new_page()
            console: list[str] = []
            _watch(page, [], console)
            page.goto(f"{base}{login}")
            page.fill("#operator", "ana")
            settled = "() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')"
            page.wait_for_function(settled, timeout=10_000)
            mine = page.locator("#current").get_attribute("data-rollout")
            page.locator("#tags input[value='grasp']").check()
            page.fill("form.partial input[name=score]", "0.5")
            page.fill("form.note input[name=text]", "light from the window")
            # bob records another rollout than the one on ana's screen
            other = next(s for s in Campaign.open(db).next(count=6, remember=False)
                         if f"{s.policy}|{s.trial}" != mine)
            head = page.locator("#run-state").get_attribute("data-head")
            Campaign.open(db).record(other.policy, other.trial, 1.0, by="bob")
            page.wait_for_function("(h) => document.querySelector('#run-state').getAttribute('data-head') !== h",
                                   arg=head, timeout=15_000)
            page.wait_for_function(settled, timeout=10_000)
            assert page.locator("#current").get_attribute("data-rollout") == mine
            assert page.locator("#tags input[value='grasp']").is_checked()
            assert not page.locator("#tags input[value='fold']").is_checked()
            assert page.input_value("form.partial input[name=score]") == "0.5"
            assert page.input_value("form.note input[name=text]") == "light from the window"
            with page.expect_response(lambda r: r.url.endswith("/api/v1/record")):
                page.locator("#btn-success").click()
            page.locator(".message.ok", has_text="Recorded #").wait_for(timeout=10_000)
            # the next rollout starts clean: the tag described the one just recorded
            assert not page.locator("#tags input[value='grasp']").is_checked()
            # bob records the very rollout on ana's screen: her tick described it, so it does not carry over to the
            # next one; her note does
            page.wait_for_function(settled, timeout=10_000)
            shown = page.locator("#current").get_attribute("data-rollout")
            page.locator("#tags input[value='place']").check()
            page.fill("form.note input[name=text]", "gripper pads changed")
            head = page.locator("#run-state").get_attribute("data-head")
            policy, trial = shown.rsplit("|", 1)
            Campaign.open(db).record(policy, int(trial), 0.0, by="bob")
            page.wait_for_function("(h) => document.querySelector('#run-state').getAttribute('data-head') !== h",
                                   arg=head, timeout=15_000)
            page.wait_for_function(settled, timeout=10_000)
            assert page.locator("#current").get_attribute("data-rollout") != shown
            assert not page.locator("#tags input[value='place']").is_checked()
            assert page.input_value("form.note input[name=text]") == "gripper pads changed"
            assert not [m for m in console if "favicon" not in m], console
        finally:
            browser.close()
    with Campaign.open(db) as c:
        mine_entry = [e for e in c.log().entries if e.by == "ana"]
        assert len(mine_entry) == 1 and mine_entry[0].tags == ["grasp"]
        assert f"{mine_entry[0].policy}|{mine_entry[0].trial}" == mine
