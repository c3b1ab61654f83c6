"""`certirank validate`: the Monte Carlo battery's command shell."""

from __future__ import annotations

import json


def test_validate_json_names_its_kind_and_reports(cli, tmp_path, monkeypatch):
    import certirank.sim.validation as validation

    # the battery itself is a long Monte Carlo; only the command's shell is under test
    fake = validation.ValidationResult(level="quick", alpha=0.05, confidence=0.99, seed=2020, backend=None,
                                       rows=[{"name": "tie-0", "verdict": "pass"}], passed=True, elapsed=0.1,
                                       statement="1 of 1 covered rows pass")
    monkeypatch.setattr(validation, "validate", lambda *a, **k: fake)
    out = json.loads(cli.ok(["validate", "--json"]))
    assert out["kind"] == "validate" and out["details"]["rows"][0]["name"] == "tie-0"
    res_file = tmp_path / "val.json"
    res_file.write_text(json.dumps(out))
    page = json.loads(cli.ok(["report", res_file, "--html", tmp_path / "val.html", "--json"]))
    assert page["details"]["page"] == "validate" and (tmp_path / "val.html").is_file()
