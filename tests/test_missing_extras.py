"""A missing optional extra is one line naming the extra and the pip command (CLI exit 2; ParameterError from the
API), never a traceback (issue 32, "bad input"). Each case hides the extra's module (``sys.modules[name] = None``
makes its import fail as if it were not installed)."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

from certirank.errors import ParameterError


def _hide(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    for name in list(sys.modules):
        if any(name == m or name.startswith(m + ".") for m in modules) or name.startswith("certirank.web.app"):
            monkeypatch.delitem(sys.modules, name)
    for m in modules:
        monkeypatch.setitem(sys.modules, m, None)


def _one_line(res, extra: str) -> str:
    assert res.exit_code == 2, (res.exit_code, res.output, res.exception)
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    err = res.stderr.strip()
    assert "\n" not in err and "Traceback" not in res.output, res.output
    assert f"pip install 'certirank[{extra}]'" in err and f"'{extra}'" in err, err
    assert res.stdout == "", res.stdout  # refused before anything is printed
    return err


@pytest.fixture
def campaign_db(cli, tmp_path):
    db = str(tmp_path / "c.db")
    assert cli(["campaign", "init", db, "--policies", "a,b"]).exit_code == 0
    return db


def test_the_page_api_without_the_web_extra(monkeypatch, campaign_db) -> None:
    from certirank import web

    _hide(monkeypatch, "fastapi")
    with pytest.raises(ParameterError, match=r"pip install 'certirank\[web\]' \(fastapi is not installed\)"):
        web.create_app(campaign_db)
    _hide(monkeypatch, "uvicorn")
    with pytest.raises(ParameterError, match=r"pip install 'certirank\[web\]' \(uvicorn is not installed\)"):
        web.serve(object())


def _board(tmp_path) -> str:
    rng = np.random.default_rng(2)
    rows = [(m, f"item{i}", r, int(rng.random() < p)) for m, p in (("A", 0.8), ("B", 0.5), ("C", 0.3))
            for r in range(2) for i in range(30)]
    path = tmp_path / "board.csv"
    pd.DataFrame(rows, columns=["policy", "env", "replicate", "score"]).to_csv(path, index=False)
    return str(path)


@pytest.mark.parametrize("backend, extra, module", [("dask", "dask", "distributed"), ("ray", "ray", "ray")])
def test_backend_without_its_extra(cli, monkeypatch, tmp_path, backend, extra, module) -> None:
    path = _board(tmp_path)
    _hide(monkeypatch, module)
    err = _one_line(cli(["leaderboard", path, "--backend", backend, "--jobs", "2"]), extra)
    assert err == (f"error: backend '{backend}' needs the optional extra '{extra}': pip install "
                   f"'certirank[{extra}]' ({module} is not installed)")
    err = _one_line(cli(["simulate", "HO-I", "--reps", "2", "--backend", backend,
                         "--jobs", "2"]), extra)
    assert f"backend '{backend}'" in err


@pytest.mark.parametrize("backend, module", [("dask", "distributed"), ("ray", "ray")])
def test_backend_api_without_its_extra(monkeypatch, backend, module) -> None:
    from certirank._parallel import run_tasks

    _hide(monkeypatch, module)
    with pytest.raises(ParameterError, match=rf"^backend '{backend}' needs the optional extra '{backend}': "
                                             rf"pip install 'certirank\[{backend}\]'"):
        run_tasks(abs, [(-1,), (-2,)], backend=backend, jobs=2)
