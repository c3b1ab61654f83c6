"""A budget of replicates for BB-EDGE leaderboards (issue 35 item 2): ``Leaderboard(..., n_max=R, futility=)``,
``leaderboard(..., n_max=R)``, ``certirank leaderboard FILE --n-max R`` and ``campaign init --kind leaderboard
--n-max R``. Undecided pairs unlikely to be decided in the replicates left are ``futile`` (a forecast); a replicate
beyond the budget is refused; the budget survives saving, reopening and the record."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import certirank
from certirank import Campaign, Leaderboard
from certirank.errors import DataError, ParameterError, StateError
from certirank.methods.bbedge.forecasts import open_pair_forecasts
from certirank.methods.bbedge.margin import MarginBoards

MODELS = ["a", "b", "c"]
ITEMS = 40
#: a and b tied, c 0.1 better, item difficulties spread around the means
P = np.clip(np.array([0.5, 0.5, 0.6])[:, None] + np.linspace(-0.1, 0.1, ITEMS)[None, :], 0, 1)


def _panel(rng: np.random.Generator) -> np.ndarray:
    return (rng.random(P.shape) < P).astype(float)


def _board(seed: int, reps: int, **kw) -> Leaderboard:
    rng = np.random.default_rng(seed)
    lb = Leaderboard(MODELS, **kw)
    for _ in range(reps):
        lb.add_replicate(_panel(rng))
    return lb


def _long(panels: list[np.ndarray], first: int = 0) -> pd.DataFrame:
    rows = [(m, f"i{i}", first + r, x[k, i]) for r, x in enumerate(panels) for k, m in enumerate(MODELS)
            for i in range(x.shape[1])]
    return pd.DataFrame(rows, columns=["model", "item", "replicate", "score"])


def _detail(res, a: str, b: str) -> dict | None:
    return next((d for d in res.undecided_details if set(d["pair"]) == {a, b}), None)


def test_a_tied_pair_is_futile_under_a_small_budget_and_a_clear_pair_rarely():
    """30 seeded boards with a budget of 15 replicates, after 5: the tied pair a-b is futile in at least 2/3 of
    them (measured 26 of 30), c vs a (when still open) in at most half (measured 8 of 28), each with a 1 % binomial
    tolerance; the verdicts are those of the forecast's one home with the same budget."""
    tied, clear = [], []
    for seed in range(30):
        lb = _board(seed, 5, n_max=15)
        res = lb.result()
        same = open_pair_forecasts(lb, res.ranking.undecided, n_max=15, futility=0.1)
        assert res.undecided_details == same
        for pair, out in (("ab", tied), ("ac", clear)):
            d = _detail(res, *pair)
            if d is not None:
                assert d["forecast"]["horizon"] == 10 and d["forecast"]["futile"] is not None
                out.append(d["verdict"] == "futile")
    assert len(tied) == 30 and len(clear) >= 20
    assert sum(tied) >= stats.binom.ppf(0.01, len(tied), 2 / 3), sum(tied)
    assert sum(clear) <= stats.binom.isf(0.01, len(clear), 1 / 2), sum(clear)
    # a lower futility level calls fewer pairs futile; without a budget none
    strict = sum(_detail(_board(s, 5, n_max=15, futility=0.001).result(), "a", "b")["verdict"] == "futile"
                 for s in range(10))
    assert strict <= sum(tied[:10])
    assert all(d["verdict"] == "undecided" for d in _board(0, 5).result().undecided_details)


def test_a_replicate_beyond_the_budget_is_refused_and_changes_nothing():
    lb = _board(1, 4, n_max=4)
    before = lb.to_dict()
    with pytest.raises(StateError, match="budget of 4 replicates is reached"):
        lb.add_replicate(_panel(np.random.default_rng(2)))
    assert lb.R == 4 and lb.to_dict() == before
    res = lb.result()  # at the budget nothing more may run: every open pair is futile (no chance left)
    assert res.undecided_details and all(d["verdict"] == "futile" and d["forecast"]["horizon"] == 0
                                         for d in res.undecided_details)
    # a margin's two boards refuse it before either changes
    mb = MarginBoards(MODELS, alpha=0.05, margin=0.05, n_max=2)
    rng = np.random.default_rng(3)
    mb.add_replicate(_panel(rng)).add_replicate(_panel(rng))
    with pytest.raises(StateError):
        mb.add_replicate(_panel(rng))
    assert mb.board.R == mb.equivalence.R == 2
    # the batch verb: a file with more replicates than the budget, as rank refuses more trials than n_max
    df = _long([_panel(rng) for _ in range(3)])
    with pytest.raises(DataError, match=r"n_max = 2 is smaller than the data in hand \(3 replicates\)"):
        certirank.leaderboard(df, n_max=2)


def test_the_budget_round_trips_through_saved_state_and_the_record():
    lb = _board(4, 3, n_max=9, futility=0.2)
    back = Leaderboard.from_dict(json.loads(lb.to_json()))
    assert (back.n_max, back.futility) == (9, 0.2)
    assert back.result().to_dict() == lb.result().to_dict()
    rng = np.random.default_rng(5)
    for _ in range(6):
        back.add_replicate(_panel(rng))
    with pytest.raises(StateError):
        back.add_replicate(_panel(rng))
    # a board without a budget saves the same keys as before the budget existed (its checksum is unchanged)
    assert "n_max" not in _board(4, 3).to_dict() and "futility" not in _board(4, 3).to_dict()
    rec = lb.result().to_dict()
    assert rec["inputs"]["n_max"] == 9 and rec["inputs"]["futility"] == 0.2
    mb = MarginBoards(MODELS, alpha=0.05, margin=0.05, n_max=7)
    mb.add_replicate(_panel(rng)).add_replicate(_panel(rng)).add_replicate(_panel(rng))
    mb2 = MarginBoards.from_json(mb.to_json())
    assert mb2.board.n_max == mb2.equivalence.n_max == 7
    assert mb2.result().undecided_details == mb.result().undecided_details
    assert all(d["forecast"]["horizon"] == 4 for d in mb.result().undecided_details if d["forecast"])


def test_the_verdict_in_json_text_and_markdown(cli, tmp_path):
    rng = np.random.default_rng(6)
    path = tmp_path / "runs.csv"
    _long([_panel(rng) for _ in range(5)]).to_csv(path, index=False)
    api = certirank.leaderboard(pd.read_csv(path), n_max=6)
    assert _detail(api, "a", "b")["verdict"] == "futile"
    d = json.loads(cli.ok(["leaderboard", path, "--n-max", 6, "--json"]))
    assert d["inputs"]["n_max"] == 6 and d["inputs"]["futility"] == 0.1
    assert d["details"]["undecided_details"] == json.loads(json.dumps(api.undecided_details))
    text = cli.words(cli(["leaderboard", path, "--n-max", 6]))
    assert "5 replicate(s) of a budget of 6" in text and "a vs b futile" in text.replace("b vs a", "a vs b")
    md = cli.ok(["leaderboard", path, "--n-max", 6, "--markdown"])
    assert "futile" in md and "not a guarantee" in md
    # --futility moves the line: nothing is futile below a chance of 1e-9
    low = json.loads(cli.ok(["leaderboard", path, "--n-max", 600, "--futility", 1e-9, "--json"]))
    assert all(x["verdict"] == "undecided" for x in low["details"]["undecided_details"])


def test_a_leaderboard_campaign_with_a_budget(cli, tmp_path):
    rng = np.random.default_rng(6)
    files = []
    for r in range(5):
        f = tmp_path / f"run{r}.csv"
        _long([_panel(rng)], first=r).drop(columns="replicate").to_csv(f, index=False)
        files.append(f)
    db = tmp_path / "b.campaign"
    cli.ok(["campaign", "init", db, "--kind", "leaderboard", "--models", ",".join(MODELS), "--n-max", 4])
    for f in files[:3]:
        cli.ok(["campaign", "add-run", db, f])
    with Campaign.open(db) as c:
        assert c.config["engine"]["n_max"] == 4
        st = c.status()
        futile = [v for v in st.verdicts if v["verdict"] == "futile"]
        assert ["a", "b"] in [sorted(v["pair"]) for v in futile] and not st.done
        for v in futile:
            assert "futile at the budget — unlikely to be decided in the 1 replicate left" in v["sentence"]
            assert v["sentence"].endswith("a forecast at the current estimates, not a guarantee")
            assert v["budget_left"] == 1 and v["forecast"] is True
    text = cli.words(cli(["campaign", "status", db]))
    assert "futile: " in text and "futile at the budget" in text and "a budget of 4 replicates" in text
    cli.ok(["campaign", "add-run", db, files[3]])
    st = json.loads(cli.ok(["campaign", "status", db, "--json"]))
    assert st["details"]["done"] and "the budget of 4 replicates is reached" in st["details"]["termination"]
    assert "Nothing to run" in cli.words(cli(["campaign", "next", db]))
    cli.fails(["campaign", "add-run", db, files[4]], "budget of 4 replicates is reached")
    assert cli.campaign("verify", db).exit_code == 0
    # a campaign without a budget locks the configuration it always did (no n_max key: the same hash)
    with Campaign.init(tmp_path / "free.campaign", kind="leaderboard", models=MODELS) as c:
        assert "n_max" not in c.config["engine"]


@pytest.mark.parametrize("bad", [0, -1, 1.5, "x"])
def test_bad_budgets_are_refused_in_one_line(cli, tmp_path, bad):
    with pytest.raises(ParameterError, match="n_max"):
        Leaderboard(MODELS, n_max=bad)
    rng = np.random.default_rng(7)
    path = tmp_path / "runs.csv"
    _long([_panel(rng) for _ in range(2)]).to_csv(path, index=False)
    with pytest.raises(ParameterError, match="n_max"):
        certirank.leaderboard(str(path), n_max=bad)
    cli.refuses(["leaderboard", path, "--n-max", bad], "n-max" if isinstance(bad, (str, float)) else "n_max")
    cli.refuses(["campaign", "init", tmp_path / "c.campaign", "--kind", "leaderboard", "--models", "a,b",
                 "--n-max", bad])
    assert not (tmp_path / "c.campaign").exists()


def test_the_single_run_exact_budget_table_takes_no_budget_of_replicates(cli, tmp_path):
    rng = np.random.default_rng(8)
    df = _long([_panel(rng)]).drop(columns="replicate")
    assert certirank.leaderboard(df).method == "exact-budget"
    with pytest.raises(ParameterError, match="budget is the table's items"):
        certirank.leaderboard(df, n_max=3)
    path = tmp_path / "one.csv"
    df.to_csv(path, index=False)
    cli.fails(["leaderboard", path, "--n-max", 3], "exact budget test")
    # with BB-EDGE chosen the budget counts the board's one replicate
    res = certirank.leaderboard(df, n_max=3, method="bb-edge")
    assert res.n_max == 3 and res.replicates == 1


def test_the_page_shows_the_futile_verdict(tmp_path):
    pytest.importorskip("fastapi", reason="the campaign page needs the 'web' extra")
    from fastapi.testclient import TestClient

    from certirank.web import create_app
    rng = np.random.default_rng(6)
    path = tmp_path / "page.campaign"
    with Campaign.init(path, kind="leaderboard", models=MODELS, n_max=4) as c:
        for r in range(3):
            c.add_run(_long([_panel(rng)]).drop(columns="replicate"))
        said = [v["sentence"] for v in c.status().verdicts if v["verdict"] == "futile"]
    assert said
    page = TestClient(create_app(path, token="t0ken-t0ken"), base_url="http://127.0.0.1").get("/ranking").text
    for s in said:
        assert s.replace("'", "&#39;") in page, s


def test_a_campaign_with_a_margin_keeps_its_budget_on_reopen(tmp_path):
    rng = np.random.default_rng(9)
    path = tmp_path / "m.campaign"
    with Campaign.init(path, kind="leaderboard", models=MODELS, margin=0.05, n_max=3) as c:
        for _ in range(3):
            c.add_run(_long([_panel(rng)]).drop(columns="replicate"))
    with Campaign.open(path) as c:
        st = c.status()
        assert st.done and "budget of 3 replicates is reached" in st.termination
        assert c.result().n_max == 3
        assert all(v["budget_left"] == 0 for v in st.verdicts if v["verdict"] not in ("certified", "equivalent"))
        with pytest.raises(StateError, match="budget of 3 replicates"):
            c.add_run(_long([_panel(rng)]).drop(columns="replicate"))
        assert c.next() == []
