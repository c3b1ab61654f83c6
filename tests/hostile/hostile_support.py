"""Shared pieces of the hostile-input suite (the fixtures are in conftest.py): small valid inputs, hostile files, and the one rule every refusal keeps.

The rule (issue 33 item 1): a bad input gets exit code 2 and one ``error:`` line on stderr (any other stderr line
is a one-line ``warning:``/``note:``), never a traceback or a raw Python exception; from the API, only
`CertirankError`s escape.
"""

from __future__ import annotations

import json
import sqlite3
import traceback
from pathlib import Path
from typing import Any

import numpy as np
from cli_runner import CLI

from certirank.errors import CertirankError


def invoke(args: list[str]) -> Any:
    return CLI(args, catch_exceptions=True)


def explain(res: Any) -> str:
    exc = res.exception
    tb = "" if exc is None or isinstance(exc, SystemExit) else "".join(
        traceback.format_exception(type(exc), exc, exc.__traceback__))
    return f"exit {res.exit_code}\nstdout: {res.stdout[-600:]!r}\nstderr: {res.stderr[-600:]!r}\n{tb}"


def assert_refused(res: Any) -> str:
    """Exit 2, exactly one ``error:`` line, every other stderr line one ``warning:``/``note:`` line, no traceback.
    Returns the error line."""
    assert res.exception is None or isinstance(res.exception, SystemExit), "raw exception:\n" + explain(res)
    assert res.exit_code == 2, ("silently accepted" if res.exit_code == 0 else "wrong exit code") + ":\n" + explain(res)
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1, "expected one error line:\n" + explain(res)
    assert all(line.startswith(("error: ", "warning: ", "note: ")) for line in lines), "stray stderr:\n" + explain(res)
    assert "Traceback" not in res.stdout + res.stderr, explain(res)
    return errors[0]


def assert_api_refusal(exc: BaseException) -> None:
    """An exception from the public API must be a CertirankError with a one-line message."""
    assert isinstance(exc, CertirankError), f"raw {type(exc).__name__}: {exc!r}"
    assert "\n" not in str(exc), f"multi-line message: {exc}"


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def build_inputs(root: Path) -> dict[str, str]:
    """Valid inputs every command can start from (each bad case changes one thing), and hostile files."""
    rng = np.random.default_rng(7)
    long_rows = ["policy,env,score"]
    for pol, p in (("A", 0.2), ("B", 0.5), ("C", 0.8)):
        long_rows += [f"{pol},e{i},{int(rng.random() < p)}" for i in range(12)]
    board_rows = ["model,item,replicate,score"]
    for rep in range(2):
        for mod, p in (("m1", 0.3), ("m2", 0.5), ("m3", 0.7)):
            board_rows += [f"{mod},i{i},{rep},{int(rng.random() < p)}" for i in range(10)]
    run_rows = ["model,item,score"] + [f"{m},i{i},{int(rng.random() < 0.5)}" for m in ("m1", "m2", "m3")
                                       for i in range(10)]
    matrix = ["test_case," + ",".join(f"p{j}" for j in range(8))]
    matrix += [f"t{i}," + ",".join(f"{v:.3f}" for v in rng.random(8)) for i in range(10)]
    paths = {
        "long": _write(root / "long.csv", "\n".join(long_rows) + "\n"),
        "board": _write(root / "board.csv", "\n".join(board_rows) + "\n"),
        "run": _write(root / "run.csv", "\n".join(run_rows) + "\n"),
        "matrix": _write(root / "matrix.csv", "\n".join(matrix) + "\n"),
        "prefs": _write(root / "prefs.csv", "A,B,preference\n" + "".join(
            f"{a},{b},{v}\n" for a, b, v in (("A", "B", 0), ("B", "C", 1), ("A", "C", 0.5), ("C", "A", 0)) * 4)),
        "prior": _write(root / "prior.json", json.dumps({"A": 0.2, "B": 0.5, "C": 0.8})),
        "envs": _write(root / "envs.txt", "kitchen\noffice\n"),
        # hostile files
        "missing": root / "no-such-file.csv",
        "folder": root / "empty-folder",
        "binary": root / "binary.csv",
        "empty": _write(root / "empty.csv", ""),
        "header_only": _write(root / "header.csv", "policy,env,score\n"),
        "nul": root / "nul.csv",
        "latin1": root / "latin1.csv",
        "huge": _write(root / "huge.csv", "policy,env,score\nA,e,1e400\nB,e,1\n"),
        "nan": _write(root / "nan.csv", "policy,env,score\nA,e,nan\nB,e,1\n"),
        "deep_json": _write(root / "deep.json", "[" * 100_000 + "]" * 100_000),
        "not_json": _write(root / "broken.json", '[{"policy": "A", "score": 1}, {"policy"'),
        "parquet": root / "broken.parquet",
        "one_policy": _write(root / "one.csv", "policy,env,score\nA,e1,1\nA,e2,0\n"),
        "semicolon": _write(root / "semi.csv", "policy;env;score\nA;e;1\nB;e;0\n"),
        "ragged": _write(root / "ragged.csv", "policy,env,score\nA,e,1,extra\nB,e,0\n"),
        "controls": _write(root / "controls.csv", "policy,env,score\nA\x1b[2J,e,1\nB\u202e,e,0\n"),
        "prior_binary": root / "prior.bin.json",
        "prior_list": _write(root / "prior-list.json", "[0.2, 0.5]"),
        "prior_unknown": _write(root / "prior-unknown.json", json.dumps({"A": 0.2, "Z": 0.5})),
        "prior_words": _write(root / "prior-words.json", json.dumps({"A": "high", "B": 0.5, "C": 0.1})),
        "result_nokind": _write(root / "nokind.json", json.dumps({"ranking": None})),
        "result_list": _write(root / "list.json", "[]"),
    }
    (root / "empty-folder").mkdir()
    (root / "binary.csv").write_bytes(bytes(range(256)) * 8)
    (root / "nul.csv").write_bytes(b"policy,env,score\nA\x00,e,1\nB,e,0\n")
    (root / "latin1.csv").write_bytes("policy,env,score\nstrat\xe9gie,e,1\nB,e,0\n".encode("latin-1"))
    (root / "broken.parquet").write_bytes(b"PAR1" + bytes(100) + b"PAR1")
    (root / "prior.bin.json").write_bytes(bytes(range(256)))
    res = invoke(["rank", str(paths["long"]), "--json"])
    assert res.exit_code == 0, explain(res)
    paths["result"] = _write(root / "result.json", res.stdout)
    # campaigns: one AnyRank campaign with records, one leaderboard campaign with a run
    for args in (["campaign", "init", str(root / "camp.db"), "--policies", "A,B,C"],
                 ["campaign", "record", str(root / "camp.db"), "A", "0", "1", "--ahead"],
                 ["campaign", "record", str(root / "camp.db"), "B", "0", "0", "--ahead"],
                 ["campaign", "init", str(root / "lb.db"), "--kind", "leaderboard", "--models", "m1,m2,m3"],
                 ["campaign", "add-run", str(root / "lb.db"), str(paths["run"])],
                 # the operator's design: environments (a schedule), a closed tag list, a launch template
                 ["campaign", "init", str(root / "op.db"), "--policies", "A,B,C", "--environments",
                  str(_write(root / "envs.txt", "left\nright\n")), "--tags", "grasp,place", "--launch",
                  "run {checkpoint}", "--checkpoint", "A=/ckpt/a", "--checkpoint", "B=/ckpt/b", "--checkpoint",
                  "C=/ckpt/c"],
                 ["campaign", "init", str(root / "blind.db"), "--policies", "A,B", "--blind"],
                 # an item campaign of 4 items (seed 0)
                 ["campaign", "init", str(root / "items.db"), "--kind", "items", "--models", "m1,m2", "--items", "4"]):
        res = invoke(args)
        assert res.exit_code == 0, explain(res)
    paths["camp"], paths["lbcamp"] = root / "camp.db", root / "lb.db"
    paths["opcamp"], paths["blindcamp"], paths["itemcamp"] = root / "op.db", root / "blind.db", root / "items.db"
    for db in (paths["camp"], paths["lbcamp"], paths["opcamp"], paths["blindcamp"], paths["itemcamp"]):  # everything in the main file, so a copy of it is the whole campaign
        with sqlite3.connect(db) as con:
            con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    # a launch template's own fields are not inputs of the suite: {checkpoint} and {model} stay as they are
    paths["checkpoint"], paths["model"] = "{checkpoint}", "{model}"
    return {k: str(v) for k, v in paths.items()}
