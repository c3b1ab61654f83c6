"""Every command's `--json` against the record's published JSON Schema (src/certirank/schemas/result-1.json,
shipped as package data), and the estimand and read order in each record (issue 30, issue 36 item 1)."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import numpy as np
import pandas as pd
import pytest

from certirank.results import ESTIMANDS, KINDS, SCHEMA


def _schema() -> dict:
    return json.loads(resources.files("certirank").joinpath("schemas/result-1.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def files(cli, tmp_path_factory):
    rng = np.random.default_rng(7)
    tmp = tmp_path_factory.mktemp("record")
    n = 60
    wide = pd.DataFrame({"A": (rng.random(n) < 0.85).astype(float), "B": (rng.random(n) < 0.45).astype(float),
                         "C": (rng.random(n) < 0.15).astype(float)})
    wide.to_csv(tmp / "wide.csv", index=False)
    long = wide.assign(env=[f"e{i}" for i in range(n)]).melt(id_vars="env", var_name="policy", value_name="score")
    long["suite"] = np.where(long["env"].str[1:].astype(int) % 2 == 0, "t1", "t2")
    long.to_csv(tmp / "long.csv", index=False)
    rows = [(m, f"i{i}", r, float(rng.random() < mu)) for m, mu in (("m1", 0.8), ("m2", 0.5), ("m3", 0.3))
            for r in range(3) for i in range(40)]
    pd.DataFrame(rows, columns=["model", "item", "replicate", "score"]).to_csv(tmp / "runs.csv", index=False)
    prefs = [("A", "B", float(rng.random() < 0.2)) for _ in range(60)] + [("B", "C", float(rng.random() < 0.3))
                                                                         for _ in range(60)]
    pd.DataFrame(prefs, columns=["A", "B", "preference"]).to_csv(tmp / "prefs.csv", index=False)
    mat = pd.DataFrame(rng.random((8, 5)), columns=[f"p{i}" for i in range(5)])
    mat.insert(0, "test_case", [f"t{i}" for i in range(8)])
    mat.to_csv(tmp / "matrix.csv", index=False)
    camp = tmp / "camp.db"
    assert cli(["campaign", "init", str(camp), "--policies", "A,B,C"]).exit_code == 0
    for i in range(6):
        for pol, s in (("A", 1), ("B", i % 2), ("C", 0)):
            assert cli(["campaign", "record", str(camp), pol, str(i), str(s), "--ahead"]).exit_code == 0
    return tmp


# (name, argv with {f} = the fixture folder, the order the data are read in: None = the record has no order)
COMMANDS = [
    ("rank", ["rank", "{f}/wide.csv"], {"kind": "random", "seed": 0}),
    ("rank-seed", ["rank", "{f}/wide.csv", "--seed", "4"], {"kind": "random", "seed": 4}),
    ("rank-file-order", ["rank", "{f}/wide.csv", "--order", "file"], {"kind": "given"}),
    ("rank-orders", ["rank", "{f}/wide.csv", "--orders", "3"], {"kind": "random", "seed": 0, "orders": 3}),
    ("rank-table", ["rank", "{f}/wide.csv", "--about", "table"], {"kind": "random", "seed": 0}),
    ("rank-budget", ["rank", "{f}/wide.csv", "--bins", "binary", "--n-max", "60"], {"kind": "random", "seed": 0}),
    ("rank-grouped", ["rank", "{f}/long.csv", "--group-by", "suite"], None),
    ("rank-preferences", ["rank", "{f}/prefs.csv"], {"kind": "random", "seed": 0}),
    ("compare", ["compare", "{f}/wide.csv", "--a", "B", "--b", "A"], {"kind": "random", "seed": 0}),
    ("check", ["check", "{f}/wide.csv", "--claim", "A>B", "--claim", "B>C"], {"kind": "random", "seed": 0}),
    ("leaderboard", ["leaderboard", "{f}/runs.csv"], {"kind": "given"}),
    ("baseline", ["baseline", "bt", "{f}/prefs.csv"], None),
    ("inspect", ["inspect", "{f}/wide.csv"], None),
    ("demo", ["demo", "--seed", "1", "--quiet"], None),
    ("simulate", ["simulate", "HO-I", "-m", "anyrank", "-n", "2", "--param", "n_max=100"], None),
    ("compose-test", ["compose-test", "{f}/matrix.csv", "--size", "2"], None),
    ("validate", ["validate", "--check", "sorted-replay-as-is", "--reps", "20"], None),
    ("campaign-status", ["campaign", "status", "{f}/camp.db"], {"kind": "arrival"}),
]


@pytest.mark.parametrize("name, argv, order", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_every_command_json_is_a_valid_record(cli, files, name, argv, order):
    res = cli([a.format(f=files) for a in argv] + ["--json"])
    assert res.exit_code in (0, 1, 3), res.output
    d = json.loads(res.stdout)
    jsonschema.validate(d, _schema())
    assert d["schema"] == SCHEMA and d["kind"] in KINDS
    assert "about" in d and (d["about"] in ESTIMANDS or d["about"] is None)
    if d["ranking"] is not None:
        assert d["ranking"]["about"] == d["about"]
    assert "order" in d["inputs"]  # every record says in which order data were read (null: none replayed)
    if order is not None:  # data read whole (or live): the record says in which order
        assert d["inputs"]["order"] == order
        assert d["about"] in ESTIMANDS
    if name == "rank-table":
        assert d["about"] == "table"


def test_the_schema_names_every_kind_and_refuses_a_broken_record(cli, files):
    schema = _schema()
    assert set(schema["properties"]["kind"]["enum"]) == set(KINDS)  # one list of kinds: the registry
    d = json.loads(cli(["rank", f"{files}/wide.csv", "--json"]).stdout)
    for broken in ({**d, "extra": 1}, {**d, "about": "model"}, {**d, "warnings": ["two\nlines"]},
                   {**d, "inputs": {**d["inputs"], "order": {"kind": "random"}}},
                   {k: v for k, v in d.items() if k != "about"}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, schema)
