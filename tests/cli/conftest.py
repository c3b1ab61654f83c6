"""What every CLI test shares: one set of small data files (the one runner, the `cli` fixture, is in
tests/conftest.py, so a test of the API that checks the CLI agrees with it uses the same runner).

Every test of a command lives in `tests/cli/test_<command>.py` (a campaign subcommand in
`tests/cli/test_campaign_<subcommand>.py`) and runs the command through the `cli` fixture, never a runner of its
own; `tests/cli/test_every_command.py` runs what every command must do (help, glossary names, `--json` record).
The data fixtures are small tables written to the test's tmp_path; each says what it is built to show.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


# ----------------------------------------------------------------------------- per-trial tables (one row a trial)

@pytest.fixture
def wide(tmp_path: Path) -> Path:
    """Wide per-trial table a,b,c (60 rows of scores in [0, 1]): a clearly worse than c, b in between."""
    rng = np.random.default_rng(0)
    n = 60
    path = tmp_path / "wide.csv"
    pd.DataFrame({"a": rng.binomial(10, 0.1, n) / 10, "b": rng.binomial(10, 0.5, n) / 10,
                  "c": rng.binomial(10, 0.9, n) / 10}).to_csv(path, index=False)
    return path


@pytest.fixture
def wide_markup(tmp_path: Path) -> Path:
    """A wide per-trial table whose policy names contain rich markup characters."""
    rng = np.random.default_rng(0)
    n = 40
    frame = pd.DataFrame({"policy[v2]": rng.binomial(10, 0.1, n) / 10, "[bold]b": rng.binomial(10, 0.9, n) / 10,
                          "c/x": rng.binomial(10, 0.5, n) / 10})
    path = tmp_path / "wide_markup.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.fixture
def wide_trials(tmp_path: Path) -> Path:
    """Wide 0/1 table alpha_pol, beta_pol, gamma_pol (success rates 0.2, 0.5, 0.9; 200 rows, one cell missing)."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"alpha_pol": (rng.random(200) < 0.2).astype(float),
                       "beta_pol": (rng.random(200) < 0.5).astype(float),
                       "gamma_pol": (rng.random(200) < 0.9).astype(float)})
    df.iloc[3, 1] = np.nan
    path = tmp_path / "trials.csv"
    df.to_csv(path, index=False)
    return path


@pytest.fixture
def binary(tmp_path: Path) -> Path:
    """Wide 0/1 table x, y (80 rows; success rates 0.2 and 0.8)."""
    rng = np.random.default_rng(1)
    path = tmp_path / "binary.csv"
    pd.DataFrame({"x": rng.binomial(1, 0.2, 80), "y": rng.binomial(1, 0.8, 80)}).to_csv(path, index=False)
    return path


@pytest.fixture
def long_groups(tmp_path: Path) -> Path:
    """Long table policy,env,site,score: two policies, two sites."""
    rng = np.random.default_rng(2)
    rows = [(p, e, f"s{e % 2}", float(rng.binomial(10, m) / 10)) for p, m in (("a", 0.2), ("b", 0.8))
            for e in range(40)]
    path = tmp_path / "long.csv"
    pd.DataFrame(rows, columns=["policy", "env", "site", "score"]).to_csv(path, index=False)
    return path


# ----------------------------------------------------------------------------- panels (model,item,replicate,score)

@pytest.fixture
def panel(tmp_path: Path) -> Path:
    """Long model,item,replicate,score table (3 models, 2 replicates of 40 items) with a `split` column."""
    rng = np.random.default_rng(3)
    rows = [(m, i, r, float(rng.random() < p), i % 2) for m, p in (("m0", 0.2), ("m1", 0.6), ("m2", 0.95))
            for r in range(2) for i in range(40)]
    path = tmp_path / "panel.csv"
    pd.DataFrame(rows, columns=["model", "item", "replicate", "score", "split"]).to_csv(path, index=False)
    return path


@pytest.fixture
def panel_tied(tmp_path: Path) -> Path:
    """Long model,item,replicate,score table, 3 replicates of 60 items: m0 and m1 share the same items' scores
    (exactly tied, so never certified), m2 and m3 are far better."""
    rng = np.random.default_rng(1)
    base = {m: rng.random((3, 60)) < p for m, p in (("m0", 0.2), ("m2", 0.7), ("m3", 0.95))}
    base["m1"] = base["m0"]
    rows = [(m, i, r, float(base[m][r, i])) for m in sorted(base) for r in range(3) for i in range(60)]
    path = tmp_path / "panel_tied.csv"
    pd.DataFrame(rows, columns=["model", "item", "replicate", "score"]).to_csv(path, index=False)
    return path


@pytest.fixture
def board(tmp_path: Path) -> Path:
    """A BB-EDGE panel model,item,replicate,block,score: 4 models (success rates 0.9, 0.6, 0.55, 0.2), 4
    replicates of 40 items in blocks of 5."""
    from certirank.sim.bbedge_dgp import bbedge_panels

    p = np.repeat([[0.9], [0.6], [0.55], [0.2]], 40, axis=1)
    P = bbedge_panels(3, "iid", L=4, N=40, R=4, block_size=5, p=p)
    rows = [(f"M{l}", f"q{i}", r + 1, i // 5, P[r, l, i]) for r in range(4) for l in range(4) for i in range(40)]
    path = tmp_path / "board.csv"
    pd.DataFrame(rows, columns=["model", "item", "replicate", "block", "score"]).to_csv(path, index=False)
    return path


@pytest.fixture
def scores(tmp_path: Path) -> Path:
    """Long model,item,replicate,score table: x (0.2) and y (0.8), 3 replicates of 40 items."""
    rng = np.random.default_rng(0)
    rows = [(m, f"i{i}", r, float(rng.random() < p)) for r in range(3) for i in range(40)
            for m, p in (("x", 0.2), ("y", 0.8))]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["model", "item", "replicate", "score"]).to_csv(path, index=False)
    return path


# ----------------------------------------------------------------------------- preferences (A,B,preference)

@pytest.fixture
def prefs(tmp_path: Path) -> Path:
    """Twenty battles among p, q, r (a tie among them)."""
    path = tmp_path / "prefs.csv"
    rows = [("p", "q", 0.0), ("q", "p", 1.0), ("p", "r", 0.5), ("r", "q", 0.0)] * 5
    pd.DataFrame(rows, columns=["A", "B", "preference"]).to_csv(path, index=False)
    return path


@pytest.fixture
def prefs_abc(tmp_path: Path) -> Path:
    """Thirty battles in which a beats b beats c most of the time."""
    rows = [("a", "b", 0.0)] * 8 + [("b", "a", 0.0)] * 2 + [("b", "c", 0.0)] * 7 + [("c", "b", 0.5)] * 3 + \
        [("a", "c", 0.0)] * 9 + [("c", "a", 1.0)]
    path = tmp_path / "prefs_abc.csv"
    pd.DataFrame(rows, columns=["A", "B", "preference"]).to_csv(path, index=False)
    return path


# ----------------------------------------------------------------------------- test-case x policy matrices

@pytest.fixture
def matrix(tmp_path: Path) -> Path:
    """Long test_case,policy,score table: 6 test cases x 5 policies, uniform scores."""
    rng = np.random.default_rng(2)
    rows = [(f"case{i}", f"pol{j}", float(rng.random())) for i in range(6) for j in range(5)]
    path = tmp_path / "matrix.csv"
    pd.DataFrame(rows, columns=["test_case", "policy", "score"]).to_csv(path, index=False)
    return path


@pytest.fixture
def matrix_wide(tmp_path: Path) -> Path:
    """Wide test-case matrix: a test_case column and 10 policies' scores on 8 cases."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.random((8, 10)).round(3), columns=[f"pol{j}" for j in range(10)])
    frame.insert(0, "test_case", [f"case{i}" for i in range(8)])
    path = tmp_path / "matrix_wide.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.fixture
def item_table(tmp_path: Path) -> Path:
    """A benchmark at item scale: 200 items x 12 models (C(200, 4) > 2 million tuples), model,item,score."""
    rng = np.random.default_rng(5)
    skill = np.linspace(0.2, 0.8, 12)
    rows = [(f"model{j:02d}", i, float(rng.random() < skill[j])) for j in range(12) for i in range(200)]
    path = tmp_path / "bench.csv"
    pd.DataFrame(rows, columns=["model", "item", "score"]).to_csv(path, index=False)
    return path
