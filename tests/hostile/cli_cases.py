"""Every command and option of the `certirank` CLI, with the values each must refuse.

The cases are built from the live command tree (typer → click), so a new command or option shows up here by
itself: `test_every_option_has_bad_values` then fails until the option is given its hostile values (or is
declared free text / a flag). Values are templates: ``{long}``, ``{tmp}``, … are the inputs of `conftest`.

* ``BASE`` — a valid, fast invocation of each command; a case adds one bad option to it (click keeps the
  last value of an option given twice, so a bad value overrides the base one).
* ``BAD`` — values refused for an option name wherever it appears (``alpha`` in every command …);
  ``BAD_IN`` — values for one command's option (``--size`` of compose-test); ``BASE_FOR`` — another base for
  an option that only means something beside other options (``--n-boot`` needs ``bt-bootstrap``).
* ``TYPED`` — what every int / float option refuses by its type (click's own check, or nan/inf).
* ``ARGUMENTS`` — hostile positional values (data files that are binary, empty, missing, …).
* ``declared_bad`` — the values the parameter contract (``certirank._params``) declares invalid, for every option
  spelled like a declared parameter (numbers and unknown choices: what survives a shell).
* ``KNOWN`` — cases that still fail on this branch because another part of the project owns the fix; each is a
  strict xfail saying whose (it turns into a failure the day the fix lands, so the marker goes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import typer.main

from certirank.cli import app

# --------------------------------------------------------------------------------------------- bases

BASE: dict[str, tuple[list[str], list[str]]] = {  # command -> (positional values, options)
    "inspect": (["{long}"], []),
    "compare": (["{long}"], ["--a", "A", "--b", "C"]),
    "simulate": (["HO-F"], ["--reps", "2", "-p", "n_max=20"]),
    "compose-test": (["{matrix}"], ["--rounds", "20"]),
    "rank": (["{long}"], []),
    "demo": ([], ["--quiet"]),
    "leaderboard": (["{board}"], []),
    "baseline": (["t-holm", "{board}"], []),
    "report": (["{result}"], ["--html", "{tmp}/r.html"]),
    "check": (["{long}"], ["--claim", "C>A"]),
    "validate": ([], ["--reps", "2", "--check", "tie-0"]),
    "campaign init": (["{tmp}/new.db"], ["--policies", "A,B"]),
    "campaign next": (["{camp}"], []),
    "campaign record": (["{camp}", "A", "1", "1"], ["--ahead"]),
    "campaign add-run": (["{lbcamp}", "{run}"], []),
    "campaign status": (["{camp}"], []),
    "campaign undo": (["{camp}"], []),
    "campaign log": (["{camp}"], []),
    "campaign export": (["{camp}", "{tmp}/x.csv"], []),
    "campaign verify": (["{camp}"], []),
    # the operator's verbs (issue 34): a campaign with a schedule, a closed tag list and a launch template
    "campaign plan": (["{opcamp}"], []),
    "campaign amend": (["{opcamp}", "n_max=6000"], ["--reason", "a longer day"]),
    "campaign note": (["{opcamp}", "gripper pads changed"], []),
    "campaign unblind": (["{blindcamp}"], []),
    # --dry-run: a bad value that got through must print the command, never run it
    "campaign launch": (["{opcamp}", "A", "0"], ["--dry-run"]),
    # serve would start a server if a bad value got through: only values click itself refuses are run
    "campaign serve": (["{camp}"], []),
}
SERVE_ONLY_PARSED = {"--port"}

BASE_FOR: dict[tuple[str, str], tuple[list[str], list[str]]] = {
    ("baseline", "--n-boot"): (["bt-bootstrap", "{prefs}"], []),
    ("baseline", "--seed"): (["bt-bootstrap", "{prefs}"], []),
    ("baseline", "--seeds"): (["bt-em", "{long}"], []),
    ("compare", "--arms"): (["{long}"], ["--a", "A", "--b", "C", "--bins", "binary", "--n-max", "12"]),
    ("rank", "--arms"): (["{long}"], ["--bins", "binary", "--n-max", "12"]),
    ("rank", "--statistic"): (["{long}"], ["--bins", "binary", "--n-max", "12"]),
    ("rank", "--gamma"): (["{long}"], ["--prior", "{prior}"]),
    ("leaderboard", "--pilot"): (["{board}"], ["--top-k", "1"]),
    ("campaign init", "--models"): (["{tmp}/new.db"], ["--kind", "leaderboard"]),
    ("campaign record", "--tag"): (["{opcamp}", "A", "0", "1"], ["--ahead"]),
    ("campaign record", "--fault"): (["{opcamp}", "A", "0"], ["--ahead"]),
    ("campaign init", "--checkpoint"): (["{tmp}/new.db"], ["--policies", "A,B", "--launch", "run {checkpoint}",
                                                           "--checkpoint", "A=/a"]),
    ("campaign init", "--blocks"): (["{tmp}/new.db"], ["--kind", "leaderboard", "--models", "m1,m2"]),
    ("campaign init", "--tau"): (["{tmp}/new.db"], ["--kind", "leaderboard", "--models", "m1,m2"]),
    ("campaign init", "--top-k"): (["{tmp}/new.db"], ["--kind", "leaderboard", "--models", "m1,m2,m3"]),
    ("campaign init", "--items"): (["{tmp}/new.db"], ["--kind", "items", "--models", "m1,m2"]),
    ("campaign init", "--difficulty"): (["{tmp}/new.db"], ["--kind", "items", "--models", "m1,m2", "--items", "4"]),
    ("campaign record", "--scores"): (["{itemcamp}", "0", "1"], []),  # draw 1 of the item campaign is item 0
    ("compose-test", "--holdout"): (["{matrix}"], ["--evaluate", "--sets", "2", "--rounds", "10"]),
    ("compose-test", "--sets"): (["{matrix}"], ["--evaluate", "--rounds", "10"]),
    ("compose-test", "--methods"): (["{matrix}"], ["--evaluate", "--sets", "2", "--rounds", "10"]),
    ("rank", "--model"): (["{prefs}"], []),
    ("rank", "--draws"): (["{prefs}"], ["--model", "bt"]),
    ("rank", "--every"): (["{prefs}"], ["--model", "bt"]),
    # --format and --score-range say how to read --data (without it they are refused: ("report", "--data") below)
    ("report", "--format"): (["{result}"], ["--html", "{tmp}/r.html", "--data", "{long}"]),
    ("report", "--score-range"): (["{result}"], ["--html", "{tmp}/r.html", "--data", "{long}"]),
}

# --------------------------------------------------------------------------------------------- values

ALPHA = ["0", "1", "-0.05", "1.5", "1e-400"]
COUNT = ["0", "-1"]  # a positive count
CHOICE = ["bogus", ""]
SCORE_RANGE = ["x", "1", "1,1", "2,1", "nan,1", "0,inf", "-1e308,1e308", ",", "1,2,3", "", "1e-320,2e-320"]
PLOT = ["{tmp}/plot.txt", "{tmp}/no-folder/p.png", "{tmp}"]
OUT_PATH = ["{tmp}", "{tmp}/no-folder/out"]

BAD: dict[str, list[str]] = {
    "--alpha": ALPHA,
    "--format": CHOICE,
    "--score-range": SCORE_RANGE,
    "--read-option": ["noequals", "=v", "bogus=1"],
    "--group-by": [",", "no-such-column"],
    "--proxy": ["no-such-column", ""],
    "--bettor": CHOICE,
    "--ties": CHOICE,
    "--bins": CHOICE,
    "--metric": CHOICE,
    "--pairing": CHOICE,
    "--shuffle": ["-1"],
    "--n-max": COUNT,
    "--nmax": COUNT,
    "--arms": CHOICE,
    "--method": CHOICE,
    "--prior": ["{missing}", "{folder}", "{prior_binary}", "{deep_json}", "{prior_list}", "{prior_unknown}",
                "{prior_words}"],
    "--prior-means": ["A", "A=x", "=0.3", "A=0.3,A=0.4", "Z=0.5", "A=nan", "A=inf", "A=0.2,B=0.5,C=0.8,D=0.1"],
    "--gamma": ["-1"],
    "--guarantee": CHOICE,
    "--heldout-prior-rows": ["-1", "12", "1000"],
    "--budget": CHOICE,
    "--statistic": CHOICE,
    "--plot": PLOT,
    "--tau": ["-0.1", "1.5"],
    "--blocks": ["no-such-column", ""],
    "--top-k": ["0", "-1", "3", "99"],
    "--pilot": ["-1", "99"],
    "--stake": CHOICE,
    "--graph": CHOICE,
    "--seed": ["-1"],
    "--suggest-items": ["0", "-1", "10001"],
    "--n-boot": ["0", "-1", "1000000000000"],  # 10**12 resamples was reliability.md row 31 (a hang): now bounded
    "--seeds": COUNT,
    "--claim": ["", "A", "A>A", "A>Z", "A>>C", ">C", "A=C", "A>B>C"],
    "--reps": COUNT,
    "--jobs": COUNT,
    "--backend": CHOICE,
    "--check": ["no-such-row", ""],
    "--out": OUT_PATH,
    "--param": ["noequals", "bogus=1", "n_max=x", "n_max=0"],
    "--option": ["noequals", "bogus=1"],
    "--methods": ["bogus", "", "anyrank0[", "anyrank0[ties=bogus]", "anyrank0[bogus=1]"],
    "--policies": ["", "A", "A,A", ",", "A,,B"],
    "--models": ["", "m1", "m1,m1"],
    "--kind": CHOICE,
    "--environments": ["{missing}", "{folder}", "{binary}", "{empty}"],
    "--count": COUNT,
    "--replicate": ["-1"],
    "--port": ["0", "-1"],
}

BAD_IN: dict[tuple[str, str], list[str]] = {
    ("compose-test", "--size"): ["0", "-1", "x", "1.5", "11", "1,x", ""],
    ("compose-test", "-m"): ["0", "x"],
    ("compose-test", "--eta"): ["0", "1.5", "-0.1"],
    ("compose-test", "--betas"): ["x", "", "-1", "1,,2", "nan"],
    ("compose-test", "--solver"): CHOICE,
    ("compose-test", "--select"): CHOICE,
    ("compose-test", "--variant"): CHOICE,
    ("compose-test", "--rounds"): ["-1"],
    ("compose-test", "--holdout"): ["0", "1", "-0.1", "1.5"],
    ("compose-test", "--sets"): COUNT,
    ("compose-test", "--methods"): ["bogus", ""],
    ("compose-test", "--read-option"): ["metric=acc"],  # reader options apply to evaluation logs only
    ("compose-test", "--score-range"): ["0,1"],  # likewise
    ("simulate", "scenario"): ["bogus", ""],
    ("baseline", "name"): ["bogus", ""],
    ("report", "--format"): ["bogus"],
    ("report", "--data"): ["{missing}", "{binary}", "{folder}"],
    ("report", "--plot"): PLOT,
    ("report", "--html"): ["{tmp}", "{tmp}/no-folder/r.html"],
    ("report", "--title"): [],
    ("campaign record", "policy"): ["Z", ""],
    ("campaign record", "trial"): ["x", "-1", "99999999999999999999"],
    ("campaign record", "score"): ["x", "1.5", "-0.1", "nan", "inf", ""],
    ("campaign undo", "record_id"): ["x", "0", "-1", "99"],
    ("campaign export", "out"): ["{tmp}", "{tmp}/no-folder/x.csv", "{tmp}/x.txt"],
    ("campaign init", "--seed"): ["-1", "x"],
    ("campaign init", "--tau"): ["-0.1", "nan"],
    ("campaign init", "--top-k"): ["0", "3"],
    ("campaign init", "--blocks"): ["bogus"],
    ("campaign init", "--method"): ["bogus"],
    ("validate", "--seed"): ["-1"],
    ("rank", "--model"): CHOICE,
    ("rank", "--draws"): CHOICE,
    ("rank", "--every"): COUNT,
    # a well-formed hash that is not in the log is a failed verification (exit 1, the documented code): not here
    ("campaign verify", "--anchor"): ["", "zzz", "0" * 11, "g" * 64],
    ("baseline", "--seed"): ["-1"],
    # the operator's verbs (issue 34)
    ("campaign plan", "db"): ["{missing}", "{folder}", "{binary}", "{empty}", "{long}", "{camp}", "{lbcamp}"],
    ("campaign amend", "changes"): ["", "alpha=0.2", "n_max=10", "n_max=x", "bogus=1", "noequals", "policies=A,B",
                                     "environments=left"],
    ("campaign amend", "--reason"): [""],
    ("campaign amend", "--design"): ["{missing}", "{folder}", "{binary}", "{empty}", "{not_json}"],
    ("campaign note", "text"): ["", "   "],
    ("campaign note", "db"): ["{missing}", "{folder}", "{binary}", "{empty}", "{long}"],
    ("campaign amend", "db"): ["{missing}", "{folder}", "{binary}", "{empty}", "{long}"],
    ("campaign unblind", "db"): ["{missing}", "{folder}", "{binary}", "{empty}", "{camp}"],
    ("campaign launch", "policy"): ["Z", ""],
    ("campaign launch", "trial"): ["-1", "99999999999999999999"],
    ("campaign launch", "db"): ["{missing}", "{folder}", "{binary}", "{camp}"],
    ("campaign record", "--tag"): ["slip", "", ","],
    ("campaign record", "--fault"): ["", "   "],
    ("campaign init", "--design"): ["{missing}", "{folder}", "{binary}", "{empty}", "{not_json}"],
    ("campaign init", "--about"): ["table", *CHOICE],
    ("campaign init", "--items"): ["0", "-1", "{missing}", "{folder}", "{binary}", "{empty}"],
    ("campaign init", "--difficulty"): ["{missing}", "{folder}", "{binary}", "{empty}", "{long}"],
    ("campaign record", "--scores"): ["", "m1=1", "m1=2,m2=0", "m1=x,m2=0", "m3=1,m2=0", "m1=1,m1=0,m2=0",
                                      "m1=nan,m2=0"],
    ("campaign init", "--tags"): ["", ",", "a,a"],
    ("campaign init", "--checklist"): ["{missing}", "{folder}", "{binary}"],
    ("campaign init", "--launch"): ["", "run {model}", "run 'unclosed"],
    ("campaign init", "--checkpoint"): ["A", "=/x", "Z=/x", "A=/x"],
}

# Options whose every value is acceptable text (names, notes, titles) or that take no value (flags).
FREE = {"--title", "--by", "--note", "--token", "--host", "--scheduler", "--a", "--b"}
# ... except where a verb bounds them: an idempotency key is printable ASCII, at most 200 characters
BAD["--idempotency-key"] = ["", "k" * 201, "cl\u00e9"]

# By type: click refuses these for an int option, and certirank for a float one (no float option takes nan/inf).
TYPED = {int: ["x", "1.5", "", "1e3"], float: ["x", "", "nan", "inf", "-inf"]}

# Hostile positional values: every data argument refuses these files.
DATA_FILES = ["{missing}", "{folder}", "{binary}", "{empty}", "{header_only}", "{nul}", "{latin1}", "{huge}", "{nan}",
              "{deep_json}", "{not_json}", "{parquet}", "{one_policy}", "{semicolon}", "{ragged}"]
ARGUMENTS: dict[tuple[str, str], list[str]] = {
    ("inspect", "data"): [f for f in DATA_FILES if f != "{one_policy}"],  # one policy is a fine thing to inspect
    ("compare", "data"): DATA_FILES,
    ("rank", "data"): DATA_FILES,
    ("leaderboard", "data"): DATA_FILES,
    ("check", "data"): DATA_FILES,
    ("baseline", "data"): DATA_FILES,
    ("compose-test", "matrix"): DATA_FILES,
    ("report", "result"): ["{missing}", "{folder}", "{binary}", "{empty}", "{camp}", "{deep_json}", "{not_json}",
                           "{result_nokind}", "{result_list}", "{long}"],
    ("campaign add-run", "file"): DATA_FILES,
    **{(f"campaign {c}", "db"): ["{missing}", "{folder}", "{binary}", "{empty}", "{long}"]
       for c in ("next", "record", "status", "undo", "log", "export", "verify")},
    ("campaign add-run", "db"): ["{missing}", "{folder}", "{binary}", "{empty}", "{long}", "{camp}"],
    ("campaign init", "db"): ["{camp}", "{folder}", "{tmp}/no-folder/c.db"],
}

# Cases that fail today because another part of the project owns the fix, each with a strict xfail reason
# naming whose (none at present: keep it that way)
KNOWN: dict[tuple[str, str, str], str] = {}


@dataclass(frozen=True)
class Case:
    command: str
    param: str  # the option ("--alpha") or argument ("data") under test
    value: str
    args: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"{self.command} {self.param}={self.value!r}"


def commands() -> dict[str, Any]:
    """Every leaf command of the CLI, by its name ("campaign init")."""
    out: dict[str, Any] = {}

    def walk(c: Any, path: list[str]) -> None:
        if hasattr(c, "commands"):
            for n, sub in c.commands.items():
                walk(sub, path + [n])
        else:
            out[" ".join(path)] = c

    walk(typer.main.get_command(app), [])
    return out


def _name(p: Any) -> str:
    return p.opts[0] if p.param_type_name == "option" else p.name


def _is_flag(p: Any) -> bool:
    return bool(getattr(p, "is_flag", False))


def declared_bad(option: str, kind: Any) -> list[str]:
    """Values the parameter contract (``certirank._params``) declares invalid for every public parameter spelled
    `option` on the command line, kept where they survive the trip through a shell: numbers (out of range, nan,
    inf, a fraction for a count) and unknown choices. A value counts only if every declaration of that spelling
    refuses it as the command line passes it on (`kind`: the option's type; ``--method`` means other things in
    other verbs)."""
    from certirank._params import VERBS
    from certirank.errors import CertirankError

    params = [p for v in VERBS.values() for p in v.params if p.cli == option]
    out: list[str] = []
    for p in params:
        for v in p.constraint.invalid():
            if isinstance(v, bool) or not isinstance(v, (int, float, str)):
                continue
            text = repr(v) if isinstance(v, float) else str(v)
            try:
                passed: Any = kind(text) if kind in (int, float) else text
            except ValueError:
                out.append(text)  # click refuses it by type before the contract sees it
                continue
            refused = True
            for q in params:
                try:
                    q.check(passed)
                    refused = False
                except CertirankError:
                    pass
            if refused:
                out.append(text)
    return list(dict.fromkeys(out))


def _kind(p: Any) -> Any:
    """The option's value type: typer >= 0.29 keeps the annotation; older typer (pyproject pins < 0.29), click's."""
    if hasattr(p, "type_descriptor"):
        return p.type_descriptor.annotation
    return {"IntParamType": int, "IntRange": int, "FloatParamType": float, "FloatRange": float}.get(
        type(p.type).__name__, p.type)


def bad_values(command: str, p: Any) -> list[str] | None:
    """The values `p` of `command` must refuse; None if nothing declares any (then it must be in FREE)."""
    name = _name(p)
    if p.param_type_name == "argument":
        return ARGUMENTS.get((command, name), BAD_IN.get((command, name)))
    values = BAD_IN.get((command, name))
    if values is None:
        values = BAD.get(name)
    typed = TYPED.get(_kind(p), [])
    declared = declared_bad(name, _kind(p)) if name.startswith("--") else []
    if values is None and not typed and not declared:
        return None
    return list(dict.fromkeys([*(values or []), *typed, *declared]))


def invocation(command: str, p: Any, value: str) -> list[str]:
    """`command`'s base invocation with `value` given to `p` (an option added last, or a positional replaced)."""
    positional, options = BASE_FOR.get((command, _name(p)), BASE[command])
    if p.param_type_name == "option":
        given = [f"{_name(p)}={value}"] if value.startswith("-") and _name(p).startswith("--") else [_name(p), value]
        return [*command.split(), *positional, *options, *given]
    k = [q.name for q in commands()[command].params if q.param_type_name == "argument"].index(p.name)
    positional = list(positional)
    if k < len(positional):
        positional[k] = value
    else:
        positional.append(value)
    return [*command.split(), *positional, *options]


def cases() -> list[Case]:
    out = []
    for command, cmd in commands().items():
        for p in cmd.params:
            name = _name(p)
            if _is_flag(p) or name in FREE:
                continue
            values = bad_values(command, p) or []
            if command == "campaign serve" and name not in SERVE_ONLY_PARSED:
                continue
            for v in values:
                out.append(Case(command, name, v, tuple(invocation(command, p, v))))
    return out


def uncovered() -> list[str]:
    """Options and arguments with no hostile values declared and not declared free text or a flag."""
    missing = []
    for command, cmd in commands().items():
        if command not in BASE:
            missing.append(f"{command} (no base invocation)")
            continue
        for p in cmd.params:
            if _is_flag(p) or _name(p) in FREE or (command == "campaign serve" and _name(p) not in SERVE_ONLY_PARSED):
                continue
            if not bad_values(command, p):
                missing.append(f"{command} {_name(p)}")
    return missing
