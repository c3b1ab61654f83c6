"""Evaluation files in the layouts robotics labs publish (lab column names, spreadsheet exports, TSV, Parquet,
wide sheets, per-policy folders, outcome lists, LeRobot eval_info.json, preference files): each loads to the
right table, or fails with one located line (file, row/column, what was expected) and CLI exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import certirank
from certirank.errors import DataError


def _write(p: Path, text: str) -> Path:
    p.parent.mkdir(parents=True, exist_ok=True)
    with open(p, "w", newline="", encoding="utf-8") as fh:
        fh.write(text)
    return p


def _scores(t: pd.DataFrame) -> dict[str, list[float]]:
    return {k: g["score"].tolist() for k, g in t.groupby("policy", sort=False)}


def _cli(cli, args: list[str]):
    return cli(args)


# ------------------------------------------------------------------------------------ long, lab column names

@pytest.mark.parametrize("header, cells", [
    ("policy_name,task,episode,success", ["TRUE", "FALSE", "yes", "no"]),
    ("method,task,episode,success", ["1", "0", "1.0", "0.0"]),
    ("Policy,Task,Episode,Success", ["1", "0", "1", "0"]),
    ("checkpoint,task,seed,is_success", ["True", "False", "success", "failure"]),
])
def test_long_with_lab_column_names(tmp_path, header, cells):
    rows = [("pi0", "drawer", 0), ("pi0", "drawer", 1), ("ours", "drawer", 0), ("ours", "drawer", 1)]
    text = header + "\n" + "".join(f"{p},{t},{e},{c}\n" for (p, t, e), c in zip(rows, cells))
    t = certirank.load(_write(tmp_path / "evals.csv", text))
    assert t.attrs["format"] == "long"
    assert _scores(t) == {"pi0": [1.0, 0.0], "ours": [1.0, 0.0]}
    # the task repeats within a policy, so each (task, episode) is one trial, paired across policies
    assert t["env"].tolist() == ["drawer#0", "drawer#1"] * 2
    assert t["env_label"].tolist() == ["drawer"] * 4
    assert any("as 'score'" in n for n in t.attrs["notes"])


def test_long_percent_progress_needs_score_range_and_success_wins_over_progress(tmp_path):
    p = _write(tmp_path / "progress.csv", "policy,task,episode,progress\npi0,a,0,50\nours,a,0,100\n")
    with pytest.raises(DataError, match=r"row 2, column 'score': score 50 is outside \[0, 1\].*--score-range"):
        certirank.load(p)
    t = certirank.load(p, score_range=(0, 100))
    assert _scores(t) == {"pi0": [0.5], "ours": [1.0]}
    both = _write(tmp_path / "both.csv", "policy,task,success,progress\npi0,a,1,50\nours,a,0,100\n")
    t = certirank.load(both)
    assert t["score"].tolist() == [1.0, 0.0]
    assert any("'progress' not used" in n for n in t.attrs["notes"])
    t = certirank.load(both, score="progress", score_range=(0, 100))
    assert t["score"].tolist() == [0.5, 1.0]


def test_long_ambiguous_lab_columns_are_one_line_errors(tmp_path):
    p = _write(tmp_path / "two.csv", "method,checkpoint,task,success\nact,10k,a,1\n")
    with pytest.raises(DataError, match=r"several columns could name the policy \('method', 'checkpoint'\)"):
        certirank.load(p)
    t = certirank.load(p, policy="method")
    assert t["policy"].tolist() == ["act"] and "checkpoint" in t.columns
    q = _write(tmp_path / "two_scores.csv", "policy,task,success,is_success\nact,a,1,1\n")
    with pytest.raises(DataError, match=r"several columns could hold the score"):
        certirank.load(q)


def test_numbered_checkpoints_and_a_wide_policy_called_agent(tmp_path):
    t = certirank.load(_write(tmp_path / "ck.csv", "checkpoint,episode,success\n10000,0,1\n20000,0,0\n"))
    assert _scores(t) == {"10000": [1.0], "20000": [0.0]}
    w = certirank.load(_write(tmp_path / "w.csv", "env,agent,baseline\n0,1,0\n1,0,1\n"))
    assert w.attrs["format"] == "wide" and sorted(w["policy"].unique()) == ["agent", "baseline"]


def test_long_parquet_with_lab_names_and_bools(tmp_path):
    p = tmp_path / "evals.parquet"
    pd.DataFrame({"policy_name": ["pi0", "pi0", "ours"], "episode": [0, 1, 0],
                  "success": [True, False, True]}).to_parquet(p)
    t = certirank.load(p)
    assert _scores(t) == {"pi0": [1.0, 0.0], "ours": [1.0]} and t["env"].tolist() == ["0", "1", "0"]


def test_dataframes_keep_the_strict_columns():
    with pytest.raises(DataError, match="missing required column"):
        certirank.load(pd.DataFrame({"policy": ["a"], "success": [1]}))


# ------------------------------------------------------------------------------------ spreadsheet exports

def test_excel_export_bom_crlf_padding_rows_and_columns(tmp_path):
    text = "\ufeffpolicy,env,score,,\r\npi0,a,1,,\r\npi0,b,0,,\r\nours,a,1,,\r\nours,b,1,,\r\n,,,,\r\n,,,,\r\n"
    t = certirank.load(_write(tmp_path / "sheet.csv", text))
    assert len(t) == 4 and _scores(t) == {"pi0": [1.0, 0.0], "ours": [1.0, 1.0]}
    pref = certirank.load(_write(tmp_path / "pref.csv", "\ufeffA,B,preference\r\npi0,ours,0.0\r\nours,act,1\r\n,,\r\n"))
    assert pref["preference"].tolist() == [0.0, 1.0]


def test_a_named_empty_column_or_a_blank_row_inside_still_counts(tmp_path):
    # a blank-headed column with data is not padding: the wide reader still refuses it
    with pytest.raises(DataError, match="a column has no name"):
        certirank.load(_write(tmp_path / "idx.csv", ",a\n0,1\n"))
    # an empty row between data rows is reported at its own line, not dropped silently
    with pytest.raises(DataError, match=r"empty policy name at row\(s\) 3"):
        certirank.load(_write(tmp_path / "mid.csv", "policy,score\na,1\n,\nb,0\n"))


def test_trailing_totals_rows_are_dropped_with_their_line_and_inner_ones_refused(tmp_path):
    t = certirank.load(_write(tmp_path / "long.csv", "policy,env,score\na,x,1\nb,x,0\nTotal,,0.5\n"))
    assert set(t["policy"]) == {"a", "b"} and len(t) == 2
    assert any("line 4 ('Total')" in n for n in t.attrs["notes"])
    t = certirank.load(_write(tmp_path / "wide.csv", "episode,pi0,ours\n0,1,0\n1,0,1\nmean,0.5,0.5\nTotal,1,1\n"))
    assert len(t) == 4 and set(t["env"]) == {"0", "1"}
    assert any("line 4 ('mean'), 5 ('Total')" in n for n in t.attrs["notes"])
    d = tmp_path / "runs"
    _write(d / "pi0.csv", "task,seed,success\ndrawer,0,1\ndrawer,1,0\nTotal,,0.5\n")
    _write(d / "ours.csv", "task,seed,success\ndrawer,0,1\ndrawer,1,1\n")
    t = certirank.load(d)
    assert len(t) == 4 and any("pi0.csv line 4 'Total'" in n for n in t.attrs["notes"])
    # a summary row with trials after it: what it summarises is unclear, so it is refused with its line
    with pytest.raises(DataError, match=r"long.csv, row 4, column 'policy': 'Total' looks like a summary row.*trials "
                                        r"follow"):
        certirank.load(_write(tmp_path / "long.csv", "policy,env,score\na,x,1\nb,x,0\nTotal,,0.5\na,y,1\n"))
    with pytest.raises(DataError, match=r"wide.csv, row 3, column 'episode': 'mean' looks like a summary row"):
        certirank.load(_write(tmp_path / "wide.csv", "episode,pi0,ours\n0,1,0\nmean,0.5,0.5\n1,0,1\n"))
    _write(d / "pi0.csv", "task,seed,success\ndrawer,0,1\nTotal,,0.5\ndrawer,1,0\n")
    with pytest.raises(DataError, match=r"pi0.csv, row 3: 'Total' looks like a summary row"):
        certirank.load(d)


def test_semicolon_exports_get_a_clear_error_and_read_decimal_commas_with_sep(tmp_path):
    p = _write(tmp_path / "eu.csv", "policy;env;score\npi0;a;1\npi0;b;0,5\nours;a;1\nours;b;0,75\n")
    with pytest.raises(DataError, match=r"eu.csv, row 1: the header line is separated by ';'.*sep=';'"):
        certirank.load(p)
    t = certirank.load(p, sep=";")
    assert _scores(t) == {"pi0": [1.0, 0.5], "ours": [1.0, 0.75]}
    # a text column with commas is left alone
    assert certirank.load(_write(tmp_path / "txt.csv", "policy;env;score\nact;a,b;1\n"),
                          sep=";")["env"].tolist() == ["a,b"]
    d = tmp_path / "eu_runs"
    _write(d / "pi0.csv", "episode;success\n0;1,0\n1;0,0\n")
    _write(d / "ours.csv", "episode;success\n0;1,0\n1;0,5\n")
    with pytest.raises(DataError, match=r"row 1: the header line is separated by ';'"):
        certirank.load(d)
    t = certirank.load(d, sep=";")
    assert _scores(t) == {"ours": [1.0, 0.5], "pi0": [1.0, 0.0]}


def test_tsv_long(tmp_path):
    t = certirank.load(_write(tmp_path / "e.tsv", "policy_name\ttask\tepisode\tsuccess\npi0\ta\t0\tTRUE\n"
                                                  "ours\ta\t0\tFALSE\n"))
    assert _scores(t) == {"pi0": [1.0], "ours": [0.0]}


# ------------------------------------------------------------------------------------ wide

@pytest.mark.parametrize("label", ["episode", "seed", "task", "Episode"])
def test_wide_label_columns_are_not_policies(tmp_path, label):
    t = certirank.load(_write(tmp_path / "w.csv", f"{label},pi0,ours,act\n0,1,1,0\n1,0,1,1\n2,1,1,\n"))
    assert t.attrs["format"] == "wide"
    assert list(dict.fromkeys(t["policy"])) == ["pi0", "ours", "act"]
    assert t["env"].nunique() == 3 and len(t) == 8


def test_wide_task_and_episode_columns_and_true_false_cells(tmp_path):
    t = certirank.load(_write(tmp_path / "w.csv", "task,episode,pi0,ours\ndrawer,0,TRUE,FALSE\ndrawer,1,FALSE,"
                                                  "TRUE\ncup,0,TRUE,TRUE\n"))
    assert t["env"].unique().tolist() == ["drawer#0", "drawer#1", "cup#0"]
    assert _scores(t) == {"pi0": [1.0, 0.0, 1.0], "ours": [0.0, 1.0, 1.0]}
    with pytest.raises(DataError, match="several row-label columns"):
        certirank.load(_write(tmp_path / "two.csv", "episode,seed,a\n1,2,1\n"))


# ------------------------------------------------------------------------------------ folders, lists

def test_folder_with_seed_column_pairs_by_seed(tmp_path):
    d = tmp_path / "runs"
    _write(d / "pi0.csv", "seed,success\n7,1\n3,0\n")
    _write(d / "ours.csv", "seed,success\n3,1\n7,1\n")
    t = certirank.load(d)
    assert dict(zip(t["policy"] + ":" + t["env"], t["score"])) == {"pi0:7": 1.0, "pi0:3": 0.0, "ours:3": 1.0,
                                                                     "ours:7": 1.0}


def test_outcome_lists_tsv_checkpoint_and_padding_rows(tmp_path):
    t = certirank.load(_write(tmp_path / "l.tsv", "task\tpolicy_name\tsuccesses\nstack\tpi0\t[1, 0, 1]\n"
                                                  "stack\tours\t[1, 1, 1]\n"))
    assert _scores(t) == {"pi0": [1.0, 0.0, 1.0], "ours": [1.0, 1.0, 1.0]}
    t = certirank.load(_write(tmp_path / "c.csv", "\ufeffTask,checkpoint,Success\r\nstack,ck1,\"[True, False]\"\r\n"
                                                  "stack,ck2,\"[True, True]\"\r\n,,\r\n"))
    assert _scores(t) == {"ck1": [1.0, 0.0], "ck2": [1.0, 1.0]}
    p = _write(tmp_path / "s.csv", "task;method;success\nstack;pi0;[1, 0]\nstack;ours;[1, 1]\n")
    with pytest.raises(DataError, match=r"row 1: the header line is separated by ';'"):
        certirank.load(p)
    assert _scores(certirank.load(p, sep=";")) == {"pi0": [1.0, 0.0], "ours": [1.0, 1.0]}


# ------------------------------------------------------------------------------------ LeRobot

def _info(successes: list[bool]) -> dict:
    return {"per_task": [{"task_group": "libero_10", "task_id": 0,
                          "metrics": {"successes": successes, "max_rewards": [1.0] * len(successes)}}],
            "per_group": {}, "overall": {"pc_success": 50.0}}


def test_lerobot_policy_folders_with_a_shared_subfolder(tmp_path):
    for name, s in (("pi0", [True, False]), ("ours", [True, True])):
        _write(tmp_path / "eval" / name / "eval" / "eval_info.json", json.dumps(_info(s)))
    t = certirank.load(tmp_path / "eval")
    assert _scores(t) == {"ours": [1.0, 1.0], "pi0": [1.0, 0.0]}


@pytest.mark.parametrize("episodes, pattern", [
    ([{"episode_ix": "x", "success": True}], r"per_episode\[0\].episode_ix is 'x'; expected an integer"),
    ([{"episode_ix": 0, "success": True}, {"episode_ix": 0, "success": False}],
     r"per_episode\[1\].episode_ix 0 repeats per_episode\[0\]"),
])
def test_lerobot_bad_episode_index_is_located(cli, tmp_path, episodes, pattern):
    p = _write(tmp_path / "act" / "eval_info.json", json.dumps({"per_episode": episodes}))
    with pytest.raises(DataError, match=pattern) as e:
        certirank.load(p)
    assert str(p) in str(e.value)
    res = _cli(cli, ["inspect", str(p)])
    assert res.exit_code == 2 and res.output.startswith("error: ") and res.output.count("\n") == 1


def test_lerobot_repeated_task_is_located(tmp_path):
    info = _info([True])
    info["per_task"].append(info["per_task"][0])
    p = _write(tmp_path / "act" / "eval_info.json", json.dumps(info))
    with pytest.raises(DataError, match=r"per_task\[1\] repeats task 'libero_10/0' of per_task\[0\]"):
        certirank.load(p)


# ------------------------------------------------------------------------------------ preferences

def test_preferences_policy_a_b_winner_and_empty_preference(tmp_path):
    t = certirank.load(_write(tmp_path / "w.csv", "policy_a,policy_b,winner\npi0,ours,pi0\nours,act,tie\n"
                                                  "act,pi0,policy_b\n"))
    assert t.attrs["format"] == "preferences" and t["preference"].tolist() == [0.0, 0.5, 1.0]
    with pytest.raises(DataError, match=r"row 3, column 'preference': preference is empty"):
        certirank.load(_write(tmp_path / "e.csv", "A,B,preference\npi0,ours,0\nours,act,\n"))


# ------------------------------------------------------------------------------------ the CLI

def test_cli_prints_notes_and_one_line_errors(cli, tmp_path):
    good = _write(tmp_path / "evals.csv", "method,task,episode,success\npi0,a,0,TRUE\npi0,a,1,FALSE\n"
                                          "ours,a,0,TRUE\nours,a,1,TRUE\n")
    res = _cli(cli, ["inspect", str(good)])
    assert res.exit_code == 0, res.output
    assert "note: long table: column 'method' as 'policy' and 'success' as 'score'" in res.output
    bad = _write(tmp_path / "bad.csv", "policy_name,task,success\npi0,a,maybe\n")
    res = _cli(cli, ["rank", str(bad)])
    assert res.exit_code == 2 and "Traceback" not in res.output
    line = [ln for ln in res.output.splitlines() if ln.startswith("error:")]
    assert len(line) == 1 and str(bad) in line[0] and "row 2, column 'score'" in line[0]


def test_policy_and_score_options_also_name_dataframe_columns():
    t = certirank.load(pd.DataFrame({"method": ["a", "b"], "env": ["x", "x"], "progress": [50, 100]}),
                       policy="method", score="progress", score_range=(0, 100))
    assert _scores(t) == {"a": [0.5], "b": [1.0]}


def test_outcome_lists_properly_quoted_cells_load_without_a_stray_quote_note(tmp_path):
    # what csv.writer / pandas write for a list of strings: the cell quoted, its quotes doubled
    path = tmp_path / "ab.csv"
    pd.DataFrame({"Task": ["stack", "stack"], "Method": ["pi0", "ours"],
                  "Success/Failure": [json.dumps(["success", "failure", "success"]),
                                      json.dumps(["success", "success", "failure"])]}).to_csv(path, index=False)
    assert '""success""' in path.read_text()
    t = certirank.load(path)
    assert t.sort_values(["policy", "rollout"])["score"].tolist() == [1.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    assert not any("stray quote" in n for n in t.attrs["notes"])
    # a quote that breaks the list is still tidied and said so
    path.write_text('Task,Method,Success/Failure\nstack,pi0,"[True, False"", True]"\nstack,ours,"[True, True, True]"\n')
    assert any("stray quote characters in the list cell ignored on line(s) 2" in n for n in certirank.load(path).attrs["notes"])


def test_percent_progress_cells_are_fractions_and_refuse_a_second_rescale(tmp_path):
    path = tmp_path / "progress.csv"
    path.write_text("policy,task,progress\npi0,a,50%\npi0,b,100%\nours,a,75 %\nours,b,0%\n")
    t = certirank.load(path)
    assert t.groupby("policy")["score"].mean().to_dict() == {"ours": 0.375, "pi0": 0.75}
    assert any("50% = 0.5" in n for n in t.attrs["notes"])
    with pytest.raises(DataError, match=r"row 2, column 'score': score '50%' is a percentage"):
        certirank.load(path, score_range=(0, 100))
    wide = tmp_path / "wide.csv"
    wide.write_text("env,pi0,ours\n1,50%,80%\n2,100%,10%\n")
    assert certirank.load(wide).groupby("policy")["score"].mean().round(3).to_dict() == {"ours": 0.45, "pi0": 0.75}
    with pytest.raises(DataError, match="'50%' is not a number"):
        certirank.load(wide, score_range=(0, 100))
