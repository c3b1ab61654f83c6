"""`certirank campaign amend`: a change of a locked design, with a reason, logged; the changes that would void the guarantee are refused and write nothing."""

from __future__ import annotations

import json

import pytest

from certirank import Campaign
from certirank.errors import ParameterError

from test_campaign_lock import DESIGN, _fingerprint, designed


@pytest.mark.parametrize("change, words", [
    ({"alpha": 0.2}, "alpha cannot be amended: alpha is the level"),
    ({"bins": "binary"}, "bins cannot be amended: the scale"),
    ({"metric": "binary"}, "metric cannot be amended: the scale"),
    ({"score_range": [0, 10]}, "score_range cannot be amended"),
    ({"about": "table"}, "about cannot be amended: the estimand"),
    ({"policies": ["pi0", "octo", "diffusion", "rt2"]}, "a policy cannot join a running campaign"),
    ({"method": "bonferroni"}, "part of the pre-registered tests"),
    ({"blind": True}, "blinding is decided before the first rollout"),
    ({"n_max": 30}, "n_max can only grow"),
    ({"environments": ["kitchen", "sink"]}, "environment 'shelf' cannot be removed"),
    ({"tags": ["grasp"]}, "tag 'fold' cannot be removed"),
    ({"colour": "red"}, "'colour' is not a design setting"),
    ({"checkpoints": {"rt2": "/x"}}, "'rt2' is not one of the policies"),
    ({}, "nothing to amend"),
    ({"n_max": 60}, "already the design in force"),
])
def test_amendments_that_would_void_the_guarantee_are_refused_and_nothing_is_written(cli, designed, change, words):
    c, _ = designed
    s = c.next()[0]
    c.record(s.policy, s.trial, 1.0)
    before = _fingerprint(c.path)
    with pytest.raises(ParameterError) as info:
        c.amend(change, reason="try")
    assert words in str(info.value) and "\n" not in str(info.value)
    assert _fingerprint(c.path) == before
    args = [f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in change.items()]
    r = cli(["campaign", "amend", str(c.path), *args, "--reason", "try"])
    assert r.exit_code == 2 and r.output.startswith("error:") and r.output.count("\n") == 1, r.output
    assert _fingerprint(c.path) == before


def test_an_amendment_needs_a_reason(cli, designed):
    c, _ = designed
    with pytest.raises(ParameterError, match="needs a reason"):
        c.amend(n_max=100, reason=" ")
    r = cli(["campaign", "amend", str(c.path), "n_max=100"])
    assert r.exit_code == 2 and "needs --reason" in r.output


def test_amend_from_an_edited_design_file(cli, designed, tmp_path):
    c, toml = designed
    edited = tmp_path / "design2.toml"
    edited.write_text(DESIGN.replace("n_max = 60", "n_max = 90").replace('"shelf"]', '"shelf", "bench"]'))
    rec = c.amend(design=edited, reason="week 2 plan")
    assert set(rec.changes) == {"n_max", "environments", "from_trial"}
    assert rec.changes["environments"]["to"] == ["kitchen", "sink", "shelf", "bench"]
    bad = tmp_path / "design3.toml"
    bad.write_text(DESIGN.replace("alpha = 0.1", "alpha = 0.2"))
    before = _fingerprint(c.path)
    with pytest.raises(ParameterError, match="alpha cannot be amended"):
        c.amend(design=bad, reason="oops")
    with pytest.raises(ParameterError, match="nothing to amend: .* has the design in force"):
        c.amend(design=edited, reason="again")
    assert _fingerprint(c.path) == before
    r = cli(["campaign", "amend", str(c.path), "--design", str(bad), "--reason", "x"])
    assert r.exit_code == 2 and "alpha cannot be amended" in r.output


def test_amend_json_mirrors_the_api_and_the_log(cli, designed):
    c, _ = designed
    r = cli(["campaign", "amend", str(c.path), "n_max=80", "launch=run {checkpoint}",
             "--reason", "new loader", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    with Campaign.open(c.path) as again:
        assert out == again.log().entries[-1].to_dict()
        assert again.design.launch == "run {checkpoint}"
    r = cli(["campaign", "log", str(c.path)])
    assert "amend:" in r.output and "new loader" in r.output
