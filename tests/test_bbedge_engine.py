"""BB-EDGE streaming engine: input errors, persistence, model addition, epochs, Top-k, batch entry point."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import certirank
from certirank.errors import DataError, ParameterError, StateError
from certirank.methods.bbedge import Leaderboard, bbedge_path, leaderboard
from certirank.sim.bbedge_dgp import bbedge_addition_panels, bbedge_blocks, bbedge_panels, bbedge_truth, bbedge_thetas


def _panels(seed=0, R=8, setting="iid", L=6, N=40):
    return bbedge_panels(seed, setting, L=L, N=N, R=R, block_size=5)


def _long(panels, models=None, items=None):
    R, L, N = panels.shape
    models = models or [f"m{i}" for i in range(L)]
    items = items or [f"q{i}" for i in range(N)]
    rows = [(models[l], items[i], r + 1, panels[r, l, i]) for r in range(R) for l in range(L) for i in range(N)]
    return pd.DataFrame(rows, columns=["model", "item", "replicate", "score"])


def _state(lb):
    return json.loads(lb.to_json())


def test_public_names_resolve_lazily():
    assert certirank.Leaderboard is Leaderboard
    assert certirank.leaderboard is leaderboard


# ------------------------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("bad, err, msg", [
    ("missing", DataError, "missing item"),
    ("range", DataError, "outside"),
    ("shape", DataError, "39 items; the benchmark has 40"),
    ("twice", StateError, "already added"),
])
def test_bad_replicates_raise_and_leave_state_unchanged(bad, err, msg):
    P = _panels()
    lb = Leaderboard([f"m{i}" for i in range(6)], blocks=list(bbedge_blocks(40, 5)))
    lb.add_replicate(P[0], replicate=1)
    lb.add_replicate(P[1], replicate=2)
    before = lb.to_json()
    panel = P[2].copy()
    rid = 3
    if bad == "missing":
        panel[2, 5] = np.nan
    elif bad == "range":
        panel[0, 0] = 1.5
    elif bad == "shape":
        panel = panel[:, :-1]
    else:
        rid = 2
    with pytest.raises(err, match=msg):
        lb.add_replicate(panel, replicate=rid)
    assert lb.to_json() == before
    lb.add_replicate(P[2], replicate=3)  # still usable afterwards
    assert lb.R == 3


def test_missing_model_in_long_panel_names_it():
    P = _panels()
    lb = Leaderboard([f"m{i}" for i in range(6)])
    df = _long(P[:1])
    with pytest.raises(DataError, match="'m3'.*no scores"):
        lb.add_replicate(df[df["model"] != "m3"])
    df2 = df.drop(index=df.index[(df["model"] == "m1") & (df["item"] == "q7")])
    lb.add_replicate(df.iloc[:0].pipe(lambda d: df))  # a complete panel works
    with pytest.raises(DataError, match="'m1' is missing item.*'q7'"):
        lb.add_replicate(df2.assign(replicate=2))
    assert lb.R == 1


def test_replicate_id_from_long_panel_is_checked():
    P = _panels(R=2)
    lb = Leaderboard([f"m{i}" for i in range(6)])
    lb.add_replicate(_long(P[:1]))
    with pytest.raises(StateError, match="replicate 1 was already added"):
        lb.add_replicate(_long(P[1:2]))  # its replicate column says 1 again
    assert lb.R == 1


@pytest.mark.parametrize("kwargs, msg", [
    (dict(tau=-0.1), r"tau must be a number in \[0, 1\)"),
    (dict(tau=1.0), "tau"),
    (dict(alpha=1.5), "alpha"),
    (dict(weights=[0.3] * 4, items=list("abcd")), "sum to 1"),
    (dict(blocks="nonsense"), "blocks must be"),
    (dict(method="magic"), "method"),
    (dict(top_k=3), "top_k"),
    (dict(pilot=2), r"pilot \(--pilot\) needs top_k"),
    (dict(blocks=["x", "y"], items=list("abc")), "one block label per item"),
])
def test_bad_parameters(kwargs, msg):
    with pytest.raises(ParameterError, match=msg):
        Leaderboard(["a", "b", "c"], **kwargs)


def test_item_in_two_blocks_and_bad_weights_in_data():
    P = _panels(R=2)
    df = _long(P)
    df["block"] = df["item"].str[1:].astype(int) // 5
    df.loc[0, "block"] = 99  # item q0 now in two blocks
    with pytest.raises(DataError, match="block"):
        leaderboard(df)
    df = _long(P)
    df["grp"] = (df["item"].str[1:].astype(int) // 5).astype(str)
    df.loc[3, "grp"] = "zz"
    with pytest.raises(DataError, match="more than one block"):
        leaderboard(df, blocks="grp")
    df = _long(P)
    df["weight"] = 0.5
    with pytest.raises(ParameterError, match="sum to 1"):
        leaderboard(df)
    with pytest.raises(DataError, match="blocks column 'nope' not found"):
        leaderboard(_long(P), blocks="nope")


def test_batch_missing_item_in_a_replicate():
    df = _long(_panels(R=3))
    df = df.drop(index=df.index[(df["model"] == "m2") & (df["item"] == "q4") & (df["replicate"] == 2)])
    with pytest.raises(DataError, match="'m2' is missing item 'q4'.*replicate 2"):
        leaderboard(df)


# ------------------------------------------------------------------------------------------- persistence

def test_json_resume_is_identical(tmp_path):
    P = _panels(R=10, setting="combined")
    kw = dict(blocks=list(bbedge_blocks(40, 5)), top_k=2, tau=0.01)
    models = [f"m{i}" for i in range(6)]
    full = Leaderboard(models, **kw)
    for r in range(10):
        full.add_replicate(P[r])
    half = Leaderboard(models, **kw)
    for r in range(5):
        half.add_replicate(P[r])
    path = tmp_path / "board.json"
    half.save(path)
    assert not [p for p in tmp_path.iterdir() if p.name != "board.json"]  # no temporary file left behind
    resumed = Leaderboard.load(path)
    for r in range(5, 10):
        resumed.add_replicate(P[r])
    np.testing.assert_array_equal(resumed.log_e_matrix(), full.log_e_matrix())
    assert resumed.result().to_dict() == full.result().to_dict()
    assert resumed.to_json() == full.to_json()


def test_from_json_rejects_garbage():
    with pytest.raises(StateError):
        Leaderboard.from_json("{not json")
    with pytest.raises(StateError):
        Leaderboard.from_json(json.dumps({"version": 99}))
    with pytest.raises(StateError, match="checksum"):
        Leaderboard.from_json(json.dumps({"version": 1, "families": []}))
    with pytest.raises(StateError, match="corrupt"):
        Leaderboard.from_json(json.dumps({"version": 1, "families": []}), trust_edited=True)
    with pytest.raises(StateError, match="cannot read"):
        Leaderboard.load("/nonexistent/board.json")


# ------------------------------------------------------------------------------------------- outputs

def test_result_fields_and_blocks_statement():
    P = _panels(R=4)
    res = leaderboard(_long(P))
    d = res.to_dict()
    for key in ("alpha", "tau", "replicates", "models", "edges", "top_k", "blocks"):
        assert key in d
    assert d["replicates"] == 4 and d["top_k"] is None
    assert d["blocks"]["resolution"] == "singleton"
    assert "independently" in d["blocks"]["statement"] and "--blocks replicate" in d["blocks"]["statement"]
    means = P.mean(axis=(0, 2))
    got = {m["model"]: m["mean"] for m in d["models"]}
    for i in range(6):
        assert got[f"m{i}"] == pytest.approx(means[i])
    for m in d["models"]:
        lo, hi = m["rank_interval"]
        assert 1 <= lo <= hi <= 6
    json.dumps(d, allow_nan=False)
    df = _long(P)
    df["block"] = df["item"].str[1:].astype(int) // 5
    assert leaderboard(df).blocks["resolution"] == "protocol"
    assert leaderboard(df).blocks["n_blocks"] == 8
    assert leaderboard(df, blocks="items").blocks["resolution"] == "singleton"
    rep = leaderboard(df, blocks="replicate")
    assert rep.blocks["resolution"] == "replicate" and "any dependence" in rep.blocks["statement"]


def test_rank_intervals_follow_path_implication():
    # three clearly separated models: A >> B >> C on 200 items, one run, singleton blocks
    rng = np.random.default_rng(1)
    panel = np.vstack([(rng.random(200) < p).astype(float) for p in (0.9, 0.5, 0.1)])
    lb = Leaderboard(list("ABC"))
    lb.add_replicate(panel)
    res = lb.result()
    assert ["A", "B"] in res.edges and ["B", "C"] in res.edges
    assert [m["rank_interval"] for m in res.models] == [[1, 1], [2, 2], [3, 3]]
    assert [m["certified_above"] for m in res.models] == [2, 1, 0]
    dot = res.graph("dot")
    assert dot.startswith("digraph certirank {") and '"A" -> "B";' in dot
    assert "flowchart TD" in res.graph("mermaid")
    assert res.sentences()[0].startswith("A is better than")


def test_cycle_fails_closed(monkeypatch):
    lb = Leaderboard(list("ABC"))
    lb.add_replicate(np.full((3, 5), 0.5))
    cyc = np.zeros((3, 3), dtype=bool)
    cyc[0, 1] = cyc[1, 2] = cyc[2, 0] = True
    monkeypatch.setattr(lb, "certified_matrix", lambda: cyc)
    res = lb.result()
    assert res.inconsistent
    assert all(m["rank_interval"] == [1, 3] for m in res.models)
    assert len(res.edges) == 3  # the edge list itself is still reported


def test_cumulative_output_is_union_of_current():
    P = _panels(R=12, setting="heterogeneity", L=6, N=40)
    models = [f"m{i}" for i in range(6)]
    cur = Leaderboard(models, blocks=list(bbedge_blocks(40, 5)))
    cum = Leaderboard(models, blocks=list(bbedge_blocks(40, 5)), output="cumulative")
    union = np.zeros((6, 6), dtype=bool)
    for r in range(12):
        cur.add_replicate(P[r])
        cum.add_replicate(P[r])
        union |= cur.certified_matrix()
        np.testing.assert_array_equal(cum.certified_matrix(), union)


# ------------------------------------------------------------------------------------------- Top-k

def test_full_graph_top_k_matches_closure_definition():
    P = bbedge_panels(5, "iid", L=6, N=100, R=40, block_size=5, p=np.repeat([[0.9], [0.85], [0.5], [0.45], [0.2],
                                                                            [0.15]], 100, axis=1))
    out = bbedge_path(P, top_k=2)
    assert out["top_k_at"] is not None and out["top_k_set"] == [0, 1]
    r = out["top_k_at"] - 1
    cert = out["certified"][r]
    assert cert[0][2:].all() and cert[1][2:].all()  # both certified above all four others
    if r > 0:  # not certified one replicate earlier
        from certirank.order.closure import top_k, transitive_closure
        assert top_k(transitive_closure(out["certified"][r - 1]), 2) is None


def test_pilot_top_k_uses_only_cross_set_directions():
    p = np.repeat([[0.9], [0.85], [0.5], [0.45], [0.2], [0.15]], 100, axis=1)
    P = bbedge_panels(6, "iid", L=6, N=100, R=30, block_size=5, p=p)
    lb = Leaderboard([f"m{i}" for i in range(6)], top_k=2, pilot=3)
    for r in range(2):
        lb.add_replicate(P[r])
        assert lb.result().stages == []  # the pilot collects no evidence
    lb.add_replicate(P[2])
    assert lb.result().stages[0]["replicates"] == 0  # family fixed by the pilot, no evidence yet
    assert (lb.log_e_matrix()[:2, 2:] == 0).all()  # E_0 = 1 for the 8 cross-set directions
    assert np.isnan(lb.log_e_matrix()[2:]).all()
    lb.add_replicate(P[3])
    res = lb.result()
    assert res.stages[0]["directions"] == 2 * 4 and res.stages[0]["replicates"] == 1
    for r in range(4, 30):
        lb.add_replicate(P[r])
    tk = lb.result().top_k
    assert tk["candidate"] == ["m0", "m1"] and tk["set"] == ["m0", "m1"]
    assert tk["certified_at"] == tk["confirmatory_at"] + 3
    # the confirmatory e-processes start fresh at replicate 4: equal to a board that never saw the pilot
    fresh = Leaderboard([f"m{i}" for i in range(6)])
    for r in range(3, 30):
        fresh.add_replicate(P[r])
    np.testing.assert_allclose(lb.log_e_matrix()[0, 2:], fresh.log_e_matrix()[0, 2:], rtol=0, atol=1e-12)
    assert np.isnan(lb.log_e_matrix()[2, 0])  # not part of the family


# ------------------------------------------------------------------------------------------- extensions

def test_model_addition_replays_new_directions_only():
    old, new = bbedge_addition_panels(3, "dependence", L=6, N=40, R=6, block_size=5)
    models = [f"m{i}" for i in range(5)]
    blocks = list(bbedge_blocks(40, 5))
    lb = Leaderboard(models, blocks=blocks, additions="open")
    for r in range(6):
        lb.add_replicate(old[r])
    before = lb.log_e_matrix()
    lb.add_model("m5", new[:, 0, :])
    after = lb.log_e_matrix()
    np.testing.assert_array_equal(after[:5, :5], before)  # old directions untouched
    # the replayed e-processes equal those of a board that had all six models from the start
    ref = Leaderboard(models + ["m5"], blocks=blocks)
    for r in range(6):
        ref.add_replicate(np.concatenate([old[r], new[r]], axis=0))
    np.testing.assert_allclose(after[5, :5], ref.log_e_matrix()[5, :5], rtol=0, atol=1e-12)
    np.testing.assert_allclose(after[:5, 5], ref.log_e_matrix()[:5, 5], rtol=0, atol=1e-12)
    res = lb.result()
    assert [s["alpha"] for s in res.stages] == [pytest.approx(0.025), pytest.approx(0.0125)]
    assert res.stages[1]["directions"] == 10 and res.stages[1]["replicates"] == 6
    lb.add_replicate(np.concatenate([old[0], new[0]], axis=0))  # later replicates include the new model
    assert lb.R == 7


def test_model_addition_errors_leave_state_unchanged():
    old, new = bbedge_addition_panels(3, "iid", L=4, N=20, R=3, block_size=5)
    lb = Leaderboard(["a", "b", "c"])
    lb.add_replicate(old[0])
    with pytest.raises(StateError, match="not planned"):
        lb.add_model("d", new[:1, 0])
    lb = Leaderboard(["a", "b", "c"], additions=1)
    for r in range(3):
        lb.add_replicate(old[r])
    before = lb.to_json()
    with pytest.raises(DataError, match="one score vector per stored replicate"):
        lb.add_model("d", new[:2, 0])
    with pytest.raises(StateError, match="already on the board"):
        lb.add_model("a", new[:, 0])
    bad = new[:, 0].copy()
    bad[1, 3] = np.nan
    with pytest.raises(DataError, match="missing item"):
        lb.add_model("d", bad)
    assert lb.to_json() == before
    lb.add_model("d", new[:, 0])
    with pytest.raises(StateError, match="planned model additions"):
        lb.add_model("e", new[:, 0])


def test_epoch_reset_restarts_e_processes_with_alpha_schedule():
    P = bbedge_panels(9, "iid", L=4, N=40, R=10, block_size=5)
    items = [f"q{i}" for i in range(40)]
    lb = Leaderboard(["a", "b", "c", "d"], items=items[:20], epochs=2)
    for r in range(5):
        lb.add_replicate(P[r][:, :20])
    lb.expand_benchmark(items[20:])
    assert lb.R == 0 and lb.epoch == 2
    assert np.isnan(lb.log_e_matrix()).all()  # nothing until the first fresh replicate
    for r in range(5, 10):
        lb.add_replicate(P[r])
    res = lb.result()
    assert res.n_items == 40 and res.epoch == 2 and res.replicates == 5
    assert res.stages[0]["alpha"] == pytest.approx(0.025)
    assert res.earlier_epochs[0]["n_items"] == 20 and res.earlier_epochs[0]["replicates"] == 5
    fresh = Leaderboard(["a", "b", "c", "d"], alpha=0.025)
    for r in range(5, 10):
        fresh.add_replicate(P[r])
    np.testing.assert_allclose(lb.log_e_matrix(), fresh.log_e_matrix(), atol=1e-12)
    with pytest.raises(StateError, match="planned benchmark versions"):
        lb.expand_benchmark(["extra"])
    open_lb = Leaderboard(["a", "b"], items=["x", "y"], epochs="open")
    open_lb.add_replicate(np.array([[1.0, 0.0], [0.0, 1.0]]))
    assert open_lb.result().stages[0]["alpha"] == pytest.approx(0.05 * 6 / math.pi ** 2)
    open_lb.expand_benchmark(["z"])
    open_lb.add_replicate(np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]))
    assert open_lb.result().stages[0]["alpha"] == pytest.approx(0.05 * 6 / (math.pi ** 2 * 4))


def test_batch_and_streaming_agree_with_replicate_column():
    P = _panels(R=5)
    df = _long(P).sample(frac=1.0, random_state=0)  # row order must not matter for replicates
    res = leaderboard(df, top_k=2)
    lb = Leaderboard([f"m{i}" for i in range(6)], items=[f"q{i}" for i in range(40)], top_k=2)
    for r in range(5):
        lb.add_replicate(P[r])
    # item order follows first appearance in the shuffled table, which does not change singleton e-processes
    assert res.edges == lb.result().edges
    assert [m["rank_interval"] for m in res.models] == [m["rank_interval"] for m in lb.result().models]


def test_truth_of_generator():
    truth = bbedge_truth(bbedge_thetas(10))
    assert int(truth.true_edge.sum()) == 40
    tied = np.isclose(truth.delta, 0) & ~np.eye(10, dtype=bool)
    assert int(tied.sum()) == 10  # 5 tied pairs, both directions
    assert int((~truth.true_edge & ~np.eye(10, dtype=bool)).sum()) == 50


def test_panel_formats_give_identical_e_processes():
    P = _panels(R=3, L=4, N=20)[:, :3]
    models, items = ["m0", "m1", "m2"], [f"q{i}" for i in range(20)]
    boards = [Leaderboard(models, items=items) for _ in range(4)]
    for r in range(3):
        boards[0].add_replicate(P[r])
        boards[1].add_replicate({m: P[r][i] for i, m in enumerate(models)})
        wide = pd.DataFrame(P[r].T, index=items, columns=models).iloc[::-1]  # row order must not matter
        boards[2].add_replicate(wide)
        boards[3].add_replicate(_long(P[r:r + 1], models, items).drop(columns="replicate").sample(frac=1,
                                                                                                  random_state=r))
    for b in boards[1:]:
        np.testing.assert_array_equal(b.log_e_matrix(), boards[0].log_e_matrix())


def test_weight_column_is_used_and_stated():
    P = _panels(R=3, L=4, N=20)[:, :3]
    df = _long(P, ["a", "b", "c"])
    w = np.linspace(1, 2, 20)
    w /= w.sum()
    df["weight"] = df["item"].str[1:].astype(int).map(lambda i: w[i])
    res = leaderboard(df)
    lb = Leaderboard(["a", "b", "c"], items=[f"q{i}" for i in range(20)], weights=w)
    for r in range(3):
        lb.add_replicate(P[r])
    np.testing.assert_allclose(res.log_e(), lb.log_e_matrix(), atol=1e-12)
    assert res.models[0]["mean"] == pytest.approx(max((P.mean(axis=0) @ w)))


def test_path_margins_with_tau():
    rng = np.random.default_rng(2)
    panel = np.vstack([(rng.random(400) < p).astype(float) for p in (0.95, 0.5, 0.05)])
    lb = Leaderboard(list("ABC"), tau=0.1)
    lb.add_replicate(panel)
    res = lb.result()
    assert ["A", "B"] in res.edges and ["B", "C"] in res.edges
    got = {(m["better"], m["worse"]): (m["path_length"], m["margin"]) for m in res.path_margins}
    assert got[("A", "C")][0] == 2 and got[("A", "C")][1] == pytest.approx(0.2)
    assert got[("A", "B")] == (1, pytest.approx(0.1))
    assert Leaderboard(list("ABC")).add_replicate(panel).result().path_margins is None


def test_resume_with_history_additions_and_epochs(tmp_path):
    old, new = bbedge_addition_panels(12, "combined", L=6, N=40, R=8, block_size=5)
    items = [f"q{i}" for i in range(40)]
    blocks = {q: f"b{i // 5}" for i, q in enumerate(items)}
    kw = dict(items=items[:30], blocks=blocks, additions="open", epochs=2, tau=0.01)
    a = Leaderboard([f"m{i}" for i in range(5)], **kw)
    b = Leaderboard([f"m{i}" for i in range(5)], **kw)
    for r in range(4):
        a.add_replicate(old[r][:, :30])
        b.add_replicate(old[r][:, :30])
    b = Leaderboard.from_json(b.to_json())
    for board in (a, b):
        board.add_model("m5", new[:4, 0, :30])
        board.add_replicate(np.concatenate([old[4], new[4]])[:, :30])
        board.expand_benchmark(items[30:])
        for r in range(5, 8):
            board.add_replicate(np.concatenate([old[r], new[r]]))
    assert a.to_json() == b.to_json()
    assert a.result().to_dict() == b.result().to_dict()
    assert a.result().earlier_epochs[0]["replicates"] == 5


def test_batch_pilot_needs_confirmatory_replicates():
    with pytest.raises(DataError, match="pilot of 3 leaves none"):
        leaderboard(_long(_panels(R=3)), top_k=2, pilot=3)
