"""`certirank campaign serve`: the campaign page server (its tests of the page itself are tests/test_web*.py)."""

from __future__ import annotations

import pytest

from test_missing_extras import _hide, _one_line, campaign_db


@pytest.mark.parametrize("module", ["fastapi", "jinja2", "uvicorn", "python_multipart"])
def test_campaign_serve_without_the_web_extra(cli, monkeypatch, campaign_db, module) -> None:
    hidden = (module, "multipart") if module == "python_multipart" else (module,)
    _hide(monkeypatch, *hidden)
    err = _one_line(cli(["campaign", "serve", campaign_db, "--port", "1"]), "web")
    assert err.startswith("error: the campaign page needs the optional extra 'web'")
    assert ("python-multipart" if module == "python_multipart" else module) in err


def test_serve_refuses_a_missing_file_and_a_bad_port_before_it_listens(cli, tmp_path, campaign_db) -> None:
    cli.fails(["campaign", "serve", tmp_path / "none.campaign", "--port", "1"], "none.campaign",
              "campaign init")
    cli.refuses(["campaign", "serve", campaign_db, "--port", "99999"], "--port", "65535")
