"""Proxy-assisted evidence from files (issue 35 item 3): `compare FILE --proxy COLUMN --label-rate π` and
`rank FILE --proxy COLUMN --label-rate π`; every bad input of the issue is one line, exit 2."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import certirank


def _long(n: int = 300, pi: float = 0.3, means=(("A", 0.3), ("B", 0.8), ("C", 0.8)), accuracy: float = 0.95,
          seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    labelled = rng.random(n) < pi
    rows = []
    for e in range(n):
        for p, mu in means:
            y = float(rng.random() < mu)
            f = y if rng.random() < accuracy else 1.0 - y
            rows.append((f"e{e}", p, y if labelled[e] else np.nan, f))
    return pd.DataFrame(rows, columns=["env", "policy", "score", "sim"])


@pytest.fixture(scope="module")
def proxy_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("proxy") / "runs.csv"
    _long().to_csv(path, index=False)
    return path


def _arrays(df: pd.DataFrame, seed: int = 0):
    """The file's units in the CLI's read order (seed 0), as the API's arrays."""
    from certirank.data.order import arrange, read_order
    from certirank.data.table import to_wide
    real = df.assign(score=df["score"].fillna(df["sim"]))
    t_real = certirank.load(real, format="long")
    t_proxy = certirank.load(df.assign(score=df["sim"]), format="long")
    t_lab = certirank.load(df.assign(score=df["score"].notna().astype(float)), format="long")
    plan = read_order(t_real, seed=seed)
    w = to_wide(arrange(t_real, plan))
    return (w.where(to_wide(arrange(t_lab, plan)).reindex_like(w) == 1.0),
            to_wide(arrange(t_proxy, plan)).reindex_like(w))


def test_compare_proxy_file_equals_the_api_on_the_same_units(cli, proxy_csv):
    out = cli(["compare", str(proxy_csv), "--a", "A", "--b", "B", "--proxy", "sim",
               "--label-rate", "0.3", "--json"])
    assert out.exit_code == 0, out.output
    d = json.loads(out.stdout)
    real, proxy = _arrays(pd.read_csv(proxy_csv))
    api = certirank.compare(real["A"].to_numpy(), real["B"].to_numpy(), a="A", b="B",
                            proxy_x=proxy["A"].to_numpy(), proxy_y=proxy["B"].to_numpy(), label_rate=0.3)
    assert d["details"]["decided_at"] == api.decided_at and d["details"]["pvalue"] == pytest.approx(api.pvalue)
    assert d["inputs"]["label_rate"] == 0.3 and d["inputs"]["order"] == {"kind": "random", "seed": 0}
    assert d["details"]["labels"] == api.labels and api.decision == "x<y"
    text = cli(["compare", str(proxy_csv), "--a", "A", "--b", "B", "--proxy", "sim",
                "--label-rate", "0.3"]).stdout
    assert "Real labels:" in text and "label rate 0.3" in text


def test_rank_proxy_file_with_margin(cli, proxy_csv):
    out = cli(["rank", str(proxy_csv), "--proxy", "sim", "--label-rate", "0.3", "--margin", "0.2",
               "--json"])
    assert out.exit_code == 0, out.output
    d = json.loads(out.stdout)
    rk = d["ranking"]
    assert rk["kind"] == "proxy-bonferroni" and {tuple(sorted(e)) for e in rk["equivalent"]} == {("B", "C")}
    assert {(r["better"], r["worse"]) for r in rk["relations"]} == {("B", "A"), ("C", "A")}
    assert "alpha/3" in rk["guarantee"] and any("label rate 0.3" in w for w in d["warnings"])
    md = cli(["rank", str(proxy_csv), "--proxy", "sim", "--label-rate", "0.3", "--markdown"]).stdout
    assert "B is better than A" in md


def test_a_lying_proxy_does_not_make_a_false_claim():
    """Ten seeded files with tied policies and a proxy that favours B by 0.5: no certified direction beyond the
    binomial tolerance of alpha (at most 2 of 10 at alpha = 0.05: P(Bin(10, 0.05) > 2) = 0.012)."""
    wrong = 0
    for seed in range(10):
        df = _long(n=200, pi=0.3, means=(("A", 0.5), ("B", 0.5)), seed=seed)
        df.loc[df["policy"] == "B", "sim"] = np.minimum(1.0, df.loc[df["policy"] == "B", "sim"] + 0.5)
        real, proxy = _arrays(df)
        r = certirank.compare(real["A"].to_numpy(), real["B"].to_numpy(), proxy_x=proxy["A"].to_numpy(),
                              proxy_y=proxy["B"].to_numpy(), label_rate=0.3)
        wrong += r.decision is not None
    assert wrong <= 2


@pytest.mark.parametrize("edit, args, needle", [
    (None, ["--label-rate", "0"], "label"),
    (None, ["--label-rate", "1.5"], "label"),
    (None, ["--label-rate", "1"], "label_rate = 1"),
    (None, ["--label-rate", "0.02"], "implausible"),
    ("blank_proxy", [], "blank proxy score"),
    ("proxy_out", [], "outside the score range"),
    ("proxy_text", [], "not a number"),
    ("half", [], "a real score for"),
    ("no_column", [], "no proxy column 'sim'"),
])
def test_bad_proxy_input_is_one_line_exit_2(cli, tmp_path, edit, args, needle):
    df = _long(n=120)
    if edit == "blank_proxy":
        df.loc[5, "sim"] = np.nan
    elif edit == "proxy_out":
        df.loc[5, "sim"] = 1.5
    elif edit == "proxy_text":
        df["sim"] = df["sim"].astype(object)
        df.loc[5, "sim"] = "high"
    elif edit == "half":
        i = int(df.index[df["score"].notna() & (df["policy"] == "A")][0])
        df.loc[i, "score"] = np.nan
    elif edit == "no_column":
        df = df.rename(columns={"sim": "judge"})
    path = tmp_path / "f.csv"
    df.to_csv(path, index=False)
    base = ["--proxy", "sim"] + (args or ["--label-rate", "0.3"])
    for cmd in (["compare", str(path), "--a", "A", "--b", "B"], ["rank", str(path)]):
        out = cli([*cmd, *base])
        assert out.exit_code == 2, (cmd, out.output)
        assert needle in out.output and "Traceback" not in out.output
        assert len(out.output.strip().splitlines()) <= 3  # one message (typer's usage lines for a bad option)


def test_options_that_need_each_other_and_blank_scores_without_a_proxy(cli, proxy_csv):
    for args, needle in ((["--proxy", "sim"], "--label-rate"), (["--label-rate", "0.3"], "--proxy"),
                         (["--proxy", "sim", "--label-rate", "0.3", "--bettor", "hoeffding"], "--bettor")):
        out = cli(["compare", str(proxy_csv), "--a", "A", "--b", "B", *args])
        assert out.exit_code == 2 and needle in out.output, out.output
    out = cli(["rank", str(proxy_csv)])  # blanks in the score column: only with --proxy
    assert out.exit_code == 2 and "missing" in out.output and "Traceback" not in out.output
