"""A campaign's design carries its test (issue 31 item 1, campaign part): `campaign init --budget N --arms
paired|independent` (with the scale `--bins`) fixes budget, scale and arms before any rollout, never from the
data; `status` (and the page, and --json) says which test runs and why in one line."""

from __future__ import annotations


from certirank.campaign import Campaign


def test_the_scale_is_never_inferred_from_what_is_recorded(tmp_path):
    """Every recorded score is 0 or 1, but the design said partial progress: the campaign keeps its test."""
    c = Campaign.init(tmp_path / "s.campaign", ["A", "B"], alpha=0.1, n_max=100)
    before = (c.config_sha256, c.status().test)
    for _ in range(10):
        for s in c.next():
            c.record(s.policy, s.trial, 1.0 if s.policy == "A" else 0.0)
    assert (c.config_sha256, c.status().test) == before and "partial-progress" in before[1]


