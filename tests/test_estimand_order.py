"""What a certified claim is about, and the order whole data are read in (spec 09, issue 30)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import certirank
from certirank.data.order import arrange, order_check, read_order
from certirank.errors import DataError, ParameterError


def _tol(alpha: float, n: int) -> float:
    """alpha plus three binomial standard errors of an estimate from n runs."""
    return alpha + 3 * math.sqrt(alpha * (1 - alpha) / n)


def _sorted_equal(rng: np.random.Generator, n: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Two equal policies (Bernoulli 0.5), rows sorted so that A's successes come first (spec 09 §8)."""
    a = (rng.random(n) < 0.5).astype(float)
    b = (rng.random(n) < 0.5).astype(float)
    rows = np.argsort(-a, kind="stable")
    return a[rows], b[rows]


@pytest.mark.parametrize("tables", [150, pytest.param(1000, marks=pytest.mark.slow)])
def test_sorted_equal_policies_default_order_holds_alpha_and_file_order_warns(tables):
    alpha = 0.05
    rng = np.random.default_rng(90)
    wrong_default = wrong_file = warned = 0
    for k in range(tables):
        a, b = _sorted_equal(rng)
        wrong_default += certirank.compare(a, b, alpha, bins="binary").decision is not None
        if k < 20:  # file order: nearly deterministic here, a few tables show it
            given = certirank.compare(a, b, alpha, bins="binary", order="given")
            wrong_file += given.decision is not None
            warned += any("trend with row order" in w for w in given.warnings)
    assert wrong_default / tables <= _tol(alpha, tables), wrong_default
    assert wrong_file / 20 > 0.5 and warned == 20


def _difficulty_table() -> pd.DataFrame:
    """50 items sorted by difficulty: B solves the 10 easiest, A the next 15 (means 0.30 vs 0.20)."""
    a, b = np.zeros(50), np.zeros(50)
    b[:10] = 1.0
    a[10:25] = 1.0
    return pd.DataFrame({"A": a, "B": b})


@pytest.mark.parametrize("seeds", [120, pytest.param(1000, marks=pytest.mark.slow)])
def test_sorted_by_difficulty_the_default_never_certifies_the_reverse(seeds):
    table = _difficulty_table()
    assert table["A"].mean() == pytest.approx(0.30) and table["B"].mean() == pytest.approx(0.20)
    # in file order the early rows say the opposite of the whole table, and a test that trusts them errs
    given = certirank.compare(table, a="A", b="B", order="given")
    assert given.ranking.better("B", "A") and given.warnings
    x, y = table["A"].to_numpy(), table["B"].to_numpy()
    reversed_ = [s for s in range(seeds) if certirank.compare(x, y, seed=s).decision == "x<y"]
    assert reversed_ == []
    # the table path reads the rows in the same order as the arrays path
    for s in (0, 7):
        assert certirank.compare(table, a="A", b="B", seed=s).pvalue == certirank.compare(
            x, y, seed=s, bins="binary", n_max=x.size).pvalue  # a table in hand declares what arrays must


def test_seven_of_fifty_vs_six_of_fifty(cli):
    a, b = np.zeros(50), np.zeros(50)
    a[:7], b[:6] = 1.0, 1.0
    table = pd.DataFrame({"A": a, "B": b})
    assert certirank.anyrank(table).ranking.relations == ()  # about the policies: undecided
    res = certirank.anyrank(table, about="table")
    assert res.about == "table" and res.ranking.better("A", "B")
    out = cli(["rank", _csv(table), "--about", "table"])
    assert out.exit_code == 0, out.output
    text = " ".join(out.stdout.split())
    assert "exact" in text and "nothing is inferred beyond this table" in text and "table letters" in text
    default = " ".join(cli(["rank", _csv(table)]).stdout.split())
    assert "A vs B" in default and "Undecided" in default and "table letters" not in default


_TMP: list = []


def _csv(table: pd.DataFrame) -> str:
    import tempfile
    d = tempfile.mkdtemp()
    _TMP.append(d)
    path = f"{d}/t.csv"
    table.to_csv(path, index=False)
    return path


def test_same_seed_same_json_bytes_and_seed_in_the_record(cli):
    rng = np.random.default_rng(4)
    table = pd.DataFrame({"A": (rng.random(80) < 0.7).astype(float), "B": (rng.random(80) < 0.4).astype(float),
                          "C": (rng.random(80) < 0.5).astype(float)})
    path = _csv(table)
    for args in (["rank", path], ["compare", path, "--a", "A", "--b", "B"], ["check", path, "--claim", "A>B"],
                 ["rank", path, "--about", "table"], ["rank", path, "--seed", "5"]):
        one, two = (cli([*args, "--json"]) for _ in range(2))
        assert one.exit_code in (0, 1, 3), one.output
        assert one.stdout == two.stdout  # byte-identical
        order = json.loads(one.stdout)["inputs"]["order"]
        assert order == {"kind": "random", "seed": 5 if "--seed" in args else 0}
    a = json.loads(cli(["rank", path, "--seed", "1", "--json"]).stdout)
    b = json.loads(cli(["rank", path, "--seed", "2", "--json"]).stdout)
    assert a["inputs"]["order"]["seed"] == 1 and b["inputs"]["order"]["seed"] == 2


def test_order_kinds_and_their_records(tmp_path):
    rng = np.random.default_rng(2)
    long = pd.DataFrame({"policy": np.repeat(["A", "B"], 40), "env": np.tile([f"e{i}" for i in range(40)], 2),
                         "score": (rng.random(80) < 0.5).astype(float),
                         "time": np.tile(pd.date_range("2026-01-01", periods=40, freq="h").astype(str)[::-1], 2)})
    path = tmp_path / "t.csv"
    long.to_csv(path, index=False)
    res = certirank.anyrank(path)
    assert res.order == {"kind": "column", "column": "time"}
    assert any(w.startswith("note: rows read in the order of column 'time'") for w in res.warnings)
    table = certirank.load(path)
    plan = read_order(table)
    assert plan.kind == "column" and plan.announced
    # the units come in time order: the last env of the file (earliest time) first
    wide = certirank.data.table.to_wide(arrange(table, plan))
    assert list(wide.index[:2]) == ["e39", "e38"]
    assert certirank.anyrank(path, order="given").order == {"kind": "given"}
    assert certirank.anyrank(path, order_by="score").order == {"kind": "column", "column": "score"}
    with pytest.raises(ParameterError, match="averages over random orders"):
        certirank.anyrank(path, orders=3)  # the run order is known: there is no random order to average


def test_random_order_permutes_pairing_units_not_rows():
    # long table without env labels: the n-th trial of each policy stays paired with the others' n-th
    table = certirank.load(pd.DataFrame({"policy": ["A"] * 6 + ["B"] * 6, "score": [1, 1, 1, 0, 0, 0] * 2}))
    wide = certirank.data.table.to_wide(arrange(table, read_order(table, seed=3)))
    assert (wide["A"].to_numpy() == wide["B"].to_numpy()).all()
    assert sorted(wide["A"].tolist()) == [0, 0, 0, 1, 1, 1]


def test_order_check_names_each_trending_policy():
    wide = pd.DataFrame({"A": np.r_[np.ones(30), np.zeros(30)], "B": np.tile([0.0, 1.0], 30)})
    lines = order_check(wide, [("A", "B")])
    assert any(line.startswith("A: scores trend with row order (rho = -0.") for line in lines)
    assert not any(line.startswith("B:") for line in lines)
    assert any(line.startswith("B - A: paired differences trend") for line in lines)
    assert all("drop --order file" in line for line in lines)


def test_orders_average_is_valid_and_has_no_decision_time():
    alpha, reps = 0.1, 80
    rng = np.random.default_rng(31)
    wrong = 0
    for _ in range(reps):
        x, y = (rng.random(60) < 0.5).astype(float), (rng.random(60) < 0.5).astype(float)
        res = certirank.compare(x, y, alpha, bins="binary", orders=4)
        wrong += res.decision is not None
        assert res.decided_at is None and res.order == {"kind": "random", "seed": 0, "orders": 4}
    assert wrong / reps <= _tol(alpha, reps)
    strong = certirank.compare(np.ones(40), np.zeros(40), bins="binary", orders=3)
    assert strong.decision == "x>y" and "averaged over 3 random orders" in strong.test
    table = pd.DataFrame({"A": np.r_[np.ones(35), np.zeros(5)], "B": np.zeros(40), "C": np.r_[np.ones(5), np.zeros(35)]})
    res = certirank.anyrank(table, orders=4)
    assert res.ranking.better("A", "B") and res.ranking.better("A", "C")
    assert all(r.when is None for r in res.ranking.relations) and "4 random orders" in res.ranking.guarantee


def test_every_estimand_is_said():
    table = _difficulty_table()
    assert certirank.anyrank(table).about == "policy"
    assert certirank.anyrank(table, about="table").about == "table"
    runs = pd.DataFrame([(m, f"i{i}", r, float((i + r) % 3 == 0) if m == "a" else 0.0)
                         for r in range(2) for m in ("a", "b") for i in range(30)],
                        columns=["model", "item", "replicate", "score"])
    assert certirank.leaderboard(runs).about == "benchmark"
    one = certirank.leaderboard(runs[runs.replicate == 0])
    assert one.about == "policy" and any("one run per item" in w for w in one.warnings)
    checked = certirank.check(runs, ["a>b"])
    assert checked.about == "policy" and any("mean over its 2 runs" in w for w in checked.warnings)
    assert certirank.check(runs, ["a>b"], about="benchmark").about == "benchmark"
    sentence = certirank.anyrank(pd.DataFrame({"A": np.ones(40), "B": np.zeros(40)})).ranking.sentences()[0]
    assert "about the policies' expected scores" in sentence


def test_check_fail_on_reversed_and_shared_defaults():
    table = pd.DataFrame({"A": np.r_[np.ones(40), np.zeros(10)], "B": np.r_[np.zeros(40), np.ones(10)],
                          "C": np.tile([0.0, 1.0], 25), "D": np.tile([1.0, 0.0], 25)})
    assert certirank.check(table, ["B>A"]).exit_code == 3
    assert certirank.check(table, ["B>A"], fail_on="reversed").exit_code == 3
    assert certirank.check(table, ["A>B", "C>D"]).exit_code == 1  # C vs D: equal, not certified
    assert certirank.check(table, ["A>B", "C>D"], fail_on="reversed").exit_code == 0
    # check and compare read the same rows in the same order with the same test
    # (compare stops reading at its decision; check reads every row, so its p-value is that one or smaller)
    claim = certirank.check(table, ["A>B"]).claims[0]
    pair = certirank.compare(table, a="A", b="B")
    assert claim["status"] == "certified" and pair.decision == "x>y" and claim["pvalue"] <= pair.pvalue
    assert certirank.check(table, ["A>B"]).bettor == pair.bettor
    given = certirank.compare(table, a="A", b="B", order="given")
    assert certirank.check(table, ["A>B"], order="given").claims[0]["pairs"] == given.n == len(table)


@pytest.mark.parametrize("args, needle", [
    (["rank", "{f}", "--about", "sideways"], "about must be one of"),
    (["rank", "{f}", "--order", "backwards"], "order must be one of"),
    (["rank", "{f}", "--order-by", "nope"], "no column 'nope'"),
    (["rank", "{f}", "--order-by", "label"], "cannot be sorted"),
    (["rank", "{f}", "--orders", "0"], "orders must be a positive integer"),
    (["compare", "{f}", "--a", "A", "--b", "B", "--orders", "0"], "orders must be a positive integer"),
    (["check", "{f}", "--claim", "A>B", "--about", "sideways"], "about must be one of"),
    (["check", "{f}", "--claim", "A>B", "--fail-on", "never"], "fail_on must be one of"),
    (["rank", "{f}", "--about", "benchmark"], "leaderboard"),
    (["rank", "{f}", "--about", "table", "--order", "file"], "not apply with --about table"),
    (["rank", "{f}", "--orders", "3", "--order", "file"], "averages over random orders"),
])
def test_bad_order_and_estimand_input_is_one_line_exit_2(cli, tmp_path, args, needle):
    f = tmp_path / "t.csv"
    pd.DataFrame({"policy": ["A", "B"] * 20, "env": np.repeat(np.arange(20), 2), "score": [1.0, 0.0] * 20,
                  "label": ["x", "y"] * 20}).to_csv(f, index=False)
    res = cli([a.format(f=f) for a in args])
    assert res.exit_code == 2, res.output
    assert res.output.startswith("error: ") and res.output.count("\n") == 1 and needle in res.output


def test_api_refuses_what_the_cli_refuses():
    table = pd.DataFrame({"A": np.ones(10), "B": np.zeros(10)})
    with pytest.raises(ParameterError, match="orders must be a positive integer"):
        certirank.anyrank(table, orders=0)
    with pytest.raises(ParameterError, match="order must be one of"):
        certirank.compare([1.0] * 5, [0.0] * 5, order="backwards")
    with pytest.raises(DataError, match="no column 'time'"):
        certirank.anyrank(table, order_by="time")
    with pytest.raises(ParameterError, match="leaderboard"):
        certirank.compare(table, a="A", b="B", about="benchmark")


def test_shuffle_is_a_deprecated_alias_of_about_table(cli, tmp_path):
    f = tmp_path / "t.csv"
    pd.DataFrame({"A": np.r_[np.ones(30), np.zeros(10)], "B": np.zeros(40)}).to_csv(f, index=False)
    old = cli(["rank", str(f), "--shuffle", "4", "--json"])
    new = cli(["rank", str(f), "--about", "table", "--seed", "4", "--json"])
    assert old.exit_code == new.exit_code == 0
    assert "--shuffle is deprecated" in old.stderr and "--about table --seed 4" in old.stderr
    assert json.loads(old.stdout)["ranking"] == json.loads(new.stdout)["ranking"]
    assert json.loads(new.stdout)["about"] == "table"
    with pytest.warns(DeprecationWarning, match="table_ranking"):
        certirank.shuffled_ranking(str(f), 0.05, seed=4)


def test_independent_arms_on_visibly_paired_data_get_one_warning(cli, tmp_path):
    """Issue 31: an explicit --arms independent on data paired by environment is allowed, with one line saying
    the paired test is valid for any correlation; on outcome lists (no environment) nothing is said."""
    rng = np.random.default_rng(8)
    wide = pd.DataFrame({"A": (rng.random(60) < 0.8).astype(float), "B": (rng.random(60) < 0.4).astype(float)})
    res = certirank.compare(wide, a="A", b="B", bins="binary", n_max=60, arms="independent")
    lines = [w for w in res.warnings if "(--arms independent) was declared on data paired by environment" in w]
    assert len(lines) == 1 and "valid for any correlation" in lines[0] and lines[0].startswith("warning: ")
    assert not [w for w in certirank.compare(wide, a="A", b="B", bins="binary", n_max=60).warnings
                if "--arms" in w]
    ranked = certirank.anyrank(wide, bins="binary", n_max=60, arms="independent")
    assert any("valid for any correlation" in w for w in ranked.warnings)
    f = tmp_path / "w.csv"
    wide.to_csv(f, index=False)
    out = cli(["compare", str(f), "--a", "A", "--b", "B", "--bins", "binary", "--n-max", "60",
               "--arms", "independent"])
    assert out.exit_code in (0, 1), out.output
    assert out.stderr.count("valid for any correlation") == 1
