"""The public simulation-option parser (`certirank.sim.parse_options`, issue 36 item 3): what `certirank simulate
-p/--option` reads, the API reads the same way."""

from __future__ import annotations

import json

import pytest

import certirank
from certirank.errors import ParameterError
from certirank.sim import parse_options, parse_value


def test_values_are_read_as_python_values():
    got = parse_options(["n_max=1000", "means=0.2,0.4,0.6", "preference=scores", "strict=yes", "eta= 0.5 ",
                         "seed=none", "flag=Off"])
    assert got == {"n_max": 1000, "means": "0.2,0.4,0.6", "preference": "scores", "strict": True, "eta": 0.5,
                   "seed": None, "flag": False}
    assert type(got["n_max"]) is int and type(got["eta"]) is float
    assert [parse_value(t) for t in ("1", "1.5", "1e3", "ON", "null", " x ")] == [1, 1.5, 1000.0, True, None, "x"]


def test_one_text_separated_by_semicolons_and_the_last_repeat_wins():
    assert parse_options("n_max=10; alpha=0.1;") == {"n_max": 10, "alpha": 0.1}
    assert parse_options(["n_max=10", "n_max=20"]) == {"n_max": 20}
    assert parse_options([]) == {}


@pytest.mark.parametrize("items, needle", [
    (["n_max"], "--param must be KEY=VALUE, got 'n_max'"),
    (["=3"], "--param must be KEY=VALUE, got '=3'"),
    ([3], "--param must be KEY=VALUE text, got int 3"),
])
def test_bad_items_are_one_line(items, needle):
    with pytest.raises(ParameterError) as info:
        parse_options(items, what="--param")
    assert str(info.value) == needle


def test_the_cli_reads_its_options_with_the_parser(cli):
    args = ["n_max=100", "means=0.2,0.5,0.8"]
    res = cli(["simulate", "bernoulli", "-m", "anyrank0", "-n", "3", "--seed", "2", "--json",
               *[x for a in args for x in ("-p", a)], "--option", "ties=assume_none"])
    assert res.exit_code == 0, res.output
    shown = json.loads(res.stdout)
    api = certirank.simulate("bernoulli", "anyrank0", reps=3, seed=2, progress=False,
                             method_options=parse_options(["ties=assume_none"]), **parse_options(args))
    d = json.loads(json.dumps(api.to_dict(), default=str))
    for part in ("inputs", "details"):
        shown[part].pop("elapsed", None), d[part].pop("elapsed", None)
    assert shown["inputs"] == d["inputs"] and shown["details"]["summary"] == d["details"]["summary"]
    bad = cli(["simulate", "bernoulli", "-n", "2", "-p", "n_max"])
    assert bad.exit_code == 2 and bad.stderr.strip() == "error: --param must be KEY=VALUE, got 'n_max'"
