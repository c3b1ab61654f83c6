"""`certirank leaderboard FILE --suggest-items K [--seed S]`: the API's `LeaderboardResult.suggest_items` printed, and
in `--json` under `details.suggested_items` (issue 35 item 4)."""

from __future__ import annotations

import json

import certirank


def test_json_is_the_api_suggestion(cli, board):
    d = json.loads(cli.ok(["leaderboard", board, "--suggest-items", "6", "--seed", "4", "--json"]))
    api = certirank.leaderboard(certirank.load(board)).suggest_items(6, seed=4).to_dict()
    assert d["details"]["suggested_items"] == api
    assert d["kind"] == "leaderboard" and len(api["items"]) == 6
    open_pairs = {tuple(sorted(p)) for p in d["ranking"]["undecided"]}
    assert {tuple(sorted(p)) for p in api["undecided"]} == open_pairs


def test_the_text_lists_each_item_with_its_probability(cli, board):
    out = cli.ok(["leaderboard", board, "--suggest-items", "3"])
    api = certirank.leaderboard(certirank.load(board)).suggest_items(3, seed=0)
    assert "Items to score next (3 drawn with replacement, seed 0" in out or "Every pair is decided" in out
    for e in api.items:
        assert f"item {e['item']}: probability {e['probability']:.4g}" in out
    assert "a suggestion is a design choice, not evidence" in out


def test_markdown_lists_the_items(cli, scores):
    out = cli.ok(["leaderboard", scores, "--suggest-items", "2", "--markdown"])
    api = certirank.leaderboard(certirank.load(scores)).suggest_items(2, seed=0)
    for e in api.items:
        assert f"- " in out and f"item {e['item']}: probability" in out


def test_refusals_are_one_line(cli, board, long_groups):
    cli.fails(["leaderboard", board, "--seed", "3"], "--seed", "--suggest-items")
    cli.refuses(["leaderboard", board, "--suggest-items", "0"], "--suggest-items")
    cli.refuses(["leaderboard", board, "--suggest-items", "2", "--seed", "-1"], "--seed")
    cli.fails(["leaderboard", long_groups, "--group-by", "site", "--suggest-items", "2"], "--group-by")
