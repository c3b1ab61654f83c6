"""The item campaign (issue 35 item 4, `campaign init --kind items`): an AdaptiveBoard kept in the campaign store.
The campaign is the board fed the recorded draws, so it is checked against a direct AdaptiveBoard run on the same
scores (same items, probabilities, edges and log e-values, bit for bit); plus the round trip through the API and the
CLI, the refusals (one line, exit 2, nothing written), undo, verify and export."""

from __future__ import annotations

import json

import numpy as np
import pytest

from certirank import Campaign
from certirank.campaign._items import ItemEngine
from certirank.errors import ParameterError, StateError
from certirank.methods.bbedge.adaptive import AdaptiveBoard

MODELS = ["m0", "m1", "m2", "m3"]
N_ITEMS = 40


def _truth(seed: int = 0, about: str = "benchmark") -> np.ndarray:
    """(models, items) success rates; with about="table", one fixed 0/1 run."""
    rng = np.random.default_rng(seed)
    ability = np.array([-1.0, 0.0, 0.0, 1.5])
    logits = ability[:, None] + rng.normal(0.0, 1.5, N_ITEMS)[None, :]
    p = 1.0 / (1.0 + np.exp(-logits))
    return (rng.random(p.shape) < p).astype(float) if about == "table" else p


def _scorer(truth: np.ndarray, seed: int, about: str):
    """score(item index, model names) -> {model: score}; fresh Bernoulli runs, or the fixed table."""
    rng = np.random.default_rng(seed)

    def score(i: int, models: list[str]) -> dict[str, float]:
        if about == "table":
            return {m: float(truth[MODELS.index(m), i]) for m in models}
        return {m: float(rng.random() < truth[MODELS.index(m), i]) for m in models}
    return score


def _drive(c: Campaign, score, draws: int) -> list[tuple[int, str, float]]:
    seen = []
    for _ in range(draws):
        todo = c.next()
        if not todo:
            break
        s = todo[0]
        assert c.next()[0] == s  # the pending draw is state: `next` twice shows the same draw
        c.record_item(s.item, score(int(s.item), s.models), draw=s.trial)
        seen.append((s.trial, s.item, s.probability))
    return seen


@pytest.mark.parametrize("about", ["benchmark", "table"])
def test_the_campaign_is_an_adaptive_board_fed_the_same_scores(tmp_path, about):
    truth = _truth(1, about)
    difficulty = truth.mean(axis=0).clip(0.05, 0.95).tolist()
    c = Campaign.init(tmp_path / "c.campaign", kind="items", models=MODELS, items=N_ITEMS, difficulty=difficulty,
                      about=about, seed=7, n_max=300)
    seen = _drive(c, _scorer(truth, 3, about), 300)
    board = AdaptiveBoard(MODELS, N_ITEMS, 0.05, difficulty=difficulty, seed=7, n_max=300, about=about)
    score, direct = _scorer(truth, 3, about), []
    while not board.done:
        s = board.suggest_items(1)[0]
        direct.append((board.draws + 1, str(s["item"]), s["probability"]))
        board.record(s["item"], score(s["item"], s["models"]))
    assert seen == direct  # the same items with the same probabilities, in the same order
    c.close()
    with Campaign.open(tmp_path / "c.campaign") as again:  # reopened: the engine is rebuilt from the checkpoint
        st = again.status()
        eng = again._engine
        assert np.array_equal(eng.board.bank.log_wealth, board.bank.log_wealth)  # the same log e, bit for bit
        assert sorted(eng.board.edges()) == sorted(board.edges())
        assert {(r.better, r.worse) for r in st.ranking.relations if r.via == "test"} == set(board.edges())
        assert st.items["draws"] == board.draws and st.items["evaluations"] == board.evaluations
        assert st.done and st.records == board.draws and again.next() == []
        assert again.verify().ok
    assert len(board.edges()) >= 3  # the run certified something: the comparison is not between two empty boards


def test_the_same_seed_draws_the_same_items_and_another_seed_others(tmp_path):
    truth = _truth(2)
    runs = []
    for k, seed in enumerate((5, 5, 6)):
        c = Campaign.init(tmp_path / f"s{k}.campaign", kind="items", models=MODELS, items=N_ITEMS, seed=seed)
        runs.append([(item, p) for _, item, p in _drive(c, _scorer(truth, 0, "benchmark"), 30)])
        c.close()
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]


def test_the_difficulty_and_the_items_are_locked_in_the_configuration(tmp_path):
    items = tmp_path / "items.txt"
    items.write_text("# the quiz\nq1\nq2\nq3\n")
    rates = tmp_path / "rates.csv"
    rates.write_text("item,rate\nq3,0.2\nq1,0.9\nq2,0.5\n")
    a = Campaign.init(tmp_path / "a.campaign", kind="items", models=["x", "y"], items=str(items), difficulty=rates,
                      seed=1)
    b = Campaign.init(tmp_path / "b.campaign", kind="items", models=["x", "y"], items=str(items),
                      difficulty={"q1": 0.9, "q2": 0.5, "q3": 0.25}, seed=1)
    assert a.config["engine"]["items"] == ["q1", "q2", "q3"]
    assert a.config["engine"]["difficulty"] == [0.9, 0.5, 0.2]
    assert a.config_sha256 != b.config_sha256  # another difficulty is another locked design
    assert a.config["about"] == "benchmark" and a.next()[0].item in {"q1", "q2", "q3"}
    for bad, needle in ((dict(difficulty={"q1": 0.9, "q2": 0.5}), "'q3' has no rate"),
                        (dict(difficulty=[0.5, 1.5, 0.5]), "outside [0, 1]"),
                        (dict(difficulty=None, about="policy"), "about must be 'benchmark' or 'table'"),
                        (dict(difficulty=None, label_rate=0.5), "label_rate: not used by an item campaign")):
        with pytest.raises(ParameterError, match=needle.replace("[", r"\[").replace("]", r"\]")):
            Campaign.init(tmp_path / "bad.campaign", kind="items", models=["x", "y"], items=str(items), **bad)
    with pytest.raises(ParameterError, match="needs the benchmark's items"):
        Campaign.init(tmp_path / "bad.campaign", kind="items", models=["x", "y"])
    assert not (tmp_path / "bad.campaign").exists()


def test_only_the_pending_draw_is_accepted_and_nothing_else_is_written(tmp_path):
    c = Campaign.init(tmp_path / "r.campaign", kind="items", models=["x", "y", "z"], items=10, seed=2)
    s = c.next()[0]
    other = str((int(s.item) + 1) % 10)
    head = c.status().head_hash
    for args, kwargs, needle in (
            ((other, {m: 1.0 for m in s.models}), {}, "is not the pending draw"),
            ((s.item, {"x": 1.0, "y": 0.0}), {}, "'z' has no score"),
            ((s.item, {"x": 1.0, "y": 0.0, "z": 1.0, "w": 1.0}), {}, "unknown model 'w'"),
            ((s.item, {"x": 1.0, "y": 0.0, "z": 1.2}), {}, "outside [0, 1]"),
            ((s.item, {m: 1.0 for m in s.models}), {"draw": 2}, "draw 2 is not the pending draw")):
        with pytest.raises(ParameterError, match=needle.replace("[", r"\[").replace("]", r"\]")):
            c.record_item(*args, **kwargs)
    with pytest.raises(StateError, match="record_item"):
        c.record("x", 0, 1.0)
    assert c.status().head_hash == head and c.next()[0] == s
    rec = c.record_item(s.item, "x=1, y=0.5, z=0", draw=1)
    assert rec.item == s.item and rec.scores == {"x": 1.0, "y": 0.5, "z": 0.0} and rec.probability == s.probability
    row = c.log().entries[-1]
    assert row.probability == s.probability  # the draw probability is stored in the row


def test_undo_takes_back_the_latest_draw_and_refuses_an_earlier_one(tmp_path):
    truth = _truth(3)
    c = Campaign.init(tmp_path / "u.campaign", kind="items", models=MODELS, items=N_ITEMS, seed=4)
    _drive(c, _scorer(truth, 1, "benchmark"), 5)
    pending = c.next()[0]
    first = c.records()[0].id
    with pytest.raises(StateError, match="undone from the latest back"):
        c.undo(first)
    assert c.next()[0] == pending
    last = c.records()[-1]
    c.undo()
    again = c.next()[0]
    assert (again.trial, again.item, again.probability) == (last.trial, last.item, last.probability)
    c.record_item(again.item, last.scores)
    now = c.next()[0]  # the same scores again: the same next draw (shown at a later log entry)
    assert (now.trial, now.item, now.models, now.probability) == (pending.trial, pending.item, pending.models,
                                                                   pending.probability)
    assert c.verify().ok


def test_export_writes_one_row_per_score_with_the_draw_probability(tmp_path):
    import pandas as pd
    c = Campaign.init(tmp_path / "e.campaign", kind="items", models=MODELS, items=N_ITEMS, seed=8)
    seen = _drive(c, _scorer(_truth(4), 2, "benchmark"), 6)
    res = c.export(tmp_path / "e.csv")
    frame = pd.read_csv(tmp_path / "e.csv")
    assert res.rows == len(frame) == 6 * len(MODELS)  # every model is scored while every pair is open
    assert list(frame.columns[:5]) == ["draw", "item", "model", "score", "probability"]
    firsts = frame.groupby("draw").first()
    assert [(int(d), str(r["item"]), float(r["probability"])) for d, r in firsts.iterrows()] == seen


def test_the_cli_round_trip_and_its_refusals(tmp_path, cli):
    db = tmp_path / "cli.campaign"
    items = tmp_path / "items.txt"
    items.write_text("\n".join(f"q{i}" for i in range(12)) + "\n")
    cli.ok(["campaign", "init", db, "--kind", "items", "--models", "a,b,c", "--items", items, "--seed", "3",
            "--n-max", "50", "--about", "table"])
    nxt = json.loads(cli.ok(["campaign", "next", db, "--json"]))["suggestions"][0]
    assert nxt["kind"] == "item" and nxt["trial"] == 1 and nxt["models"] == ["a", "b", "c"]
    assert json.loads(cli.ok(["campaign", "next", db, "--json"]))["suggestions"][0] == nxt
    text = cli.words(cli(["campaign", "next", db]))
    assert f"Draw 1: score item {nxt['item']} on a, b, c" in text
    other = "q0" if nxt["item"] != "q0" else "q1"
    cli.fails(["campaign", "record", db, other, 1, "--scores", "a=1,b=0,c=0"], "is not the pending draw")
    cli.fails(["campaign", "record", db, nxt["item"], 1, "--scores", "a=1,b=0"], "'c' has no score")
    cli.fails(["campaign", "record", db, nxt["item"], 1, "--scores", "a=1,b=0,c=2"], "outside [0, 1]")
    cli.fails(["campaign", "record", db, nxt["item"], 1, "1"], "an item campaign records")
    cli.fails(["campaign", "init", tmp_path / "x.campaign", "--kind", "items", "--models", "a,b"],
              "needs the benchmark's items")
    out = cli.ok(["campaign", "record", db, nxt["item"], 1, "--scores", "a=1,b=0,c=0", "--json"])
    assert json.loads(out)["probability"] == nxt["probability"]
    st = json.loads(cli.ok(["campaign", "status", db, "--json"]))
    assert st["inputs"]["campaign"] == "items" and st["about"] == "table"
    assert st["details"]["items"]["draws"] == 1 and st["details"]["items"]["evaluations"] == 3
    assert st["details"]["items"]["pending"]["draw"] == 2
    assert {v["verdict"] for v in st["details"]["verdicts"]} == {"undecided"}
    assert "Draws: 1 of a budget of 50; item evaluations: 3" in cli.words(cli(["campaign", "status", db]))
    with Campaign.open(db) as c:  # the CLI and the API read the same file the same way
        assert c.status().items == st["details"]["items"]
    rates = tmp_path / "rates.csv"
    rates.write_text("item,rate\n" + "".join(f"{i},0.{i}\n" for i in range(5)))
    cli.ok(["campaign", "init", tmp_path / "n.campaign", "--kind", "items", "--models", "a,b", "--items", "5",
            "--difficulty", rates])
    with Campaign.open(tmp_path / "n.campaign") as c:  # --items N: items 0..N-1
        assert c.config["engine"]["items"] == ["0", "1", "2", "3", "4"]
        assert c.config["engine"]["difficulty"] == [0.0, 0.1, 0.2, 0.3, 0.4]
    rates.write_text("item,rate\n0,0.5\n9,0.5\n")
    cli.fails(["campaign", "init", tmp_path / "m.campaign", "--kind", "items", "--models", "a,b", "--items", "5",
               "--difficulty", rates], "line 3: item '9' is not one of the campaign's items")


def test_the_engine_checkpoint_replays_and_refuses_an_edited_draw(tmp_path):
    c = Campaign.init(tmp_path / "k.campaign", kind="items", models=MODELS, items=N_ITEMS, seed=9)
    _drive(c, _scorer(_truth(5), 0, "benchmark"), 4)
    blob = c._engine.checkpoint()
    assert ItemEngine.restore(blob).checkpoint() == blob
    state = json.loads(blob)
    state["records"][1][3] *= 1.5  # another probability than the board gives: not the draw the board made
    with pytest.raises(StateError, match="does not replay"):
        ItemEngine.restore(json.dumps(state).encode())


def test_a_design_file_declares_an_item_campaign(tmp_path):
    (tmp_path / "rates.csv").write_text("item,rate\n0,0.9\n1,0.5\n2,0.1\n")
    design = tmp_path / "design.toml"
    # a file named in a design file is read beside it (the tests run in another folder)
    design.write_text('kind = "items"\nmodels = ["a", "b"]\nitems = 3\ndifficulty = "rates.csv"\n'
                      'about = "table"\nseed = 2\nn_max = 50\n')
    with Campaign.init(tmp_path / "d.campaign", design=design) as c, \
            Campaign.init(tmp_path / "a.campaign", kind="items", models=["a", "b"], items=3,
                          difficulty=[0.9, 0.5, 0.1], about="table", seed=2, n_max=50) as a:
        assert c.config["engine"] == a.config["engine"] and c.config["about"] == "table"
        assert c.next()[0].item == a.next()[0].item


def test_two_operators_cannot_record_one_draw_twice_and_a_retry_writes_once(tmp_path):
    path = tmp_path / "two.campaign"
    Campaign.init(path, kind="items", models=["x", "y"], items=10, seed=5).close()
    with Campaign.open(path) as ana, Campaign.open(path) as bo:
        s = ana.next()[0]
        assert bo.next()[0] == s  # both were shown draw 1
        scores = {m: 1.0 for m in s.models}
        first = ana.record_item(s.item, scores, draw=s.trial, idempotency_key="k-1")
        again = ana.record_item(s.item, scores, draw=s.trial, idempotency_key="k-1")  # a retried request
        assert again == first and len(ana.records()) == 1
        with pytest.raises(ParameterError, match="draw 1 is not the pending draw"):
            bo.record_item(s.item, scores, draw=s.trial)  # bo's copy was at draw 1: the file has moved on
        assert len(bo.records()) == 1 and bo.next()[0].trial == 2
