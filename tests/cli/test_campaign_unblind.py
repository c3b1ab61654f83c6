"""`certirank campaign unblind`: revealing the names of a blind campaign, and who did it (logged)."""

from __future__ import annotations

from certirank.campaign import Campaign


def test_export_unblind_logs_who(cli, tmp_path):
    db = tmp_path / "b.campaign"
    Campaign.init(db, ["a", "b"], blind=True, seed=2, n_max=10).close()
    r = cli.campaign("export", db, tmp_path / "out.csv", "--unblind", "--by", "pi")
    assert r.exit_code == 0, r.output
    last = Campaign.open(db).log().entries[-1]
    assert (last.action, last.by) == ("unblind", "pi")
