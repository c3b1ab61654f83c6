"""What every command must do, run over the command registry (`certirank.cli._registry.COMMANDS`, and every
`campaign` subcommand), so a new command is covered the day it is declared:

- `--help` works, and every option it shows is a name of docs/glossary.md;
- with `--json`, a small run prints one record (`certirank.results`: the seven parts, schema
  `certirank.result/1`, a kind of the registry) that reads back through `certirank.report.records.read`
  unchanged, renders as an HTML page (`certirank report`) and, when it ranks something, as Markdown and terminal
  text from the record alone.

A command whose `--json` is not a result, or that has no `--json`, is on a list below, with the reason.
"""

from __future__ import annotations

import io
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any, Callable

import jsonschema
import pytest
import typer.main
from rich.console import Console

from certirank.cli import app
from certirank.cli._registry import COMMANDS
from certirank.report.markdown import to_markdown
from certirank.report.records import read
from certirank.report.text import ranking_renderables
from certirank.results import KINDS, SCHEMA

from test_glossary import _glossary_names

PARTS = {"kind", "schema", "about", "inputs", "ranking", "details", "warnings"}


def _command_paths() -> list[str]:
    """Every command the registry declares, a group's subcommands in its place ("campaign status")."""
    group = typer.main.get_command(app)
    paths = []
    for name in COMMANDS:
        cmd = group.commands[name]
        if hasattr(cmd, "commands"):
            paths += [f"{name} {sub}" for sub in cmd.commands]
        else:
            paths.append(name)
    return paths


PATHS = _command_paths()
_CLICK = typer.main.get_command(app)


def _click_command(path: str) -> Any:
    cmd = _CLICK
    for part in path.split():
        cmd = cmd.commands[part]
    return cmd


def _has_json(path: str) -> bool:
    return any("--json" in p.opts for p in _click_command(path).params)


# Commands without --json: what they do is not a result to print.
NO_JSON = {
    "campaign launch",  # runs the operator's launch command for one rollout (its output is the robot's)
    "campaign serve",   # serves the campaign page until stopped
}

# Commands whose --json is the answer of an operation on a campaign file (the entry written, the runs handed out,
# the audit log, the integrity checks, the exported file's columns), not a result: they certify nothing and rank
# nothing, and `report` has no page for them. Their JSON is still checked to be one JSON object.
OPERATIONS = {
    "campaign init", "campaign next", "campaign record", "campaign add-run", "campaign undo", "campaign log",
    "campaign export", "campaign verify", "campaign plan", "campaign amend", "campaign unblind", "campaign note",
}


def _campaign(cli: Any, tmp: Path) -> Path:
    """An AnyRank campaign of A, B, C with six trials recorded (A always succeeds, C never)."""
    db = tmp / "camp.db"
    cli.ok(["campaign", "init", db, "--policies", "A,B,C"])
    for i in range(6):
        for policy, score in (("A", 1), ("B", i % 2), ("C", 0)):
            cli.ok(["campaign", "record", db, policy, i, score, "--ahead"])
    return db


def _report_args(cli: Any, files: dict[str, Path], tmp: Path) -> list[Any]:
    result = tmp / "rank.json"
    result.write_text(cli.ok(["rank", files["wide"], "--json"]))
    return ["report", result, "--html", tmp / "page.html"]


# command -> a small run of it (without --json): one entry per command with a --json that prints a result
RUNS: dict[str, Callable[[Any, dict[str, Path], Path], list[Any]]] = {
    "inspect": lambda cli, f, tmp: ["inspect", f["wide"]],
    "compare": lambda cli, f, tmp: ["compare", f["wide"], "--a", "a", "--b", "c"],
    "simulate": lambda cli, f, tmp: ["simulate", "HO-I", "-m", "anyrank", "-n", "2", "--param", "n_max=100"],
    "compose-test": lambda cli, f, tmp: ["compose-test", f["matrix_wide"], "--size", "2", "--rounds", "50"],
    "rank": lambda cli, f, tmp: ["rank", f["wide"]],
    "demo": lambda cli, f, tmp: ["demo", "--seed", "1", "--quiet"],
    "leaderboard": lambda cli, f, tmp: ["leaderboard", f["panel"]],
    "baseline": lambda cli, f, tmp: ["baseline", "bt", f["prefs"]],
    "report": _report_args,
    "check": lambda cli, f, tmp: ["check", f["wide"], "--claim", "c>a"],
    "validate": lambda cli, f, tmp: ["validate", "--check", "sorted-replay-as-is", "--reps", "20"],
    "campaign status": lambda cli, f, tmp: ["campaign", "status", _campaign(cli, tmp)],
}


def _schema() -> dict:
    return json.loads(resources.files("certirank").joinpath("schemas/result-1.json").read_text(encoding="utf-8"))


def test_every_command_is_on_exactly_one_list():
    """A new command fails here until it has a small run (RUNS) or a stated reason (NO_JSON, OPERATIONS)."""
    for path in PATHS:
        where = [name for name, lst in (("RUNS", RUNS), ("NO_JSON", NO_JSON), ("OPERATIONS", OPERATIONS))
                 if path in lst]
        assert len(where) == 1, f"{path!r} is on {where or 'no list'}: give it a small run in RUNS (or a reason)"
        assert _has_json(path) == (where != ["NO_JSON"]), (path, "has --json" if _has_json(path) else "no --json")
    assert set(RUNS) | NO_JSON | OPERATIONS <= set(PATHS), "a list names a command that is gone"


@pytest.mark.parametrize("path", PATHS)
def test_help_works_and_shows_only_glossary_names(cli, path):
    res = cli([*path.split(), "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert f"Usage: certirank {path}" in res.stdout
    # the options as shown: the first cells of the Options box's rows (long name, then a short one)
    shown = set()
    for line in res.stdout.splitlines():
        m = re.match(r"│\s+(?:\*\s+)?(--[a-z][a-z0-9-]*)(?:\s+(-[a-zA-Z])\b)?", line)
        if m:
            shown.update(o for o in m.groups() if o)
    declared = {o for p in _click_command(path).params if p.param_type_name == "option" and not p.hidden
                for o in p.opts + p.secondary_opts}
    assert declared <= shown, ("declared but not shown", sorted(declared - shown))
    known = _glossary_names() | {"--help"}
    assert not shown - known, f"options of `certirank {path}` not in docs/glossary.md: {sorted(shown - known)}"


@pytest.mark.parametrize("path", sorted(RUNS))
def test_json_is_a_record_that_report_renders(cli, path, tmp_path, wide, panel, prefs, matrix_wide):
    files = {"wide": wide, "panel": panel, "prefs": prefs, "matrix_wide": matrix_wide}
    args = RUNS[path](cli, files, tmp_path)
    res = cli([*args, "--json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert set(d) == PARTS and d["schema"] == SCHEMA and d["kind"] in KINDS
    jsonschema.validate(d, _schema())
    assert all(isinstance(w, str) and "\n" not in w for w in d["warnings"])

    record = read(d)  # what report, the page and the docs read: the record round-trips unchanged
    assert record.to_dict() == d
    result = tmp_path / "result.json"
    result.write_text(res.stdout)
    page = json.loads(cli.ok(["report", result, "--html", tmp_path / "out.html", "--json"]))
    assert page["kind"] == "report" and page["details"]["page"] == d["kind"]
    html = (tmp_path / "out.html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "</html>" in html

    if record.ranking is not None:  # the Markdown and terminal renderers need nothing but the record
        names = [p["name"] for p in record.ranking.to_dict()["policies"]]
        markdown = to_markdown(record)
        console = Console(file=io.StringIO(), width=100, color_system=None)
        for part in ranking_renderables(record.ranking):
            console.print(part)
        text = console.file.getvalue()
        assert names
        for name in names:
            assert name in markdown and name in text, name
        for w in d["warnings"]:
            assert w in markdown, w


def _test_file(path: str) -> Path:
    return Path(__file__).parent / f"test_{path.replace(' ', '_').replace('-', '_')}.py"


@pytest.mark.parametrize("path", PATHS)
def test_every_command_has_its_test_file(path):
    """`tests/cli/test_<command>.py` (`test_campaign_<sub>.py`) exists, holds tests that take the `cli` fixture,
    and runs the command: a new command or subcommand fails here until its tests are written."""
    import ast

    file = _test_file(path)
    assert file.is_file(), f"{path!r} has no tests/cli/{file.name}"
    tree = ast.parse(file.read_text(encoding="utf-8"))
    tests = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
             and "cli" in [a.arg for a in node.args.args]]
    assert tests, f"tests/cli/{file.name} has no test that runs the command through the `cli` fixture"
    words = {node.value for test in tests for node in ast.walk(test)
             if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    name = path.split()[-1]
    assert name in words or f"campaign {name}" in words or any(w.startswith(f"{name} ") for w in words), \
        f"no test in tests/cli/{file.name} runs {path!r}"
