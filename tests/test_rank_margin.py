"""Equivalence in rankings (issue 35 item 1): `Ranker(margin=)` and the Ranking's equivalent pairs (the command
line's `rank FILE --margin` and `campaign status`: tests/cli/test_rank.py, tests/cli/test_campaign_status.py).

Equivalent pairs are a verdict of the Ranking (``Ranking.equivalent``), never listed as undecided, shown in the
terminal, the record, Markdown and HTML; the live engine and the campaign status say the same.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import certirank
from certirank import Ranker
from certirank.errors import ParameterError
from certirank.order import Ranking, make_ranking


def _close_pair(n: int = 300, seed: int = 7) -> pd.DataFrame:
    """A and B share each environment's difficulty (a 0.01 gap), C is 0.25 better: A ~ B within 0.1."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.3, 0.7, n)
    noise = lambda: rng.normal(0, 0.1, n)  # noqa: E731
    return pd.DataFrame({"A": np.clip(base + noise(), 0, 1).round(2), "B": np.clip(base + noise(), 0, 1).round(2),
                         "C": np.clip(base + 0.25 + noise(), 0, 1).round(2)})


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


