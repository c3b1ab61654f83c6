"""Every reader and parser against generated hostile input (hypothesis): random bytes under every file name,
CSV text built from the cells exports really hold (and worse), hostile DataFrame cells, deep and random JSON,
and the small text parsers behind CLI options. Each either returns a valid result or raises a one-line
`CertirankError`; nothing else escapes (issue 33 item 1)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import certirank
from certirank.errors import CertirankError
from hostile_support import assert_api_refusal

FAST = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
SUFFIXES = [".csv", ".tsv", ".json", ".jsonl", ".parquet", ".txt", ".eval", ""]

# cells real exports hold, and cells a hostile file holds
TOKENS = ["A", "B", "pi0", "", " ", "nan", "NaN", "inf", "-inf", "1e308", "-1e308", "1e400", "1e-320", "0", "1", "0.5",
          "-0", "2", "-1", "TRUE", "False", "yes", "50%", "150%", "[True, False]", "[1, 0", '"', "'", '""', "\x1b[2J",
          "\u202e", "\u2028", "\x00", "１", "١", "Total", "Mean", "-", "n/a", "1,5", "=1+2", "@SUM(1)", "é",
          "9" * 40, "a" * 300]
HEADERS = ["policy", "env", "score", "model", "item", "task", "Method", "success", "progress", "trial", "episode",
           "replicate", "order", "block", "weight", "A", "B", "preference", "model_a", "model_b", "winner", "",
           "score", "Polciy", "\ufeffpolicy"]


def _ok_table(t: pd.DataFrame) -> None:
    """A table `load` returned is valid: scores finite in [0, 1] (or preferences in {0, 0.5, 1})."""
    assert isinstance(t, pd.DataFrame) and len(t) > 0
    col = "preference" if "preference" in t.columns else "score"
    v = t[col].to_numpy(dtype=float)
    assert np.isfinite(v).all() and (v >= 0).all() and (v <= 1).all()


def _load_file(data: bytes, suffix: str, **options: object) -> None:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / f"data{suffix}"
        p.write_bytes(data)
        try:
            t = certirank.load(p, **options)
        except CertirankError as exc:
            assert_api_refusal(exc)
            assert "\x00" not in str(exc)
        except Exception as exc:  # noqa: BLE001 -- the point: nothing else may escape
            pytest.fail(f"raw {type(exc).__name__} from load({suffix!r}): {exc!r}")
        else:
            _ok_table(t)


@FAST
@given(st.binary(max_size=400), st.sampled_from(SUFFIXES))
def test_load_random_bytes(data, suffix):
    _load_file(data, suffix)


@st.composite
def csv_text(draw: st.DrawFn) -> str:
    sep = draw(st.sampled_from([",", "\t", ";"]))
    width = draw(st.integers(1, 5))
    header = draw(st.lists(st.sampled_from(HEADERS), min_size=width, max_size=width))
    rows = draw(st.lists(st.lists(st.sampled_from(TOKENS), min_size=0, max_size=width + 1), max_size=8))
    end = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return end.join(sep.join(r) for r in [header, *rows]) + draw(st.sampled_from(["", end]))


@FAST
@given(csv_text(), st.sampled_from([".csv", ".tsv", ".txt"]))
def test_load_hostile_csv_cells(text, suffix):
    _load_file(text.encode("utf-8"), suffix)


@FAST
@given(csv_text())
def test_load_hostile_csv_with_reader_options(text):
    _load_file(text.encode("utf-8"), ".csv", sep=";")


CELLS = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-(2 ** 70), 2 ** 70), st.booleans(),
                  st.none(), st.sampled_from(TOKENS), st.complex_numbers(max_magnitude=2), st.binary(max_size=3),
                  st.just([1, 2]), st.just({"a": 1}))


@FAST
@given(st.lists(st.tuples(st.sampled_from(["A", "B", "C", "", None, 1, 2.5]), st.sampled_from(["e1", "e2", None, 3]),
                          CELLS), min_size=0, max_size=10),
       st.sampled_from([None, "long", "wide", "preferences"]))
def test_load_hostile_dataframe_cells(rows, fmt):
    frame = pd.DataFrame(rows, columns=["policy", "env", "score"]) if rows else pd.DataFrame()
    try:
        t = certirank.load(frame, format=fmt)
    except CertirankError as exc:
        assert_api_refusal(exc)
    except Exception as exc:  # noqa: BLE001
        pytest.fail(f"raw {type(exc).__name__} from load(DataFrame): {exc!r}")
    else:
        _ok_table(t)
        assert not any(isinstance(c, (complex, bytes, list, dict)) for _, _, c in rows), "a non-number score accepted"


JSON = st.recursive(st.one_of(st.none(), st.booleans(), st.floats(allow_nan=False), st.integers(), st.text(max_size=5)),
                    lambda inner: st.one_of(st.lists(inner, max_size=4),
                                            st.dictionaries(st.sampled_from(["format", "version", "families", "kind",
                                                                             "state_sha256", "results", "policies",
                                                                             "config", "a", "eval", "samples"]),
                                                            inner, max_size=4)), max_leaves=12)


@FAST
@given(st.one_of(JSON.map(json.dumps), st.text(max_size=50), st.integers(1, 60_000).map(lambda n: "[" * n + "]" * n),
                 st.integers(1, 60_000).map(lambda n: '{"a":' * n + "1" + "}" * n)))
def test_saved_states_from_json_text(text):
    for rebuild in (certirank.Ranker.from_json, certirank.Leaderboard.from_json):
        try:
            rebuild(text)
        except CertirankError as exc:
            assert_api_refusal(exc)
        except Exception as exc:  # noqa: BLE001
            pytest.fail(f"raw {type(exc).__name__} from {rebuild.__qualname__}: {exc!r}")


@FAST
@given(st.one_of(JSON.map(json.dumps).map(str.encode), st.binary(max_size=200),
                 st.integers(1, 60_000).map(lambda n: ("[" * n + "]" * n).encode())),
       st.sampled_from(["result", "prior-json", "prior-csv", "matrix"]))
def test_file_parsers_on_hostile_files(data, which):
    from certirank.methods.anyrank.demo import read_prior_file
    from certirank.methods.rposst.matrix import read_test_matrix
    from certirank.report.html import read_result
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / {"result": "r.json", "prior-json": "p.json", "prior-csv": "p.csv", "matrix": "m.csv"}[which]
        p.write_bytes(data)
        fn = {"result": read_result, "prior-json": read_prior_file, "prior-csv": read_prior_file,
              "matrix": read_test_matrix}[which]
        try:
            fn(p)
        except CertirankError as exc:
            assert_api_refusal(exc)
        except Exception as exc:  # noqa: BLE001
            pytest.fail(f"raw {type(exc).__name__} from {which} reader: {exc!r}")


TEXT = st.one_of(st.text(max_size=30), st.text(alphabet="AB=,.0123456789-+einf[]<> ;:\"'\x00\x1b", max_size=30))


@FAST
@given(TEXT)
def test_option_parsers_on_hostile_text(text):
    """The parsers behind --prior-means, --claim, --score-range, --read-option, --methods and list cells."""
    from certirank.cli._common import key_values, parse_score_range
    from certirank.data.formats.lists import parse_list
    from certirank.methods.anyrank.demo import parse_prior_means
    from certirank.methods.check import parse_claim
    from certirank.sim.adapters import parse_methods
    items, _ = parse_list(text)  # never raises: a list cell it cannot read comes back as loose items
    assert isinstance(items, list)
    for fn in (parse_prior_means, parse_claim, parse_score_range, lambda t: key_values([t], "--read-option"),
               parse_methods):
        try:
            fn(text)
        except CertirankError as exc:
            assert_api_refusal(exc)
        except Exception as exc:  # noqa: BLE001
            pytest.fail(f"raw {type(exc).__name__} from {getattr(fn, '__name__', fn)}({text!r}): {exc!r}")


ENCODINGS = ["utf-8", "utf-8-sig", "utf-16", "latin-1", "cp1252", "utf-32"]


@FAST
@given(csv_text(), st.sampled_from(ENCODINGS))
def test_load_csv_in_other_encodings(text, encoding):
    _load_file(text.encode(encoding, errors="replace"), ".csv")


def _hostile_records(draw: st.DrawFn, keys: list[str]) -> list[object]:
    """Records that look like the reader's own (its keys, sometimes) with hostile values, or anything at all."""
    value = st.one_of(JSON, st.sampled_from(TOKENS), st.floats(allow_nan=True), st.integers(-(2 ** 70), 2 ** 70))
    record = st.fixed_dictionaries({}, optional={k: value for k in keys})
    return draw(st.lists(st.one_of(record, JSON), max_size=5))


@st.composite
def reader_layout(draw: st.DrawFn, reader: str) -> dict[str, bytes]:
    """The files a reader expects, filled with hostile content."""
    dumps = lambda v: json.dumps(v).encode()  # noqa: E731
    if reader == "helm":
        recs = _hostile_records(draw, ["instance_id", "train_trial_index", "stats"])
        return {"run:model=m1/per_instance_stats.json": dumps(recs),
                "run:model=m1/run_spec.json": dumps(draw(JSON))}
    if reader == "lerobot":
        return {f"{p}/eval_info.json": dumps(draw(st.one_of(JSON, st.fixed_dictionaries(
            {}, optional={"per_task": JSON, "per_episode": JSON, "overall": JSON})))) for p in ("a", "b")}
    if reader in ("lm-eval", "eee", "openai-evals"):
        keys = {"lm-eval": ["doc_id", "filter", "metrics", "acc", "exact_match"],
                "eee": ["model_id", "sample_id", "evaluation", "evaluation_name"],
                "openai-evals": ["spec", "type", "sample_id", "data", "run_id"]}[reader]
        name = "m/samples_t_2024-01-01T00-00-00.jsonl" if reader == "lm-eval" else "logs/run.jsonl"
        lines = [json.dumps(r) for r in _hostile_records(draw, keys)] + draw(st.lists(st.sampled_from(
            ["{", "", "[1]", '{"a": 1e999}', "\x00"]), max_size=2))
        return {name: "\n".join(lines).encode()}
    if reader == "inspect":
        return {"log.json": dumps({"eval": draw(JSON), "samples": _hostile_records(draw, ["id", "epoch", "scores"]),
                                   "results": draw(JSON)})}
    if reader == "arena":
        return {"battles.json": dumps(_hostile_records(draw, ["model_a", "model_b", "winner"]))}
    if reader == "outcome-lists":
        rows = draw(st.lists(st.tuples(st.sampled_from(TOKENS), st.sampled_from(TOKENS),
                                       st.sampled_from(TOKENS + ["[True, False]", "[1, 0.5]", '"[0, 1]"\'']),
                                       st.sampled_from(TOKENS)), max_size=6))
        text = "Task,Method,Outcomes,Notes\n" + "\n".join(",".join(r) for r in rows)
        return {"lists.csv": text.encode()}
    return {f"runs/{p}.csv": draw(csv_text()).encode() for p in ("A", "B")}  # folder


READERS = ["helm", "lerobot", "lm-eval", "eee", "openai-evals", "inspect", "arena", "outcome-lists", "folder"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(st.data())
@pytest.mark.parametrize("reader", READERS)
def test_every_registry_reader_on_hostile_files(reader, data):
    files = data.draw(reader_layout(reader))
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        for rel, content in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(content)
        target = {"helm": root, "lerobot": root, "lm-eval": root, "eee": root / "logs", "openai-evals": root / "logs",
                  "inspect": root / "log.json", "arena": root / "battles.json", "outcome-lists": root / "lists.csv",
                  "folder": root / "runs"}[reader]
        for fmt in (reader, None):  # named, and detected
            try:
                t = certirank.load(target, format=fmt)
            except CertirankError as exc:
                assert_api_refusal(exc)
            except Exception as exc:  # noqa: BLE001
                pytest.fail(f"raw {type(exc).__name__} from the {reader} reader (format={fmt}): {exc!r}")
            else:
                _ok_table(t)
