"""Files as labs and leaderboards publish them (issue 33 item 6): each quirk is read right, or refused in one line
that names the file, the row/column and quotes the cell. The fixtures are written here, in the layouts people
export: sorted rows, spreadsheet exports (BOM, CRLF, ';', padding, summary rows), misspelled headers, per-policy
folders, outcome lists, lm-eval samples, inspect logs, HELM runs and arena battles."""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import pytest

import certirank
from certirank.errors import CertirankWarning, DataError


@dataclass
class Case:
    name: str
    files: dict[str, Any]  # relative path -> text (str) or bytes
    read: str = ""  # what to load, relative ('' = the only file)
    options: dict[str, Any] = field(default_factory=dict)
    counts: Optional[dict[str, int]] = None  # trials per policy when read right
    means: Optional[dict[str, float]] = None
    paired: Optional[int] = None  # environments the first two policies share
    note: Optional[str] = None  # a note (substring) the reader must leave
    warn: Optional[str] = None  # a one-line warning (substring)
    error: Optional[list[str]] = None  # substrings of the one-line DataError (file, row/column, the cell)


def _lines(*rows: str, end: str = "\n") -> str:
    return end.join(rows) + end


def _folder(rows: dict[str, str]) -> dict[str, Any]:
    return {f"runs/{k}": v for k, v in rows.items()}


LONG = ["policy,env,score", "pi0,kitchen,1", "pi0,office,0", "pi0,lab,1", "ours,kitchen,1", "ours,office,1",
        "ours,lab,0"]

CASES = [
    # ------------------------------------------------------------------ long tables
    Case("sorted by policy, then env", {"a.csv": _lines(*LONG)}, counts={"pi0": 3, "ours": 3},
         means={"pi0": 2 / 3, "ours": 2 / 3}, paired=3),
    Case("Excel: BOM, CRLF, padding columns and rows", {"a.csv": "\ufeff" + _lines(
        *(r + ",," for r in LONG), ",,", ",,", end="\r\n")}, counts={"pi0": 3, "ours": 3}, paired=3),
    Case("';' export with decimal commas, refused without sep", {"a.csv": _lines(
        "policy;env;score", "pi0;a;0,5", "ours;a;1")}, error=["a.csv, row 1", "separated by ';'", "sep=';'"]),
    Case("';' export with decimal commas, sep given", {"a.csv": _lines("policy;env;score", "pi0;a;0,5", "ours;a;1")},
         options={"sep": ";"}, means={"pi0": 0.5, "ours": 1.0}),
    Case("trailing Average row", {"a.csv": _lines(*LONG, "Average,,0.667")}, counts={"pi0": 3, "ours": 3},
         note="line 8 ('Average')"),
    Case("summary row between trials", {"a.csv": _lines(*LONG[:4], "Total,,2", *LONG[4:])},
         error=["a.csv, row 5, column 'policy'", "'Total'", "trials follow"]),
    Case("lab headers: Method, Episode, Success as TRUE/FALSE", {"a.csv": _lines(
        "Method,Episode,Success", "pi0,0,TRUE", "pi0,1,FALSE", "ours,0,TRUE", "ours,1,TRUE")},
         means={"pi0": 0.5, "ours": 1.0}, paired=2, note="'Method' as 'policy'"),
    Case("misspelled policy header", {"a.csv": _lines("Polciy,env,score", "pi0,a,1", "ours,a,0")},
         error=["a.csv", "'Polciy' looks like a misspelling of 'policy'"]),
    Case("LLM per-item results: model, question_id, correct", {"a.csv": _lines(
        "model,question_id,correct", "gpt,q1,1", "gpt,q2,0", "llama,q1,1", "llama,q2,1")},
         means={"gpt": 0.5, "llama": 1.0}, paired=2, note="'correct' as 'score'"),
    Case("SWE-bench style: Model, instance_id, resolved as TRUE/FALSE", {"a.csv": _lines(
        "Model,instance_id,resolved", "a,django-1,TRUE", "a,flask-2,FALSE", "b,django-1,FALSE", "b,flask-2,FALSE")},
         means={"a": 0.5, "b": 0.0}, paired=2),
    Case("lm-eval style: doc_id, acc beside acc_norm (acc read, the first of the score names)", {"a.csv": _lines(
        "model,doc_id,acc,acc_norm", "m1,0,1,0", "m1,1,0,0", "m2,0,1,1", "m2,1,1,1")},
         means={"m1": 0.5, "m2": 1.0}, paired=2, note="'acc' as 'score'"),
    Case("two LLM score columns: refused, not guessed", {"a.csv": _lines(
        "model,doc_id,correct,em", "m1,0,1,1", "m2,0,0,0")},
         error=["a.csv", "several columns could hold the score ('correct', 'em')", "score=COLUMN"]),
    Case("a bare id shared by the models names the item", {"a.csv": _lines(
        "model,id,correct", "m1,q1,1", "m1,q2,0", "m2,q1,0", "m2,q2,0")}, paired=2),
    Case("a bare id unique to each row numbers the rows: paired by order, said", {"a.csv": _lines(
        "policy,id,success", "pi0,1,1", "ours,2,0", "pi0,3,1", "ours,4,1")},
         counts={"pi0": 2, "ours": 2}, note="no environment column"),
    Case("misspelled lab score header", {"a.csv": _lines("policy,trial,Succes", "pi0,0,1", "ours,0,0")},
         error=["a.csv, column 'Succes'", "no score column", "misspelling of 'success'", "score=Succes"]),
    Case("misspelled lab headers: Method, Episode, sucess", {"a.csv": _lines(
        "Method,Episode,sucess", "pi0,0,TRUE", "ours,0,FALSE")},
         error=["a.csv, column 'sucess'", "misspelling of 'success'"]),
    Case("misspelled progress header", {"a.csv": _lines("policy,task,progres", "pi0,a,0.5", "ours,a,0.25")},
         error=["column 'progres'", "misspelling of 'progress'"]),
    Case("misspelled score header chosen with score=", {"a.csv": _lines(
        "policy,trial,Succes", "pi0,0,1", "pi0,1,1", "ours,0,0", "ours,1,1")}, options={"score": "Succes"},
         means={"pi0": 1.0, "ours": 0.5}, paired=2),
    Case("misspelled environment header: paired by order, said", {"a.csv": _lines(
        "policy,enviroment,score", "pi0,a,1", "ours,a,0")}, paired=None,
         note="column 'enviroment' is not read as one"),
    Case("policy,score only: paired by order, said", {"a.csv": _lines("policy,score", "pi0,1", "ours,0", "pi0,0",
                                                                        "ours,1")},
         counts={"pi0": 2, "ours": 2}, note="each policy's n-th trial is paired with the n-th trial"),
    Case("progress as percentages", {"a.csv": _lines("policy,env,progress", "pi0,a,50%", "ours,a,100%")},
         means={"pi0": 0.5, "ours": 1.0}),
    Case("names with spaces around them", {"a.csv": _lines("policy,env,score", ' "pi0 " ,a,1', "ours , a ,0")},
         counts={"pi0": 1, "ours": 1}, paired=1),
    Case("a bad score cell is quoted", {"a.csv": _lines(*LONG[:3], "pi0,lab,0.7x")},
         error=["a.csv, row 4, column 'score'", "'0.7x'"]),
    Case("a header named twice", {"a.csv": _lines("policy,score,score", "pi0,1,0")},
         error=["a.csv, row 1, column 'score'", "twice"]),
    Case("Latin-1 export", {"a.csv": "policy,env,score\nstrat\xe9gie,a,1\nours,a,0\n".encode("latin-1")},
         error=["a.csv", "not a UTF-8 text file"]),
    Case("TSV with a .tsv name", {"a.tsv": _lines(*(r.replace(",", "\t") for r in LONG))},
         counts={"pi0": 3, "ours": 3}),
    Case("a policy that shares no environment", {"a.csv": _lines(*LONG, "act,garage,1", "act,attic,0")},
         warn="policy 'act' shares no environment with any other policy"),
    # ------------------------------------------------------------------ wide tables
    Case("RoboArena-like sparse wide table", {"w.csv": _lines("pi0,ours,act", "1,,0", ",0.5,1", "0.25,1,")},
         counts={"pi0": 2, "ours": 2, "act": 2}, paired=1),
    Case("wide with an episode column and a trailing mean row", {"w.csv": _lines(
        "episode,pi0,ours", "0,1,0", "1,0,1", "mean,0.5,0.5")}, counts={"pi0": 2, "ours": 2},
         note="line 4 ('mean')"),
    Case("wide with a policy that shares no row", {"w.csv": _lines("pi0,ours,act", "1,0,", "0,1,", ",,1")},
         warn="policy 'act' shares no row with any other policy"),
    Case("wide cell that is no number is quoted", {"w.csv": _lines("pi0,ours", "1,0", "1,yes!")},
         error=["w.csv, row 3, column 'ours'", "'yes!'"]),
    # ------------------------------------------------------------------ per-policy folders
    Case("folder: one file's environment header misspelled", _folder({
        "A.csv": _lines("env,success", "e1,1", "e2,0"), "B.csv": _lines("env,success", "e1,0", "e2,0"),
        "C.csv": _lines("enviroment,success", "e1,1", "e2,1")}), read="runs",
         error=["runs/C.csv, column 'enviroment'", "no environment column", "'C' would never be compared"]),
    Case("folder: one file's labels meet no other file's", _folder({
        "A.csv": _lines("env,success", "e1,1", "e2,0"), "B.csv": _lines("env,success", "e1,0", "e2,0"),
        "C.csv": _lines("env,success", "E-1,1", "E-2,1")}), read="runs",
         error=["runs/C.csv, column 'env'", "'E-1'", "'C' would never be compared"]),
    Case("folder: trial column missing in one file", _folder({
        "A.csv": _lines("env,trial,success", "e1,0,1", "e1,1,0"), "B.csv": _lines("env,trail,success", "e1,0,0",
                                                                                  "e1,1,1")}), read="runs",
         error=["runs/B.csv, column 'trail'", "no trial column", "misspelling of 'trial'"]),
    Case("folder: Excel sheets with BOM, CRLF, notes and a blank summary row", _folder({
        "A.csv": "\ufeff" + _lines("env,trial #,success,notes", "e1,1,1,ok", "e1,2,0,", ",,,", "avg,,,0.5",
                                   end="\r\n"),
        "B.csv": "\ufeff" + _lines("env,trial #,success,notes", "e1,1,0,", "e1,2,1,late", end="\r\n")}),
         read="runs", counts={"A": 2, "B": 2}, paired=2, note="column(s) ignored"),
    Case("folder: a file whose every score is blank", _folder({
        "A.csv": _lines("env,success", "e1,1", "e2,0"), "B.csv": _lines("env,success", "e1,0", "e2,1"),
        "C.csv": _lines("env,success", "e1,", "e2,")}), read="runs", counts={"A": 2, "B": 2},
         warn="C.csv: every score cell is blank"),
    # ------------------------------------------------------------------ outcome lists
    Case("outcome lists: a stray quote after one list", {"l.csv": _lines(
        "Panel,Task,Method,Success/Failure,Notes", '1,stack,pi0,"[False, True, True]",',
        "1,stack,ours,\"[True, True, False]'\",")}, counts={"pi0": 3, "ours": 3}, paired=3,
         note="stray quote characters in the list cell ignored on line(s) 3"),
    Case("outcome lists: spaces around a list", {"l.csv": _lines(
        "Task,Method,Outcomes", "stack,pi0, [1, 0] ", 'stack,ours,  "[1, 1]"  ')}, means={"pi0": 0.5, "ours": 1.0}),
    Case("outcome lists: text after a list is quoted as the file has it", {"l.csv": _lines(
        "Task,Method,Outcomes", "stack,pi0,[1, 0]", 'stack,ours,"[1, 1]"x')},
         error=["l.csv, row 3, column 'Outcomes'", "'\"[1, 1]\"x'", "not an outcome list"]),
    Case("outcome lists: a group spelled two ways", {"l.csv": _lines(
        "Task,Method,Outcomes", "stack cups,pi0,[1, 0]", "stack-cups,ours,[1, 1]", "stack cups,act,[0, 0]")},
         error=["l.csv, row 3", "policy 'ours' shares no group", "'stack-cups'"]),
    Case("outcome lists: TSV export", {"l.tsv": _lines("Task\tMethod\tOutcomes", "stack\tpi0\t[True, False]",
                                                      "stack\tours\t[True, True]")}, means={"pi0": 0.5, "ours": 1.0}),
]


def _write(root: Path, files: dict[str, Any]) -> None:
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_bytes(content.encode("utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_field_file(tmp_path, case):
    _write(tmp_path, case.files)
    path = tmp_path / (case.read or next(iter(case.files)))
    if case.error:
        with pytest.raises(DataError) as err:
            certirank.load(path, **case.options)
        text = str(err.value)
        assert "\n" not in text and "\x00" not in text
        for part in case.error:
            assert part in text, (part, text)
        return
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        t = certirank.load(path, **case.options)
    said = [str(w.message) for w in seen if issubclass(w.category, CertirankWarning)]
    if case.warn:
        assert any(case.warn in s for s in said), said
    else:
        assert not said, said
    if case.note:
        assert any(case.note in n for n in t.attrs.get("notes", [])), t.attrs.get("notes")
    if case.counts:
        assert t.groupby("policy").size().to_dict() == case.counts
    if case.means:
        got = t.groupby("policy")["score"].mean().to_dict()
        assert got == pytest.approx(case.means)
    if case.paired is not None:
        a, b = list(dict.fromkeys(t["policy"]))[:2]
        shared = set(t.loc[t.policy == a, "env"]) & set(t.loc[t.policy == b, "env"])
        assert len(shared) == case.paired


# ------------------------------------------------------------------ frameworks' own files

def _lm_eval_samples(folder: Path, model: str, acc: list[Any]) -> None:
    d = folder / model
    d.mkdir(parents=True)
    lines = [json.dumps({"doc_id": i, "filter": "none", "metrics": ["acc"], "acc": a}) if a is not None else "{oops"
             for i, a in enumerate(acc)]
    (d / "samples_arc_easy_2024-05-01T10-00-00.000001.jsonl").write_text("\n".join(lines) + "\n")


def test_lm_eval_samples_folder_and_a_broken_line(tmp_path):
    _lm_eval_samples(tmp_path / "out", "org__m1", [1, 0, 1])
    _lm_eval_samples(tmp_path / "out", "org__m2", [1, 1, 1])
    t = certirank.load(tmp_path / "out")
    assert t.attrs["reader"] == "lm-eval" and t.groupby("policy")["score"].sum().to_dict() == {"org__m1": 2,
                                                                                               "org__m2": 3}
    _lm_eval_samples(tmp_path / "bad", "org__m1", [1, None, 1])
    with pytest.raises(DataError, match=r"samples_arc_easy_.*\.jsonl, row 2: not valid JSON"):
        certirank.load(tmp_path / "bad")


def test_helm_truncated_stats_file_names_the_file(tmp_path):
    run = tmp_path / "helm" / "gsm:model=org_m1"
    run.mkdir(parents=True)
    stats = [{"instance_id": f"id{i}", "train_trial_index": 0,
              "stats": [{"name": {"name": "exact_match", "split": "test"}, "mean": float(i % 2), "count": 1}]}
             for i in range(4)]
    text = json.dumps(stats)
    (run / "per_instance_stats.json").write_text(text)
    t = certirank.load(tmp_path / "helm")
    assert t.attrs["reader"] == "helm" and len(t) == 4 and t["score"].sum() == 2
    (run / "per_instance_stats.json").write_text(text[: len(text) // 2])
    with pytest.raises(DataError, match=r"per_instance_stats.json.*not valid JSON.*truncated"):
        certirank.load(tmp_path / "helm")


def test_arena_battles_json_lines_and_an_unknown_winner(tmp_path):
    recs = [{"model_a": "m1", "model_b": "m2", "winner": w} for w in ("model_a", "tie", "model_b", "model_a")]
    f = tmp_path / "battles.jsonl"
    f.write_text("\n".join(map(json.dumps, recs)) + "\n")
    t = certirank.load(f)
    assert t.attrs["reader"] == "arena" and sorted(t["preference"].tolist()) == [0.0, 0.0, 0.5, 1.0]
    recs[2]["winner"] = "model_c"
    f.write_text("\n".join(map(json.dumps, recs)) + "\n")
    with pytest.raises(DataError, match=r"battles.jsonl, row 3.*'model_c'"):
        certirank.load(f)


def test_inspect_log_folder_reads_through_the_registry():
    logs = Path(__file__).resolve().parent / "fixtures" / "inspect"
    t = certirank.load(logs)
    assert t.attrs["reader"] == "inspect" and t.attrs["format"] == "inspect" and t["policy"].nunique() >= 1


def test_registry_names_every_format_and_detects_each_reader():
    from certirank.data import formats
    from certirank.data.readers import FORMATS, LAYOUTS
    from certirank.data.files import FILE_TYPES
    assert FORMATS == LAYOUTS + FILE_TYPES + formats.NAMES
    for r in formats.READERS.values():
        assert callable(r._function(r.detect_function)) and callable(r._function(r.read_function))
    with pytest.raises(certirank.ParameterError, match="unknown option.*lm-eval.*valid: filter, metric, task"):
        certirank.load(Path(__file__).resolve().parent / "fixtures" / "lm_eval", bogus=1)


def test_rank_refuses_a_folder_with_a_misspelled_header_in_one_file(cli, tmp_path):
    """The finding: one file's environment header misspelled left that policy uncompared, drawn with letter 'a'."""
    _write(tmp_path, _folder({p: _lines("env,success", *(f"e{i},{(i + k) % 2}" for i in range(6)))
                              for k, p in enumerate(("A.csv", "B.csv"))}))
    _write(tmp_path, {"runs/C.csv": _lines("enviroment,success", *(f"e{i},1" for i in range(6)))})
    res = cli(["rank", str(tmp_path / "runs")])
    assert res.exit_code == 2 and "Traceback" not in res.output
    err = [line for line in res.output.splitlines() if line.startswith("error:")]
    assert len(err) == 1 and "C.csv, column 'enviroment'" in err[0] and "never be compared" in err[0]


def test_rank_refuses_a_misspelled_score_header_in_one_line(cli, tmp_path):
    """A lab file whose score header is misspelled ('Succes'): exit 2, one line naming the file, the column and the
    fix, and the option it names reads the file."""
    _write(tmp_path, {"a.csv": _lines("Policy,Episode,Succes", *(f"{p},{i},{(i + k) % 2}" for k, p in
                                                                  enumerate(("pi0", "ours")) for i in range(4)))})
    cli.fails(["rank", str(tmp_path / "a.csv")], "a.csv, column 'Succes'", "misspelling of 'success'",
              "--read-option score=Succes")
    cli.ok(["rank", str(tmp_path / "a.csv"), "--read-option", "score=Succes"])
