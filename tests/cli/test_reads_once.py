"""A command reads its file once and validates it once (issue 36 item 3): `load()` is idempotent on a table it
returned, and every layer below the CLI (the API verb, each group of --group-by, `check`'s claims, `report
--data`) is handed that table instead of reading again. The spies count the file reads (`read_frame`) and the
validations (`readers._load`, the read-and-validate that `load` skips for a table it validated)."""

from __future__ import annotations

import pytest

import certirank
import certirank.data.readers as readers


@pytest.fixture
def counts(monkeypatch):
    seen = {"reads": 0, "validations": 0}
    read_frame, load = readers.read_frame, readers._load

    def counted_read(*a, **k):
        seen["reads"] += 1
        return read_frame(*a, **k)

    def counted_load(*a, **k):
        seen["validations"] += 1
        return load(*a, **k)

    monkeypatch.setattr(readers, "read_frame", counted_read)
    monkeypatch.setattr(readers, "_load", counted_load)
    return seen


@pytest.mark.parametrize("args", [
    ["inspect", "{long}"], ["inspect", "{long}", "--group-by", "site"],
    ["rank", "{wide}"], ["rank", "{binary}", "--bins", "binary", "--n-max", "80"], ["rank", "{wide}", "--orders", "2"],
    ["rank", "{long}", "--group-by", "site"], ["rank", "{long}", "--group-by", "site", "--about", "table"],
    ["compare", "{wide}", "--a", "a", "--b", "c"], ["compare", "{long}", "--a", "a", "--b", "b", "--group-by", "site"],
    ["check", "{wide}", "--claim", "c>a", "--claim", "b>a"],
    ["leaderboard", "{panel}"], ["leaderboard", "{panel}", "--group-by", "split"],
    ["baseline", "bt", "{wide}"],
])  # compose-test reads its test matrix with its own reader (certirank.methods.rposst.read_test_matrix), not load
def test_a_command_reads_and_validates_its_file_once(cli, counts, args, wide, binary, long_groups, panel):
    files = {"wide": wide, "binary": binary, "long": long_groups, "panel": panel}
    res = cli([a.format(**files) for a in args] + ["--json"])
    assert res.exit_code == 0, res.output
    assert counts == {"reads": 1, "validations": 1}, args


def test_report_with_data_reads_the_data_once(cli, counts, wide, tmp_path):
    result = tmp_path / "rank.json"
    result.write_text(cli.ok(["rank", wide, "--json"]))
    counts.update(reads=0, validations=0)
    cli.ok(["report", result, "--html", tmp_path / "page.html", "--data", wide])
    assert counts == {"reads": 1, "validations": 1}


def test_load_is_idempotent(counts, long_groups):
    table = certirank.load(long_groups)
    assert counts == {"reads": 1, "validations": 1}
    again = certirank.load(table)
    assert again is table and counts == {"reads": 1, "validations": 1}
    copy = table.copy()  # an equal table from elsewhere (attrs copied): still taken for validated
    assert certirank.load(copy) is copy and counts["validations"] == 1
    edited = table.copy()
    edited.loc[edited.index[0], "score"] = 5.0  # changed after validation: validated again, and refused
    with pytest.raises(certirank.DataError):
        certirank.load(edited)
    assert counts["validations"] == 2
    # an option that changes the table reads it through again
    certirank.load(table, score_range=(0, 2))
    assert counts["validations"] == 3


@pytest.mark.parametrize("verb, kwargs", [
    ("anyrank", {}), ("anyrank", {"group_by": "site"}), ("compare", {"a": "a", "b": "b", "group_by": "site"}),
])
def test_an_api_verb_given_a_path_reads_it_once(counts, long_groups, verb, kwargs):
    getattr(certirank, verb)(long_groups, **kwargs)
    assert counts == {"reads": 1, "validations": 1}
