"""`certirank campaign status` (and the `campaign init` options it reports): equivalent pairs of a campaign with a margin."""

from __future__ import annotations

import numpy as np

import certirank


def test_campaign_margin_status_shows_equivalent(cli, tmp_path):
    out = cli(["campaign", "init", str(tmp_path / "c.campaign"), "--policies", "A,B,C",
                              "--margin", "0.1", "--n-max", "300", "--seed", "1"])
    assert out.exit_code == 0, out.output
    rng = np.random.default_rng(3)
    base = rng.uniform(0.3, 0.7, 300)
    with certirank.Campaign.open(tmp_path / "c.campaign") as c:
        for _ in range(400):
            todo = c.next()
            if not todo:
                break
            for item in todo:
                p, t = item.policy, item.trial
                c.record(p, t, float(np.clip(base[t] + (0.3 if p == "C" else 0.0) + rng.normal(0, 0.1), 0, 1)))
            if c.status().to_dict()["ranking"]["equivalent"]:
                break
        st = c.status()
    eq = [v for v in st.verdicts if v["verdict"] == "equivalent"]
    assert len(eq) == 1 and set(eq[0]["pair"]) == {"A", "B"} and "margin of 0.1" in eq[0]["sentence"]
    out = cli(["campaign", "status", str(tmp_path / "c.campaign")])
    assert out.exit_code == 0 and "equivalent" in out.stdout
    bad = cli(["campaign", "init", str(tmp_path / "d.campaign"), "--kind", "leaderboard",
                              "--models", "a,b", "--margin", "0.1"])
    assert bad.exit_code == 2 and "margin" in bad.output
