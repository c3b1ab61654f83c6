"""`certirank campaign verify`: the integrity checks of a campaign file: what an edit, a dropped checkpoint or a rollback looks like, and the one-line refusals of the other subcommands on such a file."""

from __future__ import annotations

import re
import shutil
import sqlite3

import pytest

from certirank.campaign import Campaign
from certirank.errors import CertirankError

from test_campaign_audit import _fill
from test_campaign_tamper import EDITS, template


@pytest.fixture
def camp(tmp_path):
    db = tmp_path / "t.campaign"
    c = Campaign.init(db, ["a", "b", "c"], n_max=30, seed=5, environments=["left", "right"])
    _fill(c, 4)
    c.close()
    return db


def _edit(db, sql):
    conn = sqlite3.connect(db)
    conn.execute(sql)
    conn.commit()
    conn.close()


def test_verify_reports_an_edited_configuration_as_a_failed_check(cli, camp):
    _edit(camp, "UPDATE meta SET value = replace(value, '\"alpha\":0.05', '\"alpha\":0.5') WHERE key = 'config'")
    r = cli.campaign("verify", camp)
    assert r.exit_code == 1, r.output
    assert re.search(r"FAIL configuration checksum", r.output) and "VERIFICATION FAILED" in r.output
    r = cli.campaign("status", camp)  # every other command refuses the file
    assert r.exit_code == 2 and "does not match its checksum" in cli.words(r)


def test_verify_fails_on_a_dropped_checkpoint_and_status_refuses_in_one_line(cli, camp):
    _edit(camp, "DROP TABLE checkpoint")
    r = cli.campaign("verify", camp)
    assert r.exit_code == 1 and "FAIL campaign tables readable" in r.output and "Traceback" not in r.output
    for args in (("status", camp), ("log", camp), ("record", camp, "a", 4, 1)):
        r = cli.campaign(*args)
        assert r.exit_code == 2, args
        assert r.output.startswith("error:") and "table checkpoint is missing" in cli.words(r)


def test_verify_names_the_entry_edited_into_an_unknown_policy(cli, camp):
    _edit(camp, "UPDATE records SET policy = 'zzz' WHERE id = 5")
    rep = Campaign(camp, _check_config=False).verify()
    failed = {ch.name: ch.detail for ch in rep.checks if not ch.ok}
    assert not rep.ok and "entry 5" in failed["hash chain"]
    assert "unknown policy 'zzz'" in failed["replay of the records equals the checkpoint"]
    assert cli.campaign("verify", camp).exit_code == 1


def test_a_missing_configuration_row_is_one_line_not_a_traceback(cli, camp):
    _edit(camp, "DELETE FROM meta WHERE key = 'config'")
    for cmd in ("verify", "status"):
        r = cli.campaign(cmd, camp)
        assert r.exit_code == 2 and r.output.startswith("error:") and "meta table has no config" in cli.words(r)


def test_a_rollback_to_an_older_copy_needs_an_outside_anchor(cli, template, tmp_path):
    """Nothing inside one file tells it from an older copy of itself; the head hash `status` prints, kept
    elsewhere, does: `verify --anchor` fails on the older copy and passes on the file that grew from it."""
    src, _, older_copy = template
    with Campaign.open(src) as c:
        anchor = c.status().head_hash
        assert c.verify(anchor=anchor).ok and c.verify(anchor=anchor[:16]).ok
    path = tmp_path / "rolled-back.campaign"
    shutil.copy(older_copy, path)
    with Campaign.open(path) as c:
        assert c.status().records == 12  # the older copy opens: it is a consistent campaign
        rep = c.verify(anchor=anchor)
        assert not rep.ok and [ch.name for ch in rep.failures] == [
            "anchor (a head hash kept outside the file) is in the log"]
        older_head = c.status().head_hash
    with Campaign.open(src) as c:
        assert c.verify(anchor=older_head).ok  # the newer file still holds the older head: it grew from it
    r = cli(["campaign", "verify", str(path), "--anchor", anchor])
    assert r.exit_code == 1 and "is not in this log" in " ".join(r.output.split())
    r = cli(["campaign", "status", str(src)])
    assert anchor in r.output.replace("\n", "")  # printed whole, to be kept elsewhere
    for bad in ("xyz", "abc", "0" * 65):
        with Campaign.open(src) as c, pytest.raises(CertirankError, match="anchor must be a head hash"):
            c.verify(anchor=bad)


def test_cli_refusal_is_one_line_exit_2(cli, template, tmp_path):
    src, older, _ = template
    path = tmp_path / "lab.campaign"
    shutil.copy(src, path)
    con = sqlite3.connect(path)
    EDITS["checkpoint swapped for an older one"](con, older)
    con.commit()
    con.close()
    for args in (["status"], ["next"], ["log"], ["undo"], ["record", "a", "140", "1", "--ahead"]):
        r = cli(["campaign", args[0], str(path), *args[1:]])
        assert r.exit_code == 2 and r.output.startswith("error:") and r.output.count("\n") == 1, (args, r.output)
    r = cli(["campaign", "verify", str(path)])
    assert r.exit_code == 1 and "FAIL checkpoint is at the head of the log" in r.output
