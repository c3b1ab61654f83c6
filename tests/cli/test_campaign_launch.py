"""`certirank campaign launch`: the operator's launch command for one rollout: a blind campaign hands out a code and the loader command, never the checkpoint."""

from __future__ import annotations

import json
import sys

from certirank import Campaign


def test_blind_next_gives_a_code_and_the_loader_command_never_the_checkpoint(cli, tmp_path):
    marker = tmp_path / "started.txt"
    script = tmp_path / "serve.py"
    script.write_text("import sys, pathlib\npathlib.Path(sys.argv[1]).write_text(sys.argv[2])\n")
    db = tmp_path / "b.campaign"
    c = Campaign.init(db, ["pi0", "octo"], alpha=0.1, n_max=30, blind=True, seed=4,
                      launch=f"{sys.executable} {script} {marker} {{checkpoint}}",
                      checkpoints={"pi0": "/ckpt/pi0-secret", "octo": "/ckpt/octo-secret"})
    todo = c.next()
    code = todo[0].policy
    assert code in c.policies and code not in ("pi0", "octo")
    assert todo[0].launch == f"certirank campaign launch {db} {code} {todo[0].trial}"
    r = cli(["campaign", "next", str(db)])
    assert r.exit_code == 0 and "secret" not in r.output and "pi0" not in r.output and "octo" not in r.output
    r = cli(["campaign", "launch", str(db), code, "--dry-run"])
    assert r.exit_code == 0 and f"<checkpoint of {code}>" in r.output and "secret" not in r.output
    r = cli(["campaign", "launch", str(db), code, str(todo[0].trial)])
    assert r.exit_code == 0, r.output
    assert "secret" not in r.output and "checkpoint hidden" in r.output
    name = c._names.name_of[code]
    assert marker.read_text() == f"/ckpt/{name}-secret"  # the right policy was started
    # the init JSON leaves out codes and checkpoint paths while blind
    r = cli(["campaign", "init", str(tmp_path / "b2.campaign"), "--policies", "pi0,octo",
             "--blind", "--launch", "run {checkpoint}", "--checkpoint", "pi0=/s/pi0",
             "--checkpoint", "octo=/s/octo", "--json"])
    assert r.exit_code == 0 and "/s/pi0" not in r.output and '"codes"' not in r.output
    # names appear only after unblinding, which is logged
    r = cli(["campaign", "unblind", str(db), "--by", "pi", "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["codes"][name] == code
    assert c.log().entries[-1].action == "unblind" and c.log().entries[-1].by == "pi"
    assert c.next()[0].launch.startswith(sys.executable)
    r = cli(["campaign", "launch", str(db), "nobody"])
    assert r.exit_code == 2 and "unknown policy" in r.output


def test_launch_without_a_template_is_a_one_line_error(cli, tmp_path):
    db = tmp_path / "n.campaign"
    Campaign.init(db, ["a", "b"], alpha=0.1, n_max=30).close()
    r = cli(["campaign", "launch", str(db), "a"])
    assert r.exit_code == 2 and "no launch template" in r.output and r.output.count("\n") == 1
