"""The parameter contract at the public boundary: every public parameter declared once.

Each :class:`Param` says what a parameter means (one line, read by ``docs/glossary.md``, the CLI help and the
generated invalid-input tests), what it may be (a constraint of :mod:`certirank._validate`, with canonical
values, aliases and deprecated spellings) and its old names. Each :class:`Verb` lists the parameters of one
public function or method and the rules that join them (``gamma`` needs a prior; ``arms`` needs the exact
budget test; ``prior`` excludes ``heldout_prior_rows``; ``pilot`` needs ``top_k``; ...).

``@validated("anyrank")`` on a public function checks its arguments against the declaration before anything
runs and passes the canonical values on; the layers below trust them (see :mod:`certirank._validate`). The
CLI builds its options from the same declarations (:func:`certirank.cli._options.declared`), so the API
refuses exactly what the CLI refuses, with the same sentence.

This module imports nothing above ``_validate`` when it loads: vocabularies owned by a higher layer (bettors,
baselines, scenarios) are read from their module when a value is checked.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import os
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ._validate import (
    ALPHA_RANGE,
    MAX_NAME,
    Choice,
    Constraint,
    Flag,
    Function,
    Given,
    Integer,
    Names,
    OneOf,
    PathArg,
    Real,
    Seed,
    Text,
    refuse,
    trusted,
    trusting,
    user_stacklevel,
    warn_alpha,
)
from .errors import ParameterError

# ============================================================================================ declarations

@dataclass(frozen=True)
class Param:
    """One public parameter: its name, what it may be, what it means, its CLI option and its old names."""

    name: str
    constraint: Constraint
    help: str
    option: str | None = None
    renamed: tuple[str, ...] = ()

    @property
    def cli(self) -> str:
        """The CLI spelling (``--n-max`` for ``n_max``)."""
        return self.option or "--" + self.name.replace("_", "-")

    def check(self, value: Any, name: str | None = None) -> Any:
        return self.constraint.check(name or self.name, value)

    def but(self, **changes: Any) -> Param:
        """This parameter with another constraint or help (``method`` means other things in other verbs)."""
        import dataclasses
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class Rule:
    """A rule joining parameters: ``broken(values)`` returns the refusal (one sentence) or None."""

    names: tuple[str, ...]
    broken: Callable[[Mapping[str, Any]], str | None]


@dataclass(frozen=True)
class Verb:
    """The declared parameters of one public function or method, and the rules that join them.

    ``options``: the parameter names a ``**options`` argument may carry (None: open, checked by the verb,
    e.g. reader options of ``load``).
    """

    name: str
    params: tuple[Param, ...]
    rules: tuple[Rule, ...] = ()
    options: tuple[str, ...] | None = None

    def __getitem__(self, name: str) -> Param:
        return self.by_name[name]

    @functools.cached_property
    def by_name(self) -> dict[str, Param]:
        return {p.name: p for p in self.params}

    def validate(self, values: Mapping[str, Any], trusted: Iterable[str] = ()) -> dict[str, Any]:
        """Canonical values of the declared parameters in `values` (those in `trusted` were checked by an
        enclosing call and pass as they are), then every rule whose parameters are not all trusted; raises
        :class:`ParameterError` (one line) on the first problem. Rules read absent parameters at their defaults."""
        out = dict(values)
        skip = set(trusted)
        for name, value in values.items():
            p = self.by_name.get(name)
            if p is not None and name not in skip:
                out[name] = p.check(value)
        for rule in self.rules:
            if skip and all(n in skip for n in rule.names if n in self.by_name):
                continue  # the enclosing call checked these together
            msg = rule.broken(out)
            if msg:
                raise ParameterError(msg)
        return out


def _registry(module: str, attr: str, keys: bool = False) -> Callable[[], tuple[str, ...]]:
    """The values of a vocabulary owned by a higher layer, read when a value is checked."""
    def values() -> tuple[str, ...]:
        obj = getattr(importlib.import_module(module), attr)
        return tuple(obj.keys() if keys else obj)
    return values


# ----------------------------------------------------------------------------------------- vocabularies
# the AnyRank procedure (spec 03 §3-§5, §10); methods/anyrank/config.py reads these
ANYRANK_METHODS = ("anyrank", "anyrank0", "anyrank-inf", "bonferroni", "weighted-bonferroni")
#: methods whose graph weights the prior by gamma
PRIOR_WEIGHTED = ("anyrank", "weighted-bonferroni")
ANYRANK_BETTORS = ("nscore", "bernoulli_kelly", "agrapa", "ons", "prpl_eb", "hoeffding")
GUARANTEES = ("paper", "strict")
TIES = ("allow", "assume_none")
GRAPHS = ("soft_masked", "fully_connected")
BINS = ("progress", "binary")
PAIRINGS = ("by_row", "by_order")
BUDGETS = ("auto", "none", "final", "extendable")
ARMS = ("paired", "independent")
#: "auto" picks the exact test only up to this budget: its p-value grid costs O(n_max^2) once per process
#: (about 4 s at 1000, 15 s at 2000 on one core), and it has no precomputed table beyond 2500
AUTO_BUDGET_MAX = 2500
BBEDGE_METHODS = ("bb-edge", "bfh-e-holm", "cr-edge", "bb-edge-pi")
STAKES = ("plugin", "plugin-eb", "grid")
OUTPUTS = ("current", "cumulative")
PROCEDURES = ("holm", "bonferroni")
DRAWS = ("keep", "random", "drop")
# spec 09: what a claim is about, and in which order whole data are read
ABOUTS = ("policy", "benchmark", "table")
ORDERS = ("random", "given")
FAIL_ON = ("any", "reversed")
#: bootstrap resamples beyond this are a typo (the default is 5,000; 10^5 already takes minutes on large data)
MAX_BOOT = 100_000


def resolve_budget(budget: str, bins: str, n_max: Any, live: bool) -> str:
    """The per-comparison test ``budget="auto"`` stands for (spec 08 §5): the exact budget test when the
    scores are declared binary and the per-comparison budget is given (never inferred from recorded rows,
    which could depend on the outcomes) and at most :data:`AUTO_BUDGET_MAX`; else the anytime e-process.

    Recorded data and simulations (``live=False``) get ``final``, the more powerful form, since nothing can
    extend a fixed table; the live `Ranker` gets ``extendable``, so that :meth:`Ranker.extend` keeps working.
    """
    if budget != "auto":
        return budget
    if bins != "binary" or n_max is None or n_max > AUTO_BUDGET_MAX:
        return "none"
    return "extendable" if live else "final"


# ----------------------------------------------------------------------------------------- parameters
def _p(name: str, constraint: Constraint, help: str, **kw: Any) -> Param:
    return Param(name, constraint, help, **kw)


ALPHA = _p("alpha", ALPHA_RANGE, "family-wise error rate of the whole answer (all pairs, all stopping times)")


DATA = _p("data", Given("an evaluation table: a file path or a pandas DataFrame", none=False),
          "the evaluation data: a file path or a table")
PATH = _p("path", PathArg(), "a file to read or write")
FORMAT = _p("format", Text(200, "a format name", none=True), "input layout or importer (default: detected)",
            option="--format")
SCORE_RANGE = _p("score_range", Given("a pair (lo, hi) of finite numbers with lo < hi",
                                      kinds=(tuple, list), none=True),
                 "rescale raw scores from [lo, hi] to [0, 1]")
POLICIES = _p("policies", Names(2, "policy names"), "the policies to rank (robot policies, LLMs, bots; at least "
                                                   "two); in JSON the Ranking.policies rows")
POLICY_SUBSET = _p("policies", Names(2, "policy names", none=True),
                   "the policies (columns) to rank, in this order (default: all)")
MODELS = _p("models", Names(2, "model names"), "the models of a leaderboard (at least two): `policies` on the "
                                               "LLM side")
ENVIRONMENTS = _p("environments", Names(1, "environment names", none=True),
                  "environments each trial's environment is drawn from (uniformly, seeded)")
ANYRANK_METHOD = _p("method", Choice(ANYRANK_METHODS), "the AnyRank procedure")
PRIOR = _p("prior", Given("a mapping policy -> mean in [0, 1], or one mean per policy",
                          kinds=(Mapping, list, tuple, Iterable)),
           "prior mean per policy, fixed before the data")
GAMMA = _p("gamma", Real(0.0), "prior strength (softmax inverse temperature of the prior's graph)")
N_MAX = _p("n_max", Integer(1, 10**9, none=True), "per-comparison budget of paired trials", renamed=("nmax",))
TIES_P = _p("ties", Choice(TIES, aliases={"ranking": "allow", "assume_no_ties": "assume_none"}),
            "tie mode of certified tests: allow (valid under exact ties) or assume_none (the papers' setting)")
GUARANTEE = _p("guarantee", Choice(GUARANTEES), "AnyRank's guarantee: paper (pair-level graph, spec 03) or "
                                               "strict (one-sided nodes); in a Ranking, the guarantee sentence")
HELDOUT = _p("heldout_prior_rows", Integer(0), "use the first N rows as the prior and remove them from the test")
PAIRING = _p("pairing", Choice(PAIRINGS, aliases={"by_env": "by_row", "by-environment": "by_row",
                                                  "by_trial": "by_row"}),
             "by_row (trial r of every policy on environment r) or by_order (n-th trials paired)")
GRAPH = _p("graph", Choice(GRAPHS), "the pre-registered graph shape (spec 02 §5)")
FORWARD = _p("forward_fraction", Real(0.0, 1.0), "share of a rejected node's weight passed forward (spec 02)")
SPLIT = _p("direction_split", Real(0.5, 1.0, hi_open=True),
           "share of a pair's level given to the direction the prior predicts (strict guarantee)")
ANYRANK_BETTOR = _p("bettor", Choice(ANYRANK_BETTORS), "betting strategy of the sequential test (speed, never validity)")
BINS_P = _p("bins", Choice(BINS), "score bins: progress (0, 0.1, ..., 1) or binary (0/1, declared)",
            renamed=("metric",))
CLOSURE = _p("transitive_closure", Flag(), "certify A > C from A > B and B > C")
TRAJECTORY = _p("trajectory", Flag(), "also return the samples used after each iteration")
BUDGET = _p("budget", Choice(BUDGETS), "per-comparison test: auto (the exact budget test of spec 08 when bins="
                                       "'binary' and n_max <= 2500 are given: final for recorded data, extendable "
                                       "in a live Ranker; else none), none (the anytime e-process), final or "
                                       "extendable")
ARMS_P = _p("arms", Choice(ARMS), "exact budget test: paired (valid for any correlation) or independent arms")
CONCENTRATION = _p("concentration", Real(0.0, lo_open=True, none=True),
                   "Beta(a, a) concentration of the exact budget test's prior (fixed before data)")
STATISTIC = _p("statistic", Choice(_registry("certirank.evidence.budget", "STATISTICS"), none=True),
               "what the exact budget test thresholds: bayes (fastest-decision boundaries; default from n_max 500 "
               "to 2500), mixture (the Beta-mixture likelihood ratio; default below 500) or barnard (both success "
               "counts; independent arms only, the default there up to its largest budget)")
ADVANTAGE_TOL = _p("advantage_tol", Real(0.0), "tolerance of the advantaged-sampling rule (spec 03)")
SEED = _p("seed", Seed(none=True), "seed of every random choice; same seed, same output")
EXTENDABLE = _p("extendable", Flag(), "exact budget test: stay valid past the budget (with the e-process)")
SCORES_X = _p("x", Given("a sequence of scores in [0, 1]", none=False), "scores of policy X, in trial order")
SCORES_Y = _p("y", Given("a sequence of scores in [0, 1]", none=False), "scores of policy Y, paired with x")
EVIDENCE_BETTOR = _p("bettor", Choice(_registry("certirank.evidence._core", "BETTORS"), none=True),
                     "betting strategy of the e-process (speed, never validity)")
CLAIMS = _p("claims", Given("a claim such as 'A>B' or a list of them", kinds=(str, list, tuple), none=False),
            "claims 'A>B' to check")
TAU = _p("tau", Real(0.0, 1.0, hi_open=True), "margin: an edge A -> B certifies mean(A) - mean(B) > tau")
BLOCKS = _p("blocks", Given("'items', 'replicate', a column name, or one block label per item"),
            "independent blocks within a run (BB-EDGE)")
TOP_K = _p("top_k", Integer(1, none=True), "certify a Top-k set")
PILOT = _p("pilot", Integer(1, none=True), "pilot replicates that choose the Top-k candidates")
BBEDGE_METHOD = _p("method", Choice(BBEDGE_METHODS, aliases={"bbedge": "bb-edge", "bfh": "bfh-e-holm",
                                                              "credge": "cr-edge", "bb-edge-plugin": "bb-edge-pi",
                                                              "pi": "bb-edge-pi"}),
                   "the BB-EDGE e-process (spec 04)")
WEIGHTS = _p("weights", Given("a mapping item -> weight or one weight per item (summing to 1)"), "item weights")
OUTPUT = _p("output", Choice(OUTPUTS), "edges certified at the latest replicate (current) or ever (cumulative)")
STAKE = _p("stake", Choice(STAKES, aliases={"kelly": "plugin", "betting": "plugin", "eb": "plugin-eb"}, none=True),
           "BB-EDGE stake rule: plugin (default of bb-edge, cr-edge), plugin-eb or grid (spec 04's 41-point "
           "mixture)")
ITEMS = _p("items", Given("item names in benchmark order"), "benchmark items (leaderboards)")
EPOCHS = _p("epochs", OneOf((Integer(1), Choice(("open",)))), "planned benchmark versions (spec 04 §9.1)")
ADDITIONS = _p("additions", OneOf((Integer(0), Choice(("open",)))), "planned model additions (spec 04 §9.2)")
KEEP_HISTORY = _p("keep_history", Flag(), "keep per-replicate block means (to replay a model added later)")
BLOCKS_SOURCE = _p("blocks_source", Text(1000, "a sentence", none=True), "where the blocks came from, in words")
BLOCKS_COLUMN = _p("blocks_column", Text(200, "a column name", none=True), "the column that held block labels")
REPLICATE = _p("replicate", OneOf((Integer(0), Text(200, "a label"))), "a replicate's label")
TRUST_EDITED = _p("trust_edited", Flag(), "load a saved state whose checksum failed (every result then says so)")
TRIAL_INDEX = _p("trial_index", Integer(0), "a trial (= environment) number of a live campaign")
SCORE = _p("score", Real(0.0, 1.0, none=True), "one score in [0, 1] (None: the run failed or was impossible)")
AHEAD = _p("ahead", Flag(), "record a run before the engine asks for it")
POLICY = _p("policy", Text(1000, "a policy name"), "one policy")
#: an item campaign's item name: checked at init too, so that every item drawn can be recorded
ITEM = _p("item", Text(1000, "an item name"), "the drawn item (campaign next)")
# spec 09 (declared for the `surface` helper's verbs): what a claim is about and the order whole data are read
ABOUT = _p("about", Choice(ABOUTS, none=True),
           "what a certified claim is about: policy, benchmark or table (spec 09 §2)")
ORDER = _p("order", Choice(ORDERS, aliases={"file": "given"}),
           "order whole data are read in: random (seeded permutation of pairing units) or given (as recorded)")
ORDER_BY = _p("order_by", Text(200, "a column name", none=True), "the column that holds the run order")
ORDERS_P = _p("orders", Integer(1, 1000), "number of seeded random orders averaged (spec 09 §5)")
FAIL_ON_P = _p("fail_on", Choice(FAIL_ON), "check fails on any claim not certified, or only on a reversed one")
#: how whole data are read (spec 09 §3, §5): every verb that reads a table or arrays at once takes these
READ = (ABOUT, ORDER, SEED.but(constraint=Seed()), ORDER_BY, ORDERS_P)
SPEC09 = (*READ, FAIL_ON_P)
# issue 35: fewer real evaluations (equivalence, forecasts, prediction-powered evidence)
MARGIN = _p("margin", Real(0.0, 1.0, lo_open=True, hi_open=True, none=True),
            "equivalence margin fixed before the data: a pair is certified 'equivalent' when |difference of means| "
            "< margin (scores on [0, 1])")
FUTILITY = _p("futility", Real(0.0, 1.0, lo_open=True, hi_open=True),
              "an undecided pair is 'futile' when the forecast chance of deciding by the budget n_max is below this "
              "(a forecast, never a guarantee)")
#: a leaderboard's budget counts replicates (whole runs), not paired trials: the same name, its own unit
BOARD_N_MAX = N_MAX.but(help="budget of replicates of a BB-EDGE leaderboard (whole runs of every model on every item, "
                             "per benchmark version): a replicate beyond it is refused, and an undecided pair is "
                             "'futile' when its forecast chance of a decision in the replicates left is below futility",
                        renamed=())
PROXY_X = _p("proxy_x", Given("a sequence of proxy scores in [0, 1], one per unit"),
             "proxy scores of policy X (simulator, world model, LLM judge), one per unit")
PROXY_Y = _p("proxy_y", Given("a sequence of proxy scores in [0, 1], one per unit"),
             "proxy scores of policy Y, paired with proxy_x")
# issue 36 item 3: the API groups where the CLI does (--group-by); certirank.methods.groups runs the verb per group
GROUP_BY = _p("group_by", OneOf((Text(200, "a column name"), Names(1, "column names")), none=True),
              "run the method within each group of these columns: one result per group (record kind 'grouped')")
ALPHA_ACROSS = _p("alpha_across_groups", Flag(),
                  "with group_by: split alpha over the groups (Bonferroni) so every group's statements hold together")
LABEL_RATE = _p("label_rate", Real(0.0, 1.0, lo_open=True, none=True),
                "probability, fixed before the data, with which each unit got a real label (independent of "
                "outcomes)")


# ----------------------------------------------------------------------------------------- rules
def _exact_test(v: Mapping[str, Any], live: bool) -> str:
    return resolve_budget(v.get("budget", "auto"), v.get("bins", "progress"), v.get("n_max"), live)


def _both(*names: str) -> str:
    """Parameters as a rule names them: the API spelling and the CLI option (``gamma (--gamma)``)."""
    return ", ".join(f"{n} (--{n.replace('_', '-')})" for n in names)


def _gamma_rule(v: Mapping[str, Any]) -> str | None:
    if v.get("gamma", 1.0) == 1.0:
        return None
    if v.get("method", "anyrank") not in PRIOR_WEIGHTED:
        return (f"{_both('gamma')}, the prior's strength, applies to method anyrank and weighted-bonferroni only, "
                f"not {v['method']}")
    if v.get("prior") is None and not v.get("heldout_prior_rows"):
        return (f"{_both('gamma')} is the prior's strength: give a prior (prior=; --prior or --prior-means) or "
                f"{_both('heldout_prior_rows')}")
    return None


_EXACT = "bins='binary' with n_max (--bins binary --n-max N)"


def _budget_rule(v: Mapping[str, Any]) -> str | None:
    budget = v.get("budget", "auto")
    if "bins" in v and v["bins"] is None:
        # data in hand: the scale, the budget and the arms are chosen from the whole table before it is read
        # (certirank.methods.plan), which refuses what does not fit the data it finds
        return None
    if budget in ("final", "extendable"):
        if v.get("bins", "progress") != "binary":
            return (f"budget={budget!r} (--budget {budget}, the exact budget test) needs scores declared binary: "
                    "bins='binary' (--bins binary; success/failure data only, never inferred)")
        if v.get("n_max") is None:
            return f"budget={budget!r} (--budget {budget}) needs the per-comparison budget: {_both('n_max')}"
    if _exact_test(v, live=False) != "none":
        return None
    used = [n for n, default in (("arms", "paired"), ("statistic", None), ("concentration", None))
            if v.get(n, default) not in (default, None)]
    if used:
        return (f"{_both(*used)} {'applies' if len(used) == 1 else 'apply'} to the exact budget test only "
                f"({_EXACT}, or budget='final'/'extendable'); this run uses the anytime e-process")
    return None


def _barnard_rule(v: Mapping[str, Any]) -> str | None:
    if v.get("statistic") == "barnard" and v.get("arms", "paired") not in ("independent", None):
        return (f"statistic='barnard' (--statistic barnard) uses both success counts of independent arms: it needs "
                f"arms='independent' (--arms independent); with paired arms use 'mixture' or 'bayes'")
    return None


def _exact_limit(v: Mapping[str, Any]) -> str | None:
    if _exact_test(v, live=False) == "none" or v.get("n_max") is None:
        return None
    top = importlib.import_module("certirank.evidence.budget").MAX_BUDGET
    if v["n_max"] > top:
        return (f"n_max = {v['n_max']} is above the exact budget test's limit {top}; use budget='none' (the "
                "anytime e-process) for longer campaigns")
    return None


def _prior_xor_heldout(v: Mapping[str, Any]) -> str | None:
    if v.get("prior") is not None and v.get("heldout_prior_rows"):
        return (f"give either a prior (prior=; --prior or --prior-means) or {_both('heldout_prior_rows')}, "
                "not both")
    return None


def _compare_budget(v: Mapping[str, Any]) -> str | None:
    if v.get("bins") is None and v.get("a") is not None:
        return None  # a table in hand: its scale, budget and arms are chosen from it (certirank.methods.plan)
    exact = v.get("n_max") is not None and v.get("bins") == "binary"
    used = [n for n, default in (("arms", "paired"), ("extendable", False)) if v.get(n, default) not in (default, None)]
    if used and not exact:
        return (f"{_both(*used)} {'shapes' if len(used) == 1 else 'shape'} the exact budget test, which needs "
                f"scores declared binary and a budget: {_EXACT}")
    return None


def _margin_ties(v: Mapping[str, Any]) -> str | None:
    if v.get("margin") is not None and v.get("ties", "allow") != "allow":
        return (f"{_both('margin')} needs ties='allow': the equivalence claim shares the pair's level with the "
                "difference test at alpha/2 per side (with assume_none the sum exceeds alpha)")
    return None


def _margin_anyrank(v: Mapping[str, Any]) -> str | None:
    if v.get("margin") is None:
        return None
    if v.get("guarantee", "paper") != "paper" or v.get("ties", "allow") != "allow":
        return (f"{_both('margin')} needs guarantee='paper' and ties='allow' (the equivalence halves share each "
                "pair's level with the difference test at alpha/2 per side)")
    return None


def _groups(v: Mapping[str, Any]) -> str | None:
    if v.get("alpha_across_groups") and v.get("group_by") is None:
        return f"{_both('alpha_across_groups')} splits alpha over the groups of {_both('group_by')}: give group_by"
    return None


def _margin_top_k(v: Mapping[str, Any]) -> str | None:
    if v.get("margin") is not None and v.get("top_k") is not None:
        return (f"{_both('margin', 'top_k')} together are not supported: Top-k certification uses the whole "
                "level")
    return None


def _proxy_rule(v: Mapping[str, Any]) -> str | None:
    given = [n for n in ("proxy_x", "proxy_y", "label_rate") if v.get(n) is not None]
    if not given:
        return None
    if len(given) < 3:
        missing = [n for n in ("proxy_x", "proxy_y", "label_rate") if n not in given]
        return (f"a proxy-assisted comparison needs proxy_x, proxy_y and label_rate; missing: "
                f"{', '.join(missing)}")
    refused = [n for n, default in (("bettor", None), ("bins", "progress"), ("arms", "paired"),
                                    ("extendable", False)) if v.get(n, default) not in (default, None)]
    if refused:
        return (f"{_both(*refused)} {'shapes' if len(refused) == 1 else 'shape'} the real-only tests; the "
                "proxy-assisted test takes alpha, ties='allow', margin, n_max (the forecast's budget) and futility")
    if v.get("ties", "allow") != "allow":
        return "the proxy-assisted test needs ties='allow' (each direction at alpha/2, valid under exact ties)"
    return None


def _pilot_rule(v: Mapping[str, Any]) -> str | None:
    if v.get("pilot") is not None and v.get("top_k") is None:
        return f"{_both('pilot')} needs {_both('top_k')}: the pilot replicates choose the candidate Top-k set"
    return None


def _stake_rule(v: Mapping[str, Any]) -> str | None:
    stake, method = v.get("stake"), v.get("method") or "bb-edge"
    if stake is None or method in ("bb-edge", "cr-edge") or (stake == "grid" and method == "bfh-e-holm"):
        return None
    return (f"stake={stake!r} (--stake {stake}) applies to methods 'bb-edge' and 'cr-edge'; method {method!r} has "
            "its own stake rule (leave stake unset)")


def _top_k_rule(v: Mapping[str, Any]) -> str | None:
    top_k, models = v.get("top_k"), v.get("models")
    if top_k is not None and models is not None and top_k >= len(models):
        return f"{_both('top_k')} must be smaller than the number of models ({len(models)}), got {top_k}"
    return None


def _pilot_growth_rule(v: Mapping[str, Any]) -> str | None:
    if v.get("pilot") is not None and (v.get("epochs", 1) != 1 or v.get("additions", 0) != 0):
        return "pilot-targeted Top-k (pilot) cannot be combined with benchmark epochs or model additions"
    return None


BOARD_RULES = (Rule(("pilot", "top_k"), _pilot_rule), Rule(("stake", "method"), _stake_rule))
ANYRANK_RULES = (Rule(("gamma", "method", "prior", "heldout_prior_rows"), _gamma_rule),
                 Rule(("prior", "heldout_prior_rows"), _prior_xor_heldout),
                 Rule(("budget", "bins", "n_max", "arms", "statistic", "concentration"), _budget_rule),
                 Rule(("statistic", "arms"), _barnard_rule), Rule(("budget", "bins", "n_max"), _exact_limit))
RANKER_RULES = tuple(r for r in ANYRANK_RULES if "heldout_prior_rows" not in r.names or "gamma" in r.names)

ANYRANK_OPTIONS = (GRAPH, FORWARD, SPLIT, ANYRANK_BETTOR, BINS_P, CLOSURE, ADVANTAGE_TOL, BUDGET, ARMS_P,
                   CONCENTRATION, STATISTIC)
#: data in hand (a file or a table, spec 09 §6): None = chosen from the whole table before it is read
#: (certirank.methods.plan); a live Ranker or campaign never infers its scale, so only whole-data verbs take None
WHOLE_DATA = {"bins": BINS_P.but(constraint=Choice(BINS, none=True),
                                 help="score bins: binary (0/1) or progress (0, 0.1, ..., 1); default: binary when "
                                      "every value of the whole table is 0 or 1"),
              "arms": ARMS_P.but(constraint=Choice(ARMS, none=True),
                                 help="exact budget test: paired (valid for any correlation) or independent arms; "
                                      "default: from the layout (outcome lists, long tables without environments: "
                                      "independent)")}


# ----------------------------------------------------------------------------------------- verbs
def _verb(name: str, *params: Param, rules: tuple[Rule, ...] = (), options: tuple[str, ...] | None = None) -> Verb:
    return Verb(name, params, rules, options)


_BASELINE_OPTIONS = (
    ALPHA.but(constraint=Real(0.0, 1.0, lo_open=True, hi_open=True, none=True)), TAU, SEED.but(
        constraint=Seed(generator=True, none=True)),
    _p("n_boot", Integer(1, MAX_BOOT), "bootstrap resamples (bt-bootstrap, cbtl)"),
    _p("replicates", Integer(1, none=True), "use the first N replicates"),
    _p("history", Flag(), "also return the edges after every replicate"),
    _p("draws", Choice(DRAWS), "equal scores of a pair: keep as draws, break at random, or drop", renamed=("ties",)),
    _p("use_partials", Flag(), "BT-EM: use partial-success scores"),
    _p("ignore_draws", Flag(), "BT-EM: drop draw rows", renamed=("ignore_ties",)),
    _p("reproduce_quirks", Flag(), "BT-EM: the original code's quirks"),
    _p("seeds", Integer(1, 10_000), "BT-EM: number of EM restarts"),
    _p("n_buckets", Integer(1, 10**6), "BT-EM: task buckets"),
    _p("max_iter", Integer(1, 10**7), "iterations of the BT fit"),
    _p("max_em", Integer(1, 10**6), "BT-EM: EM iterations"),
    _p("tol", Real(0.0, lo_open=True), "convergence tolerance"),
    _p("pseudo_count", Real(0.0), "BT: pseudo-count added to every pair"),
    _p("tie_seed", Seed(generator=True, none=True), "seed of random tie breaks"),
    _p("chunk", Integer(1, 10**7), "resamples per work unit"),
    _p("jobs", Integer(1, 1024), "worker processes (results do not depend on it)"),
    _p("backend", Choice(_registry("certirank._parallel", "BACKENDS"), none=True), "where the tasks run"),
    _p("scheduler", Given("a Dask scheduler address or client"), "the Dask scheduler"),
    _p("progress", Function("a callback progress(done, total)", false=True), "a callable progress(done, total)"),
    POLICY_SUBSET,
    _p("c", Real(0.0, 1.0, lo_open=True), "SERPANT's aGRAPA cap"),
    BLOCKS.but(constraint=Given("'auto', 'items' or a column name")),
    _p("r_star", Real(0.0, lo_open=True), "asymptotic CS tuning (asympcs-bonf)"),
    FORMAT, SCORE_RANGE,
)
BASELINE_NAME = _p("name", Choice(_registry("certirank.baselines", "BASELINES", keys=True),
                                  aliases={"bradley-terry": "bt", "bt-classical": "bt", "davidson": "bt-davidson",
                                                   "btem": "bt-em", "bootstrap-bt": "bt-bootstrap",
                                                   "bt-alpha": "bt-bootstrap"}),
                   "the baseline method (spec 06, spec 04 §12)")

_SIM = (
    _p("scenario", Given("a registered scenario name or a scenario object", none=False), "the simulated world"),
    _p("methods", Given("a method name, a list of them, or a mapping label -> method (or (method, options))",
                        kinds=(str, list, tuple, Mapping), none=False), "the methods compared"),
    _p("reps", Integer(1, 10**7), "Monte-Carlo runs"),
    SEED.but(constraint=Seed()),
    _p("jobs", Integer(1, 1024), "worker processes (results do not depend on it)"),
    _p("method_options", Given("a mapping method -> options", kinds=(Mapping,)), "options for every method"),
    _p("chunk_size", Integer(1, 10**7), "runs per work unit"),
    _p("backend", Choice(_registry("certirank._parallel", "BACKENDS"), none=True), "where the tasks run"),
    _p("scheduler", Given("a Dask scheduler address or client"), "the Dask scheduler"),
    _p("progress", Function("a callback progress(done, total)", false=True), "a callable progress(done, total)"),
    _p("out", PathArg(none=True), "Parquet file for the per-run table"),
)

_RPOSST = (
    _p("matrix", Given("a test matrix (test cases x policies): a path or a table", none=False), "the test matrix"),
    _p("eta", Real(0.0, 1.0, lo_open=True), "CVaR fractile"),
    _p("betas", Given("target temperatures >= 0: a list or comma-separated text", kinds=(str, list, tuple, Iterable)),
       "target temperatures"),
    _p("rounds", Integer(0, 10**7), "solver rounds"),
    _p("k", Integer(1), "the k of k-of-N"),
    _p("n_samples", Integer(1, 10**7), "the N of k-of-N"),
    SEED.but(constraint=Seed(generator=True, none=True)),
)

BY = _p("by", Text(MAX_NAME, "an operator name", none=True), "who ran or recorded it (an operator name)")
NOTE = _p("note", Text(10_000, "text", none=True), "a free note kept with a record")
# the operator's workflow (issue 34): design, tags, faults, notes, amendments, idempotency keys
TAGS = _p("tags", Given("a list of tags (text)", kinds=(list, tuple, str)),
          "labels of a record or fault (the stage a rollout failed at, ...); at init: the declared list")
IDEMPOTENCY_KEY = _p("idempotency_key", Text(200, "a key of printable ASCII", none=True),
                     "a key unique to one write: sent again, nothing more is written and the first answer returned")
CAMPAIGN_TRIAL = _p("trial", Integer(0, 2**62), "a trial number")
CAMPAIGN_SCORE = SCORE.but(constraint=OneOf((Real(), Text(100, "a score written as text (e.g. '0.7' or 'missing')")),
                                            none=True),
                           help="one score (in [0, 1] or the campaign's score range; None or 'missing': the run could "
                                "not be performed)")
SHOWN_AT = _p("shown_at", Integer(0, 2**62, none=True), "the log entry at which a next() that did not remember "
              "showed this rollout (the page sends it back)")
DESIGN = _p("design", Given("the path of a design.toml", kinds=(str, os.PathLike)),
            "a design.toml holding the campaign's settings (locked by its hash)")
_CAMPAIGN_DESIGN = (
    ABOUT.but(constraint=Choice(("policy", "benchmark", "table"), none=True),
              help="what the campaign's claims are about: policy (robot campaigns), benchmark (leaderboards) or, for "
                   "an item campaign, table (one fixed run per model)"),
    TAGS, _p("open_tags", Given("True or False"), "accept tags beyond the declared list"),
    _p("checklist", Given("a list of checklist items (text)", kinds=(list, tuple)), "the rig checklist the page shows"),
    _p("launch", Text(1000, "a command template", none=True),
       "the command that starts a policy, with {checkpoint}, {policy}, {trial}, {environment}"),
    _p("checkpoints", Given("a mapping policy -> checkpoint path"), "each policy's checkpoint path (hidden while "
       "blind)"),
    DESIGN)
_CAMPAIGN_INIT = (
    PATH, POLICIES.but(constraint=Names(2, "policy names", none=True)),
    _p("kind", Choice(("anyrank", "leaderboard", "proxy", "items")), "what a campaign runs: anyrank (rollouts), "
       "leaderboard (runs), proxy (rollouts with a proxy score each and a real score on the trials drawn) or items "
       "(a leaderboard scored item by item, the items drawn toward the undecided pairs)"),
    MODELS.but(constraint=Names(2, "model names", none=True)), ALPHA,
    _p("method", Choice(ANYRANK_METHODS + BBEDGE_METHODS, none=True), "the procedure (by kind; default its first)"),
    PRIOR, GAMMA, N_MAX, TIES_P, GUARANTEE, ENVIRONMENTS, SEED,
    _p("blind", Flag(), "show policies as codes until unblinded"), SCORE_RANGE, BLOCKS, TAU, TOP_K,
    *_CAMPAIGN_DESIGN, BY, LABEL_RATE.but(help="probability with which the campaign draws each trial for a real "
                                               "label (a proxy campaign; seeded, independent of the outcomes)"),
    _p("items", Given("a number of items, a list of item names or a file (one name per line)",
                      kinds=(int, list, tuple, str, os.PathLike)),
       "an item campaign's benchmark items, fixed at init"),
    _p("difficulty", Given("one success rate per item: a list, a mapping item -> rate or an 'item,rate' file",
                           kinds=(list, tuple, Mapping, str, os.PathLike)),
       "an item campaign's per-item success rates from earlier models (speed only), fixed at init"),
    *ANYRANK_OPTIONS)
CAMPAIGN_PROXY = _p("proxy", OneOf((Real(), Text(100, "a proxy score written as text")), none=True),
                    "a proxy campaign's proxy score of one rollout (simulator / world model), in the score range; "
                    "required on every rollout of a proxy campaign")
RECORD_ID = _p("record_id", Integer(1, 2**62, none=True), "a campaign record's id")

GROUPS_RULE = Rule(("group_by", "alpha_across_groups"), _groups)

VERBS: dict[str, Verb] = {v.name: v for v in (
    _verb("anyrank", DATA, ALPHA, ANYRANK_METHOD, PRIOR, GAMMA, N_MAX, TIES_P, GUARANTEE, POLICY_SUBSET, HELDOUT,
          PAIRING, *(WHOLE_DATA.get(p.name, p) for p in ANYRANK_OPTIONS if p is not ADVANTAGE_TOL), TRAJECTORY, FORMAT,
          SCORE_RANGE, *READ,
          MARGIN, FUTILITY, GROUP_BY, ALPHA_ACROSS,
          rules=(*ANYRANK_RULES, Rule(("margin", "guarantee", "ties"), _margin_anyrank), GROUPS_RULE)),
    _verb("Ranker", POLICIES, ALPHA, PRIOR, GAMMA, N_MAX, ANYRANK_METHOD, TIES_P, GUARANTEE, ENVIRONMENTS, SEED,
          *ANYRANK_OPTIONS, MARGIN, rules=(*RANKER_RULES, Rule(("margin", "guarantee", "ties"), _margin_anyrank)),
          options=(*(p.name for p in ANYRANK_OPTIONS), "margin")),
    _verb("load", DATA.but(name="path", help="a file or folder to read, or a table"), FORMAT, SCORE_RANGE,
          _p("sep", Text(10, "a column separator", none=True, minimum=1), "the column separator of a text file"),
          *(_p(n, Text(200, "a column name", none=True), f"the column that holds the {n} (long files)")
            for n in ("policy", "score")),
          *(_p(n, Text(200, "a name", none=True), h) for n, h in (
              ("metric", "lm-eval: the metric read"), ("filter", "lm-eval: the filter read"),
              ("task", "lm-eval, inspect: the task read"), ("scorer", "inspect: the scorer read")))),
    _verb("Ranker.record", POLICY, TRIAL_INDEX, SCORE, AHEAD),
    _verb("Ranker.record_many", _p("runs", Given("a list of (policy, trial_index, score) triples", none=False),
                                   "runs of a live campaign, in the order they finished"), AHEAD,
          _p("until_decided", Flag(), "stop a batch right after the run that brings a new decision")),
    # the simulation fast paths over pre-drawn score arrays (certirank.methods.anyrank.run_campaign[s])
    _verb("run_campaign", _p("scores", Given("an array of scores (n_trials, M)", none=False), "pre-drawn scores"),
          ALPHA, ANYRANK_METHOD, PRIOR, GAMMA, N_MAX, TIES_P, GUARANTEE, POLICY_SUBSET, TRAJECTORY, *ANYRANK_OPTIONS,
          rules=ANYRANK_RULES, options=tuple(p.name for p in ANYRANK_OPTIONS)),
    _verb("run_campaigns", _p("scores", Given("an array of scores (runs, n_trials, M)", none=False),
                              "pre-drawn scores"),
          ALPHA, ANYRANK_METHOD, PRIOR, GAMMA, N_MAX, TIES_P, GUARANTEE, POLICY_SUBSET, TRAJECTORY, *ANYRANK_OPTIONS,
          _p("chunk", Integer(1, 10**7), "campaigns per evidence bank"),
          rules=ANYRANK_RULES, options=tuple(p.name for p in ANYRANK_OPTIONS)),
    _verb("Ranker.extend", N_MAX.but(constraint=Integer(1, 10**9))),
    # the one save/load contract of the live engines (certirank._saved.Saved: Ranker, Leaderboard)
    _verb("Saved.save", PATH),
    _verb("Saved.load", PATH, TRUST_EDITED),
    _verb("compare", SCORES_X.but(constraint=Given("a sequence of scores in [0, 1], or evaluation data (a file "
                                                   "path or a table) with a= and b=", none=False),
                                  help="scores of policy X in trial order, or a table (with a, b)"),
          SCORES_Y.but(constraint=Given("a sequence of scores in [0, 1]", none=True)),
          _p("a", Text(1000, "a policy name", none=True), "policy X (baseline) of a table, or X's name"),
          _p("b", Text(1000, "a policy name", none=True), "policy Y (challenger) of a table, or Y's name"),
          PAIRING, FORMAT, SCORE_RANGE, *READ, ALPHA, EVIDENCE_BETTOR, TIES_P,
          BINS_P.but(constraint=OneOf((Choice(BINS), Given("a sequence of bins in [0, 1]", kinds=(list, tuple))),
                                      none=True),
                     renamed=(), help=WHOLE_DATA["bins"].help + " (a table in hand; sequences: progress)"),
          N_MAX, WHOLE_DATA["arms"], EXTENDABLE, MARGIN, PROXY_X, PROXY_Y, LABEL_RATE, FUTILITY, GROUP_BY,
          ALPHA_ACROSS,
          rules=(Rule(("n_max", "bins", "arms", "extendable"), _compare_budget), Rule(("margin", "ties"), _margin_ties),
                 Rule(("proxy_x", "proxy_y", "label_rate", "bettor", "bins", "arms", "extendable", "ties"),
                      _proxy_rule), GROUPS_RULE)),
    _verb("check", DATA, CLAIMS, ALPHA.but(constraint=Real(0.0, 1.0, lo_open=True, hi_open=True, none=True)),
          EVIDENCE_BETTOR, TIES_P, WHOLE_DATA["bins"].but(renamed=()), FORMAT, SCORE_RANGE, *READ, FAIL_ON_P,
          MARGIN.but(help="non-inferiority margin of the claims written 'A>=B' (mean(A) > mean(B) - margin), fixed "
                          "before the data")),
    _verb("leaderboard", DATA, ALPHA, TAU, BLOCKS, TOP_K, PILOT,
          BBEDGE_METHOD.but(constraint=dataclasses.replace(BBEDGE_METHOD.constraint, none=True),
                            help="the BB-EDGE e-process (spec 04); default: the exact budget test of each pair on a "
                                 "whole single-run binary item table, else bb-edge"), WEIGHTS, OUTPUT, SCORE_RANGE, FORMAT,
          STAKE, *(p for p in _SIM if p.name in ("backend", "jobs", "scheduler")), ABOUT, MARGIN, GROUP_BY,
          ALPHA_ACROSS, BOARD_N_MAX, FUTILITY,
          rules=(*BOARD_RULES, Rule(("margin", "top_k"), _margin_top_k), GROUPS_RULE)),
    _verb("Leaderboard", MODELS, ALPHA, TAU, BLOCKS, WEIGHTS, ITEMS, BBEDGE_METHOD, TOP_K, PILOT, EPOCHS, ADDITIONS,
          OUTPUT, KEEP_HISTORY, BLOCKS_SOURCE, BLOCKS_COLUMN, STAKE,
          *(p for p in _SIM if p.name in ("backend", "jobs", "scheduler")), BOARD_N_MAX, FUTILITY,
          rules=(*BOARD_RULES, Rule(("top_k", "models"), _top_k_rule),
                 Rule(("pilot", "epochs", "additions"), _pilot_growth_rule))),
    _verb("Leaderboard.add_model", _p("name", Text(MAX_NAME, "a model name"), "the new model's name"),
          _p("panels", Given("its scores on every stored replicate: an (R, N) array or a long table", none=False),
             "a new model's scores on every stored replicate")),
    _verb("Leaderboard.expand_benchmark",
          _p("new_items", Given("item names added to the benchmark", kinds=(list, tuple, Iterable), none=False),
             "the items a new benchmark version adds"),
          WEIGHTS, BLOCKS.but(help="block labels of the new items (protocol blocks)")),
    _verb("Leaderboard.add_replicate", _p("panel", Given("a panel (models x items): array, mapping or table",
                                                          none=False), "one replicate's scores"),
          REPLICATE.but(constraint=OneOf((Integer(0), Text(200, "a label")), none=True))),
    _verb("Leaderboard.suggest_items",
          _p("k", Integer(1, 10_000), "how many benchmark items to draw and propose (with replacement, toward the "
                                      "undecided pairs; docs/adaptive-items.md)", option="--suggest-items"),
          SEED.but(constraint=Seed())),
    _verb("baseline", BASELINE_NAME, DATA, *_BASELINE_OPTIONS, options=tuple(p.name for p in _BASELINE_OPTIONS)),
    _verb("preference_graph", DATA, ALPHA, _p("procedure", Choice(PROCEDURES), "the test behind the preference graph"),
          ANYRANK_BETTOR.but(constraint=Choice(_registry("certirank.evidence._core", "BETTORS"))), POLICY_SUBSET,
          FORMAT, _p("model", Choice(_registry("certirank.methods.preferences", "MODELS"),
                                     aliases={"bt": "bradley-terry", "bradley_terry": "bradley-terry",
                                              "pair": "pairwise"}),
                     "the model of battle data: pairwise (each pair on its own battles) or bradley-terry (every "
                     "battle pooled into Bradley-Terry strengths)"), ORDER, SEED.but(constraint=Seed())),
    _verb("table_ranking", DATA, ALPHA, SEED.but(constraint=Seed()), POLICY_SUBSET, FORMAT, SCORE_RANGE),
    _verb("shuffled_ranking", DATA, ALPHA, SEED.but(constraint=Seed()), POLICY_SUBSET, FORMAT, SCORE_RANGE),
    _verb("simulate", *_SIM),
    _verb("compose_test", *_RPOSST, _p("m", Integer(1), "number of test cases chosen"),
          _p("solver", Choice(_registry("certirank.methods.rposst.compose", "SOLVERS"), fold=False),
             "the solver"),
          _p("select", Choice(_registry("certirank.methods.rposst.select", "SELECTS")), "how the design is chosen"),
          _p("variant", Choice(("sequential", "simultaneous")), "which RPOSST variant"),
          _p("candidates", Given("design names", kinds=(list, tuple, str)), "the designs cross-validated"),
          _p("folds", Integer(2, 1000), "cross-validation folds"),
          _p("cv_holdout", Real(0.0, 1.0, lo_open=True, hi_open=True), "held-out share of policies per fold"),
          _p("cv_metric", Choice(("max", "mean")), "cross-validated error: worst or mean"),
          _p("cv_rounds", Integer(1, 10**7, none=True), "solver rounds inside cross-validation"),
          _p("psi", Given("a distribution over policies (array)"), "the policy distribution"),
          _p("rescale", Flag(), "rescale scores to [0, 1] per test case"),
          _p("budget", Integer(1, none=True), "solver budget (exact solvers)"),
          _p("time_limit", Real(0.0, lo_open=True, none=True), "seconds the exact solver may take")),
    _verb("evaluate_test_designs", *_RPOSST,
          _p("m", OneOf((Integer(1), Given("a list of sizes", kinds=(list, tuple)))), "sizes of the test"),
          _p("methods", Given("a method name or a list of them", kinds=(str, list, tuple)), "the designs compared"),
          _p("holdout", Real(0.0, 1.0, lo_open=True, hi_open=True), "held-out share of policies"),
          _p("sets", Integer(1, 10**6), "random holdout sets"),
          _p("top", Integer(1), "designs listed"),
          *(p for p in _SIM if p.name in ("backend", "jobs", "scheduler", "progress"))),
    _verb("Campaign.init", *_CAMPAIGN_INIT, MARGIN,
          rules=(*RANKER_RULES, Rule(("top_k", "models"), _top_k_rule),
                 Rule(("margin", "guarantee", "ties"), _margin_anyrank), Rule(("margin", "top_k"), _margin_top_k)),
          options=(*(p.name for p in ANYRANK_OPTIONS), "margin")),
    _verb("Campaign.open", PATH),
    _verb("Campaign.next", _p("count", Integer(1, 10_000, none=True), "how many runs to hand out"),
          _p("remember", Flag(none=True), "hand the runs out (remembered) or, False, only look (readers, the page); "
                                          "default: remember when this user may write the file")),
    _verb("Campaign.record", POLICY, CAMPAIGN_TRIAL, CAMPAIGN_SCORE, BY, NOTE, AHEAD, SHOWN_AT, TAGS, IDEMPOTENCY_KEY,
          CAMPAIGN_PROXY),
    _verb("Campaign.record_item", ITEM,
          _p("scores", Given("a mapping model -> score in [0, 1], or 'model=score,...' text", kinds=(dict, str)),
             "the scores of exactly the models the draw lists"),
          _p("draw", Integer(1, 2**62, none=True), "the draw number (campaign next); checked when given"),
          BY, NOTE, IDEMPOTENCY_KEY),
    _verb("Campaign.fault", POLICY, CAMPAIGN_TRIAL, _p("reason", Text(200, "a reason"), "why a rollout could not be "
          "judged (e-stop, reset failure, ...)"), BY, NOTE, AHEAD, SHOWN_AT, TAGS, IDEMPOTENCY_KEY),
    _verb("Campaign.note", _p("text", Text(10_000, "a note"), "a free note for the audit trail"), BY, IDEMPOTENCY_KEY),
    _verb("Campaign.add_run", _p("panel", Given("one run's scores: a table or a file path", none=False),
                                 "one replicate's scores"),
          REPLICATE.but(constraint=Integer(1, 2**62, none=True, hint="replicates are numbered from 1, as `campaign "
                                                                     "next` shows")), BY, NOTE, IDEMPOTENCY_KEY),
    _verb("Campaign.undo", RECORD_ID, BY, NOTE, IDEMPOTENCY_KEY),
    _verb("Campaign.status", _p("unblind", Flag(), "show the policies' real names (recorded in the log)"), BY),
    _verb("Campaign.unblind", BY, NOTE, IDEMPOTENCY_KEY),
    _verb("Campaign.amend", _p("changes", Given("a mapping setting -> new value"), "what to amend (n_max, "
          "environments, seed, tags, open_tags, checklist, launch, checkpoints)"),
          _p("reason", Text(10_000, "a reason"), "why the design is amended (kept in the audit trail)"), DESIGN, BY,
          IDEMPOTENCY_KEY),
    _verb("Campaign.plan", _p("count", Integer(1, 1000), "how many blocks of the schedule to show")),
    _verb("Campaign.launch_command", POLICY, CAMPAIGN_TRIAL.but(constraint=Integer(0, 2**62, none=True))),
    _verb("Campaign.export", _p("out", PathArg(), "the file written"), _p("unblind", Flag(), "write real names"), BY),
    _verb("Campaign.records", _p("live_only", Flag(), "only the records not undone")),
    _verb("Campaign.verify", _p("anchor", Text(200, "a head hash", none=True),
                                "a head hash kept outside the file; the log must still contain it")),
    _verb("graph_test", _p("graph", Given("a certirank.multitest.Graph", none=False), "the graph"),
          _p("pvalues", Given("one p-value per hypothesis", none=False), "p-values"), ALPHA),
    _verb("e_holm", _p("evalues", Given("one e-value per hypothesis", none=False), "e-values"), ALPHA,
          _p("log", Flag(), "the values are natural logarithms")),
    _verb("letters", POLICIES.but(constraint=Names(1, "policy names")),
          _p("different_pairs", Given("pairs (a, b) declared different", none=False), "pairs declared different"),
          _p("means", Given("a mapping policy -> mean"), "means that order the letters"),
          _p("sweep", Flag(), "Piepho's sweep of the letter display")),
)}


def declaration(name: str) -> Param:
    """The declaration of a parameter name (the first verb that declares it; shared ones are the same)."""
    for verb in VERBS.values():
        if name in verb.by_name:
            return verb.by_name[name]
    for p in SPEC09:
        if p.name == name:
            return p
    raise KeyError(name)


def validate(verb: str, **values: Any) -> dict[str, Any]:
    """Check `values` against the declaration of `verb` (the CLI's and the tests' way in)."""
    return VERBS[verb].validate(values)


# ============================================================================================ the boundary

def validated(verb: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Validate a public function's arguments against ``VERBS[verb]`` before it runs.

    Old parameter names (``Param.renamed``) are accepted with a DeprecationWarning; declared arguments are
    replaced by their canonical values; ``**options`` may carry only the verb's declared options; every rule
    is checked; then the body runs with those names trusted (the layers below do not check them again).
    """
    decl = VERBS[verb]

    def deco(func: Callable[..., Any]) -> Callable[..., Any]:
        sig = inspect.signature(func)
        var_kw = next((n for n, p in sig.parameters.items() if p.kind is p.VAR_KEYWORD), None)
        renamed = {old: p.name for p in decl.params for old in p.renamed}
        where = func.__qualname__.replace(".__init__", "")

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in renamed.items():
                if old in kwargs:
                    warnings.warn(f"{where}({old}=...) is deprecated and will be removed in certirank 0.3; use "
                                  f"{new}=...", DeprecationWarning, stacklevel=user_stacklevel())
                    if new in kwargs:
                        raise ParameterError(f"{where}() got both {old}= and {new}=")
                    kwargs[new] = kwargs.pop(old)
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError as exc:
                raise ParameterError(f"{where}(): {exc}") from None
            bound.apply_defaults()
            values = dict(bound.arguments)
            extra = dict(values.pop(var_kw, None) or {}) if var_kw else {}
            if decl.options is not None:
                unknown = sorted(set(extra) - set(decl.options))
                if unknown:
                    raise ParameterError(f"unknown option(s) {', '.join(unknown)} of {where}; its options are: "
                                         f"{', '.join(decl.options)}")
            every = {**values, **extra}
            skip = {n for n in every if n in decl.by_name and trusted(n)}
            checked = decl.validate(every, trusted=skip)
            given = {n for n in every if n in decl.by_name and n not in skip}
            if "alpha" in given and checked.get("alpha") is not None:
                warn_alpha(checked["alpha"])
            for n in values:
                if n in checked:
                    bound.arguments[n] = checked[n]
            if var_kw:
                bound.arguments[var_kw] = {n: checked.get(n, v) for n, v in extra.items()}
            with trusting(given):
                return func(*bound.args, **bound.kwargs)

        wrapper.__contract__ = decl  # type: ignore[attr-defined]
        return wrapper

    return deco


def check(verb: str, name: str, value: Any) -> Any:
    """One declared parameter of `verb`, checked (for hot paths that do not take the decorator)."""
    return VERBS[verb].by_name[name].check(value)


__all__ = ["Param", "Rule", "Verb", "VERBS", "SPEC09", "declaration", "validate", "validated", "check",
           "resolve_budget", "refuse"]
