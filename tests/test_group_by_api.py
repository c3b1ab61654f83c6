"""`group_by=` in the API where the CLI groups (issue 36 item 3): anyrank, compare and leaderboard take the
parameters `--group-by` / `--alpha-across-groups` are made from, the CLI's JSON is the API's record, and both
refuse the same things with the same sentence."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import certirank
from certirank.errors import ParameterError


@pytest.fixture
def sites(tmp_path):
    """Long table policy,env,site,score: a > b at site s0, b > a at site s1, c only at s1."""
    rng = np.random.default_rng(4)
    rows = []
    for e in range(60):
        site = f"s{e % 2}"
        for p, (m0, m1) in (("a", (0.9, 0.2)), ("b", (0.2, 0.9))):
            rows.append((p, e, site, float(rng.random() < (m0 if site == "s0" else m1))))
        if site == "s1":
            rows.append(("c", e, site, float(rng.random() < 0.5)))
    path = tmp_path / "sites.csv"
    pd.DataFrame(rows, columns=["policy", "env", "site", "score"]).to_csv(path, index=False)
    return path


@pytest.fixture
def runs(tmp_path):
    """Long model,item,replicate,score,split table: two splits of 40 items, 2 replicates."""
    rng = np.random.default_rng(5)
    rows = [(m, i, r, float(rng.random() < p), f"split{i % 2}") for m, p in (("m0", 0.1), ("m1", 0.9))
            for r in range(2) for i in range(80)]
    path = tmp_path / "runs.csv"
    pd.DataFrame(rows, columns=["model", "item", "replicate", "score", "split"]).to_csv(path, index=False)
    return path


def _cli_json(cli, args):
    res = cli([str(a) for a in args] + ["--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


@pytest.mark.parametrize("across", [False, True])
def test_anyrank_group_by_is_the_cli_record(cli, sites, across):
    res = certirank.anyrank(sites, 0.1, group_by="site", alpha_across_groups=across)
    assert res.to_dict()["kind"] == "grouped" and res.by == ["site"]
    assert [g["group"] for g in res.groups] == [{"site": "s0"}, {"site": "s1"}]
    assert res.alpha_per_group == pytest.approx(0.05 if across else 0.1)
    # the groups were ranked apart: a beats b at s0, b beats a at s1, c only in s1
    s0, s1 = res.rankings
    assert s0.better("a", "b") and s1.better("b", "a")
    assert [p.name for p in s0.policies] == ["a", "b"] and "c" in [p.name for p in s1.policies]
    shown = _cli_json(cli, ["rank", sites, "--alpha", "0.1", "--group-by", "site"]
                      + (["--alpha-across-groups"] if across else []))
    assert shown == json.loads(json.dumps(res.to_dict()))


def test_group_by_takes_a_list_and_equals_each_group_run_alone(sites):
    table = certirank.load(sites)
    res = certirank.anyrank(table, 0.1, group_by=["site"])
    for g, (site, rows) in zip(res.groups, table.groupby("site", sort=False)):
        alone = certirank.anyrank(rows, 0.1).to_dict()
        assert g["result"]["ranking"] == alone["ranking"], site


def test_compare_and_leaderboard_group_by_are_the_cli_records(cli, sites, runs):
    res = certirank.compare(sites, a="a", b="b", group_by="site")
    assert [[(r["better"], r["worse"]) for r in g["result"]["ranking"]["relations"]] for g in res.groups] == \
        [[("a", "b")], [("b", "a")]]
    assert _cli_json(cli, ["compare", sites, "--a", "a", "--b", "b", "--group-by", "site"]) == \
        json.loads(json.dumps(res.to_dict()))
    board = certirank.leaderboard(runs, group_by="split", alpha_across_groups=True)
    # no method given: each group runs what the leaderboard's plan chooses for it (here replicates: bb-edge)
    assert board.method == "leaderboard" and len(board.groups) == 2
    assert {g["result"]["inputs"]["method"] for g in board.groups} == {"bb-edge"}
    assert all(g["result"]["ranking"]["relations"] for g in board.groups)
    assert _cli_json(cli, ["leaderboard", runs, "--group-by", "split", "--alpha-across-groups"]) == \
        json.loads(json.dumps(board.to_dict()))


@pytest.mark.parametrize("verb, args, argv", [
    ("anyrank", {}, ["rank"]),
    ("compare", {"a": "a", "b": "b"}, ["compare", "--a", "a", "--b", "b"]),
    ("leaderboard", {}, ["leaderboard"]),
])
def test_alpha_across_groups_without_groups_is_refused_alike(cli, sites, verb, args, argv):
    with pytest.raises(ParameterError) as info:
        getattr(certirank, verb)(sites, alpha_across_groups=True, **args)
    sentence = str(info.value)
    assert "alpha_across_groups (--alpha-across-groups)" in sentence and "group_by (--group-by)" in sentence
    res = cli([argv[0], str(sites), *argv[1:], "--alpha-across-groups"])
    assert res.exit_code == 2 and res.stderr.strip() == f"error: {sentence}"


def test_bad_group_by_is_one_line(sites):
    with pytest.raises(ParameterError, match="group_by must be"):
        certirank.anyrank(sites, group_by=3)
    with pytest.raises(certirank.DataError, match="no column 'room' to group by"):
        certirank.anyrank(sites, group_by="room")
    with pytest.raises(ParameterError, match="group_by groups the rows of a table"):
        certirank.compare([0.1, 0.2], [0.3, 0.4], group_by="site")
