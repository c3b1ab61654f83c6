"""Large CSV/TSV files are read with typed columns first (numbers as numbers) and read again as text whenever that
could change anything: the table, the notes, the warnings and every error message are those of the text read.
Here the size threshold is set to 0 so that small files take the typed path, and each is compared with the text
read of the same file. Also: label codes computed once per Arrow array (`certirank.data._cells.label_codes`)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import certirank.data.readers as readers
from certirank.data._cells import label_codes, map_values, to_numbers
from certirank.errors import DataError


def _read(path: Path, typed: bool, monkeypatch: pytest.MonkeyPatch, **kw):
    """(table or None, error message or None, warnings) of `load` by one path."""
    monkeypatch.setattr(readers, "_TYPED_MIN_BYTES", 0 if typed else 1 << 62)
    attempts = []
    real = readers._from_frame

    def spy(frame, *a, **k):
        attempts.append(bool(k.get("typed")))
        return real(frame, *a, **k)

    monkeypatch.setattr(readers, "_from_frame", spy)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            table, err = readers.load(path, **kw), None
        except DataError as exc:
            table, err = None, str(exc)
    return table, err, [str(w.message) for w in caught], attempts


def _same(path: Path, monkeypatch: pytest.MonkeyPatch, **kw) -> tuple[bool, bool]:
    """Assert both paths agree; return (typed path tried, typed table kept)."""
    t_text, e_text, w_text, _ = _read(path, False, monkeypatch, **kw)
    t_typed, e_typed, w_typed, tries = _read(path, True, monkeypatch, **kw)
    assert e_typed == e_text
    assert w_typed == w_text
    if t_text is None:
        assert t_typed is None
    else:
        pd.testing.assert_frame_equal(t_typed, t_text, check_exact=True)
        assert {k: v for k, v in t_typed.attrs.items()} == {k: v for k, v in t_text.attrs.items()}
        assert t_typed.attrs.get("notes") == t_text.attrs.get("notes")
    return bool(tries and tries[0]), tries == [True]


def _write(tmp_path: Path, text: str, name: str = "t.csv") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def _long(rows: list[tuple], header: str = "model,item,replicate,score") -> str:
    return header + "\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n"


BASE = [("a", f"i{j}", r, (j * 7 + r) % 2) for r in (1, 2) for j in range(30)] + \
       [("b", f"i{j}", r, (j * 3 + r) % 2) for r in (1, 2) for j in range(30)]


def test_a_plain_long_file_keeps_the_typed_table(tmp_path, monkeypatch) -> None:
    tried, kept = _same(_write(tmp_path, _long(BASE)), monkeypatch)
    assert tried and kept


def test_fractional_scores_are_the_same_bits(tmp_path, monkeypatch) -> None:
    rng = np.random.default_rng(3)
    x = rng.random(400) * 10.0 ** rng.integers(-12, 1, 400)
    cells = [repr(float(v)) for v in x[:100]] + [f"{v:.20g}" for v in x[100:200]] + \
            [f"{v:.25e}" for v in x[200:300]] + [f"{v:.3f} " for v in x[300:]]
    rows = [("a" if k % 2 else "b", f"i{k // 2}", 1, c) for k, c in enumerate(cells)]
    tried, kept = _same(_write(tmp_path, _long(rows)), monkeypatch)
    assert kept


CASES = {
    # labels that read as numbers: their text must stay as written
    "numeric model names": _long([("007", f"i{j}", 1, j % 2) for j in range(20)] +
                                 [("8", f"i{j}", 1, 1) for j in range(20)]),
    "numeric item labels": _long([(m, f"{j:03d}", 1, j % 2) for m in "ab" for j in range(20)]),
    "float item labels": _long([(m, f"{j}.0", 1, j % 2) for m in "ab" for j in range(20)]),
    "boolean-looking labels": _long([(m, ("True", "False")[j % 2] + str(j // 2), 1, 0) for m in "ab"
                                     for j in range(20)]).replace("True0", "True").replace("False0", "False"),
    "model named NA": _long([(m, f"i{j}", 1, j % 2) for m in ("NA", "None") for j in range(20)]),
    "quoted names with commas": _long([(f'"m, {m}"', f"i{j}", 1, j % 2) for m in "ab" for j in range(20)]),
    "leading spaces": _long([(f"  {m}", f" i{j}", " 1", f" {j % 2}") for m in "ab" for j in range(20)]),
    # scores the typed read cannot take, or that are refused
    "outcome words": _long([(m, f"i{j}", 1, ("TRUE", "FALSE")[j % 2]) for m in "ab" for j in range(20)]),
    "percentages": _long([(m, f"i{j}", 1, f"{j * 5}%") for m in "ab" for j in range(20)]),
    "blank score": _long([(m, f"i{j}", 1, "" if (m, j) == ("b", 7) else j % 2) for m in "ab" for j in range(20)]),
    "nan text score": _long([(m, f"i{j}", 1, "nan" if j == 3 else 0) for m in "ab" for j in range(20)]),
    "inf score": _long([(m, f"i{j}", 1, "inf" if j == 3 else 0) for m in "ab" for j in range(20)]),
    "score out of range": _long([(m, f"i{j}", 1, 1.5 if j == 9 else 0) for m in "ab" for j in range(20)]),
    "score word": _long([(m, f"i{j}", 1, "high" if j == 9 else 0) for m in "ab" for j in range(20)]),
    "huge integer score": _long([(m, f"i{j}", 1, 10 ** 20 if j == 2 else 1) for m in "ab" for j in range(20)]),
    "integer scores": _long([(m, f"i{j}", 1, j % 2) for m in "ab" for j in range(20)]),
    # replicates and other columns
    "replicate 1.0": _long([(m, f"i{j}", "1.0", j % 2) for m in "ab" for j in range(20)]),
    "replicate 1.5": _long([(m, f"i{j}", 1.5 if j == 4 else 1, j % 2) for m in "ab" for j in range(20)]),
    "duplicate key": _long([(m, f"i{min(j, 18)}", 1, j % 2) for m in "ab" for j in range(20)]),
    "extra numeric column": _long([(m, f"i{j}", 1, j % 2, j * 10) for m in "ab" for j in range(20)],
                                  header="model,item,replicate,score,latency_ms"),
    "numeric blocks": _long([(m, f"i{j}", 1, j % 2, f"0{j // 5}") for m in "ab" for j in range(20)],
                            header="model,item,replicate,score,block"),
    "weights": _long([(m, f"i{j}", 1, j % 2, 0.05) for m in "ab" for j in range(20)],
                     header="model,item,replicate,score,weight"),
    "bad weight": _long([(m, f"i{j}", 1, j % 2, -1 if j == 5 else 0.05) for m in "ab" for j in range(20)],
                        header="model,item,replicate,score,weight"),
    "order column": _long([(m, f"i{j}", j, j % 2) for m in "ab" for j in range(20)], header="model,item,order,score"),
    "task and episode": _long([(m, f"t{j % 3}", j, j % 2) for m in "ab" for j in range(20)],
                              header="policy,task,episode,score"),
    "lab names": _long([(m, f"t{j}", j % 2) for m in "ab" for j in range(20)], header="Policy,task,success"),
    "isolated policy": _long([(m, f"{m}{j}", 1, j % 2) for m in "ab" for j in range(20)] +
                             [("c", f"a{j}", 1, 1) for j in range(20)]),
    "no env column": _long([(m, j % 2) for m in "ab" for j in range(20)], header="model,score"),
    "summary row": _long([(m, f"i{j}", 1, j % 2) for m in "ab" for j in range(20)], header="policy,item,replicate,score")
    + "Total,,,0.5\n",
    "control character in a name": _long([("a\x07", f"i{j}", 1, 0) for j in range(20)] +
                                         [("b", f"i{j}", 1, 0) for j in range(20)]),
    "wide table": "env,A,B\n" + "\n".join(f"e{j},{j % 2},{(j + 1) % 2}" for j in range(30)) + "\n",
    "wide with blanks": "A,B,C\n" + "\n".join(f"{j % 2},,{1 - j % 2}" for j in range(30)) + "\n",
    "preferences": "model_a,model_b,winner\n" + "\n".join(f"a,b,{('a', 'b', 'tie')[j % 3]}" for j in range(30)) + "\n",
    "too many fields": _long(BASE[:10]) + "a,i99,1,0,7\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_file_reads_as_the_text_read_gives_it(name: str, tmp_path, monkeypatch) -> None:
    _same(_write(tmp_path, CASES[name]), monkeypatch)


@pytest.mark.parametrize("name", ["numeric model names", "extra numeric column", "outcome words", "wide table",
                                  "score out of range"])
def test_files_the_typed_read_cannot_take_are_read_again_as_text(name: str, tmp_path, monkeypatch) -> None:
    tried, kept = _same(_write(tmp_path, CASES[name]), monkeypatch)
    assert tried and not kept  # the comparison above would be vacuous if the typed table had been kept


def test_tsv_and_semicolon_files(tmp_path, monkeypatch) -> None:
    tsv = _long(BASE).replace(",", "\t")
    assert _same(_write(tmp_path, tsv, "t.tsv"), monkeypatch)[1]
    semi = "model;item;score\n" + "\n".join(f"{m};i{j};0,{j % 10}" for m in "ab" for j in range(20)) + "\n"
    _same(_write(tmp_path, semi, "s.csv"), monkeypatch, sep=";")


def test_cells_of_mixed_types_are_read_again_as_text(tmp_path, monkeypatch) -> None:
    # pandas types each chunk of a large file on its own: '007' read as 7 in one chunk and text in a later one
    # gives a column of mixed cells (object dtype), which is not the text as written
    frame = pd.DataFrame({"model": pd.Series([7, "m"] * 10, dtype=object), "item": [f"i{j}" for j in range(20)],
                          "score": np.zeros(20)})
    assert readers.typed_columns(frame) == ["model", "score"]
    with pytest.raises(readers._AsText):
        readers._from_frame(frame, None, source="f.csv", score_range=None, row_offset=2, file_type="csv",
                            options={}, typed=True)


@pytest.mark.slow
def test_a_large_file_with_labels_typed_differently_by_chunk(tmp_path, monkeypatch) -> None:
    k = np.arange(1_200_000)
    models = np.where(k < 900_000, np.char.mod("%03d", k % 7), "m")
    rows = pd.DataFrame({"model": models, "item": np.char.mod("i%d", k // 7), "score": 0.5})
    p = tmp_path / "big.csv"
    rows.to_csv(p, index=False)
    tried, kept = _same(p, monkeypatch)
    assert tried and not kept


# --- label codes ---------------------------------------------------------------------------------------------

def _labels(n: int, seed: int = 0) -> pd.Series:
    rng = np.random.default_rng(seed)
    return pd.Series(pd.array([f"x{v}" for v in rng.integers(0, 50, n)], dtype="str"))


def test_label_codes_are_pandas_codes_and_computed_once() -> None:
    col = _labels(5000)
    codes, uniques = label_codes(col)
    ref_codes, ref_uniques = pd.factorize(col)
    np.testing.assert_array_equal(codes, ref_codes)
    assert list(uniques) == list(ref_uniques)
    again = label_codes(col.copy())  # a copy shares the Arrow array
    assert again[0] is codes
    with pytest.raises(ValueError):
        codes[0] = 3  # shared: read-only


def test_an_edited_column_gets_new_codes() -> None:
    frame = pd.DataFrame({"policy": _labels(5000)})
    codes, _ = label_codes(frame["policy"])
    frame.loc[0, "policy"] = "new"
    edited, uniques = label_codes(frame["policy"])
    ref, ref_uniques = pd.factorize(frame["policy"])
    np.testing.assert_array_equal(edited, ref)
    assert list(uniques) == list(ref_uniques) and "new" in list(uniques)
    assert not np.array_equal(edited, codes)


def test_mapped_labels_carry_their_codes_even_when_two_labels_become_one() -> None:
    rng = np.random.default_rng(1)
    raw = pd.Series(pd.array([(" " if v % 3 == 0 else "") + f"e{v % 20}" for v in rng.integers(0, 60, 6000)],
                             dtype="str"))
    out = map_values(raw, lambda v: v.strip())
    codes, uniques = label_codes(out)
    ref, ref_uniques = pd.factorize(out)
    np.testing.assert_array_equal(codes, ref)
    assert list(uniques) == list(ref_uniques)
    assert uniques.dtype == ref_uniques.dtype


def test_to_numbers_of_text_is_the_typed_parse() -> None:
    rng = np.random.default_rng(5)
    x = rng.random(20_000) * 10.0 ** rng.integers(-30, 3, 20_000)
    text = [f"{v:.{int(d)}g}" for v, d in zip(x, rng.integers(1, 22, 20_000))]
    import io
    typed = pd.read_csv(io.StringIO("s\n" + "\n".join(text) + "\n"))["s"].to_numpy()
    parsed = to_numbers(pd.Series(pd.array(text, dtype="str"))).to_numpy(dtype=float)
    assert typed.dtype == np.float64
    np.testing.assert_array_equal(typed.view(np.int64), parsed.view(np.int64))
