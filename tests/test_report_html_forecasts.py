"""The HTML report says the forecasts of undecided pairs in the words of the text report (issue 35 item 2)."""

from __future__ import annotations

import numpy as np
import pandas as pd

import certirank
from certirank import Leaderboard
from certirank.report.html import html_report
from certirank.report.text import forecast_sentence


def _leaderboard():
    rng = np.random.default_rng(0)
    p = np.clip(np.array([0.5, 0.53, 0.6])[:, None] + np.linspace(-0.15, 0.15, 40)[None, :], 0.02, 0.98)
    lb = Leaderboard(["a", "b", "c"])
    for _ in range(4):
        lb.add_replicate((rng.random(p.shape) < p).astype(float))
    return lb.result()


def test_a_leaderboard_report_carries_its_forecast_in_replicates():
    res = _leaderboard()
    said = forecast_sentence(res, limit=None)
    assert said is not None and "more replicates" in said
    page = html_report(res)[0]
    assert "Forecast, more replicates to a decision" in page
    assert res.to_dict()["details"]["forecast_unit"] == "replicates"


def test_a_ranking_report_carries_its_forecast_in_paired_trials():
    rng = np.random.default_rng(1)
    rows = [(p, t, float(rng.random() < m)) for p, m in (("A", 0.5), ("B", 0.6)) for t in range(30)]
    res = certirank.anyrank(pd.DataFrame(rows, columns=["policy", "env", "score"]), n_max=500)
    said = forecast_sentence(res)
    assert said is not None and "more paired trials" in said
    assert "Forecast, more paired trials to a decision" in html_report(res)[0]


def test_a_decided_board_has_no_forecast_paragraph():
    rows = [(m, i, s) for m, s in (("A", 1.0), ("B", 0.0)) for i in range(60)]
    res = certirank.leaderboard(pd.DataFrame(rows, columns=["model", "item", "score"]))
    assert not res.undecided_details
    assert "Forecast, more" not in html_report(res)[0]
