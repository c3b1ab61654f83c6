"""The parameter contract (certirank/_params.py): invalid-input tests generated from the declarations, the
cross-parameter rules, validation once per call, and the CLI option built from a declaration."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import certirank
import certirank._validate as V
from certirank import ParameterError
from certirank._params import SPEC09, VERBS, resolve_budget, validate
from certirank.multitest import Graph

RNG = np.random.default_rng(0)
WIDE = pd.DataFrame((RNG.random((40, 3)) < [0.2, 0.5, 0.9]).astype(float), columns=["A", "B", "C"])
LONG = pd.DataFrame([(m, i, r, float(RNG.random() < p)) for m, p in (("A", 0.2), ("B", 0.8)) for i in range(20)
                     for r in (1, 2)], columns=["model", "item", "replicate", "score"])
MATRIX = pd.DataFrame(RNG.random((6, 8)), columns=[f"p{i}" for i in range(8)])
BATTLES = pd.DataFrame({"model_a": ["p", "q", "p"] * 5, "model_b": ["q", "r", "r"] * 5,
                        "winner": ["model_a", "model_b", "tie"] * 5})


def _cases():
    for verb in VERBS.values():
        for p in verb.params:
            bad = p.constraint.invalid()
            if bad:
                yield pytest.param(verb.name, p.name, bad, id=f"{verb.name}-{p.name}")


@pytest.mark.parametrize("verb, name, bad", list(_cases()))
def test_every_declared_parameter_refuses_its_invalid_values(verb, name, bad):
    """Generated from the declarations: a wrong type, out of range, unknown choice, ... each refused with the
    contract's one sentence naming the parameter."""
    for value in bad:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            with pytest.raises(ParameterError) as exc:
                VERBS[verb].validate({name: value})
        msg = str(exc.value)
        assert "\n" not in msg and name in msg, (value, msg)


def test_the_generated_cases_cover_every_kind_of_constraint():
    kinds = {type(p.constraint).__name__ for v in VERBS.values() for p in v.params if p.constraint.invalid()}
    assert {"Real", "Integer", "Choice", "Flag", "Names", "Text", "PathArg", "Seed", "OneOf"} <= kinds
    assert sum(len(p.constraint.invalid()) for v in VERBS.values() for p in v.params) > 1000


# --------------------------------------------------------------------- through the public verbs themselves

def _ranker():
    return certirank.Ranker(["A", "B"], n_max=5)


def _board():
    return certirank.Leaderboard(["A", "B"])


#: the smallest valid call of each validated verb; a bad value for any declared parameter replaces one argument
CALLS = {
    "load": (certirank.load, dict(path=WIDE)),
    "anyrank": (certirank.anyrank, dict(data=WIDE)),
    "Ranker": (certirank.Ranker, dict(policies=["A", "B"])),
    "compare": (certirank.compare, dict(x=[0.0, 1.0], y=[1.0, 1.0])),
    "check": (certirank.check, dict(data=WIDE, claims="C>A")),
    "leaderboard": (certirank.leaderboard, dict(data=LONG)),
    "Leaderboard": (certirank.Leaderboard, dict(models=["A", "B"])),
    "baseline": (certirank.baseline, dict(name="emr", data=LONG)),
    "preference_graph": (certirank.preference_graph, dict(data=BATTLES)),
    "shuffled_ranking": (certirank.shuffled_ranking, dict(data=WIDE, seed=0)),
    "simulate": (certirank.simulate, dict(scenario="HO-I", methods="anyrank", reps=1)),
    "compose_test": (certirank.compose_test, dict(matrix=MATRIX, rounds=5)),
    "evaluate_test_designs": (certirank.evaluate_test_designs, dict(matrix=MATRIX, sets=2, rounds=5)),
    "graph_test": (certirank.graph_test, dict(graph=Graph([0.5, 0.5], [[0, 1], [1, 0]]), pvalues=[0.01, 0.5])),
    "e_holm": (certirank.e_holm, dict(evalues=[1.0, 40.0])),
    "letters": (certirank.letters, dict(policies=["A", "B"], different_pairs=[])),
    "Saved.save": (lambda **kw: _ranker().save(**kw), dict(path="never-written.json")),
    "Saved.load": (certirank.Leaderboard.load, dict(path="never-read.json")),
    "Leaderboard.add_replicate": (lambda **kw: _board().add_replicate(**kw), dict(panel=np.zeros((2, 3)))),
}


def _api_cases():
    for verb, (_, base) in CALLS.items():
        for p in VERBS[verb].params:
            for value in p.constraint.invalid():
                yield pytest.param(verb, p.name, value, id=f"{verb}-{p.name}-{value!r}"[:90])


@pytest.mark.parametrize("verb, name, value", list(_api_cases()))
def test_the_public_verbs_refuse_what_their_declaration_refuses(verb, name, value, tmp_path, monkeypatch):
    """The API refuses every generated bad value at its boundary: a ParameterError naming the parameter, never
    a raw Python exception, never a silent acceptance (rows 22-27 and 31 of reliability.md table 1a)."""
    monkeypatch.chdir(tmp_path)
    func, base = CALLS[verb]
    kwargs = {**base, name: value}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ParameterError) as exc:
            func(**kwargs)
    assert name in str(exc.value) and "\n" not in str(exc.value)
    assert not list(tmp_path.iterdir())  # refused before anything was written


def test_the_smallest_calls_are_valid(tmp_path, monkeypatch):
    """So that each refusal above is due to the one bad value."""
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for verb, (func, base) in CALLS.items():
            if verb == "Saved.load":
                continue  # the file does not exist: a different error, after validation
            func(**base)


# --------------------------------------------------------------------- reliability.md table 1a, rows 22-27, 31

def test_row_22_complex_scores_are_refused():
    with pytest.raises(certirank.DataError, match="complex"):
        certirank.load(pd.DataFrame({"policy": ["A", "B"], "score": [1j, 0.5]}))


def test_row_27_multiindex_columns_are_refused():
    columns = pd.MultiIndex.from_tuples([("a", "x"), ("b", "y")])
    with pytest.raises(certirank.DataError, match="2 header levels"):
        certirank.load(pd.DataFrame(np.ones((2, 2)), columns=columns))


@pytest.mark.parametrize("call", [
    lambda: certirank.anyrank(WIDE, policies="AB"),                      # row 23: a string is not a list
    lambda: certirank.Ranker(["A", 1]),                                  # row 24: names are strings
    lambda: certirank.Ranker(["A", None]),
    lambda: certirank.Leaderboard([1, 2]),
    lambda: _ranker().record("A", 0, "0.5"),                             # row 25: scores are numbers
    lambda: _ranker().record("A", 0, True),
    lambda: certirank.Ranker(["A\0x", "B"]),                             # row 26: no control characters,
    lambda: certirank.Ranker(["A" * 1_000_000, "B"]),                    # no megabyte names
    lambda: certirank.anyrank(WIDE, concentration=-1),                   # row 27
    lambda: certirank.compose_test(WIDE, time_limit=-1),
    lambda: certirank.load(WIDE, sep=""),
    lambda: _board().add_replicate(np.zeros((2, 3)), replicate=[1]),
    lambda: certirank.Ranker(["A", "B"], environments=["e1", "e1", "e2"]),
    lambda: certirank.baseline("bt-bootstrap", LONG, n_boot=10**12),     # row 31: bounded before it runs
    lambda: certirank.check(WIDE, 123),                                  # row 12
    lambda: certirank.Ranker(["A", "B"]).save(None),                     # row 9
    lambda: certirank.Ranker(["A", "B"]).save("a\0b.json"),              # row 10
])
def test_rows_of_table_1a_are_refused_with_one_line(call, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ParameterError) as exc:
        call()
    assert "\n" not in str(exc.value)


def test_ranker_environment_rejects_absurd_trials():
    r = certirank.Ranker(["A", "B"], environments=["e1", "e2"], seed=1)
    with pytest.raises(ParameterError, match="trial_index"):
        r.environment(10**30)


# --------------------------------------------------------------------- rules, aliases, deprecations

@pytest.mark.parametrize("values, needle", [
    (dict(gamma=3.0), "give a prior"),
    (dict(gamma=3.0, method="bonferroni", prior=[0.1, 0.2]), "applies to method anyrank and weighted-bonferroni"),
    (dict(arms="independent"), "arms (--arms) applies to the exact budget test only"),
    (dict(statistic="bayes", bins="binary"), "statistic (--statistic) applies"),
    (dict(concentration=2.0, bins="progress", n_max=50), "concentration (--concentration) applies"),
    (dict(budget="final"), "needs scores declared binary"),
    (dict(budget="extendable", bins="binary"), "needs the per-comparison budget"),
    (dict(prior=[0.1, 0.2], heldout_prior_rows=3), "not both"),
])
def test_anyrank_rules(values, needle):
    with pytest.raises(ParameterError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        validate("anyrank", **values)


def test_rules_accept_what_they_should():
    validate("anyrank", gamma=3.0, prior=[0.1, 0.2])
    validate("anyrank", gamma=3.0, heldout_prior_rows=5)
    validate("anyrank", arms="independent", bins="binary", n_max=100)
    validate("anyrank", statistic="mixture", budget="final", bins="binary", n_max=3000)
    validate("compare", arms="independent", bins="binary", n_max=10)
    with pytest.raises(ParameterError, match="extendable"):
        validate("compare", extendable=True)
    with pytest.raises(ParameterError, match="pilot"):
        validate("leaderboard", pilot=2)
    with pytest.raises(ParameterError, match="stake"):
        validate("Leaderboard", method="bb-edge-pi", stake="grid")


def test_the_api_refuses_what_the_cli_refuses(cli, tmp_path):
    """Measured by issue 36: `anyrank(df, gamma=3.0)` and `arms="independent"` without a budget were accepted by
    the API and refused by the CLI; now one rule refuses both, with one sentence."""
    # partial-progress scores: the exact test's options have nothing to apply to (on 0/1 data they now apply: the
    # rows in hand are the budget, spec 09 §6)
    progress = WIDE * 0.5
    path = tmp_path / "w.csv"
    progress.to_csv(path, index=False)
    for api, flags in [(dict(gamma=3.0), ["--gamma", "3"]), (dict(arms="independent"), ["--arms", "independent"]),
                       (dict(statistic="bayes"), ["--statistic", "bayes"]),
                       (dict(budget="final"), ["--budget", "final"])]:
        with pytest.raises(ParameterError) as exc:
            certirank.anyrank(progress, **api)
        res = cli(["rank", str(path), *flags])
        assert res.exit_code == 2 and res.output.strip() == f"error: {exc.value}"


def test_resolve_budget():
    assert resolve_budget("auto", "binary", 100, live=False) == "final"
    assert resolve_budget("auto", "binary", 100, live=True) == "extendable"
    assert resolve_budget("auto", "progress", 100, live=False) == "none"
    assert resolve_budget("auto", "binary", None, live=False) == "none"
    assert resolve_budget("auto", "binary", 10**6, live=False) == "none"
    assert resolve_budget("none", "binary", 100, live=False) == "none"


def test_aliases_and_deprecated_names():
    assert validate("anyrank", ties="ranking")["ties"] == "allow"
    assert validate("anyrank", ties="Assume-None")["ties"] == "assume_none"
    assert validate("anyrank", pairing="by-env")["pairing"] == "by_row"
    assert validate("Leaderboard", stake="kelly")["stake"] == "plugin"
    with pytest.warns(DeprecationWarning, match=r"anyrank\(nmax=...\) is deprecated.*n_max"):
        res = certirank.anyrank(WIDE, nmax=40)
    assert res.n_max == 40 if hasattr(res, "n_max") else True
    with pytest.warns(DeprecationWarning, match="metric"):
        certirank.Ranker(["A", "B"], metric="binary", n_max=5)
    with pytest.raises(ParameterError, match="got both"):
        certirank.anyrank(WIDE, nmax=40, n_max=40)


def test_spec09_parameters_are_declared():
    by = {p.name: p for p in SPEC09}
    assert set(by) == {"about", "order", "seed", "order_by", "orders", "fail_on"}
    assert by["order"].check("file") == "given" and by["order"].check("RANDOM") == "random"
    assert by["about"].check("table") == "table"
    for name, bad in [("about", "policies"), ("order", "sorted"), ("seed", -1), ("orders", 0), ("fail_on", "all"),
                      ("order_by", 3)]:
        with pytest.raises(ParameterError, match=name):
            by[name].check(bad)


# --------------------------------------------------------------------- once per call

@pytest.fixture
def alpha_checks(monkeypatch):
    calls: list[float] = []
    orig = V.Real.check

    def spy(self, name, value):
        if name == "alpha":
            calls.append(value)
        return orig(self, name, value)

    monkeypatch.setattr(V.Real, "check", spy)
    return calls


@pytest.mark.parametrize("args", [["rank", "{f}"], ["rank", "{f}", "--bins", "binary", "--n-max", "40"],
                                  ["compare", "{f}", "--a", "A", "--b", "C"], ["leaderboard", "{f}"],
                                  ["check", "{f}", "--claim", "C>A"]])
def test_alpha_is_validated_once_per_command(cli, args, alpha_checks, tmp_path):
    """Issue 36: `alpha` was checked 11 times in one `rank` run; the boundary checks it once, the layers below
    trust it."""
    path = tmp_path / "w.csv"
    WIDE.to_csv(path, index=False)
    res = cli([a.format(f=path) for a in args])
    assert res.exit_code == 0, res.output
    assert len(alpha_checks) == 1


def test_lower_layers_still_check_when_called_on_their_own():
    from certirank.evidence import PairedTest
    with pytest.raises(ParameterError, match="alpha"):
        PairedTest(alpha=2.0)
    with pytest.raises(ParameterError, match="alpha"):
        certirank.graph_test(Graph([1.0], [[0.0]]), [0.5], alpha=math.nan)


def test_an_option_passed_through_is_still_checked_where_it_is_used():
    """Only names the boundary validated are trusted below it: a bettor tuning option of compare's **options
    reaches the e-process unchecked by the boundary, and is checked there."""
    with pytest.raises(ParameterError):
        certirank.compare([0.0, 1.0], [1.0, 1.0], bettor="agrapa", c=-5)


# --------------------------------------------------------------------- the CLI side

def test_declared_option_refuses_at_parse_time_with_the_api_sentence(cli, tmp_path):
    path = tmp_path / "w.csv"
    WIDE.to_csv(path, index=False)
    res = cli(["compare", str(path), "--a", "A", "--b", "C", "--ties", "maybe"])
    assert res.exit_code == 2
    assert "ties must be one of allow, assume_none, got 'maybe'" in res.output
    res = cli(["compare", str(path), "--a", "A", "--b", "C", "--ties", "ranking", "--json"])
    assert res.exit_code == 0 and '"ties": "allow"' in res.output
    help_text = cli(["compare", "--help"]).output
    assert "Tie mode" in help_text and "assume_none" in help_text
