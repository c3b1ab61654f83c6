"""`certirank rank`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from ._common import (ALL_OPT, DATA_ARG, FORMAT_OPT, JSON_OPT, PAIRING_OPT, READ_OPT,
                      SCORE_RANGE_OPT, SHUFFLE_OPT, app, console, deprecated_alias, group_columns, pairing_arg,
                      read_input, read_options, render_groups, render_table_rank, show, shuffle_alias, group_options)
from ._markdown import MARKDOWN_OPT, check_output_flags, emit_or_markdown
from ._options import declared


def ranking_title(res: Any, label: Any) -> str:
    return (f"{label}: AnyRank ({res.method}, {res.guarantee} guarantee), certified at "
            f"{100 * (1 - res.alpha):g}% (alpha = {res.alpha:g})")


def render_anyrank(res: Any, *, title: str, full: bool) -> None:
    """The people-facing output of an AnyRank result (rank and demo), drawn from its Ranking."""
    from ..report.text import MAX_FORECASTS, forecast_sentence, order_sentence, ranking_renderables
    extra = [f"{res.total_samples} trials used in total (mean used = mean over the trials the test used)."]
    extra += [s for s in (forecast_sentence(res, None if full else MAX_FORECASTS),) if s]
    said = order_sentence(res.order)
    show(ranking_renderables(res.ranking, title=title, full=full, width=console.width, n_label="trials",
                             mean_label="mean used", extra=[said, *extra] if said else extra))


def render_preferences(res: Any, *, title: str, full: bool = False) -> None:
    """A certified preference graph: its Ranking through the one text renderer (policies, letters, edges,
    undecided pairs, the guarantee), then the battles of each pair that met."""
    from ..report.text import MAX_ROWS, capped_list, order_sentence, ranking_renderables, table_renderables
    extra = [s for s in (order_sentence(res.order, "battles"),) if s]
    if res.never_met:
        text, left = capped_list([f"{a} vs {b}" for a, b in res.never_met], width=console.width,
                                 lines=None if full else 2)
        extra.append(f"Never met ({len(res.never_met)} pair(s), nothing can be said): {text}"
                     + (f" ... and {left} more." if left else "."))
    show(ranking_renderables(res.ranking, title=title, full=full, width=console.width, mean_label="share",
                             n_label="battles", verb="is preferred to", extra=extra))
    rows = [[p["a"], p["b"], str(p["battles"]), str(p["wins_a"]), str(p["wins_b"]), str(p["draws"]),
             {"a>b": "A > B", "a<b": "B > A"}.get(res.decision(p["a"], p["b"]), "undecided")]
            for p in res.pairs]
    show(table_renderables(["A", "B", "battles", "A won", "B won", "draws", "certified"], rows,
                           left=(0, 1), limit=None if full else MAX_ROWS))


def render_bradley_terry(res: Any, *, title: str, full: bool = False) -> None:
    """A certified Bradley–Terry ranking: its Ranking through the one text renderer, then the strengths (its
    warnings, the asymptotic label first, are printed on stderr like every record's)."""
    from ..report.text import MAX_ROWS, ranking_renderables, table_renderables
    show(ranking_renderables(res.ranking, title=title, full=full, width=console.width, mean_label="share",
                             n_label="battles", verb="is stronger than"))
    st = res.details["strengths"]
    rows = [[name, f"{v['theta']:+.3f}", f"{v['se']:.3f}"] for name, v in sorted(st.items(),
                                                                                 key=lambda kv: -kv[1]["theta"])]
    show(table_renderables(["player", "log-strength", "se"], rows, left=(0,), limit=None if full else MAX_ROWS))


_READ = read_options("anyrank")
_GROUP = group_options("anyrank")


def refuse_with_table(**given: bool) -> None:
    """--about table runs its own test (sampling without replacement); other tests' options would be dropped."""
    _refuse("with --about table (a without-replacement test of the table's averages, with its own bettor)", **given)


def _refuse(where: str, **given: bool) -> None:
    used = [f"--{k.replace('_', '-')}" for k, v in given.items() if v]
    if used:
        from ..errors import ParameterError
        raise ParameterError(f"{', '.join(used)} {'does' if len(used) == 1 else 'do'} not apply {where}")


@app.command("rank")
def rank_cmd(data: Path = DATA_ARG,
             alpha: float = typer.Option(0.05, "--alpha", help="Family-wise error rate of the whole ranking."),
             method: str = typer.Option("anyrank", "--method", help="anyrank, anyrank0, anyrank-inf, bonferroni, "
                                        "weighted-bonferroni."),
             prior: Optional[Path] = typer.Option(None, "--prior", help="Prior means: JSON {policy: mean} or CSV "
                                                  "'policy,mean'. Fixed before the data."),
             prior_means: Optional[str] = typer.Option(None, "--prior-means", help="Prior means inline, e.g. "
                                                       "'p=0.3,q=0.5'."),
             gamma: float = typer.Option(1.0, "--gamma", help="Prior strength (>= 0)."),
             n_max: Optional[int] = typer.Option(None, "--n-max", help="Per-comparison trial budget (default: the "
                                                 "rows in hand)."),
             nmax: Optional[int] = typer.Option(None, "--nmax", hidden=True, help="Deprecated: --n-max."),
             ties: str = typer.Option("allow", "--ties", help="allow (valid under exact ties) or assume_none "
                                      "(the papers' setting)."),
             guarantee: str = typer.Option("paper", "--guarantee", help="paper or strict (directional graph)."),
             heldout_prior_rows: int = typer.Option(0, "--heldout-prior-rows", help="Use the first N rows as the "
                                                    "prior and remove them from the test."),
             bins: Optional[str] = typer.Option(None, "--bins", help="Score bins: progress (partial credit, "
                                                "0, 0.1, ..., 1) or binary; default: binary when every value of the "
                                                "file is 0 or 1 (then the exact budget test with the rows in hand as "
                                                "its budget)."),
             metric: Optional[str] = typer.Option(None, "--metric", hidden=True, help="Deprecated: --bins."),
             pairing: str = PAIRING_OPT,
             budget: str = typer.Option("auto", "--budget", help="Per-comparison test: auto (the exact budget test "
                                        "when --bins binary and --n-max are given, else none), none (anytime "
                                        "e-process), final or extendable (exact budget test, spec 08)."),
             arms: Optional[str] = typer.Option(None, "--arms", help="Exact budget test calibration: paired (valid "
                                                "for any correlation) or independent (rollouts of the policies "
                                                "independent); default: from the layout (outcome lists and long "
                                                "tables without environments are independent)."),
             statistic: Optional[str] = typer.Option(None, "--statistic", help="Exact budget test statistic: bayes "
                                                     "(fastest decisions; default from --n-max 500), mixture "
                                                     "(more power at the budget; default below 500) or barnard "
                                                     "(both success counts; default with --arms independent)."),
             about: Optional[str] = _READ["about"], order: str = _READ["order"], seed: int = _READ["seed"],
             order_by: Optional[str] = _READ["order_by"], orders: int = _READ["orders"],
             shuffle: Optional[int] = SHUFFLE_OPT,
             group_by: Optional[str] = _GROUP["group_by"],
             alpha_across_groups: bool = _GROUP["alpha_across_groups"],
             format: Optional[str] = FORMAT_OPT, score_range: Optional[str] = SCORE_RANGE_OPT,
             read_option: list[str] = READ_OPT,
             plot: Optional[Path] = typer.Option(None, "--plot", help="Write the score violins with the certified "
                                                 "letters to FILE.png or FILE.svg."),
             show_all: bool = ALL_OPT,
             margin: Optional[float] = declared("margin", None, verb="anyrank",
                                                extra_help="Pairs left open are tested for equivalence at their "
                                                           "own level (FWER over every claim)."),
             futility: float = declared("futility", 0.1, verb="anyrank", extra_help="Used with --n-max."),
             proxy: Optional[str] = typer.Option(None, "--proxy", help="Column of a long file holding every row's "
                                                 "proxy score (simulator, world model, LLM judge); the score is "
                                                 "blank where no real label was drawn. Needs --label-rate; every "
                                                 "pair is tested at alpha/K (Bonferroni over the K pairs)."),
             label_rate: Optional[float] = declared("label_rate", None, verb="compare", extra_help="With --proxy."),
             model: str = typer.Option("pairwise", "--model", help="Battle / preference data: pairwise (each pair "
                                       "tested on its own battles) or bt (Bradley–Terry: every battle pooled; "
                                       "--method asymptotic, the default, or exact)."),
             draws: Optional[str] = typer.Option(None, "--draws", help="--model bt: half (a draw is half a win "
                                                 "each; default), davidson (modelled) or drop."),
             home: bool = typer.Option(False, "--home", help="--model bt: model an advantage of the first-named "
                                       "side (home team, first position)."),
             every: Optional[int] = typer.Option(None, "--every", help="--model bt: battles between checkpoints "
                                                 "(default 100)."),
             as_json: bool = JSON_OPT, markdown: bool = MARKDOWN_OPT) -> None:
    """Certified ranking of policies from recorded trials (AnyRank), read in a seeded random order; for battle /
    preference data, the certified preference graph."""
    check_output_flags(as_json, markdown)
    about, seed = shuffle_alias(shuffle, about, seed)
    about = about or "policy"
    if about == "benchmark":
        from ..errors import ParameterError
        raise ParameterError("rank's claims are about the policies (--about policy) or these rows (--about table); "
                             "claims about a fixed item set over repeated runs are `certirank leaderboard`'s")
    from ..methods.anyrank.demo import compute_ranking
    n_max = deprecated_alias(n_max, nmax, "--nmax", "--n-max")
    bins = deprecated_alias(bins, metric, "--metric", "--bins")
    if plot is not None:
        from ..report.cli import check_plot_path
        check_plot_path(plot)
    pair = pairing_arg(pairing)
    cols = group_columns(group_by, alpha_across_groups, "anyrank")
    from .._validate import check_choice
    model = check_choice("--model", {"bradley-terry": "bt", "bradley_terry": "bt"}.get(model.strip().lower(),
                                                                                       model.strip().lower()),
                         ("pairwise", "bt"))
    bt_given = dict(draws=draws is not None, home=home, every=every is not None)
    bt_method = None
    if model == "bt":
        bt_method = "asymptotic" if method == "anyrank" else method
        if bt_method not in ("asymptotic", "exact"):
            from ..errors import ParameterError
            raise ParameterError(f"--model bt takes --method asymptotic (default) or exact, not {method!r}")
    else:
        _refuse("without --model bt", **bt_given)
    anyrank_options = dict(method=method != "anyrank" and model != "bt", prior=prior is not None, prior_means=prior_means is not None,
                           gamma=gamma != 1.0, n_max=n_max is not None, ties=ties != "allow",
                           guarantee=guarantee != "paper", heldout_prior_rows=heldout_prior_rows != 0,
                           bins=bins is not None, budget=budget != "auto", arms=arms is not None,
                           statistic=statistic is not None, margin=margin is not None,
                           futility=futility != 0.1)
    if proxy is not None or label_rate is not None:
        from ..methods.proxyfile import label_rate_needed, proxy_rank, read_proxy_file
        from ._common import key_values, parse_score_range
        label_rate_needed(label_rate, proxy)
        opts = {k: v for k, v in anyrank_options.items() if k not in ("n_max", "margin", "futility")}
        _refuse("with --proxy (the proxy-assisted ranking takes --alpha, --margin, --n-max, --futility and the read "
                "order)", **opts, about=about != "policy", orders=orders != 1, group_by=cols is not None,
                pairing=pair != "by_row", plot=plot is not None)
        views = read_proxy_file(data, proxy, format=format, score_range=parse_score_range(score_range),
                                read_options=key_values(read_option, "--read-option"), order=order, seed=seed,
                                order_by=order_by)
        res = proxy_rank(views, label_rate=label_rate, alpha=alpha, margin=margin, n_max=n_max, futility=futility)
        title = (f"{data}: proxy-assisted ranking (Bonferroni over the pairs, label rate {label_rate:g}), certified "
                 f"at {100 * (1 - alpha):g}% (alpha = {alpha:g})")
        emit_or_markdown(res, as_json, markdown, lambda r: render_anyrank(r, title=title, full=show_all),
                         title=title)
        return
    if about == "table":
        refuse_with_table(**anyrank_options, order=order != "random", order_by=order_by is not None,
                          orders=orders != 1)
    table = read_input(data, format, score_range, read_option)

    if model == "bt" and table.attrs.get("format") != "preferences":
        from ..errors import ParameterError
        raise ParameterError("--model bt ranks battles (A,B,preference or model_a,model_b,winner); these are "
                             "per-trial scores")
    if table.attrs.get("format") == "preferences":
        from ..errors import ParameterError
        from ..methods.preferences import preference_graph
        if cols is not None:
            raise ParameterError("--group-by is not available for preference tables (they keep only the two "
                                 "policies and the preference of each battle)")
        if plot is not None:
            raise ParameterError("--plot draws score violins; preference data has no per-trial scores")
        # the preference graph has its own test: AnyRank's options would be dropped without a word
        _refuse("to preference data (the certified preference graph has its own test)", about=about != "policy",
                pairing=pair != "by_row", order_by=order_by is not None, orders=orders != 1, **anyrank_options)
        if model == "bt":
            bt = {k: v for k, v in dict(method=bt_method, draws=draws, home=home, every=every).items()
                  if v is not None}
            res = preference_graph(table, alpha, model="bradley-terry", order=order, seed=seed, **bt)
            title = (f"{data}: certified Bradley–Terry ranking ({res.method}), {res.n_battles} battles "
                     f"(alpha = {res.alpha:g})")
            emit_or_markdown(res, as_json, markdown, lambda r: render_bradley_terry(r, title=title, full=show_all),
                             title=title)
            return
        res = preference_graph(table, alpha, order=order, seed=seed)
        title = f"{data}: certified preference graph, {res.n_battles} battles (alpha = {res.alpha:g})"
        emit_or_markdown(res, as_json, markdown, lambda r: render_preferences(r, title=title, full=show_all),
                         title=title)
        return

    if about == "table":
        from ..errors import ParameterError
        from ..methods.shuffled import table_ranking
        if plot is not None or pair != "by_row":
            raise ParameterError("--about table reads whole rows (paired by environment); it cannot be combined "
                                 "with --plot or --pairing by-order")

        def averages(tab, level):  # noqa: ANN001, ANN202
            return table_ranking(tab, level, seed=seed)

        if cols is not None:
            from ..methods.anyrank import anyrank
            res = anyrank(table, alpha, about="table", seed=seed, group_by=cols,
                          alpha_across_groups=alpha_across_groups)
            title = f"{data}: table averages (random order, seed {seed}) in {len(res.groups)} groups of " \
                    f"{', '.join(cols)}"
            emit_or_markdown(res, as_json, markdown, lambda r: render_groups(r, title), title=title)
        else:
            title = f"{data}: table averages, rows read in a random order (seed {seed}), tested without replacement"
            emit_or_markdown(averages(table, alpha), as_json, markdown,
                             lambda r: render_table_rank(r, title, full=show_all), title=title)
        return

    opts = dict(method=method, prior=prior, prior_means=prior_means, gamma=gamma, n_max=n_max, ties=ties,
                guarantee=guarantee, heldout_prior_rows=heldout_prior_rows, bins=bins, pairing=pair, budget=budget,
                arms=arms, statistic=statistic, order=order, seed=seed, order_by=order_by, orders=orders,
                margin=margin, futility=futility)
    if cols is not None:
        if plot is not None:
            from ..errors import ParameterError
            raise ParameterError("--plot draws one ranking; it cannot be combined with --group-by")
        res = compute_ranking(table, alpha=alpha, **opts, group_by=cols, alpha_across_groups=alpha_across_groups)
        title = f"{data}: AnyRank ({method}) in {len(res.groups)} groups of {', '.join(cols)}"
        emit_or_markdown(res, as_json, markdown, lambda r: render_groups(r, title), title=title)
        return
    res = compute_ranking(table, alpha=alpha, **opts)
    emit_or_markdown(res, as_json, markdown, lambda r: render_anyrank(r, title=ranking_title(r, data), full=show_all),
                     title=f"{data}: AnyRank ({res.method}, {res.guarantee} guarantee), alpha = {res.alpha:g}")
    if plot is not None:
        from ..report.cli import save_plot
        save_plot(res, plot, data=table, console=None if (as_json or markdown) else console)
