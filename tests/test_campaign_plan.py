"""The campaign's schedule (issue 34 item 2, spec 09 §7): environments shuffled within balanced blocks, each
trial's policies in a Williams-balanced order, seeded and stored; `next` follows it while AnyRank's active
sampling chooses which rollouts are still needed; `plan` prints it; a campaign without environments has none."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from certirank import Campaign
from certirank.campaign._plan import Schedule, Segment, williams_rows

ENVS = ["kitchen", "sink", "shelf", "bench"]


@pytest.mark.parametrize("m", range(2, 10))
def test_williams_rows_balance_position_and_neighbours(m):
    """Brute-force counts: each treatment in each position equally often, each ordered neighbour pair (a, b)
    equally often (once for even m, twice for odd m) -- the carry-over balance."""
    rows = williams_rows(m)
    assert len(rows) == (m if m % 2 == 0 else 2 * m)
    assert all(sorted(r) == list(range(m)) for r in rows)
    pos = Counter((x, i) for r in rows for i, x in enumerate(r))
    assert set(pos.values()) == {len(rows) // m} and len(pos) == m * m
    pairs = Counter((r[i], r[i + 1]) for r in rows for i in range(m - 1))
    assert len(pairs) == m * (m - 1) and set(pairs.values()) == {1 if m % 2 == 0 else 2}


@pytest.mark.parametrize("m, seed", [(3, 0), (4, 1), (5, 7)])
def test_the_trial_order_is_williams_balanced_over_each_cycle(m, seed):
    policies = [f"p{i}" for i in range(m)]
    s = Schedule(policies, [], order_seed=seed)
    cycle = len(williams_rows(m))
    for c in range(3):
        orders = [s.order(t) for t in range(c * cycle, (c + 1) * cycle)]
        first = Counter(o[0] for o in orders)
        assert set(first) == set(policies) and len(set(first.values())) == 1
        after = Counter((o[i], o[i + 1]) for o in orders for i in range(m - 1))
        assert len(after) == m * (m - 1) and len(set(after.values())) == 1
    # seeded: the same seed gives the same orders, another seed other ones
    again = Schedule(policies, [], order_seed=seed)
    assert [s.order(t) for t in range(40)] == [again.order(t) for t in range(40)]
    other = Schedule(policies, [], order_seed=seed + 1)
    assert [s.order(t) for t in range(40)] != [other.order(t) for t in range(40)]


def test_every_block_runs_each_environment_once_in_a_seeded_random_order():
    s = Schedule(["a", "b"], [Segment(0, 0, "blocks", tuple(ENVS), 11)], order_seed=11)
    blocks = [[s.environment(t) for t in range(4 * b, 4 * b + 4)] for b in range(50)]
    assert all(sorted(b) == sorted(ENVS) for b in blocks)
    assert [s.block(t) for t in range(8)] == [0, 0, 0, 0, 1, 1, 1, 1]
    # the orders vary between blocks: each environment comes first in some block (50 blocks of 4)
    assert {b[0] for b in blocks} == set(ENVS)
    # and over many blocks each position is taken by each environment about equally (no fixed order)
    firsts = Counter(b[0] for b in blocks)
    assert max(firsts.values()) <= 25


def test_next_follows_the_schedule_and_active_sampling(tmp_path):
    c = Campaign.init(tmp_path / "s.campaign", ["a", "b", "c"], alpha=0.2, n_max=60, environments=ENVS, seed=3)
    sched = c.design.schedule
    rng = np.random.default_rng(0)
    seen = 0
    partial = False
    quality = {"a": 0.9, "b": 0.5, "c": 0.1}
    while seen < 90:
        todo = c.next(remember=False)
        if not todo:
            break
        trials = sorted({s.trial for s in todo})
        for t in trials:
            listed = [s.policy for s in todo if s.trial == t]
            # the needed rollouts of a trial in the trial's Williams order, each on the scheduled environment
            assert listed == [p for p in sched.order(t) if p in listed]
            assert {s.environment for s in todo if s.trial == t} == {sched.environment(t)}
            assert [s.position for s in todo if s.trial == t] == list(range(1, len(listed) + 1))
            partial = partial or len(listed) < 3
        for s in todo:
            assert s.block == s.trial // len(ENVS)
            c.record(s.policy, s.trial, float(rng.random() < quality[s.policy]))
            seen += 1
    # active sampling: once a pair is decided its rollouts are no longer asked for, so a trial may need only some
    # of the policies (each still on the trial's environment, in the trial's order)
    assert c.status().ranking.relations, "the campaign decided nothing in 90 rollouts"
    assert partial
    rec = c.records()
    assert all(r.environment == sched.environment(r.trial) and r.block == r.trial // 4 for r in rec)


def test_the_schedule_is_stored_the_same_for_every_reader(tmp_path):
    db = tmp_path / "r.campaign"
    Campaign.init(db, ["a", "b", "c", "d"], alpha=0.1, n_max=40, environments=ENVS).close()  # fresh seed, stored
    with Campaign.open(db) as one, Campaign.open(db) as two:
        a, b = one.design.schedule, two.design.schedule
        assert [(a.environment(t), a.order(t)) for t in range(30)] == [(b.environment(t), b.order(t))
                                                                        for t in range(30)]
        assert one.config["plan"]["seed"] == a.order_seed


def test_adding_environments_starts_at_the_next_block_and_changes_no_rollout(tmp_path):
    c = Campaign.init(tmp_path / "a.campaign", ["a", "b"], alpha=0.1, n_max=200, environments=ENVS[:3], seed=2)
    for _ in range(4):  # trials 0..3 reached: the running block is 3..5
        for s in c.next():
            c.record(s.policy, s.trial, 0.5)
    before = {(r.policy, r.trial): r.environment for r in c.records()}
    reached = max(t for _, t in before)
    rec = c.amend(environments=[*ENVS[:3], "bench"], reason="a fourth scene")
    start = rec.changes["from_trial"]
    assert start % 3 == 0 and start > reached  # a block boundary after every trial handed out
    assert {(r.policy, r.trial): r.environment for r in c.records()} == before
    sched = c.design.schedule
    for b in range(5):
        lo = start + 4 * b
        assert sorted(sched.environment(t) for t in range(lo, lo + 4)) == sorted([*ENVS[:3], "bench"])
    # the block numbers go on from the first segment's
    assert sched.block(start) == start // 3
    assert c.plan(1).segments[-1]["from_trial"] == start and c.verify().ok


def test_campaigns_made_before_blocks_keep_their_independent_draws(tmp_path):
    """A configuration with the Ranker's environment draw (files from before the schedule) keeps its environments
    trial for trial; `plan` shows them as independent draws."""
    import shutil
    from pathlib import Path
    src = Path(__file__).parent / "fixtures" / "campaign_v1" / "anyrank_v1.campaign"
    db = tmp_path / "old.campaign"
    shutil.copy(src, db)
    with Campaign.open(db) as c:
        draw = c.config["engine"].get("environment_draw")
        if draw is None:
            pytest.fail("the fixture has no environment draw")
        from certirank.campaign._util import _environment
        assert all(r.environment == _environment(draw, r.trial) for r in c.records())
        pl = c.plan(1)
        assert pl.rule == "independent draws" and pl.order == "configured"


def _study():
    import importlib.util
    import sys
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "studies" / "campaign_schedule_blocks_vs_independent.py"
    spec = importlib.util.spec_from_file_location("campaign_schedule_blocks_vs_independent", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("scenario", [0, 1])
def test_balanced_blocks_keep_the_paired_tests_error_rate(scenario):
    """Seeded Monte Carlo (a small run of benchmarks/studies/campaign_schedule_blocks_vs_independent.py): under a
    null with strong opposite environment effects, the paired test run in balanced blocks certifies a direction
    at most alpha of the time, up to three binomial standard deviations."""
    study = _study()
    name, p_a, p_b = study.SCENARIOS[scenario]
    runs, alpha = 800, 0.05
    rate, _ = study.simulate(p_a, p_b, horizon=200, runs=runs, blocked=True, seed=11, alpha=alpha)
    assert rate <= alpha + 3 * (alpha * (1 - alpha) / runs) ** 0.5, (name, rate)


@pytest.mark.slow
def test_balanced_blocks_keep_the_error_rate_in_every_null_scenario():
    study = _study()
    runs, alpha = 4000, 0.05
    for name, p_a, p_b in study.SCENARIOS:
        if name.startswith("null"):
            rate, _ = study.simulate(p_a, p_b, horizon=400, runs=runs, blocked=True, seed=12, alpha=alpha)
            assert rate <= alpha + 3 * (alpha * (1 - alpha) / runs) ** 0.5, (name, rate)
