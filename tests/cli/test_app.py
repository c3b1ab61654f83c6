"""The `certirank` program itself: --version, --help, and what every command shares (seeds, spellings, weights)."""

from __future__ import annotations

import numpy as np

import certirank


def test_version(cli):
    res = cli(["--version"])
    assert res.exit_code == 0
    assert res.stdout.strip() == f"certirank {certirank.__version__}"


def test_help_lists_inspect(cli):
    res = cli(["--help"])
    assert res.exit_code == 0
    assert "inspect" in res.stdout and "Usage" in res.stdout
    sub = cli(["inspect", "--help"])
    assert sub.exit_code == 0 and "--json" in sub.stdout and "--score-range" in sub.stdout


def test_negative_seed_is_a_usage_error(cli, prefs, matrix):
    # was: numpy "expected non-negative integer" traceback (demo, compose-test, baseline bt-bootstrap)
    cli.refuses(["demo", "--seed", "-1"], "--seed")
    cli.refuses(["compose-test", str(matrix), "--seed", "-1"], "--seed")
    cli.refuses(["baseline", "bt-bootstrap", str(prefs), "--seed", "-1"], "--seed")


def test_ties_help_uses_the_same_spelling_in_compare_and_rank(cli):
    for cmd in ("compare", "rank"):
        res = cli([cmd, "--help"], env={"COLUMNS": "200"})
        assert res.exit_code == 0
        assert "assume_none" in res.output and "assume-none" not in res.output


def test_unequal_item_weights_are_not_silently_dropped(cli, tmp_path):
    rng = np.random.default_rng(0)
    rows = ["policy,env,score,weight"]
    for e in range(40):
        w = 0.5 if e < 20 else 1.5
        rows += [f"{p},{e},{int(rng.random() < mu)},{w}" for p, mu in (("a", 0.2), ("b", 0.8))]
    path = tmp_path / "weighted.csv"
    path.write_text("\n".join(rows) + "\n")
    for args in (["rank", str(path)], ["compare", str(path), "--a", "a", "--b", "b"]):
        cli.refuses(args, "weight", "leaderboard", str(path))
    # equal weights change nothing, so they are accepted
    path.write_text("\n".join(r.rsplit(",", 1)[0] + ",1.0" if i else r for i, r in enumerate(rows)) + "\n")
    for args in (["rank", str(path), "--json"], ["compare", str(path), "--a", "a", "--b", "b", "--json"]):
        res = cli(args)
        assert res.exit_code == 0, res.output
