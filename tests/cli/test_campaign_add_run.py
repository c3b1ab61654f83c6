"""`certirank campaign add-run`: one run of every model of a leaderboard campaign, and its refusals."""

from __future__ import annotations

from certirank.campaign import Campaign


def test_leaderboard_add_run_out_of_range_score_does_not_suggest_score_range(cli, tmp_path):
    db = tmp_path / "lb.campaign"
    run = tmp_path / "run1.csv"
    run.write_text("model,item,score\nm1,i1,1.5\nm2,i1,0\nm1,i2,1\nm2,i2,0\n")
    Campaign.init(db, kind="leaderboard", models=["m1", "m2"]).close()
    r = cli.campaign("add-run", db, run)
    assert r.exit_code == 2
    # the reader's "--score-range" hint is refused by a leaderboard campaign, so it must not be offered
    assert cli.words(r) == (f"error: {run}, row 2, column 'score': score 1.5 is outside [0, 1] (a leaderboard campaign "
                        "takes scores in [0, 1]; rescale the run's scores before add-run)")
