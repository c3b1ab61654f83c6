"""The worked example of a proxy campaign in docs/prediction-powered.md and docs/campaigns.md.

Usage::

    .venv/bin/python docs/scripts/proxy_campaign_example.py [OUTDIR]

Three grasping policies (real success 0.3, 0.8, 0.8) and a simulator that agrees with the real outcome 95 % of the
time. The campaign (``campaign init --label-rate 0.3 --seed 1``) draws which trials get a real rollout; every
trial gets a simulator rollout. The script runs what ``campaign next`` asks for (the real outcome only where it
says "real + proxy"), then prints the status, the export's replay command and whether the replay through
``certirank rank --proxy`` gives the same ranking. Seeded: the same output on every run.
"""

from __future__ import annotations

import json
import shlex
import sys
import tempfile
from pathlib import Path

import numpy as np

from certirank import Campaign

MEANS = {"A": 0.3, "B": 0.8, "C": 0.8}


def main(outdir: Path) -> None:
    from typer.testing import CliRunner

    from certirank.cli import app
    db = outdir / "grasp.campaign"
    if db.exists():
        db.unlink()
    c = Campaign.init(db, list(MEANS), label_rate=0.3, seed=1, n_max=300)
    rng = np.random.default_rng(2)
    while True:
        todo = c.next()
        if not todo:
            break
        for s in todo:
            y = float(rng.random() < MEANS[s.policy])
            sim = y if rng.random() < 0.95 else 1.0 - y
            c.record(s.policy, s.trial, y if s.label == "real + proxy" else None, proxy=sim)
    st = c.status()
    recs = c.records()
    trials = len({r.trial for r in recs})
    real = sum(r.score is not None for r in recs)
    print(f"trials (simulator rollouts per policy): {trials}; trials drawn for a real label: "
          f"{real // len(MEANS)} ({real} real rollouts in all)")
    print("stopped:", st.termination)
    for line in st.ranking.sentences():
        print("  ", line)
    from certirank.campaign._proxy import label_drawn
    for rel in st.ranking.relations:  # `when` counts units: the trials 0, 1, ... completed in that order here
        labels = sum(label_drawn(1, t, 0.3) for t in range(int(rel.when)))
        print(f"   {rel.better} > {rel.worse} certified after {rel.when} trials, {labels} of them with a real label")
    print("test:", st.test)
    ex = c.export(outdir / "grasp.csv")
    c.close()
    print("replay:", ex.rank_command)
    words = shlex.split(ex.rank_command)[1:] + ["--json"]
    out = CliRunner().invoke(app, words)
    replay = json.loads(out.stdout)["ranking"]["relations"]
    print("replay gives the campaign's ranking:", replay == json.loads(st.to_json())["ranking"]["relations"])
    _cost()


def _cost(units: int = 1000) -> None:
    """CPU time of one ranking (what a campaign computes each time a trial is completed) at ``units`` trials."""
    import time

    from certirank.campaign._proxy import ProxyEngine, label_drawn
    cfg = ProxyEngine.make_config(list(MEANS), alpha=0.05, label_rate=0.3, seed=1, n_max=5000)
    rng = np.random.default_rng(3)
    recs = []
    for t in range(units):
        drawn = label_drawn(1, t, 0.3)
        for p, m in MEANS.items():
            y = float(rng.random() < m)
            recs.append((p, t, y if drawn else None, y if rng.random() < 0.95 else 1.0 - y))
    engine = ProxyEngine(cfg, recs)
    t0 = time.process_time()
    engine.result()
    print(f"one ranking at {units} trials of {len(MEANS)} policies: {time.process_time() - t0:.2f} s CPU")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp()))
