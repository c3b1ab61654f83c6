"""The proxy campaign (issue 35 item 3): the label draw, the ranking against the public API on the same arrays,
the refusals, undo/verify, and a lying proxy's error rate (seeded Monte Carlo, binomial tolerance)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from scipy.stats import binom

import certirank
from certirank import Campaign
from certirank.campaign._proxy import ProxyEngine, label_drawn, label_u
from certirank.errors import ParameterError, StateError

MEANS = {"A": 0.1, "B": 0.9, "C": 0.9}


def _run(c: Campaign, rng: np.random.Generator, means=MEANS, accuracy: float = 0.95, trials: int = 120) -> None:
    """Drive a campaign as an operator would: run what `next` says, real outcome only where it asks for one."""
    for _ in range(trials):
        todo = c.next()
        if not todo:
            return
        for s in todo:
            y = float(rng.random() < means[s.policy])
            f = y if rng.random() < accuracy else 1.0 - y
            c.record(s.policy, s.trial, y if s.label == "real + proxy" else None, proxy=f)


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    path = tmp_path_factory.mktemp("proxy") / "lab.campaign"
    c = Campaign.init(path, ["A", "B", "C"], label_rate=0.3, seed=11, alpha=0.05)
    _run(c, np.random.default_rng(5), trials=60)
    yield c
    c.close()


def test_the_label_draw_is_a_reproducible_function_of_seed_and_trial_with_rate_pi():
    # an independent reading of the documented rule: the first 53 bits of SHA-256("...label/1:seed:trial")
    digest = hashlib.sha256(b"certirank.campaign.label/1:7:12").digest()
    assert label_u(7, 12) == (int.from_bytes(digest[:8], "big") >> 11) / 2.0**53
    n = 20_000
    for pi in (0.05, 0.2, 0.5):
        hits = sum(label_drawn(3, t, pi) for t in range(n))
        lo, hi = binom.ppf(1e-6, n, pi), binom.isf(1e-6, n, pi)  # two-sided, 2e-6 false-failure chance
        assert lo <= hits <= hi, (pi, hits, lo, hi)
    assert all(label_drawn(3, t, 1.0) for t in range(1000))
    a = [label_drawn(1, t, 0.3) for t in range(500)]
    assert a == [label_drawn(1, t, 0.3) for t in range(500)]
    assert a != [label_drawn(2, t, 0.3) for t in range(500)]


def test_next_shows_the_draw_before_the_rollout_and_every_policy_shares_the_trial(tmp_path):
    c = Campaign.init(tmp_path / "n.campaign", ["A", "B"], label_rate=0.4, seed=9)
    seen = set()
    rng = np.random.default_rng(0)
    for _ in range(30):
        todo = c.next()
        assert len({s.trial for s in todo}) == 1 and {s.policy for s in todo} <= {"A", "B"}
        for s in todo:
            drawn = label_drawn(9, s.trial, 0.4)
            assert s.label == ("real + proxy" if drawn else "proxy only")
            assert s.to_dict()["label"] == s.label
            seen.add(drawn)
            c.record(s.policy, s.trial, float(rng.random() < 0.5) if drawn else None, proxy=0.5)
    assert seen == {True, False}
    assert c.kind == "proxy" and c.config["engine"]["label_seed"] == 9


def test_an_anyrank_suggestion_and_record_print_as_before(tmp_path):
    c = Campaign.init(tmp_path / "a.campaign", ["A", "B"], seed=1)
    s = c.next()[0]
    assert "label" not in s.to_dict()
    assert "proxy" not in c.record(s.policy, s.trial, 1.0).to_dict()
    with pytest.raises(ParameterError, match="proxy is for a proxy campaign"):
        c.record("B", 0, 1.0, proxy=0.5)


def test_the_campaign_ranks_as_compare_does_on_the_same_arrays(ran):
    """Every pair's decision equals `certirank.compare` with proxies at alpha / K on the complete trials in the
    order they were completed (the public API, not the campaign's code path)."""
    res = ran.result()
    recs = [r for r in ran.records()]
    trials = list(dict.fromkeys(r.trial for r in sorted(recs, key=lambda r: r.id)))
    by = {(r.policy, r.trial): r for r in recs}
    complete = sorted((max(by[(p, t)].id for p in MEANS), t) for t in trials if all((p, t) in by for p in MEANS))
    order = [t for _, t in complete]
    assert order == sorted(order)  # run as `next` hands out trials: in trial order

    def arrays(p):
        real = np.array([np.nan if by[(p, t)].score is None else by[(p, t)].score for t in order])
        return real, np.array([by[(p, t)].proxy for t in order])

    k = 3
    decided = {}
    for a, b in (("A", "B"), ("A", "C"), ("B", "C")):
        (x, fx), (y, fy) = arrays(a), arrays(b)
        r = certirank.compare(x, y, proxy_x=fx, proxy_y=fy, label_rate=0.3, alpha=0.05 / k, n_max=5000)
        if r.decision is not None:
            decided[(b, a) if r.decision == "x<y" else (a, b)] = r.decided_at
    got = {(rel.better, rel.worse): rel.when for rel in res.ranking.relations}
    assert got == decided and ("B", "A") in got  # B (0.9) over A (0.1) is certified here


def test_status_says_the_test_and_counts_rollouts(ran):
    st = ran.status()
    d = st.to_dict()
    assert st.campaign == "proxy" and st.ranking.kind == "proxy-bonferroni"
    assert "prediction-powered" in st.test and "Bonferroni over K = 3 pairs" in st.test
    assert "valid at any stop when labels are drawn at random with π = 0.3" in st.test
    assert sum(st.rollouts.values()) == st.records and d["about"] == "policy"
    assert {v["verdict"] for v in st.verdicts} <= {"certified", "undecided", "futile"}


@pytest.mark.parametrize("args, needle", [
    (dict(score=None, proxy=None), "give --proxy P"),
    (dict(score=None, proxy=1.5), "proxy 1.5 is outside [0, 1]"),
    (dict(score=None, proxy="missing"), "proxy is 'missing'"),
    (dict(score=None, proxy="abc"), "proxy must be a number"),
])
def test_every_refusal_is_one_line_and_writes_nothing(tmp_path, args, needle):
    c = Campaign.init(tmp_path / "r.campaign", ["A", "B"], label_rate=0.5, seed=2)
    with pytest.raises(ParameterError, match=needle.replace("[", r"\[").replace("]", r"\]")) as exc:
        c.record("A", 0, args["score"], proxy=args["proxy"])
    assert "\n" not in str(exc.value) and c.status().records == 0


def test_a_real_score_exactly_on_the_drawn_trials(tmp_path):
    c = Campaign.init(tmp_path / "d.campaign", ["A", "B"], label_rate=0.5, seed=2)
    drawn = next(t for t in range(50) if label_drawn(2, t, 0.5))
    undrawn = next(t for t in range(50) if not label_drawn(2, t, 0.5))
    with pytest.raises(ParameterError, match=f"trial {drawn} was drawn for a real label"):
        c.record("A", drawn, None, proxy=0.5, ahead=True)
    with pytest.raises(ParameterError, match=f"trial {undrawn} was not drawn for a real label"):
        c.record("A", undrawn, 1.0, proxy=0.5, ahead=True)
    with pytest.raises(ParameterError, match=r"score 2(\.0)? is outside"):
        c.record("A", drawn, 2, proxy=0.5, ahead=True)
    assert c.record("A", drawn, 1.0, proxy=0.5, ahead=True).proxy == 0.5
    assert c.record("A", undrawn, None, proxy=0.0, ahead=True).score_text == "none (proxy only)"


@pytest.mark.parametrize("kwargs, needle", [
    (dict(label_rate=0.0), "label_rate"), (dict(label_rate=1.5), "label_rate"),
    (dict(label_rate=0.3, prior={"A": 0.5, "B": 0.5}), "not used by a proxy campaign"),
    (dict(kind="proxy"), "needs label_rate"),
    (dict(kind="leaderboard", label_rate=0.3), "label_rate is for a proxy campaign"),
])
def test_init_refusals(tmp_path, kwargs, needle):
    with pytest.raises(ParameterError, match=needle):
        Campaign.init(tmp_path / "i.campaign", ["A", "B"], **kwargs)
    assert not (tmp_path / "i.campaign").exists()


def test_score_range_rescales_proxy_and_score(tmp_path):
    c = Campaign.init(tmp_path / "s.campaign", ["A", "B"], label_rate=1.0, seed=0, score_range=(0, 10))
    rec = c.record("A", 0, 5, proxy=8)
    assert rec.score == 0.5 and rec.proxy == 0.8 and rec.raw_score == 5
    with pytest.raises(ParameterError, match=r"proxy 11(\.0)? is outside"):
        c.record("B", 0, 5, proxy=11)


def test_undo_recomputes_and_verify_replays(tmp_path):
    c = Campaign.init(tmp_path / "u.campaign", ["A", "B"], label_rate=0.5, seed=4)
    _run(c, np.random.default_rng(1), means={"A": 0.4, "B": 0.6}, trials=20)
    before = c.status()
    s = c.next()[0]
    c.record(s.policy, s.trial, 1.0 if s.label == "real + proxy" else None, proxy=0.5)
    c.undo()
    after = c.status()
    assert after.ranking.to_dict() == before.ranking.to_dict() and after.records == before.records == 40
    rep = c.verify()
    assert rep.ok and "bit for bit" in rep.to_dict()["checks"][-1]["detail"], rep.to_dict()


def test_the_engine_refuses_a_replayed_label_off_the_draw():
    """What `verify` and every replay recompute: a record whose label disagrees with the locked draw."""
    cfg = ProxyEngine.make_config(["A", "B"], alpha=0.05, label_rate=0.5, seed=2, n_max=None)
    undrawn = next(t for t in range(50) if not label_drawn(2, t, 0.5))
    with pytest.raises(ParameterError, match="not drawn"):
        ProxyEngine(cfg).apply({"action": "record", "policy": "A", "trial": undrawn, "score": 1.0,
                                "payload": '{"proxy":0.5}'})


def test_the_budget_stops_the_campaign(tmp_path):
    c = Campaign.init(tmp_path / "b.campaign", ["A", "B"], label_rate=0.5, seed=4, n_max=5)
    _run(c, np.random.default_rng(2), means={"A": 0.5, "B": 0.5}, trials=50)
    st = c.status()
    assert c.next() == [] and st.done and st.termination == "budget used up" and st.records == 10
    with pytest.raises(StateError, match="finished"):
        c.record("A", 5, None, proxy=0.5, ahead=True)


def test_a_lying_proxy_keeps_the_error_rate():
    """Two tied policies (0.5 vs 0.5); A's proxy pushed up by 0.5 (a simulator that flatters A). Any claim is an
    error; over 100 seeded campaigns (each its own label seed) the error count stays within the binomial bound
    of alpha (tail 1e-3). Run through the campaign's engine on the records a campaign would hold."""
    _lying(alpha=0.1, runs=100, n=150, pi=0.3)


@pytest.mark.slow
def test_a_lying_proxy_keeps_the_error_rate_larger():
    """The same with three policies (K = 3 pairs, all tied), 400 campaigns of 400 trials."""
    _lying(alpha=0.1, runs=400, n=400, pi=0.2, policies=("A", "B", "C"))


def _lying(alpha: float, runs: int, n: int, pi: float, policies=("A", "B")) -> None:
    errors = 0
    for run in range(runs):
        cfg = ProxyEngine.make_config(list(policies), alpha=alpha, label_rate=pi, seed=run, n_max=n)
        rng = np.random.default_rng(1000 + run)
        recs = []
        for t in range(n):
            drawn = label_drawn(run, t, pi)
            for p in policies:
                y = float(rng.random() < 0.5)
                f = y if rng.random() < 0.9 else 1.0 - y
                if p == "A":
                    f = min(1.0, f + 0.5)
                recs.append((p, t, y if drawn else None, f))
        errors += bool(ProxyEngine(cfg, recs).result().ranking.relations)
    assert errors <= binom.isf(1e-3, runs, alpha), errors


def test_amendments_keep_the_draw_and_the_budget_locked(tmp_path):
    c = Campaign.init(tmp_path / "m.campaign", ["A", "B"], label_rate=0.5, seed=4, n_max=10)
    with pytest.raises(ParameterError, match="cannot be amended in a proxy campaign"):
        c.amend(n_max=20, reason="more")
    rec = c.amend(checklist=["gripper pads"], reason="rig")
    assert rec.action == "amend" and c.design.checklist == ("gripper pads",)
    assert c.status().remaining["n_max"] == 10


def test_a_margin_certifies_equivalent_pairs(tmp_path):
    """Two equal policies (0.8, 0.8) within a margin of 0.3: the pair is certified equivalent, as `rank --proxy
    --margin` does on the same units."""
    c = Campaign.init(tmp_path / "q.campaign", ["B", "C"], label_rate=0.5, seed=6, margin=0.3, n_max=400)
    _run(c, np.random.default_rng(3), means={"B": 0.8, "C": 0.8}, trials=400)
    st = c.status()
    assert st.done and [v["verdict"] for v in st.verdicts] == ["equivalent"], st.verdicts
    assert "equivalence within 0.3" in st.test and st.ranking.to_dict()["equivalent"]


def test_a_design_file_and_blind_codes(tmp_path):
    design = tmp_path / "design.toml"
    design.write_text('policies = ["A", "B"]\nlabel_rate = 0.4\nseed = 3\nblind = true\n')
    c = Campaign.init(tmp_path / "f.campaign", design=design)
    assert c.kind == "proxy" and c.config["engine"]["label_rate"] == 0.4 and c.blind
    s = c.next()[0]
    assert s.policy not in ("A", "B") and s.label == ("real + proxy" if label_drawn(3, 0, 0.4) else "proxy only")
    rec = c.record(s.policy, s.trial, 1.0 if s.label == "real + proxy" else None, proxy=0.25)
    assert rec.policy == s.policy and rec.proxy == 0.25
    assert {p.name for p in c.status().ranking.policies} == set(c.policies)  # codes, not names
