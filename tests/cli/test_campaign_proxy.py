"""`certirank campaign ... --label-rate π`: a proxy campaign from the command line (init, next with the label
draw, record --proxy, status, export replayed by `rank --proxy`, verify, undo) and its refusals (one line, exit 2)."""

from __future__ import annotations

import json
import shlex

import numpy as np
import pytest

from certirank.campaign._proxy import label_drawn

from _records import flat


@pytest.fixture(scope="module")
def campaign(cli, tmp_path_factory):
    """Made by `campaign init` and filled through the API (as a script would; `record` is tested below)."""
    from certirank import Campaign
    folder = tmp_path_factory.mktemp("proxycli")
    db = str(folder / "sim.campaign")
    out = cli.ok(["campaign", "init", db, "--policies", "A,B,C", "--label-rate", "0.4", "--seed", "3"])
    assert "Created proxy campaign" in out and "3 policies" in out
    rng, means = np.random.default_rng(8), {"A": 0.1, "B": 0.9, "C": 0.85}
    with Campaign.open(db) as c:
        for _ in range(45):
            for s in c.next():
                y = float(rng.random() < means[s.policy])
                f = y if rng.random() < 0.95 else 1.0 - y
                c.record(s.policy, s.trial, y if s.label == "real + proxy" else None, proxy=f)
    return folder, db


def test_next_says_which_rollouts_need_a_real_label(cli, tmp_path):
    db = str(tmp_path / "n.campaign")
    cli.ok(["campaign", "init", db, "--policies", "A,B", "--label-rate", "0.5", "--seed", "1"])
    seen = set()
    for t in range(6):
        text = cli.words(cli(["campaign", "next", db]))
        label = "real + proxy" if label_drawn(1, t, 0.5) else "proxy only"
        assert f"│ {t} │ A │ {label} │" in text and "--proxy P [SCORE]" in text, text
        seen.add(label)
        for p in ("A", "B"):
            cli.ok(["campaign", "record", db, p, t, "--proxy", "1", *(["0"] if label == "real + proxy" else [])])
    assert seen == {"real + proxy", "proxy only"}


def test_status_json_carries_the_test_line_and_the_ranking(cli, campaign):
    _, db = campaign
    st = flat(json.loads(cli.ok(["campaign", "status", db, "--json"])))
    test = st["test"]
    assert "prediction-powered" in test and "Bonferroni over K = 3 pairs" in test
    assert "valid at any stop when labels are drawn at random with π = 0.4" in test
    assert st["ranking"]["kind"] == "proxy-bonferroni"
    text = cli.words(cli(["campaign", "status", db]))
    assert "prediction-powered" in text and "B is better than A" in text


def test_the_export_replayed_by_rank_proxy_gives_the_campaigns_ranking(cli, campaign):
    folder, db = campaign
    out = folder / "sim.csv"
    ex = json.loads(cli.ok(["campaign", "export", db, str(out), "--json"]))
    words = shlex.split(ex["rank_command"])
    assert words[:3] == ["certirank", "rank", str(out)] and "--proxy" in words and "--label-rate" in words
    replay = json.loads(cli.ok([*words[1:], "--json"]))
    st = json.loads(cli.ok(["campaign", "status", db, "--json"]))
    assert replay["ranking"]["relations"] == st["ranking"]["relations"]
    assert replay["ranking"]["relations"]  # something was certified, so the comparison says something
    header = out.read_text().splitlines()[0].split(",")
    assert header[:4] == ["policy", "trial", "score", "proxy"]


def test_verify_and_undo(cli, campaign, tmp_path):
    _, db = campaign
    assert "verified" in cli.ok(["campaign", "verify", db])
    copy = tmp_path / "copy.campaign"
    copy.write_bytes(open(db, "rb").read())
    before = flat(json.loads(cli.ok(["campaign", "status", str(copy), "--json"])))["records"]
    assert "Undid entry" in cli.ok(["campaign", "undo", str(copy)])
    assert flat(json.loads(cli.ok(["campaign", "status", str(copy), "--json"])))["records"] == before - 1
    assert "verified" in cli.ok(["campaign", "verify", str(copy)])


def _drawn(seed, pi, want):
    return next(t for t in range(100) if label_drawn(seed, t, pi) == want)


@pytest.mark.parametrize("args, needle", [
    (lambda d, u: ["A", d, "--proxy", "0.5", "--ahead"], "was drawn for a real label"),
    (lambda d, u: ["A", u, "--proxy", "0.5", "1", "--ahead"], "was not drawn for a real label"),
    (lambda d, u: ["A", u, "--ahead"], "give --proxy P"),
    (lambda d, u: ["A", u, "--proxy", "1.5", "--ahead"], "outside [0, 1]"),
    (lambda d, u: ["A", d, "--proxy", "0.5", "3", "--ahead"], "outside [0, 1]"),
    (lambda d, u: ["A", u, "--proxy", "x", "--ahead"], "proxy must be a number"),
    (lambda d, u: ["A", u, "--proxy", "0.5", "--fault", "e-stop"], "not both"),
])
def test_record_refusals_are_one_line_exit_2(cli, tmp_path, args, needle):
    db = str(tmp_path / "r.campaign")
    cli.ok(["campaign", "init", db, "--policies", "A,B", "--label-rate", "0.5", "--seed", "2"])
    cli.fails(["campaign", "record", db, *args(_drawn(2, 0.5, True), _drawn(2, 0.5, False))], needle)
    assert flat(json.loads(cli.ok(["campaign", "status", db, "--json"])))["records"] == 0


def test_init_refusals_and_a_proxy_on_an_anyrank_campaign(cli, tmp_path):
    db = str(tmp_path / "i.campaign")
    cli.refuses(["campaign", "init", db, "--policies", "A,B", "--label-rate", "0"], "label")
    cli.refuses(["campaign", "init", db, "--policies", "A,B", "--label-rate", "1.5"], "label")
    cli.fails(["campaign", "init", db, "--policies", "A,B", "--kind", "proxy"], "needs label_rate")
    cli.fails(["campaign", "init", db, "--models", "A,B", "--kind", "leaderboard", "--label-rate", "0.3"],
              "label_rate is for a proxy campaign")
    cli.ok(["campaign", "init", db, "--policies", "A,B", "--seed", "1"])
    cli.fails(["campaign", "record", db, "A", "0", "1", "--proxy", "0.5"], "proxy is for a proxy campaign")


def test_a_margin_campaign_replays_with_its_margin(cli, tmp_path):
    from certirank import Campaign
    db = str(tmp_path / "m.campaign")
    cli.ok(["campaign", "init", db, "--policies", "B,C", "--label-rate", "0.5", "--seed", "6", "--margin", "0.3",
            "--n-max", "400"])
    rng = np.random.default_rng(3)
    with Campaign.open(db) as c:
        for _ in range(400):
            todo = c.next()
            if not todo:
                break
            for s in todo:
                y = float(rng.random() < 0.8)
                f = y if rng.random() < 0.95 else 1.0 - y
                c.record(s.policy, s.trial, y if s.label == "real + proxy" else None, proxy=f)
    ex = json.loads(cli.ok(["campaign", "export", db, str(tmp_path / "m.csv"), "--json"]))
    words = shlex.split(ex["rank_command"])
    assert words[words.index("--margin") + 1] == "0.3"
    replay = json.loads(cli.ok([*words[1:], "--json"]))["ranking"]
    st = json.loads(cli.ok(["campaign", "status", db, "--json"]))["ranking"]
    assert replay["equivalent"] == st["equivalent"] and st["equivalent"]
    assert "equivalent" in cli.words(cli(["campaign", "status", db]))
