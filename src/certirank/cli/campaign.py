"""`certirank campaign ...`: a live campaign in one SQLite file (a thin shell over certirank.Campaign)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import typer
from rich.table import Table
from rich.text import Text

from ._common import JSON_OPT, app, console, emit, one_line, parse_score_range

campaign_app = typer.Typer(help="Live evaluation campaigns: what to run next, record it, can I stop? "
                           "(one SQLite file; safe for several operators at once)", no_args_is_help=True)
app.add_typer(campaign_app, name="campaign")

DB_ARG = typer.Argument(..., help="The campaign file (SQLite).")
BY_OPT = typer.Option(None, "--by", help="Operator name for the audit trail (default: $CERTIRANK_OPERATOR, else "
                      "the login name).")
NOTE_OPT = typer.Option(None, "--note", help="Free text kept with the entry.")


def _names(text: str | None, what: str) -> list[str] | None:
    from ..errors import ParameterError
    if text is None:
        return None
    names = [p.strip() for p in text.split(",")]
    if names and not names[-1]:  # a trailing comma is a habit, not a name
        names.pop()
    empty = [i + 1 for i, p in enumerate(names) if not p]
    if empty:
        raise ParameterError(f"{what} {text!r}: name {empty[0]} is empty (names are separated by single commas)")
    return names


def _read_environments(path: Path) -> list[str]:
    from ..errors import ParameterError
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise ParameterError(f"environments file {path} is not a UTF-8 text file (one environment name per line)"
                             ) from None
    except OSError as exc:
        raise ParameterError(f"cannot read environments file {path}: {exc.strerror or exc}") from None
    envs = [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    if not envs:
        raise ParameterError(f"environments file {path} lists no environment (one name per line)")
    return envs


def _open(db: Path) -> Any:
    from ..campaign import Campaign
    return Campaign.open(db)


@campaign_app.command("init")
def init_cmd(db: Path = DB_ARG,
             policies: str | None = typer.Option(None, "--policies", help="Policies to rank, comma-separated."),
             kind: str = typer.Option("anyrank", "--kind", help="anyrank (robot rollouts, default) or leaderboard "
                                      "(BB-EDGE: whole runs of every model)."),
             models: str | None = typer.Option(None, "--models", help="Leaderboard models, comma-separated."),
             alpha: float = typer.Option(0.05, "--alpha", help="Family-wise error rate of the whole answer."),
             method: str | None = typer.Option(None, "--method", help="AnyRank: anyrank, anyrank0, anyrank-inf, "
                                                  "bonferroni, weighted-bonferroni. Leaderboard: bb-edge, "
                                                  "bfh-e-holm, cr-edge, bb-edge-pi."),
             prior: Path | None = typer.Option(None, "--prior", help="Prior means: JSON {policy: mean} or CSV "
                                                  "'policy,mean', fixed now."),
             gamma: float = typer.Option(1.0, "--gamma", help="Prior strength (>= 0)."),
             n_max: int | None = typer.Option(None, "--n-max", help="Per-comparison budget of paired trials "
                                                 "(default 5000)."),
             ties: str = typer.Option("allow", "--ties", help="allow or assume_none."),
             guarantee: str = typer.Option("paper", "--guarantee", help="paper or strict."),
             bins: str | None = typer.Option(None, "--bins", help="progress (partial credit; default) or binary: the "
                                             "scale, declared now (a campaign never infers it from what it "
                                             "records)."),
             metric: str | None = typer.Option(None, "--metric", hidden=True, help="Deprecated: --bins."),
             budget: int | None = typer.Option(None, "--budget", help="The design's budget: at most N rollouts per "
                                                "policy in each comparison. With binary scores the exact budget "
                                                "test, valid at every stop up to N (the same as --n-max N "
                                                "otherwise)."),
             arms: str | None = typer.Option(None, "--arms", help="paired (default: trial r of every policy runs on "
                                             "the same environment) or independent (separate rollouts, e.g. a blind "
                                             "A/B study); independent needs binary scores and --budget."),
             environments: Path | None = typer.Option(None, "--environments", help="File with one environment "
                                                         "name per line; each trial's environment is drawn from it."),
             seed: int | None = typer.Option(None, "--seed", help="Seed of the environment draws and blind codes."),
             blind: bool = typer.Option(False, "--blind", help="Show a stable code per policy instead of its name."),
             score_range: str | None = typer.Option(None, "--score-range", help="Declared raw score range "
                                                       "'lo,hi' (rescaled to [0, 1])."),
             blocks: str | None = typer.Option(None, "--blocks", help="Leaderboard: items or replicate."),
             tau: float = typer.Option(0.0, "--tau", help="Leaderboard margin."),
             top_k: int | None = typer.Option(None, "--top-k", help="Leaderboard: certify a Top-k set."),
             by: str | None = BY_OPT, as_json: bool = JSON_OPT) -> None:
    """Create a campaign file; its configuration is locked from now on."""
    from ..campaign import Campaign
    from ..methods.anyrank.demo import read_prior_file
    from ._common import deprecated_alias
    bins = deprecated_alias(bins, metric, "--metric", "--bins")
    bins = "progress" if bins is None else bins  # '' is refused as a choice, not taken as the default
    options = {} if bins == "progress" else {"bins": bins}
    n_max, design = _design(budget, n_max, arms, bins, environments)
    options.update(design)
    with Campaign.init(db, _names(policies, "--policies"), kind=kind, models=_names(models, "--models"),
                       alpha=alpha, method=method, prior=None if prior is None else read_prior_file(prior),
                       gamma=gamma, n_max=n_max, ties=ties, guarantee=guarantee,
                       environments=None if environments is None else _read_environments(environments), seed=seed,
                       blind=blind, score_range=parse_score_range(score_range), blocks=blocks, tau=tau, top_k=top_k,
                       by=by, **options) as c:
        info = {"path": str(db), "kind": c.kind, "policies": c.policies, "blind": c.blind,
                "config_sha256": c.config_sha256, "config": c.config if not c.blind else
                {k: v for k, v in c.config.items() if k != "codes"}}

    def render(d: dict[str, Any]) -> None:
        console.print(f"Created {d['kind']} campaign {one_line(d['path'])} with {len(d['policies'])} "
                      f"{'policies' if d['kind'] == 'anyrank' else 'models'}"
                      + (" (blind: codes " + ", ".join(d["policies"]) + ")" if d["blind"] else "") + ".")
        console.print(f"Configuration locked (sha256 {d['config_sha256'][:16]}...). Next: certirank campaign next "
                      f"{_q(Path(d['path']))}", soft_wrap=True)
    emit(info, as_json, render)


def _design(budget: int | None, n_max: int | None, arms: str | None, bins: str,
            environments: Path | None) -> tuple[int | None, dict[str, Any]]:
    """(n_max, Ranker options) from the design declared at init: the budget, the scale and the arms."""
    from ..errors import ParameterError
    from ..methods.anyrank.config import ARMS
    options: dict[str, Any] = {}
    if budget is not None:
        if budget < 1:
            raise ParameterError(f"--budget must be a positive number of rollouts, got {budget}")
        if n_max is not None and n_max != budget:
            raise ParameterError(f"--budget {budget} and --n-max {n_max} disagree: give one (the budget is the "
                                 "per-comparison n_max)")
        n_max = budget
        if bins == "binary":  # a declared, final budget: the campaign never extends it
            options["budget"] = "final"
    if arms is not None:
        key = arms.strip().lower()
        if key not in ARMS:
            raise ParameterError(f"--arms must be one of {', '.join(ARMS)}, got {arms!r}")
        if key == "independent":
            if bins != "binary" or budget is None:
                raise ParameterError("--arms independent is a property of the exact budget test: declare binary "
                                     "scores (--bins binary) and the budget (--budget N)")
            if environments is not None:
                from ._common import err_console
                err_console.print("warning: --arms independent with --environments: trial r of every policy runs on "
                                  "the same environment, so the rollouts are paired; the paired test is valid for any "
                                  "correlation between policies, the independent one assumes none")
        options["arms"] = key
    return n_max, options


@campaign_app.command("next")
def next_cmd(db: Path = DB_ARG, count: int | None = typer.Option(None, "--count", help="At most K rollouts."),
             as_json: bool = JSON_OPT) -> None:
    """The next rollouts to run: policy (or blind code), trial index, environment."""
    with _open(db) as c:
        todo = c.next(count)  # remembered (a suggestion stays valid once handed out) when this user may write
        st = None if todo or c.kind != "anyrank" else c.status()
        blind_now = c.blind and not c.unblinded
        range_text = _range_text(c)
    if as_json:
        # an empty list says nothing on its own: why (what the text's "Nothing to run" line says) goes with it
        emit({"path": str(db), "suggestions": [s.to_dict() for s in todo], "done": bool(st and st.done),
              "termination": st.termination if st else None}, True, lambda d: None)
        return
    if todo and todo[0].kind == "replicate":
        console.print(f"Run every model on the whole benchmark once more (replicate {todo[0].trial}), then: "
                      f"certirank campaign add-run {_q(db)} RUN.csv", markup=False)
        return
    if not todo:
        console.print(f"Nothing to run: the campaign has stopped ({st.termination}). See: certirank campaign status "
                      f"{_q(db)}", markup=False)
        return
    t = Table(title=f"Run next ({len(todo)} rollout{'s' if len(todo) != 1 else ''})")
    has_env = any(s.environment is not None for s in todo)
    for col in ("code" if blind_now else "policy", "trial", *(["environment"] if has_env else [])):
        t.add_column(col)
    for s in todo:
        t.add_row(_cell(s.policy), str(s.trial), *([_cell(s.environment or "")] if has_env else []))
    console.print(t)
    console.print(f"Then: certirank campaign record {_q(db)} {'CODE' if blind_now else 'POLICY'} TRIAL SCORE (score "
                  f"in {range_text}; 'missing' if the run could not be performed)", markup=False)


def _q(path: Path) -> str:
    """A path as a shell word: the printed commands can be pasted as they are."""
    return shlex.quote(str(path))


def _cell(text: Any) -> Text:
    """A name in a rich table cell: markup-free, controls (newlines included) made visible."""
    from .._escape import terminal_text
    return Text(terminal_text(text))


def _range_text(c: Any) -> str:
    rng = c.config.get("score_range")
    return "[0, 1]" if rng is None else f"[{rng[0]:g}, {rng[1]:g}]"


# unknown options pass through as arguments: a score of -2 in a declared range like -5,5 is not an option
@campaign_app.command("record", context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
def record_cmd(ctx: typer.Context, db: Path = DB_ARG,
               policy: str = typer.Argument(..., help="Policy name or blind code."),
               trial: int = typer.Argument(..., help="Trial index (from campaign next)."),
               score: str = typer.Argument(..., help="Score in [0, 1] (or the declared range); 'missing' if the "
                                           "run could not be performed."),
               by: str | None = BY_OPT, note: str | None = NOTE_OPT,
               ahead: bool = typer.Option(False, "--ahead", help="Accept a rollout that was not suggested (run in "
                                          "advance)."),
               as_json: bool = JSON_OPT) -> None:
    """Record one rollout (one transaction; refused with the reason, and nothing changes, if it cannot count)."""
    from ..errors import ParameterError
    # what click let through for the sake of negative scores: a mistyped option is still named as one
    stray = [w for w in (policy, score, *ctx.args) if w.startswith("-") and not _is_number(w)]
    if stray or ctx.args:
        what = f"no such option: {stray[0]}" if stray else f"unexpected extra argument(s): {' '.join(ctx.args)}"
        raise ParameterError(f"{what} (see 'certirank campaign record --help')")
    with _open(db) as c:
        rec = c.record(policy, trial, score, by=by, note=note, ahead=ahead)
    emit(rec, as_json, lambda r: console.print(
        f"Recorded entry {r.id}: {one_line(r.policy)} trial {r.trial} score {r.score_text}"
        + (f" by {one_line(r.by)}" if r.by else "") + "."))


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


@campaign_app.command("add-run")
def add_run_cmd(db: Path = DB_ARG, file: Path = typer.Argument(..., help="One complete run: model, item, score."),
                replicate: int | None = typer.Option(None, "--replicate", help="Replicate number (default: next)."),
                by: str | None = BY_OPT, note: str | None = NOTE_OPT, as_json: bool = JSON_OPT) -> None:
    """Record one replicate of a leaderboard campaign (every model on every item)."""
    with _open(db) as c:
        rec = c.add_run(file, replicate=replicate, by=by, note=note)
    emit(rec, as_json, lambda r: console.print(f"Recorded entry {r.id}: replicate {r.trial} from {one_line(file)}."))


@campaign_app.command("status")
def status_cmd(db: Path = DB_ARG, as_json: bool = JSON_OPT,
               plot: Path | None = typer.Option(None, "--plot", help="Draw the confidence graph to FILE.png or "
                                                   "FILE.svg."),
               unblind: bool = typer.Option(False, "--unblind", help="Show policy names (logged in the audit "
                                            "trail)."),
               by: str | None = BY_OPT) -> None:
    """The certified ranking now, rollouts used, whether every pair is decided, and the budget left."""
    if plot is not None:
        from ..report.cli import check_plot_path
        check_plot_path(plot)
    with _open(db) as c:
        st = c.status(unblind=unblind, by=by)
    emit(st, as_json, _render_status)
    if plot is not None:
        from ..report.cli import save_plot
        save_plot(st.ranking, plot, console=None if as_json else console)


def _render_status(st: Any) -> None:
    if st.kind == "anyrank":
        from .rank import render_anyrank
        render_anyrank(st.ranking, title=f"{st.path}: certified ranking after {st.records} rollouts"
                       + (" (blind codes)" if st.blind and not st.unblinded else ""), full=False)
        # recorded, not used: rollouts run ahead (or not yet paired) count here but not in the table's trials
        console.print("Rollouts recorded: " + ", ".join(f"{p} {n}" for p, n in st.rollouts.items()) + ".")
        rem = st.remaining
        if st.complete:  # the ranking's text has just said that every pair is decided
            console.print("You can stop: the ranking above is complete.")
        elif st.done:
            console.print(f"The campaign has stopped ({st.termination}); the open pairs stay undecided.")
        else:
            # rollouts, not paired trials: the per-policy numbers add up to the total (status.remaining's meaning)
            console.print(f"{rem['open_pairs']} pair(s) open. To finish: at most {rem['total']} more rollouts "
                          "(" + ", ".join(f"{p} {n}" for p, n in rem["per_policy"].items() if n) + f"; n_max = "
                          f"{rem['n_max']} paired trials per comparison).")
    else:
        res = st.ranking
        t = Table(title=f"{st.path}: {res.method}, {res.replicates} replicate(s), alpha = {res.alpha:g}")
        for col in ("model", "mean", "rank interval", "certified above"):
            t.add_column(col, justify="left" if col == "model" else "right")
        for m in res.models:
            lo, hi = m["rank_interval"]
            t.add_row(m["model"], "-" if m["mean"] is None else f"{m['mean']:.3f}", f"[{lo}, {hi}]",
                      str(m["certified_above"]))
        console.print(t)
        for line in res.sentences():
            console.print(f"  {line}")
        console.print("Every pair is decided." if st.complete else "Some pairs are undecided: add more runs.")
    console.print(f"Test: {st.test}.")
    # the whole head hash: kept somewhere else, it anchors this history (`campaign verify --anchor HASH`)
    console.print(f"Log: {st.records} live record(s), {st.undone} undone; head {st.head_hash}")


@campaign_app.command("undo")
def undo_cmd(db: Path = DB_ARG, record_id: int | None = typer.Argument(None, help="Entry to undo (default: the "
                                                                           "latest record)."),
             by: str | None = BY_OPT, note: str | None = NOTE_OPT, as_json: bool = JSON_OPT) -> None:
    """Mark a record undone (it is kept, with who and when); the ranking is recomputed without it."""
    with _open(db) as c:
        rec = c.undo(record_id, by=by, note=note)
    emit(rec, as_json, lambda r: console.print(
        f"Undid entry {r.id}"
        + (f" ({one_line(r.policy)} trial {r.trial}, score {r.score_text})"
           if r.policy else f" (replicate {r.trial})") + f" as entry {r.undone_by}; the ranking is recomputed."))


@campaign_app.command("log")
def log_cmd(db: Path = DB_ARG, as_json: bool = JSON_OPT) -> None:
    """The audit trail: every record, undo and unblinding, with who and when."""
    with _open(db) as c:
        lg = c.log()

    def render(lg: Any) -> None:
        t = Table(title=f"{lg.path}: created {lg.created_at}" + (f" by {lg.created_by}" if lg.created_by else ""))
        for col in ("entry", "at", "by", "action", "policy", "trial", "score", "note"):
            t.add_column(col)
        for e in lg.entries:
            if e.action == "record":
                what = "record" + (" (ahead)" if e.ahead else "") + (f", undone by {e.undone_by}" if e.undone_by else "")
                sc = e.score_text
            else:
                what = f"undo {e.target}" if e.action == "undo" else e.action
                sc = ""
            t.add_row(str(e.id), e.at, _cell(e.by or ""), what, _cell(e.policy or ""),
                      "" if e.trial is None else str(e.trial), sc, Text(e.note or ""))
        console.print(t)
    emit(lg, as_json, render)


@campaign_app.command("export")
def export_cmd(db: Path = DB_ARG, out: Path = typer.Argument(..., help="OUT.csv or OUT.parquet."),
               unblind: bool = typer.Option(False, "--unblind", help="Write policy names instead of blind codes "
                                            "(unblinds the campaign, logged in the audit trail)."),
               by: str | None = BY_OPT, as_json: bool = JSON_OPT) -> None:
    """Write the long table of live records; `certirank rank` on it gives the same certified result."""
    with _open(db) as c:
        res = c.export(out, unblind=unblind, by=by)
    emit(res, as_json, lambda r: console.print(f"Wrote {r.rows} rows to {one_line(r.path)}. Replay: {r.rank_command}",
                                               soft_wrap=True))


@campaign_app.command("verify")
def verify_cmd(db: Path = DB_ARG, as_json: bool = JSON_OPT,
               anchor: str | None = typer.Option(None, "--anchor", help="A head hash kept outside the file (from an "
                                                 "earlier `campaign status`): the log must still contain it, which "
                                                 "an older copy of the file cannot.")) -> None:
    """Recompute everything from the records and compare (integrity, config lock, hash chain, checkpoint).

    Exit code 0 if every check passes, 1 if one fails."""
    from ..campaign import Campaign
    # a changed configuration or head is a failed check (exit 1), not a refusal
    with Campaign(db, _check_config=False) as c:
        rep = c.verify(anchor=anchor)

    def render(r: Any) -> None:
        for ch in r.checks:
            console.print(f"{'ok  ' if ch.ok else 'FAIL'} {ch.name}" + (f": {ch.detail}" if ch.detail else ""))
        console.print(f"{r.path}: {'verified' if r.ok else 'VERIFICATION FAILED'} ({r.records} live records).")
    emit(rep, as_json, render)
    if not rep.ok:
        raise typer.Exit(1)
