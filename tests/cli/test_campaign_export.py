"""`certirank campaign export`: the exported table of a campaign file, read back by the analysis commands."""

from __future__ import annotations

import json

import pandas as pd

from certirank.campaign import Campaign

from test_campaign import finished
from test_campaign_audit import _fill


def test_export_then_rank_equals_status(cli, finished, tmp_path):
    c, _, n = finished
    out = tmp_path / "out.csv"
    ex = c.export(out)
    assert ex.rows == n
    table = pd.read_csv(out)
    assert list(table.columns[:3]) == ["policy", "trial", "score"]
    assert table["trial"].is_monotonic_increasing
    res = cli([*ex.rank_command.split()[1:], "--json"])
    assert res.exit_code == 0, res.output
    replayed, live = json.loads(res.output), c.status().to_dict()
    assert replayed["ranking"] == live["ranking"]
    assert replayed["details"]["total_samples"] == live["details"]["result"]["details"]["total_samples"]
    # parquet holds the same table
    pq = c.export(tmp_path / "out.parquet")
    assert pq.rows == n and pd.read_parquet(tmp_path / "out.parquet")["score"].tolist() == table["score"].tolist()


def test_export_never_overwrites_the_campaign_file(cli, tmp_path):
    db = tmp_path / "lab.csv"  # a campaign file may have any name
    c = Campaign.init(db, ["a", "b"], n_max=10)
    _fill(c, 1)
    r = cli.campaign("export", db, db)
    assert r.exit_code == 2 and "is the campaign file itself" in cli.words(r)
    assert Campaign.open(db).verify().ok and len(Campaign.open(db).records()) == 2
