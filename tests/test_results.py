"""The one record (issue 36): every result kind's class, its JSON shape, reading it back, and old JSON migrated."""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import certirank
from certirank.errors import ParameterError
from certirank.order.result import Ranking
from certirank.report.records import Record, migrate, read
from certirank.results import KINDS, SCHEMA, Result, result_class

LEGACY = Path(__file__).resolve().parent / "fixtures" / "legacy_json"
PARTS = ["kind", "schema", "about", "inputs", "ranking", "details", "warnings"]


def _result_classes_in_source() -> set[str]:
    """"module:Class" of every class in the package's source that derives from Result (read, not imported)."""
    root = Path(certirank.__file__).parent
    found = set()
    for path in root.rglob("*.py"):
        module = ".".join(("certirank", *path.relative_to(root).with_suffix("").parts)).removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(isinstance(b, ast.Name) and b.id == "Result" for b in node.bases):
                found.add(f"{module}:{node.name}")
    return found


def test_every_kind_names_its_class_and_every_result_class_has_a_kind():
    for kind in KINDS:
        cls = result_class(kind)
        assert issubclass(cls, Result) and cls.KIND == kind
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen
    assert _result_classes_in_source() == set(KINDS.values()), "a Result subclass is missing from results.KINDS"


def test_unknown_kind_is_one_clear_error():
    with pytest.raises(ParameterError, match="unknown result kind 'nope'"):
        result_class("nope")
    with pytest.raises(ParameterError, match="no 'kind'"):
        migrate({"x": 1})


def _table(n: int = 40, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"A": (rng.random(n) < 0.9).astype(float), "B": (rng.random(n) < 0.5).astype(float),
                         "C": (rng.random(n) < 0.1).astype(float)})


def test_rank_record_has_seven_parts_and_each_relation_once():
    res = certirank.anyrank(_table())
    d = res.to_dict()
    assert list(d) == PARTS and len(d) <= 9
    assert d["schema"] == SCHEMA and d["kind"] == "rank" and d["about"] == "policy"
    assert d["inputs"]["order"] == {"kind": "random", "seed": 0} and d["inputs"]["alpha"] == 0.05
    # who beats whom is said once: only the ranking's relations name a (better, worse) pair
    text = json.dumps(d)
    for rel in d["ranking"]["relations"]:
        pair = f'"better": "{rel["better"]}", "worse": "{rel["worse"]}"'
        assert text.count(pair) == 1
    assert "p_value" not in text and "decisions" not in text and "letters\": {" not in text
    assert d["ranking"]["about"] == "policy"
    # the method's statistics of each decision travel with the relation
    assert {"iteration", "trials", "total_samples", "level"} <= set(d["ranking"]["relations"][0]["details"])


def test_record_reads_back_to_the_same_json():
    for res in (certirank.anyrank(_table()), certirank.compare([0] * 9 + [1], [1] * 10, bins="binary"),
                certirank.check(_table().melt(var_name="policy", value_name="score").assign(
                    env=list(range(40)) * 3), ["A>B", "C>B"])):
        d = res.to_dict()
        rec = read(d)
        assert isinstance(rec, Record) and isinstance(rec.ranking, Ranking)
        assert rec.to_dict() == json.loads(json.dumps(d))
        assert read(res).to_dict() == rec.to_dict()


def test_derived_views_come_from_the_ranking():
    res = certirank.anyrank(_table())
    assert res.letters == res.ranking.letters and res.means == res.ranking.means
    assert res.statement == res.ranking.guarantee
    assert [tuple(p) for p in res.undecided] == list(res.ranking.undecided)
    order = [r.details["iteration"] for r in res.decided()]
    assert order == sorted(order)


@pytest.mark.parametrize("path", sorted(LEGACY.glob("*.json")), ids=lambda p: p.stem)
def test_saved_json_of_before_the_record_migrates(path):
    old = json.loads(path.read_text())
    new = migrate(old)
    assert list(new) == PARTS and new["schema"] == SCHEMA
    assert new["kind"] in KINDS
    cls = result_class(new["kind"])
    inputs = {f.name for f in dataclasses.fields(cls) if f.metadata.get("part") == "inputs"}
    assert set(new["inputs"]) <= inputs, "an old key landed in inputs that the class does not declare"
    text = json.dumps(new)
    assert "p_value" not in text
    rec = read(old)
    if old.get("ranking") is not None or new["kind"] in ("compare", "check", "demo"):
        assert isinstance(rec.ranking, Ranking)
    if isinstance(old.get("decisions"), list):  # the old copy of who beats whom is now the ranking's
        assert "decisions" not in new["details"]
        assert {(d["better"], d["worse"]) for d in old["decisions"]} == \
            {(r.better, r.worse) for r in rec.ranking.relations}
    assert migrate(new) == new  # a record is read as it is


def test_legacy_shapes_move_to_today_names():
    old = json.loads((LEGACY / "compare.json").read_text())
    rec = read(old)
    assert (rec.inputs["a"], rec.inputs["b"]) == (old["x"], old["y"])
    better = old["y"] if old["decision"] == "x<y" else old["x"]
    assert rec.ranking.relations[0].better == better
    base = read(json.loads((LEGACY / "baseline.json").read_text()))
    assert "score_order" in base.details and "order" not in base.inputs
    status = read(json.loads((LEGACY / "campaign-status.json").read_text()))
    assert status.kind == "campaign-status" and status.inputs["campaign"] == "anyrank"
    assert status.details["result"]["kind"] == "rank" and "ranking" not in status.details["result"]
    report = read(json.loads((LEGACY / "report.json").read_text()))
    assert report.kind == "report" and report.details["page"] == "rank"
    bare = read(json.loads((LEGACY / "rank.json").read_text())["ranking"])
    assert bare.kind == "ranking" and bare.ranking.n_certified == 3


def test_reader_notes_are_warnings_of_the_record(tmp_path):
    path = tmp_path / "lab.csv"
    rng = np.random.default_rng(3)
    pd.DataFrame({"method": np.repeat(["A", "B"], 30), "success": (rng.random(60) < 0.5).astype(int),
                  "env": np.tile(np.arange(30), 2)}).to_csv(path, index=False)
    res = certirank.anyrank(path)
    assert any(w.startswith("note: long table: column 'method' as 'policy'") for w in res.warnings)
    assert res.to_dict()["warnings"] == list(res.warnings)
    assert res.source == str(path)


def test_a_validated_table_is_not_read_again():
    table = certirank.load(_table())
    assert certirank.load(table) is table
    edited = table.copy()
    edited.loc[edited.index[0], "score"] = 0.5
    assert certirank.load(edited) is not edited  # changed after validation: validated again
    edited.loc[edited.index[0], "score"] = 7.0
    with pytest.raises(certirank.DataError):
        certirank.load(edited)
