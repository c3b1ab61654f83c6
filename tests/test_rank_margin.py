"""Equivalence in rankings (issue 35 item 1): `rank FILE --margin`, `Ranker(margin=)` and campaigns.

Equivalent pairs are a verdict of the Ranking (``Ranking.equivalent``), never listed as undecided, shown in the
terminal, the record, Markdown and HTML; the live engine and the campaign status say the same.
"""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import certirank
from certirank import Ranker
from certirank.cli import app
from certirank.errors import ParameterError
from certirank.order import Ranking, make_ranking

runner = CliRunner()


def _close_pair(n: int = 300, seed: int = 7) -> pd.DataFrame:
    """A and B share each environment's difficulty (a 0.01 gap), C is 0.25 better: A ~ B within 0.1."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.3, 0.7, n)
    noise = lambda: rng.normal(0, 0.1, n)  # noqa: E731
    return pd.DataFrame({"A": np.clip(base + noise(), 0, 1).round(2), "B": np.clip(base + noise(), 0, 1).round(2),
                         "C": np.clip(base + 0.25 + noise(), 0, 1).round(2)})


@pytest.fixture(scope="module")
def close_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("margin") / "close.csv"
    _close_pair().to_csv(path, index_label="env")
    return path


def test_rank_margin_terminal_json_markdown(close_csv):
    out = runner.invoke(app, ["rank", str(close_csv), "--margin", "0.1"])
    assert out.exit_code == 0, out.output
    text = " ".join(out.stdout.split())
    assert "1 equivalent (within 0.1); 0 undecided" in text
    assert "Equivalent (1; |difference of means| < 0.1" in text and "B ~ A" in text
    out = runner.invoke(app, ["rank", str(close_csv), "--margin", "0.1", "--json"])
    d = json.loads(out.stdout)
    assert d["inputs"]["margin"] == 0.1
    assert d["ranking"]["equivalent"] == [["B", "A"]] and d["ranking"]["undecided"] == []
    assert d["ranking"]["counts"]["equivalent"] == 1 and d["ranking"]["margin"] == 0.1
    assert "covers equivalence claims too" in d["ranking"]["guarantee"]
    schema = json.loads(resources.files("certirank").joinpath("schemas/result-1.json").read_text("utf-8"))
    jsonschema.validate(d, schema)
    md = runner.invoke(app, ["rank", str(close_csv), "--margin", "0.1", "--markdown"]).stdout
    assert "**Equivalent** (|difference of means| < 0.1, certified): B ~ A" in md
    assert "1 equivalent (within 0.1), 0 undecided" in md and "**Undecided:**" not in md


def test_rank_margin_html_report(close_csv, tmp_path):
    js = tmp_path / "r.json"
    js.write_text(runner.invoke(app, ["rank", str(close_csv), "--margin", "0.1", "--json"]).stdout)
    html = tmp_path / "r.html"
    out = runner.invoke(app, ["report", str(js), "--html", str(html)])
    assert out.exit_code == 0, out.output
    page = html.read_text()
    assert "B and A are equivalent: |difference of means| &lt; 0.1" in page
    assert "B vs A: undecided" not in page


def test_without_margin_the_record_is_unchanged(close_csv):
    d = json.loads(runner.invoke(app, ["rank", str(close_csv), "--json"]).stdout)
    assert "equivalent" not in d["ranking"] and "margin" not in d["ranking"]
    assert "equivalent" not in d["ranking"]["counts"]
    assert ["B", "A"] in d["ranking"]["undecided"] or ["A", "B"] in d["ranking"]["undecided"]


@pytest.mark.parametrize("args, needle", [
    (["--margin", "0"], "margin"), (["--margin", "1"], "margin"), (["--margin", "-0.2"], "margin"),
    (["--margin", "nan"], "margin"), (["--margin", "0.1", "--guarantee", "strict"], "guarantee='paper'"),
    (["--margin", "0.1", "--orders", "3"], "orders"), (["--margin", "0.1", "--about", "table"], "--margin"),
])
def test_rank_margin_bad_input_is_one_line_exit_2(close_csv, args, needle):
    out = runner.invoke(app, ["rank", str(close_csv), *args])
    assert out.exit_code == 2, out.output
    assert needle in out.output and "Traceback" not in out.output


def test_ranking_equivalent_round_trip_and_relabel():
    r = make_ranking(["A", "B", "C"], [("C", "A"), ("C", "B")], kind="anyrank", alpha=0.05)
    e = r.with_equivalent([["B", "A"]], 0.1)
    assert e.undecided == () and e.equivalent == (("A", "B"),) and e.margin == 0.1
    assert Ranking.from_dict(e.to_dict()) == e
    assert e.relabel({"A": "x", "B": "y"}).equivalent in ((("x", "y"),), (("y", "x"),))
    assert "A and B are equivalent: their means differ by less than 0.1" in " ".join(e.sentences())
    with pytest.raises(ParameterError, match="not an undecided pair"):
        e.with_equivalent([["C", "A"]], 0.1)


def _feed(r: Ranker, rng: np.random.Generator, gap: float = 0.0) -> None:
    base = rng.uniform(0.3, 0.7, r.n_max)
    shift = {"A": 0.0, "B": gap, "C": 0.3}
    while not r.done:
        todo = r.suggest()
        if not todo:
            break
        for p, t in todo:
            r.record(p, t, float(np.clip(base[t] + shift[p] + rng.normal(0, 0.1), 0, 1)))


def test_live_ranker_margin_saved_and_equal_to_the_replay():
    r = Ranker(["A", "B", "C"], n_max=300, margin=0.1)
    _feed(r, np.random.default_rng(3))
    res = r.result()
    assert res.equivalent == [["B", "A"]] or res.equivalent == [["A", "B"]]
    assert res.undecided == [] and res.to_dict()["inputs"]["margin"] == 0.1
    again = Ranker.from_dict(r.to_dict())
    assert again.margin == 0.1 and again.result().equivalent == res.equivalent
    # no margin: the saved configuration (and so its checksum) is what it was before equivalence existed
    assert "margin" not in Ranker(["A", "B"]).to_dict()["config"]
    with pytest.raises(ParameterError, match="margin"):
        Ranker(["A", "B"], margin=0.1, guarantee="strict")
    with pytest.raises(ParameterError, match="margin"):
        Ranker(["A", "B"], margin=1.5)


def test_campaign_margin_status_shows_equivalent(tmp_path):
    out = runner.invoke(app, ["campaign", "init", str(tmp_path / "c.campaign"), "--policies", "A,B,C",
                              "--margin", "0.1", "--n-max", "300", "--seed", "1"])
    assert out.exit_code == 0, out.output
    rng = np.random.default_rng(3)
    base = rng.uniform(0.3, 0.7, 300)
    with certirank.Campaign.open(tmp_path / "c.campaign") as c:
        for _ in range(400):
            todo = c.next()
            if not todo:
                break
            for item in todo:
                p, t = item.policy, item.trial
                c.record(p, t, float(np.clip(base[t] + (0.3 if p == "C" else 0.0) + rng.normal(0, 0.1), 0, 1)))
            if c.status().to_dict()["ranking"]["equivalent"]:
                break
        st = c.status()
    eq = [v for v in st.verdicts if v["verdict"] == "equivalent"]
    assert len(eq) == 1 and set(eq[0]["pair"]) == {"A", "B"} and "margin of 0.1" in eq[0]["sentence"]
    out = runner.invoke(app, ["campaign", "status", str(tmp_path / "c.campaign")])
    assert out.exit_code == 0 and "equivalent" in out.stdout
    bad = runner.invoke(app, ["campaign", "init", str(tmp_path / "d.campaign"), "--kind", "leaderboard",
                              "--models", "a,b", "--margin", "0.1"])
    assert bad.exit_code == 2 and "margin" in bad.output
