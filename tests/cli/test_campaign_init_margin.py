"""`certirank campaign init --kind leaderboard --margin`: a leaderboard campaign with an equivalence margin
(issue 35) gives, run by run, what `certirank leaderboard FILE --margin` gives on the same runs (`--json`); status
shows the equivalent pair as such; bad margins are one line, exit 2."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest


def _runs(tmp_path, n=400, reps=3, seed=0):
    """One CSV per run (model,item,score) and the whole table (model,item,replicate,score): A and B alike, C
    better by 0.3."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.2, 0.7, n)
    files, frames = [], []
    for r in range(reps):
        rows = []
        for m, shift in {"A": 0.0, "B": 0.0, "C": 0.3}.items():
            x = (rng.random(n) < np.clip(p + shift, 0, 1)).astype(float)
            rows += [(m, f"i{i}", x[i]) for i in range(n)]
        df = pd.DataFrame(rows, columns=["model", "item", "score"])
        files.append(tmp_path / f"run{r}.csv")
        df.to_csv(files[-1], index=False)
        frames.append(df.assign(replicate=r))
    whole = tmp_path / "all.csv"
    pd.concat(frames).to_csv(whole, index=False)
    return files, whole


def test_margin_campaign_equals_the_leaderboard_verb(cli, tmp_path):
    files, whole = _runs(tmp_path)
    db = tmp_path / "lb.campaign"
    init = json.loads(cli.ok(["campaign", "init", db, "--kind", "leaderboard", "--models", "A,B,C",
                              "--margin", "0.1", "--json"]))
    assert init["config"]["engine"]["margin"] == 0.1
    for f in files:
        cli.ok(["campaign", "add-run", db, f])
    st = json.loads(cli.ok(["campaign", "status", db, "--json"]))
    batch = json.loads(cli.ok(["leaderboard", whole, "--margin", "0.1", "--json"]))
    assert batch["ranking"]["equivalent"] == [["A", "B"]]  # not two empty lists compared
    assert st["ranking"]["equivalent"] == batch["ranking"]["equivalent"]
    assert st["ranking"]["undecided"] == batch["ranking"]["undecided"] == []
    edges = sorted((r["better"], r["worse"]) for r in st["ranking"]["relations"] if r["via"] == "test")
    assert edges == sorted((r["better"], r["worse"]) for r in batch["ranking"]["relations"] if r["via"] == "test")
    verdicts = {tuple(sorted(v["pair"])): v["verdict"] for v in st["details"]["verdicts"]}
    assert verdicts == {("A", "B"): "equivalent", ("A", "C"): "certified", ("B", "C"): "certified"}
    text = cli.words(cli(["campaign", "status", db]))
    assert "equivalent: A and B are equivalent within the margin of 0.1" in text and "You can stop" in text
    assert "undecided" not in text.lower().replace("0 undecided", "")
    assert cli.campaign("verify", db).exit_code == 0


def test_status_before_the_pair_is_decided_says_add_more_runs(cli, tmp_path):
    files, _ = _runs(tmp_path, n=30, reps=1)
    db = tmp_path / "few.campaign"
    cli.ok(["campaign", "init", db, "--kind", "leaderboard", "--models", "A,B,C", "--margin", "0.05"])
    cli.ok(["campaign", "add-run", db, files[0]])
    st = json.loads(cli.ok(["campaign", "status", db, "--json"]))
    assert st["ranking"]["equivalent"] == [] and ["A", "B"] in [sorted(u) for u in st["ranking"]["undecided"]]
    assert any(v["verdict"] == "undecided" for v in st["details"]["verdicts"])
    text = cli.words(cli(["campaign", "status", db]))
    assert "add more runs" in text and "You can stop" not in text


@pytest.mark.parametrize("margin", ["0", "1", "-0.1", "1.5", "nan"])
def test_a_bad_margin_is_one_line_exit_2(cli, tmp_path, margin):
    db = tmp_path / "bad.campaign"
    cli.fails(["campaign", "init", db, "--kind", "leaderboard", "--models", "A,B", "--margin", margin], "margin")
    assert not db.exists()


def test_the_markdown_of_the_leaderboard_verb_lists_the_equivalent_pair(cli, tmp_path):
    _, whole = _runs(tmp_path)
    md = cli.ok(["leaderboard", whole, "--margin", "0.1", "--markdown"])
    assert "A ~ B" in md and "1 equivalent (within 0.1)" in md
    text = cli.words(cli(["leaderboard", whole, "--margin", "0.1"]))
    assert text.count("A ~ B") == 1  # the ranking's own line, not repeated by the verb


def test_a_design_file_locks_the_margin_too(cli, tmp_path):
    design = tmp_path / "design.toml"
    design.write_text('kind = "leaderboard"\nmodels = ["A", "B"]\nmargin = 0.1\n')
    init = json.loads(cli.ok(["campaign", "init", tmp_path / "d.campaign", "--design", design, "--json"]))
    assert init["config"]["engine"]["margin"] == 0.1
    cli.fails(["campaign", "init", tmp_path / "e.campaign", "--design", design, "--margin", "0.2"],
              "--margin is given beside --design")
    design.write_text('kind = "leaderboard"\nmodels = ["A", "B"]\nmargin = 1.0\n')
    cli.fails(["campaign", "init", tmp_path / "f.campaign", "--design", design], "margin must be a number in (0, 1)")
