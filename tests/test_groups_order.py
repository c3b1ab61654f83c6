"""--group-by, --pairing, the replay-order warning and the shuffled (without-replacement) replay."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import certirank
from certirank.methods.groups import run_by_group, split_groups
from certirank.methods.shuffled import table_ranking

from test_data_formats import policy_folder, robot_lists
from _records import decisions, flat


def test_group_by_matches_running_each_group_alone(tmp_path):
    t = certirank.load(robot_lists(tmp_path / "robot.csv"))
    res = run_by_group(t, ["Panel", "Task"], lambda sub, a: certirank.anyrank(sub, alpha=a), alpha=0.1)
    (vals, sub), row = split_groups(t, ["Panel", "Task"])[2], res.groups[2]
    alone = certirank.anyrank(t[(t.Panel == vals["Panel"]) & (t.Task == vals["Task"])], alpha=0.1)
    assert row["result"]["ranking"]["policies"] == alone.to_dict()["ranking"]["policies"]
    assert row["certified_pairs"] == len(decisions(alone))


def test_group_by_unknown_column_and_folder_cli(cli, tmp_path):
    f = robot_lists(tmp_path / "robot.csv")
    out = cli(["rank", str(f), "--group-by", "Room"])
    assert out.exit_code == 2 and "no column 'Room'" in out.output
    d = policy_folder(tmp_path / "runs")
    out = cli(["inspect", str(d), "--read-option", "trial=trial #", "--read-option", "score=success"])
    assert out.exit_code == 0, out.output
    assert "alpha" in out.stdout and "beta" in out.stdout and "note: folder" in out.output
    out = cli(["compare", str(d), "--a", "alpha", "--b", "beta", "--read-option", "trial=trial #",
               "--group-by", "env_label"])
    assert out.exit_code == 0, out.output
    assert "kitchen" in out.stdout and "office" in out.stdout


def test_pairing_by_order(cli, tmp_path):
    # A ran 12 rollouts, B 9, on different (unmatched) environments: no env is shared
    f = tmp_path / "unpaired.csv"
    rows = [f"A,a{i},1" for i in range(12)] + [f"B,b{i},0" for i in range(9)]
    f.write_text("policy,env,score\n" + "\n".join(rows) + "\n")
    out = cli(["compare", str(f), "--a", "A", "--b", "B", "--json"])
    assert out.exit_code == 2 and "no trial has scores for both" in out.output
    out = cli(["compare", str(f), "--a", "A", "--b", "B", "--pairing", "by-order", "--json"])
    d = json.loads(out.stdout)
    assert d["details"]["n"] == 9 and [(r["better"], r["worse"]) for r in d["ranking"]["relations"]] == [("A", "B")]
    out = cli(["rank", str(f), "--pairing", "by-order", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["ranking"]["relations"][0]["better"] == "A"
    assert cli(["rank", str(f), "--pairing", "by-row"]).exit_code == 2


def sorted_table(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """Three policies with exactly equal table averages; rows sorted by task so A leads early, B late."""
    v = np.sort(rng.random(n) < 0.5)[::-1].astype(float)
    if v.sum() == 0 or v.sum() == n:
        v[0], v[-1] = 1.0, 0.0
    tasks = np.repeat([f"t{k}" for k in range(4)], n // 4)
    wide = pd.DataFrame({"A": v, "B": v[::-1].copy(), "C": rng.permutation(v)})
    long = wide.reset_index().melt(id_vars="index", var_name="policy", value_name="score")
    long["env"] = long["index"].astype(str)
    long["task_group"] = np.tile(tasks, 3)
    return long.drop(columns="index").sort_values(["env"], key=lambda s: s.astype(int), kind="stable")


def test_order_warning():
    """Read in file order (--order file), a sorted table gets the order check's warning; in a random order, none."""
    rng = np.random.default_rng(0)
    t = certirank.load(sorted_table(80, rng))
    given = certirank.anyrank(t, order="given")
    assert any("A: scores trend with row order" in m for m in given.warnings)
    assert any("B: scores trend with row order" in m for m in given.warnings)
    assert not [w for w in certirank.anyrank(t).warnings if "trend" in w]


@pytest.mark.parametrize("reps", [40, pytest.param(400, marks=pytest.mark.slow)])
def test_sorted_table_with_vs_without_replacement(reps):
    """Equal table averages: in file order the with-replacement test certifies; shuffled WoR keeps FWER <= alpha."""
    rng = np.random.default_rng(16)
    alpha, n = 0.1, 80
    wrong_file_order = wrong_shuffled = 0
    for r in range(reps):
        tab = sorted_table(n, rng)
        if r < 15:  # file order: the with-replacement replay is nearly deterministic here, a few reps show it
            wrong_file_order += bool(certirank.anyrank(tab, alpha=alpha, order="given").ranking.relations)
        wrong_shuffled += bool(decisions(table_ranking(tab, alpha, seed=r)))
    bound = alpha + 3 * math.sqrt(alpha * (1 - alpha) / reps)
    assert wrong_file_order / 15 > 0.5  # the with-replacement replay of the sorted table over-rejects
    assert wrong_shuffled / reps <= bound, wrong_shuffled


def test_shuffled_power_and_cli(cli, tmp_path):
    rng = np.random.default_rng(3)
    wide = pd.DataFrame({"good": (rng.random(300) < 0.8).astype(float), "bad": (rng.random(300) < 0.3).astype(float)})
    res = table_ranking(wide, 0.05, seed=0)
    assert [(d["better"], d["worse"]) for d in decisions(res)] == [("good", "bad")]
    assert res.to_dict() == table_ranking(wide, 0.05, seed=0).to_dict()  # same seed, same output
    f = tmp_path / "w.csv"
    wide.to_csv(f, index=False)
    out = cli(["rank", str(f), "--about", "table", "--seed", "7", "--json"])
    assert out.exit_code == 0, out.output
    d = json.loads(out.stdout)
    assert d["kind"] == "table-rank" and d["about"] == "table" and d["inputs"]["seed"] == 7
    assert d["inputs"]["order"] == {"kind": "random", "seed": 7}
    out = cli(["compare", str(f), "--a", "bad", "--b", "good", "--about", "table", "--seed", "7"])
    assert out.exit_code == 0 and "table's average" in out.stdout and "table letters" in out.stdout


def test_leaderboard_and_inspect_group_by(cli, tmp_path):
    rng = np.random.default_rng(9)
    rows = ["model,item,score,suite"]
    for suite in ("math", "code"):
        for m, p in (("m1", 0.9), ("m2", 0.2), ("m3", 0.5)):
            for i in range(60):
                rows.append(f"{m},{suite}-{i},{int(rng.random() < p)},{suite}")
    f = tmp_path / "lb.csv"
    f.write_text("\n".join(rows) + "\n")
    out = cli(["leaderboard", str(f), "--group-by", "suite", "--json"])
    assert out.exit_code == 0, out.output
    d = flat(json.loads(out.stdout))
    assert [g["group"]["suite"] for g in d["groups"]] == ["math", "code"]
    alone = certirank.leaderboard(certirank.load(f).query("suite == 'code'"), alpha=0.05)
    assert d["groups"][1]["certified_pairs"] == len(alone.edges) >= 1
    out = cli(["inspect", str(f), "--group-by", "suite"])
    assert out.exit_code == 0 and out.stdout.count("math") == 1 and "3" in out.stdout
