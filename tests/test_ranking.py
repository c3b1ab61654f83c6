"""The one ranking result (certirank.Ranking, schema certirank.ranking/1): same class from every method,
letters that never contradict the certified order, and `certirank report` on the JSON of every command."""

from __future__ import annotations

import dataclasses
import json
import re

import numpy as np
import pandas as pd
import pytest

import certirank
from certirank.order import Ranking, make_ranking
from _records import decisions


def _wide(seed: int = 0, n: int = 200) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"good": rng.beta(5, 1.5, n).round(1), "mid": rng.beta(2, 2, n).round(1),
                         "bad": rng.beta(1.2, 5, n).round(1)})


def _scores_long(seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame([{"model": f"m{l}", "item": f"i{i}", "replicate": r, "score": float(rng.random() < 0.2 + 0.3 * l)}
                         for r in range(2) for i in range(60) for l in range(3)])


def _prefs(tmp_path):
    rows = [("a", "b", 0.0)] * 8 + [("b", "a", 0.0)] * 2 + [("b", "c", 0.0)] * 7 + [("c", "b", 0.5)] * 3 + \
        [("a", "c", 0.0)] * 9 + [("c", "a", 1.0)]
    path = tmp_path / "prefs.csv"
    pd.DataFrame(rows, columns=["A", "B", "preference"]).to_csv(path, index=False)
    return path


# ----------------------------------------------------------------------------------------- one class

def test_every_method_exposes_the_same_ranking_class(tmp_path):
    df = _wide()
    lb_path = tmp_path / "lb.csv"
    _scores_long().to_csv(lb_path, index=False)
    ranker = certirank.Ranker(list(df.columns), alpha=0.05)
    for _ in range(60):
        if ranker.done:
            break
        for policy, trial in ranker.suggest():
            ranker.record(policy, trial, float(df[policy].iloc[trial]))
    results = {"anyrank": certirank.anyrank(df, alpha=0.05), "leaderboard": certirank.leaderboard(lb_path),
               "baseline": certirank.baseline("bt", _prefs(tmp_path)), "ranker": ranker.result()}
    fields = None
    for name, res in results.items():
        r = res.ranking
        assert type(r) is Ranking, name
        names = [f.name for f in dataclasses.fields(r)]
        assert fields is None or names == fields
        fields = names
        d = r.to_dict()
        assert d["schema"] == "certirank.ranking/1" and d["kind"]
        assert res.to_dict()["ranking"] == d  # the command's --json carries it
        assert Ranking.from_dict(json.loads(json.dumps(d))) == r
    # the ranking agrees with the method's own decisions
    ar = results["anyrank"]
    assert {(d["better"], d["worse"]) for d in decisions(ar)} <= {(x.better, x.worse) for x in ar.ranking.relations}
    assert ar.ranking.letters == ar.letters and ar.ranking.stopped == ar.termination
    lb = results["leaderboard"]
    assert {(a, b) for a, b in lb.edges} == {(x.better, x.worse) for x in lb.ranking.relations if x.via == "test"}
    assert all(x.evidence_kind == "log_e" for x in lb.ranking.relations if x.via == "test")


def test_simulate_trajectory_exposes_ranking():
    from certirank.sim.trajectory import claims_from_pairs
    tr = claims_from_pairs(3, [(2.0, 10.0, 0, 1), (5.0, 20.0, 1, 2)], end_time=9.0, end_evals=30.0)
    r = tr.ranking(["x", "y", "z"], alpha=0.1)
    assert type(r) is Ranking and r.names == ("x", "y", "z")
    assert {(x.better, x.worse, x.via) for x in r.relations} == {("x", "y", "test"), ("y", "z", "test"),
                                                                  ("x", "z", "closure")}
    assert [x.when for x in r.relations if x.via == "test"] == [2.0, 5.0]
    early = tr.ranking(["x", "y", "z"], step=0)
    assert early.n_certified == 1 and len(early.undecided) == 2


# ----------------------------------------------------------------------------------------- letters

def test_letter_regression_wide_table_unequal_trials():
    """The reported case: a policy with 46 trials and a high mean that another (133 trials, lower mean over
    all its trials) is certified to beat must not get letter "a" nor be listed first."""
    rng = np.random.default_rng(1)
    n = 133
    lbm = np.r_[rng.choice([0.9, 1.0], 46), rng.choice([0.2, 0.3, 0.4], n - 46)]
    other = np.clip(lbm + rng.choice([-0.1, 0.0, 0.1], n), 0, 1)
    single = np.r_[rng.choice([0.5, 0.6, 0.7], 46), np.full(n - 46, np.nan)]
    df = pd.DataFrame({"Single_Task": single, "LBM_finetuned": lbm, "Other": other})
    res = certirank.anyrank(df)
    assert ("LBM_finetuned", "Single_Task") in res.better_pairs()
    # the situation of the report: the beaten policy has the higher mean (over all trials and over trials used)
    assert np.nanmean(single) > np.nanmean(lbm) and res.means["Single_Task"] > res.means["LBM_finetuned"]
    assert "a" not in res.letters["Single_Task"] and "a" in res.letters["LBM_finetuned"]
    assert res.ranking.names[-1] == "Single_Task" and list(res.letters)[-1] == "Single_Task"


def test_letters_property_random_certified_relations():
    """On random certified relations: a valid compact letter display (share a letter iff not certified
    different), a topological display order, and letter "a" never on a policy certified worse than another."""
    rng = np.random.default_rng(2026)
    for _ in range(400):
        m = int(rng.integers(2, 11))
        names = [f"p{i}" for i in range(m)]
        perm = rng.permutation(m)  # a hidden true order, so the relations are acyclic
        density = rng.uniform(0.05, 0.8)
        rels = [(names[perm[a]], names[perm[b]]) for a in range(m) for b in range(a + 1, m) if rng.random() < density]
        r = make_ranking(names, rels, kind="test", means=rng.random(m))
        pos = {n: i for i, n in enumerate(r.names)}
        for x in r.relations:
            assert pos[x.better] < pos[x.worse]
        for p in r.policies:
            if "a" in p.letters:
                assert not any(r.better(o, p.name) for o in names if o != p.name), (rels, r.letters)
                assert p.worse_than == 0
        for a in names:
            for b in names:
                if a < b:
                    share = bool(set(r.letters[a]) & set(r.letters[b]))
                    assert share == (not (r.better(a, b) or r.better(b, a)))


def test_shuffled_letters_follow_the_certified_order_not_the_mean(cli, tmp_path):
    """Shuffled replay: A ran only the first 40 rows, where B beats it on every row; B scores 0 on the rest, so
    A's table average is higher although B > A is certified. C (last 80 rows only) beats B there."""
    from certirank.methods.shuffled import shuffled_ranking
    nan = np.full(80, np.nan)
    df = pd.DataFrame({"A": np.r_[np.full(40, 0.6), nan], "B": np.r_[np.full(40, 1.0), np.zeros(80)],
                       "C": np.r_[np.full(40, np.nan), np.full(80, 0.3)]})
    res = shuffled_ranking(df, 0.05, seed=0)
    assert {(d["better"], d["worse"]) for d in decisions(res)} == {("B", "A"), ("C", "B")}
    assert res.means["A"] > res.means["B"] > res.means["C"]  # the mean order contradicts both relations
    r = res.ranking
    assert type(r) is Ranking and r.kind == "table" and r.about == "table" and not r.transitive
    assert r.names == ("C", "B", "A") and list(res.letters) == ["C", "B", "A"] and res.letters == r.letters
    assert "a" not in res.letters["A"] and "a" not in res.letters["B"]
    assert not r.better("C", "A") and ("C", "A") in r.undecided  # no closure: C and A never shared a row
    assert set(res.letters["A"]) & set(res.letters["C"])
    path = tmp_path / "w.csv"
    df.to_csv(path, index=False)
    out = cli(["rank", str(path), "--shuffle", "0"])
    assert out.exit_code == 0, out.output
    rows = [m.group(1) for m in re.finditer(r"^\d+\s+(\S+)\s+[\d.]+\s+\d+\s", out.stdout, re.M)]  # table rows
    assert rows == ["C", "B", "A"]
    d = json.loads(cli(["rank", str(path), "--shuffle", "0", "--json"]).stdout)
    assert Ranking.from_dict(d) == r and d["kind"] == "table-rank"


def test_preference_and_group_results_expose_the_ranking(tmp_path):
    from certirank.methods.groups import run_by_group
    from certirank.methods.preferences import preference_graph
    # rock-paper-scissors: certified edges that go round; nothing is chained, the cycle is said as such
    rows = [("rock", "scissors", 0.0)] * 30 + [("scissors", "paper", 0.0)] * 30 + [("paper", "rock", 0.0)] * 30
    pg = preference_graph(pd.DataFrame(rows, columns=["A", "B", "preference"]), 0.05)
    r = pg.ranking
    assert type(r) is Ranking and r.kind == "preference-graph" and not r.transitive and r.inconsistent
    assert all(x.via == "test" and 1 <= x.when <= 90 and x.details["battles_used"] <= 30 for x in r.relations)
    assert {(x.better, x.worse) for x in r.relations} == {("rock", "scissors"), ("scissors", "paper"),
                                                          ("paper", "rock")}
    assert r.better("rock", "scissors") and not r.better("scissors", "rock")
    assert "need not be transitive" in r.cycle_note and [sorted(c) for c in r.cycles] == [["paper", "rock", "scissors"]]
    assert {p.name: p.n for p in r.policies} == {"rock": 60, "scissors": 60, "paper": 60}
    # a chain a > b > c with a vs c never met: not implied (preferences need not chain)
    chain = preference_graph(pd.DataFrame([("a", "b", 0.0)] * 30 + [("b", "c", 0.0)] * 30,
                                          columns=["A", "B", "preference"]), 0.05)
    assert chain.ranking.names == ("a", "b", "c") and not chain.ranking.better("a", "c")
    lett = {k: set(v) for k, v in chain.ranking.letters.items()}
    assert lett["a"] & lett["c"] and not lett["b"] & (lett["a"] | lett["c"]) and "a" in lett["a"]
    assert chain.ranking.rank_interval("c") == (2, 3) and ["a", "c"] in chain.ranking.to_dict()["undecided"]
    # --group-by: one Ranking per group, the same as running the group alone, and the summary reads it
    df = _wide(n=120)
    long = df.reset_index().melt(id_vars="index", var_name="policy", value_name="score")
    long["env"] = long["index"].astype(str)
    long["half"] = np.where(long["index"] % 2 == 0, "even", "odd")
    table = certirank.load(long.drop(columns="index"))
    res = run_by_group(table, ["half"], lambda sub, a: certirank.anyrank(sub, alpha=a), alpha=0.1)
    assert len(res.rankings) == 2 and all(type(x) is Ranking for x in res.rankings)
    alone = certirank.anyrank(table[table.half == "odd"], alpha=0.1).ranking
    assert res.rankings[1] == alone
    assert res.groups[1]["letters"] == ", ".join(f"{p.name} {p.letters}" for p in alone.policies)
    assert res.groups[1]["certified_pairs"] == alone.n_certified
    assert "rankings" not in res.to_dict() and res.to_dict()["kind"] == "grouped"


def test_ties_in_display_order_broken_by_mean_then_name():
    r = make_ranking(["c", "b", "a", "d"], [("d", "a")], kind="x", means=[0.2, 0.5, 0.9, 0.1])
    # d must precede a (certified): d is pulled up to just above a, the rest keeps mean order
    assert r.names == ("d", "a", "b", "c")
    r = make_ranking(["c", "b", "a", "d"], [], kind="x", means=[0.2, 0.5, 0.5, 0.1])
    assert r.names == ("a", "b", "c", "d")  # equal means: by name


def test_dot_and_mermaid_render_from_ranking():
    r = make_ranking(["A", "B", "C"], [("A", "B"), ("B", "C")], kind="x", means=[0.9, 0.5, 0.1])
    dot = r.to_dot()
    assert '"A" -> "B";' in dot and '"B" -> "C";' in dot and '"A" -> "C"' not in dot
    assert '"A" -> "C" [style=dashed];' in r.to_dot("closure")
    mer = r.to_mermaid()
    assert "n0 --> n1" in mer and "n1 --> n2" in mer


# ----------------------------------------------------------------------------------------- report by kind


# ----------------------------------------------------------------------------------------- vocabulary

def test_old_spellings_work_for_one_release_with_a_warning(cli, tmp_path):
    df = _wide(n=60)
    new = certirank.anyrank(df, alpha=0.1, n_max=30, bins="progress")

    def same(d: dict) -> dict:  # the note says whether the scale was declared or read off the data
        return {k: v for k, v in d.items() if k != "warnings"}
    with pytest.warns(DeprecationWarning, match="n_max"):
        old = certirank.anyrank(df, alpha=0.1, nmax=30)
    assert same(old.to_dict()) == same(new.to_dict())
    with pytest.warns(DeprecationWarning, match="by position"):
        pos = certirank.anyrank(df, 0.1, "anyrank", None, 1.0, 30)
    assert same(pos.to_dict()) == same(new.to_dict())
    # the case of the issue: a method name given where the prior used to be is no longer silently a prior
    with pytest.warns(DeprecationWarning, match="prior"):
        with pytest.raises(certirank.CertirankError):
            certirank.Ranker(["a", "b"], 0.05, "bonferroni")
    r = certirank.Ranker(["a", "b"], alpha=0.05, n_max=7)
    with pytest.warns(DeprecationWarning):
        assert r.nmax == 7 == r.n_max
    res = cli(["rank", "--help"])
    assert "--n-max" in res.stdout and "--bins" in res.stdout and "--nmax" not in res.stdout
    path = tmp_path / "w.csv"
    df.to_csv(path, index=False)
    old_cli = cli(["rank", str(path), "--nmax", "30", "--metric", "progress", "--json"])
    new_cli = cli(["rank", str(path), "--n-max", "30", "--bins", "progress", "--json"])
    assert old_cli.exit_code == 0 and "deprecated" in old_cli.stderr and "--n-max" in old_cli.stderr
    assert json.loads(old_cli.stdout) == json.loads(new_cli.stdout)


def test_graph_test_takes_a_graph_and_e_holm_returns_a_result():
    from certirank.multitest import EHolmResult, Graph, GraphTestResult
    g = Graph([1 / 3, 1 / 3, 1 / 3], [[0, .5, .5], [.5, 0, .5], [.5, .5, 0]])
    new = certirank.graph_test(g, [0.02, 0.055, 0.012], 0.05)
    assert isinstance(new, GraphTestResult) and new.rejected.tolist() == [True, False, True]
    with pytest.warns(DeprecationWarning, match="pass a Graph"):
        old = certirank.graph_test([1 / 3, 1 / 3, 1 / 3], [[0, .5, .5], [.5, 0, .5], [.5, .5, 0]],
                                   [0.02, 0.055, 0.012], 0.05)
    assert old.adjusted.tolist() == new.adjusted.tolist()
    res = certirank.e_holm([100, 30, 12, 0.5], 0.05)
    assert isinstance(res, EHolmResult) and res.rejected.tolist() == [True, False, False, False]
    assert res.threshold == pytest.approx(20 + (20 - 12) + (20 - 0.5))  # 1/alpha + sum of shortfalls
    assert res.to_dict()["rejected"] == [True, False, False, False]


def test_dropped_data_is_said_in_words(cli, tmp_path):
    # Bradley-Terry ignores ties; unpaired trials of a score table have nothing to be compared with
    scores = pd.DataFrame({"policy": ["a", "b", "a", "b", "a", "c", "b", "c"],
                           "env": ["e1", "e1", "e2", "e2", "e3", "e3", "e4", "e5"],
                           "score": [1.0, 0.0, 0.5, 0.5, 1.0, 0.0, 1.0, 0.0]})
    path = tmp_path / "s.csv"
    scores.to_csv(path, index=False)
    res = certirank.baseline("bt", path)
    notes = " ".join(res.ranking.notes)
    assert "1 tied comparison ignored" in notes and "2 trials ignored" in notes
    out = cli(["baseline", "bt", str(path)])
    assert out.exit_code == 0, out.output
    text = " ".join(out.stdout.split())
    assert "1 tied comparison ignored" in text and "2 trials ignored" in text
    # the inspect importer's errored samples reach the ranking's notes
    from certirank.data.table import dropped_notes
    t = certirank.load(scores)
    t.attrs["skipped_errors"] = 3
    assert dropped_notes(t) == ["3 samples that ended in an error (no score) left out of the log(s)."]
