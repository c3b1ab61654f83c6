"""Blind relabelling keeps each open pair's one-sided p-values pointing the right way."""

import numpy as np
import pandas as pd

import certirank
from certirank.campaign._views import relabel


def test_reversed_code_order_swaps_the_one_sided_pvalues_of_an_open_pair():
    rng = np.random.default_rng(5)
    rows = [{"policy": p, "env": f"e{i}", "score": float(rng.random() < q)}
            for p, q in (("A", 0.45), ("B", 0.55)) for i in range(30)]
    res = certirank.anyrank(pd.DataFrame(rows), 0.05, bins="binary", n_max=100, budget="none")
    (orig,) = res.undecided_details
    assert orig["pair"] == ["A", "B"] and orig["p_less"] != orig["p_more"]
    (coded,) = relabel(res, {"A": "Z", "B": "Y"}).undecided_details
    # B -> Y comes first now, so "less" and "more" exchange meaning
    assert coded["pair"] == ["Y", "Z"]
    assert (coded["p_less"], coded["p_more"]) == (orig["p_more"], orig["p_less"])
    (kept,) = relabel(res, {"A": "X", "B": "Y"}).undecided_details
    assert (kept["pair"], kept["p_less"], kept["p_more"]) == (["X", "Y"], orig["p_less"], orig["p_more"])
