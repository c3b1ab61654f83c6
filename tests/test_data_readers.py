"""Readers, writers and preference tables (certirank.data.readers)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import certirank
from certirank.data import load, load_preferences, to_wide, validate_preferences, write_table
from certirank.errors import DataError, ParameterError

ROBO_POLICIES = ["pi0_droid", "paligemma_vq_droid", "paligemma_fast_specialist_droid", "pi0_fast_droid",
                 "paligemma_fast_droid", "paligemma_diffusion_droid", "paligemma_binning_droid"]
ROBO_COUNTS = [676, 647, 639, 652, 657, 642, 641]  # spec 03 §10 and the README of the data


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------- long

def test_long_csv_columns_aliases_and_order(tmp_path):
    p = _write(tmp_path / "t.csv", "model,item,score\nm1,q1,1\nm2,q1,0\nm1,q2,0.5\n")
    t = load(p)
    assert list(t.columns[:5]) == ["policy", "env", "replicate", "score", "order"]
    assert t["policy"].tolist() == ["m1", "m2", "m1"]
    assert t["env"].tolist() == ["q1", "q1", "q2"]
    assert t["score"].tolist() == [1.0, 0.0, 0.5]
    assert t["order"].tolist() == [0, 1, 2]
    assert t.attrs["format"] == "long" and t.attrs["source"] == str(p)


def test_long_keeps_text_labels_verbatim(tmp_path):
    # "NA"/"None" are policy names here, and item "007" must not become 7
    p = _write(tmp_path / "t.csv", "policy,env,score\nNA,007,1\nNone,007,0\n")
    t = load(p)
    assert t["policy"].tolist() == ["NA", "None"]
    assert t["env"].tolist() == ["007", "007"]


def test_tsv_and_explicit_sep(tmp_path):
    t = load(_write(tmp_path / "t.tsv", "policy\tscore\na\t0.25\nb\t1\n"))
    assert t["score"].tolist() == [0.25, 1.0]
    t2 = load(_write(tmp_path / "t.csv", "policy;score\na;0.25\n"), sep=";")
    assert t2["policy"].tolist() == ["a"]


def test_file_aliases_trial_and_test_case(tmp_path):
    t = load(_write(tmp_path / "t.csv", "policy,trial,score\na,0,1\na,1,0\nb,0,1\n"))
    assert t["env"].tolist() == ["0", "1", "0"]
    t2 = load(_write(tmp_path / "m.csv", "test_case,policy,score\nx,a,1\ny,a,0\n"))
    assert t2["env"].tolist() == ["x", "y"]


def test_replicate_block_weight_roundtrip_through_all_writers(tmp_path):
    raw = pd.DataFrame({"policy": ["a", "a", "b", "b"], "env": ["1", "2", "1", "2"], "replicate": [0, 0, 0, 0],
                        "score": [0.1, 1 / 3, 0.0, 1.0], "block": ["x", "y", "x", "y"],
                        "weight": [1.0, 2.0, 1.0, 2.0]})
    ref = load(raw)
    for ext in ("csv", "tsv", "parquet", "jsonl"):
        p = write_table(ref, tmp_path / f"out.{ext}")
        back = load(p)
        pd.testing.assert_frame_equal(back.reset_index(drop=True), ref.reset_index(drop=True), check_dtype=False)
        assert back["score"].tolist() == ref["score"].tolist()  # exact floats survive (1/3)


def test_writer_without_env_roundtrips(tmp_path):
    ref = load(pd.DataFrame({"policy": ["a", "b"], "score": [0.5, 1.0]}))
    for ext in ("csv", "parquet", "jsonl"):
        back = load(write_table(ref, tmp_path / f"o.{ext}"))
        assert back["env"].isna().all() and back["score"].tolist() == [0.5, 1.0]


def test_parquet_and_jsonl_long(tmp_path):
    df = pd.DataFrame({"policy": ["a", "b"], "env": ["e", "e"], "score": [0.2, 0.8]})
    df.to_parquet(tmp_path / "t.parquet")
    assert load(tmp_path / "t.parquet")["score"].tolist() == [0.2, 0.8]
    _write(tmp_path / "t.jsonl", '{"model": "a", "item": 3, "score": 1}\n\n{"model": "b", "item": 3, "score": 0}\n')
    t = load(tmp_path / "t.jsonl")
    assert t["policy"].tolist() == ["a", "b"] and t["env"].tolist() == ["3", "3"]
    _write(tmp_path / "t.json", json.dumps([{"policy": "a", "score": 0.5}]))
    assert load(tmp_path / "t.json")["score"].tolist() == [0.5]


def test_dataframe_input_and_forced_formats(tmp_path):
    p = _write(tmp_path / "data.txt", "policy,score\na,1\n")  # no telling extension: sniffed as CSV
    assert load(p)["policy"].tolist() == ["a"]
    assert load(p, format="csv").attrs["format"] == "long"
    # forcing "wide" on a long file reads its columns as policies -> a clear error about the text cell
    with pytest.raises(DataError, match="'a' is not a number"):
        load(p, format="wide")
    with pytest.raises(ParameterError, match="format must be one of long, wide"):
        load(p, format="excel")
    with pytest.raises(ParameterError, match="unknown option"):
        load(p, metric="acc")
    assert load(p, format="LONG")["score"].tolist() == [1.0]


def test_writer_is_atomic_and_replaces(tmp_path, monkeypatch):
    ref = load(pd.DataFrame({"policy": ["a"], "score": [0.5]}))
    dest = tmp_path / "o.csv"
    dest.write_text("old content")
    write_table(ref, dest)
    assert load(dest)["score"].tolist() == [0.5]
    assert sorted(os.listdir(tmp_path)) == ["o.csv"]  # no temp file left behind

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(pd.DataFrame, "to_csv", boom)
    with pytest.raises(OSError):
        write_table(load(pd.DataFrame({"policy": ["b"], "score": [1.0]})), dest)
    assert load(dest)["policy"].tolist() == ["a"]  # old file intact
    assert sorted(os.listdir(tmp_path)) == ["o.csv"]


def test_writer_errors(tmp_path):
    ref = load(pd.DataFrame({"policy": ["a"], "score": [0.5]}))
    with pytest.raises(ParameterError, match="extension"):
        write_table(ref, tmp_path / "o.xlsx")
    with pytest.raises(DataError, match="does not exist"):
        write_table(ref, tmp_path / "missing" / "o.csv")
    with pytest.raises(DataError, match="outside"):
        write_table(pd.DataFrame({"policy": ["a"], "score": [3.0]}), tmp_path / "o.csv")
    assert write_table(ref, tmp_path / "o.dat", format="jsonl").read_text().strip().startswith("{")


# --------------------------------------------------------------------------------------------- wide

def test_wide_detection_env_and_order(tmp_path):
    p = _write(tmp_path / "w.csv", "p1,p2\n0.5,\n,1\n0.25,0\n")
    t = load(p)
    assert t.attrs["format"] == "wide"
    assert t["policy"].tolist() == ["p1", "p2", "p1", "p2"]
    assert t["env"].tolist() == ["0", "1", "2", "2"]
    assert t["order"].tolist() == [0, 1, 2, 2]
    wide = to_wide(t)
    assert wide.index.tolist() == ["0", "1", "2"]
    assert np.isnan(wide.loc["0", "p2"]) and wide.loc["1", "p2"] == 1.0


def test_wide_with_label_column_and_nan_words(tmp_path):
    t = load(_write(tmp_path / "w.csv", "env,a,b\nkitchen,1,NaN\nsink,0,0.5\n"))
    assert t["env"].tolist() == ["kitchen", "sink", "sink"]
    with pytest.raises(DataError, match="appears in several rows"):
        load(_write(tmp_path / "d.csv", "env,a\nk,1\nk,0\n"))


def test_wide_errors_name_row_and_column(tmp_path):
    with pytest.raises(DataError) as e:
        load(_write(tmp_path / "w.csv", "p1,p2\n0.5,0.1\n0.2,1.7\n"))
    msg = str(e.value)
    assert "row 3" in msg and "column 'p2'" in msg and "1.7" in msg and "outside [0, 1]" in msg
    with pytest.raises(DataError, match=r"row 2, column 'p1'.*'x' is not a number"):
        load(_write(tmp_path / "x.csv", "p1,p2\nx,0.1\n"))
    t = load(_write(tmp_path / "r.csv", "p1\n50\n100\n"), score_range=(0, 100))
    assert t["score"].tolist() == [0.5, 1.0]


def test_roboarena_wide_counts_and_means_match_pandas(shared_data):
    path = shared_data / "roboarena" / "per_trial_progress_data.csv"
    t = load(path)
    assert t.attrs["format"] == "wide"
    assert list(dict.fromkeys(t["policy"])) == ROBO_POLICIES
    assert t.groupby("policy", sort=False).size().tolist() == ROBO_COUNTS
    ref = pd.read_csv(path)
    means = t.groupby("policy", sort=False)["score"].mean()
    np.testing.assert_allclose(means[ROBO_POLICIES].to_numpy(), ref[ROBO_POLICIES].mean().to_numpy(), rtol=1e-12)
    wide = to_wide(t)
    assert wide.shape == (796, 7)
    assert int(wide.notna().all(axis=1).sum()) == 599  # "599 rows are complete" (spec 03 §10)


def test_helm_and_rrps_load(shared_data):
    helm = load(shared_data / "llm" / "helm_lite_gsm8k.csv")
    assert helm.attrs["format"] == "long"
    assert helm["policy"].nunique() == 83 and helm["env"].nunique() == 1000 and len(helm) == 83_000
    ref = pd.read_csv(shared_data / "llm" / "helm_lite_gsm8k.csv")
    np.testing.assert_allclose(helm.groupby("policy")["score"].mean().to_numpy(),
                               ref.groupby("model")["score"].mean().to_numpy())
    with pytest.raises(DataError, match="outside"):
        load(shared_data / "games" / "rrps_bots_43x43.csv")
    rrps = load(shared_data / "games" / "rrps_bots_43x43.csv", score_range=(-1000, 1000))
    raw = pd.read_csv(shared_data / "games" / "rrps_bots_43x43.csv")
    assert len(rrps) == 1849 and rrps["policy"].nunique() == 43 and rrps["env"].nunique() == 43
    np.testing.assert_allclose(rrps["score"].to_numpy(), (raw["score"].to_numpy() + 1000) / 2000)
    assert rrps["env"].tolist() == raw["test_case"].tolist()


# --------------------------------------------------------------------------------------------- errors

@pytest.mark.parametrize("text, pattern", [
    ("policy,score\na,1.7\n", r"row 2, column 'score': score 1.7 is outside \[0, 1\]"),
    ("policy,score\na,0.5\nb,\n", r"row 3, column 'score': score is missing \(NaN\)"),
    ("policy,score\na,NaN\n", r"row 2, column 'score': score 'NaN' is not a number"),
    ("policy,env\na,1\n", r"missing required column\(s\) 'score'"),
    ("policy,score\n", r"the table is empty"),
    ("policy,score\na,1,2\n", r"malformed CSV: line 2 has more fields than the 2 columns"),
    ("policy,score\na,1\nb,1,2\n", r"malformed CSV: Error tokenizing data. C error: Expected 2 fields in line 3"),
    ("policy,score,score\na,1,1\n", r"row 1, column 'score': column name appears twice"),
    ("policy,score\n,1\n", r"empty policy name at row\(s\) 2"),
])
def test_malformed_csv_messages(tmp_path, text, pattern):
    p = _write(tmp_path / "bad.csv", text)
    with pytest.raises(DataError, match=pattern) as e:
        load(p)
    assert str(p) in str(e.value) and "\n" not in str(e.value)


def test_path_errors(tmp_path):
    with pytest.raises(DataError, match="no such file or folder"):
        load(tmp_path / "nope.csv")
    with pytest.raises(DataError, match="is a folder, but not an lm-evaluation-harness"):
        load(tmp_path)
    with pytest.raises(DataError, match="the file is empty"):
        load(_write(tmp_path / "empty.csv", ""))
    (tmp_path / "bin.csv").write_bytes(b"policy,score\n\xff\xfe,1\n")
    with pytest.raises(DataError, match="not a UTF-8"):
        load(tmp_path / "bin.csv")
    _write(tmp_path / "bad.jsonl", '{"policy": "a", "score": 1}\n{"policy": \n')
    with pytest.raises(DataError, match=r"bad.jsonl, row 2: not valid JSON"):
        load(tmp_path / "bad.jsonl")
    _write(tmp_path / "arr.jsonl", '[1, 2]\n')
    with pytest.raises(DataError, match="row 1: expected a JSON object"):
        load(tmp_path / "arr.jsonl", format="jsonl")
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(DataError, match="cannot read as Parquet"):
        load(tmp_path / "bad.parquet")
    _write(tmp_path / "obj.json", '{"a": 1}')
    with pytest.raises(DataError, match="JSON array of records"):
        load(tmp_path / "obj.json")


def test_public_load_is_the_readers_load():
    assert certirank.load is load


# --------------------------------------------------------------------------------------------- preferences

def test_preferences_ab_layout(shared_data):
    t = load(shared_data / "roboarena" / "policy_preferences.csv")
    assert t.attrs["format"] == "preferences"
    assert list(t.columns) == ["policy_a", "policy_b", "preference"]
    counts = t["preference"].value_counts()
    assert (len(t), counts[0.0], counts[1.0], counts[0.5]) == (796, 308, 338, 150)  # spec 06 §0
    raw = pd.read_csv(shared_data / "roboarena" / "policy_preferences.csv")
    assert t["policy_a"].tolist() == raw["A"].tolist()
    assert load_preferences(shared_data / "roboarena" / "policy_preferences.csv").equals(t)


def test_preferences_battle_layout(tmp_path):
    p = _write(tmp_path / "b.csv", "model_a,model_b,winner\nx,y,model_a\nx,y,model_b\ny,z,tie\n"
                                   "y,z,z\nz,x,z\ny,x,tie (bothbad)\n")
    t = load_preferences(p)
    assert t["preference"].tolist() == [0.0, 1.0, 0.5, 1.0, 0.0, 0.5]
    assert t["policy_a"].tolist() == ["x", "x", "y", "y", "z", "y"]
    # round trip through the writer keeps the canonical layout
    back = load(write_table(t, tmp_path / "b2.jsonl"))
    assert back.attrs["format"] == "preferences" and back["preference"].tolist() == t["preference"].tolist()


@pytest.mark.parametrize("text, pattern", [
    ("A,B,preference\nx,x,0\n", r"row 2: policy 'x' is compared with itself"),
    ("A,B,preference\nx,y,0.3\n", r"row 2, column 'preference': preference '0.3' is not 0"),
    ("A,B,preference\nx,,1\n", r"row 2, column 'B': empty policy name"),
    ("model_a,model_b,winner\nx,y,model_a\nx,y,w\n", r"row 3, column 'winner': winner 'w' is neither side"),
    ("model_a,model_b,winner\nx,y,\n", r"row 2, column 'winner': winner '' is neither side"),
    ("A,B,preference\n", r"preference table is empty"),
])
def test_preference_errors(tmp_path, text, pattern):
    with pytest.raises(DataError, match=pattern):
        load_preferences(_write(tmp_path / "p.csv", text))


def test_preference_policies_list(tmp_path):
    p = _write(tmp_path / "p.csv", "A,B,preference\nx,y,0\ny,q,1\n")
    assert len(load(p, policies=["x", "y", "q"])) == 2
    with pytest.raises(DataError, match=r"row 3, column 'B': unknown policy 'q'"):
        load_preferences(p, policies=["x", "y"])
    with pytest.raises(DataError, match="not a preference table"):
        load_preferences(_write(tmp_path / "l.csv", "policy,score\na,1\n"))
    frame = pd.DataFrame({"policy_a": ["a"], "policy_b": ["b"], "preference": [1]})
    out = validate_preferences(frame, policies=["a", "b"])
    assert out["preference"].dtype == np.float64 and out.attrs["format"] == "preferences"
    with pytest.raises(DataError, match="row 0"):  # raw frames: 0-based positions unless told otherwise
        validate_preferences(frame, policies=["a"], row_offset=0)


def test_compressed_csv(tmp_path):
    import gzip

    p = tmp_path / "t.csv.gz"
    with gzip.open(p, "wt") as fh:
        fh.write("policy,score\na,0.5\nb,1\n")
    assert load(p)["score"].tolist() == [0.5, 1.0]
    with gzip.open(tmp_path / "d.csv.gz", "wt") as fh:
        fh.write("policy,score,score\na,1,1\n")
    with pytest.raises(DataError, match="column name appears twice"):
        load(tmp_path / "d.csv.gz")


def test_more_error_paths(tmp_path):
    fix = Path(__file__).resolve().parent / "fixtures" / "inspect" / "2024-06-01T12-00-00+00-00_arith_Js0nLoGx.json"
    with pytest.raises(DataError, match="this is an inspect_ai log"):
        load(fix, format="json")
    with pytest.raises(DataError, match="is a folder; expected a preference table"):
        load_preferences(tmp_path)
    with pytest.raises(DataError, match="no such file"):
        load_preferences(tmp_path / "x.csv")
    p = _write(tmp_path / "p.csv", "A,B,preference\nx,y,1\n")
    with pytest.raises(ParameterError, match="unknown option"):
        load_preferences(p, foo=1)
    with pytest.raises(DataError, match="a column has no name"):
        load(_write(tmp_path / "idx.csv", ",a\n0,1\n"))  # pandas' to_csv with its index
    with pytest.raises(DataError, match="several row-label columns"):
        load(_write(tmp_path / "two.csv", "env,item,a\n1,2,1\n"))
    with pytest.raises(DataError, match="not a preference table"):
        load(_write(tmp_path / "l.csv", "policy,score\na,1\n"), format="preferences")
    with pytest.raises(DataError, match="empty or starts with a blank line"):
        load(_write(tmp_path / "blank.csv", "\n\npolicy,score\na,1\n"))
