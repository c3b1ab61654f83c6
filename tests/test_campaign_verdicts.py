"""Verdicts for the operator (issue 34 item 7): per pair, certified, futile at the budget, or "about N more
rollouts each", in `status`, the CLI and the page — the same verdicts the whole-data replay (`anyrank`) gives
on the same trials (issue 35's forecasts, `methods/anyrank/verdicts.py`)."""

from __future__ import annotations

import inspect

import pandas as pd
import pytest

import certirank
from certirank import Campaign

# deterministic outcomes by trial: strong always succeeds, mid 3 times in 4, the two "even" policies alike
PATTERN = {"strong": lambda t: 1.0, "mid": lambda t: float(t % 4 != 0), "even": lambda t: float(t % 2 == 0),
           "even2": lambda t: float(t % 2 == 0)}


@pytest.fixture
def ran(tmp_path):
    db = tmp_path / "verdicts.campaign"
    with Campaign.init(db, list(PATTERN), alpha=0.1, n_max=80, seed=1) as c:
        for _ in range(24):
            for s in c.next():
                c.record(s.policy, s.trial, PATTERN[s.policy](s.trial))
    return db


def test_status_gives_every_pair_a_verdict(ran):
    with Campaign.open(ran) as c:
        st = c.status()
    by_pair = {tuple(v["pair"]): v for v in st.verdicts}
    assert len(by_pair) == 6  # every pair once
    assert by_pair[("strong", "even")]["verdict"] == "certified"
    assert "strong is better than even (certified directly" in by_pair[("strong", "even")]["sentence"]
    close = by_pair[("strong", "mid")]
    assert close["verdict"] == "undecided" and close["budget_left"] == 80 - 24
    assert isinstance(close["more_needed"], int) and 0 < close["more_needed"] <= close["budget_left"]
    assert f"about {close['more_needed']} more rollouts each" in close["sentence"] and "not a guarantee" in close["sentence"]
    far = by_pair[("mid", "even")]
    assert far["more_needed"] > far["budget_left"] and "more than the 56 the budget has left" in far["sentence"]
    # two policies with the same outcomes on every trial: no continuation is likely to separate them
    tie = by_pair[("even", "even2")]
    assert tie["verdict"] == "futile" and tie["forecast"] is True and "futile at the budget" in tie["sentence"]
    assert "not a guarantee" in tie["sentence"]


def test_the_live_verdicts_are_the_replays_on_the_same_trials(ran):
    """The campaign's forecasts come from its live engine; the whole-data replay of the same table gives the
    same open pairs, trials consumed, verdicts and forecasts."""
    with Campaign.open(ran) as c:
        st = c.status()
        records = c.records()
    wide = (pd.DataFrame([{"policy": r.policy, "env": r.trial, "score": r.score} for r in records])
            .pivot(index="env", columns="policy", values="score")[list(PATTERN)])
    kwargs = {"order": "given"} if "order" in inspect.signature(certirank.anyrank).parameters else {}
    # the campaign declared partial-progress bins (a live campaign never infers its scale): the replay says so too
    res = certirank.anyrank(wide, alpha=0.1, n_max=80, bins="progress", **kwargs)

    def key(details):
        return {tuple(d["pair"]): (d["verdict"], d["more_needed"], d["trials"]) for d in details}
    assert key(st.result.undecided_details) == key(res.undecided_details)


def test_the_page_shows_the_verdicts(ran):
    pytest.importorskip("fastapi", reason="the campaign page needs the 'web' extra")
    from fastapi.testclient import TestClient

    from certirank.web import create_app
    client = TestClient(create_app(ran, token="t0ken-t0ken"), base_url="http://127.0.0.1")
    with Campaign.open(ran) as c:
        sentences = [v["sentence"] for v in c.status().verdicts]
    for path in ("/run", "/ranking"):
        page = client.get(path).text
        assert 'id="verdicts"' in page, path
        for s in sentences:
            assert s.replace("'", "&#39;") in page, (path, s)


def test_no_forecast_before_ten_paired_trials(tmp_path):
    """Two failures each would extrapolate to "futile": the forecasts wait for MIN_FORECAST_TRIALS."""
    from certirank.campaign._status import MIN_FORECAST_TRIALS
    with Campaign.init(tmp_path / "early.campaign", list(PATTERN), alpha=0.1, n_max=80, seed=1) as c:
        for _ in range(3):
            for s in c.next():
                c.record(s.policy, s.trial, PATTERN[s.policy](s.trial))
        st = c.status()
    assert MIN_FORECAST_TRIALS == 10
    open_ = [v for v in st.verdicts if v["verdict"] != "certified"]
    assert len(open_) == 6 and {v["verdict"] for v in open_} == {"undecided"}
    assert all(v["more_needed"] is None and "too early for a forecast; at most 77 more rollouts each" in v["sentence"]
               for v in open_)
    # the engine's details keep the raw forecast (the JSON says what the method computed)
    assert any(d.get("verdict") == "futile" for d in st.result.undecided_details)
