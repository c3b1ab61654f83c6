"""`certirank campaign ...`: a live campaign in one SQLite file (a thin shell over certirank.Campaign)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import typer
from rich.table import Table
from rich.text import Text

from ._common import JSON_OPT, app, console, emit, err_console, one_line, parse_score_range
from .._validate import is_number_text
from ._options import declared

campaign_app = typer.Typer(help="Live evaluation campaigns: what to run next, record it, can I stop? "
                           "(one SQLite file; safe for several operators at once)", no_args_is_help=True)
app.add_typer(campaign_app, name="campaign")

DB_ARG = typer.Argument(..., help="The campaign file (SQLite).")
BY_OPT = typer.Option(None, "--by", help="Operator name for the audit trail (default: $CERTIRANK_OPERATOR, else "
                      "the login name).")
NOTE_OPT = typer.Option(None, "--note", help="Free text kept with the entry.")
KEY_OPT = typer.Option(None, "--idempotency-key", help="A key unique to this write (a UUID): sent again, the write is "
                       "not repeated and prints the first answer (for scripts that retry).")


def _names(text: str | None, what: str) -> list[str] | None:
    from ..errors import ParameterError
    if text is None:
        return None
    names = [p.strip() for p in text.split(",")]
    if names and not names[-1]:  # a trailing comma is a habit, not a name
        names.pop()
    if not names:
        raise ParameterError(f"{what} {text!r} names nothing: give comma-separated names")
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
def init_cmd(ctx: typer.Context, db: Path = DB_ARG,
             policies: str | None = typer.Option(None, "--policies", help="Policies to rank, comma-separated."),
             kind: str = typer.Option("anyrank", "--kind", help="anyrank (robot rollouts, default), leaderboard "
                                      "(BB-EDGE: whole runs of every model), proxy (rollouts with a proxy score "
                                      "each; implied by --label-rate) or items (a leaderboard scored item by item, "
                                      "the items drawn toward the undecided pairs)."),
             models: str | None = typer.Option(None, "--models", help="Leaderboard models, comma-separated."),
             alpha: float = typer.Option(0.05, "--alpha", help="Family-wise error rate of the whole answer."),
             method: str | None = typer.Option(None, "--method", help="AnyRank: anyrank, anyrank0, anyrank-inf, "
                                                  "bonferroni, weighted-bonferroni. Leaderboard: bb-edge, "
                                                  "bfh-e-holm, cr-edge, bb-edge-pi."),
             prior: Path | None = typer.Option(None, "--prior", help="Prior means: JSON {policy: mean} or CSV "
                                                  "'policy,mean', fixed now."),
             gamma: float = typer.Option(1.0, "--gamma", help="Prior strength (>= 0)."),
             n_max: int | None = typer.Option(None, "--n-max", help="Per-comparison budget of paired trials "
                                                 "(default 5000); with --kind leaderboard, the budget of replicates "
                                                 "(whole runs; default none): a run beyond it is refused, and open "
                                                 "pairs unlikely to be decided within it are shown futile."),
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
             design: Path | None = typer.Option(None, "--design", help="Read the design from a TOML file (keys: "
                                                "the options' names, e.g. policies, alpha, n_max, environments, "
                                                "tags, checklist, launch, [checkpoints]); its SHA-256 is locked."),
             about: str | None = typer.Option(None, "--about", help="The estimand: policy (robot campaigns) or "
                                              "benchmark (leaderboards); an item campaign: benchmark (fresh runs, "
                                              "default) or table (one fixed run per model)."),
             items: str | None = typer.Option(None, "--items", help="Item campaign: the benchmark's items, a FILE "
                                              "with one name per line or a number N (items 0..N-1); fixed now."),
             difficulty: Path | None = typer.Option(None, "--difficulty", help="Item campaign: a CSV 'item,rate' of "
                                                    "each item's success rate from earlier models (speed only); "
                                                    "fixed now, before the data."),
             tags: str | None = typer.Option(None, "--tags", help="Tags a record may carry (failure stages, ...), "
                                             "comma-separated: a closed list unless --open-tags."),
             open_tags: bool = typer.Option(False, "--open-tags", help="Accept tags beyond --tags too."),
             checklist: Path | None = typer.Option(None, "--checklist", help="File with the rig checklist, one "
                                                   "item per line (shown on the page)."),
             launch: str | None = typer.Option(None, "--launch", help="Command template that starts a policy, "
                                               "e.g. 'python serve.py --ckpt {checkpoint}' (fields {checkpoint}, "
                                               "{policy}, {trial}, {environment})."),
             checkpoint: list[str] | None = typer.Option(None, "--checkpoint", help="POLICY=PATH, once per policy: "
                                                         "what {checkpoint} becomes (kept in the file, hidden "
                                                         "from a blind operator)."),
             margin: float | None = declared("margin", None, verb="Campaign.init",
                                             extra_help="Status and page show the pairs certified equivalent "
                                                        "(a leaderboard splits alpha in half between edges and "
                                                        "equivalence claims, as `leaderboard --margin`)."),
             label_rate: float | None = declared("label_rate", None, verb="Campaign.init",
                                                 extra_help="A proxy campaign: every rollout records a proxy "
                                                            "(simulator / world model) score, and the trials the "
                                                            "campaign draws (seeded by --seed) a real score too."),
             by: str | None = BY_OPT, as_json: bool = JSON_OPT) -> None:
    """Create a campaign file; its design is locked (by hash) from now on: only amendments that keep the
    guarantee may change it (campaign amend)."""
    from ..campaign import Campaign
    from ..errors import ParameterError
    from ..methods.anyrank.demo import read_prior_file
    if design is not None:
        # typer may bring its own copy of click: its ParameterSource is compared by name
        given = [p.opts[0] for p in ctx.command.params if p.name not in ("db", "design", "by", "as_json")
                 and getattr(ctx.get_parameter_source(p.name), "name", "") == "COMMANDLINE"]
        if given:
            raise ParameterError(f"{given[0]} is given beside --design {design}: a locked design has one home for "
                                 "each setting; put it in the design file")
    from ._common import deprecated_alias
    bins = deprecated_alias(bins, metric, "--metric", "--bins")
    bins = "progress" if bins is None else bins  # '' is refused as a choice, not taken as the default
    options = {} if bins == "progress" else {"bins": bins}
    n_max, declared = _design(budget, n_max, arms, bins, environments)
    options.update(declared)
    if margin is not None:
        options["margin"] = margin
    with Campaign.init(db, _names(policies, "--policies"), kind=kind, models=_names(models, "--models"),
                       alpha=alpha, method=method, prior=None if prior is None else read_prior_file(prior),
                       gamma=gamma, n_max=n_max, ties=ties, guarantee=guarantee,
                       environments=None if environments is None else _read_environments(environments), seed=seed,
                       blind=blind, score_range=parse_score_range(score_range), blocks=blocks, tau=tau, top_k=top_k,
                       about=about, tags=_names(tags, "--tags"), open_tags=open_tags or None,
                       checklist=None if checklist is None else _read_lines(checklist, "checklist"),
                       launch=launch, checkpoints=_pairs(checkpoint, "--checkpoint"), design=design,
                       by=by, label_rate=label_rate, items=items, difficulty=difficulty,
                       **options) as c:
        info = {"path": str(db), "kind": c.kind, "policies": c.policies, "blind": c.blind,
                "config_sha256": c.config_sha256, "design": c.design.to_dict(), "config": _shown_config(c)}

    def render(d: dict[str, Any]) -> None:
        console.print(f"Created {d['kind']} campaign {one_line(d['path'])} with {len(d['policies'])} "
                      f"{'models' if d['kind'] in ('leaderboard', 'items') else 'policies'}"
                      + (" (blind: codes " + ", ".join(d["policies"]) + ")" if d["blind"] else "") + ".")
        src = d["design"].get("source")
        console.print(f"Design locked (sha256 {d['config_sha256'][:16]}..."
                      + (f"; {one_line(src['file'])} sha256 {src['sha256'][:16]}..." if src else "")
                      + f"). Next: certirank campaign next {_q(Path(d['path']))}", soft_wrap=True)
    emit(info, as_json, render)


def _shown_config(c: Any) -> dict[str, Any]:
    """The configuration as `init --json` prints it: a blind campaign's codes and checkpoint paths left out
    (they would tell which code is which policy)."""
    if not c.blind:
        return c.config
    out = {k: v for k, v in c.config.items() if k != "codes"}
    if out.get("design"):
        out["design"] = {**out["design"], "checkpoints": None}
    return out


def _read_lines(path: Path, what: str) -> list[str]:
    from ..errors import ParameterError
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise ParameterError(f"{what} file {path} is not a UTF-8 text file (one item per line)") from None
    except OSError as exc:
        raise ParameterError(f"cannot read {what} file {path}: {exc.strerror or exc}") from None
    return [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]


def _pairs(items: list[str] | None, what: str) -> dict[str, str] | None:
    """NAME=VALUE words (repeatable option) as a mapping."""
    from ..errors import ParameterError
    if not items:
        return None
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ParameterError(f"{what} takes NAME=VALUE, got {item!r}")
        out[name.strip()] = value.strip()
    return out


def _design(budget: int | None, n_max: int | None, arms: str | None, bins: str,
            environments: Path | None) -> tuple[int | None, dict[str, Any]]:
    """(n_max, Ranker options) from the design declared at init: the budget, the scale and the arms."""
    from ..campaign._create import declared_budget
    n_max, options = declared_budget(budget, n_max, arms, bins)
    if options.get("arms") == "independent" and environments is not None:
        from ._common import err_console
        err_console.print("warning: --arms independent with --environments: trial r of every policy runs on "
                          "the same environment, so the rollouts are paired; the paired test is valid for any "
                          "correlation between policies, the independent one assumes none")
    return n_max, options


@campaign_app.command("next")
def next_cmd(db: Path = DB_ARG, count: int | None = typer.Option(None, "--count", help="At most K rollouts."),
             as_json: bool = JSON_OPT) -> None:
    """The next rollouts to run: policy (or blind code), trial index, environment (an item campaign: the pending
    draw, its item, the models to score and its draw probability)."""
    from ..campaign._status import next_rollouts
    with _open(db) as c:
        # remembered (a suggestion stays valid once handed out) when this user may write
        out = next_rollouts(c, count)
        blind_now = c.blind and not c.unblinded
        range_text = _range_text(c)
    if as_json:
        # an empty list says nothing on its own: why (what the text's "Nothing to run" line says) goes with it
        emit(out, True, lambda d: None)
        return
    todo = out.suggestions
    if todo and todo[0].kind == "item":
        s = todo[0]
        console.print(f"Draw {s.trial}: score item {one_line(s.item)} on "
                      f"{', '.join(one_line(m) for m in s.models) or 'no model (every score is known)'} "
                      f"(drawn with probability {s.probability:.6g}).", markup=False, soft_wrap=True)
        scores = ",".join(f"{m}=SCORE" for m in s.models)
        console.print(f"Then: certirank campaign record {_q(db)} {shlex.quote(s.item)} {s.trial}"
                      + (f" --scores {shlex.quote(scores)}" if scores else "") + " (scores in [0, 1]; exactly these "
                      "models on exactly this item)", markup=False, soft_wrap=True)
        return
    if todo and todo[0].kind == "replicate":
        console.print(f"Run every model on the whole benchmark once more (replicate {todo[0].trial}), then: "
                      f"certirank campaign add-run {_q(db)} RUN.csv", markup=False)
        return
    if not todo:
        console.print(f"Nothing to run: the campaign has stopped ({out.termination}). See: certirank campaign status "
                      f"{_q(db)}", markup=False)
        return
    t = Table(title=f"Run next, in this order ({len(todo)} rollout{'s' if len(todo) != 1 else ''})")
    has_env = any(s.environment is not None for s in todo)
    has_block = any(s.block is not None for s in todo)
    has_faults = any(s.faults for s in todo)
    has_label = any(s.label for s in todo)  # a proxy campaign: which rollouts need a real label
    cols = [*(["block"] if has_block else []), "trial", *(["environment"] if has_env else []),
            "code" if blind_now else "policy", *(["faults"] if has_faults else []), *(["label"] if has_label else [])]
    for col in cols:
        t.add_column(col)
    for s in todo:
        t.add_row(*([str(s.block)] if has_block else []), str(s.trial), *([_cell(s.environment or "")] if has_env else []),
                  _cell(s.policy), *([str(s.faults) if s.faults else ""] if has_faults else []),
                  *([s.label or ""] if has_label else []))
    console.print(t)
    for s in todo:
        if s.launch:
            console.print(f"Start {one_line(s.policy)}: {one_line(s.launch)}", markup=False, soft_wrap=True)
    if has_label:
        console.print(f"Then: certirank campaign record {_q(db)} {'CODE' if blind_now else 'POLICY'} TRIAL --proxy P "
                      f"[SCORE] (proxy and score in {range_text}; the real SCORE exactly where the label says 'real + "
                      "proxy'; --fault REASON if it could not be judged)", markup=False)
        return
    console.print(f"Then: certirank campaign record {_q(db)} {'CODE' if blind_now else 'POLICY'} TRIAL SCORE (score "
                  f"in {range_text}; 'missing' if the run could not be performed; --fault REASON if it could not be "
                  "judged)", markup=False)


def _q(path: Path) -> str:
    """A path as a shell word: the printed commands can be pasted as they are."""
    return shlex.quote(str(path))


def _cell(text: Any) -> Text:
    """A name in a rich table cell: markup-free, controls (newlines included) made visible."""
    from .._escape import terminal_text
    return Text(terminal_text(text))


def amendment_text(changes: dict[str, Any]) -> str:
    """An amendment's changes in one line: 'n_max 200 -> 400; environments + sink; from trial 12'."""
    parts = []
    for key, ch in changes.items():
        if key == "from_trial":
            continue
        old, new = ch.get("from"), ch.get("to")
        if isinstance(old, list) and isinstance(new, list) and all(x in new for x in old):
            added = [x for x in new if x not in old]
            parts.append(f"{key} + {', '.join(map(str, added))}")
        elif key == "checkpoints":
            parts.append("checkpoints changed")
        else:
            parts.append(f"{key} {old} -> {new}")
    if "from_trial" in changes:
        parts.append(f"schedule from trial {changes['from_trial']}")
    return "; ".join(parts)


def _range_text(c: Any) -> str:
    rng = c.config.get("score_range")
    return "[0, 1]" if rng is None else f"[{rng[0]:g}, {rng[1]:g}]"


# unknown options pass through as arguments: a score of -2 in a declared range like -5,5 is not an option
@campaign_app.command("record", context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
def record_cmd(ctx: typer.Context, db: Path = DB_ARG,
               policy: str = typer.Argument(..., help="Policy name or blind code (an item campaign: the drawn ITEM)."),
               trial: int = typer.Argument(..., help="Trial index (from campaign next; an item campaign: the DRAW "
                                           "number)."),
               score: str | None = typer.Argument(None, help="Score in [0, 1] (or the declared range); 'missing' "
                                                  "if the run could not be performed. Left out with --fault."),
               by: str | None = BY_OPT, note: str | None = NOTE_OPT,
               ahead: bool = typer.Option(False, "--ahead", help="Accept a rollout that was not suggested (run in "
                                          "advance)."),
               tag: list[str] | None = typer.Option(None, "--tag", help="A tag for this rollout (repeatable), e.g. "
                                                    "the stage it failed at."),
               fault: str | None = typer.Option(None, "--fault", help="The rollout could not be judged (e-stop, "
                                                "reset failure): REASON. Stored, never counted as a failure, and "
                                                "offered again by next."),
               proxy: str | None = typer.Option(None, "--proxy", help="A proxy campaign: the rollout's proxy score "
                                                "(simulator / world model), required on every rollout; the real "
                                                "SCORE only on the trials drawn for a real label."),
               scores: str | None = typer.Option(None, "--scores", help="An item campaign: MODEL=SCORE,... of "
                                                 "exactly the models `next` lists, on the drawn ITEM (given as "
                                                 "POLICY) at draw TRIAL."),
               idempotency_key: str | None = KEY_OPT, as_json: bool = JSON_OPT) -> None:
    """Record one rollout (one transaction; refused with the reason, and nothing changes, if it cannot count). An
    item campaign: the drawn ITEM's scores at draw DRAW, --scores MODEL=SCORE,... of exactly the models listed."""
    from ..errors import ParameterError
    # what click let through for the sake of negative scores: a mistyped option is still named as one
    stray = [w for w in (policy, *([score] if score is not None else []), *ctx.args)
             if w.startswith("-") and not is_number_text(w)]
    if stray or ctx.args:
        what = f"no such option: {stray[0]}" if stray else f"unexpected extra argument(s): {' '.join(ctx.args)}"
        raise ParameterError(f"{what} (see 'certirank campaign record --help')")
    if fault is not None and score is not None:
        raise ParameterError(f"a rollout is either judged (SCORE {score}) or a fault (--fault), not both")
    if fault is not None and proxy is not None:
        raise ParameterError(f"a rollout is either judged (--proxy {proxy}) or a fault (--fault), not both")
    with _open(db) as c:
        if c.kind == "items" or scores is not None:
            if score is not None or fault is not None or proxy is not None or tag or ahead:
                raise ParameterError("an item campaign records: certirank campaign record DB ITEM DRAW --scores "
                                     "MODEL=SCORE,... (no SCORE argument, --fault, --proxy, --tag or --ahead)")
            rec = c.record_item(policy, scores or "", draw=trial, by=by, note=note, idempotency_key=idempotency_key)
            emit(rec, as_json, lambda r: console.print(
                f"Recorded entry {r.id}: draw {r.trial}, item {one_line(r.item)}: "
                + (", ".join(f"{one_line(m)} {v:g}" for m, v in r.scores.items()) or "no score needed")
                + f" (probability {r.probability:.6g}).", markup=False, soft_wrap=True))
            return
        if fault is None and score is None and proxy is None and c.kind != "proxy":  # a proxy campaign says why
            raise ParameterError("give the SCORE (or 'missing'), or --fault REASON for a rollout that could not be "
                                 "judged")
        if fault is not None:
            rec = c.fault(policy, trial, fault, by=by, note=note, ahead=ahead, tags=tag,
                          idempotency_key=idempotency_key)
        else:
            rec = c.record(policy, trial, score, by=by, note=note, ahead=ahead, tags=tag,
                           idempotency_key=idempotency_key, **({} if proxy is None else {"proxy": proxy}))

    def render(r: Any) -> None:
        tags = f" [{one_line(', '.join(r.tags))}]" if r.tags else ""
        who = f" by {one_line(r.by)}" if r.by else ""
        if r.action == "fault":
            console.print(f"Logged fault {r.id}: {one_line(r.policy)} trial {r.trial} could not be judged "
                          f"({one_line(r.fault)}){tags}{who}; it is offered again by next.")
        else:
            px = "" if r.proxy is None else f" proxy {r.proxy:g}"
            console.print(f"Recorded entry {r.id}: {one_line(r.policy)} trial {r.trial} score {r.score_text}{px}"
                          f"{tags}{who}.")
    emit(rec, as_json, render)



@campaign_app.command("add-run")
def add_run_cmd(db: Path = DB_ARG, file: Path = typer.Argument(..., help="One complete run: model, item, score."),
                replicate: int | None = typer.Option(None, "--replicate", help="Replicate number (default: next)."),
                by: str | None = BY_OPT, note: str | None = NOTE_OPT, idempotency_key: str | None = KEY_OPT,
                as_json: bool = JSON_OPT) -> None:
    """Record one replicate of a leaderboard campaign (every model on every item)."""
    with _open(db) as c:
        rec = c.add_run(file, replicate=replicate, by=by, note=note, idempotency_key=idempotency_key)
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
        save_plot(st, plot, console=None if as_json else console)


def _render_status(st: Any) -> None:
    if st.campaign == "items":
        _render_items(st)
    elif st.campaign != "leaderboard":
        from .rank import render_anyrank
        render_anyrank(st.result, title=f"{st.path}: certified ranking after {st.records} rollouts"
                       + (" (blind codes)" if st.blind and not st.unblinded else ""), full=False)
        # recorded, not used: rollouts run ahead (or not yet paired) count here but not in the table's trials
        console.print("Rollouts recorded: " + ", ".join(f"{p} {n}" for p, n in st.rollouts.items()) + ".")
        # each open pair's verdict (the certified ones are the table's): what the operator can act on
        for v in st.verdicts:
            if v["verdict"] != "certified":
                console.print(f"  {v['verdict']}: {one_line(v['sentence'])}", markup=False)
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
        res = st.result
        budget = "" if res.n_max is None else f" of a budget of {res.n_max}"
        t = Table(title=f"{st.path}: {res.method}, {res.replicates} replicate(s){budget}, alpha = {res.alpha:g}")
        for col in ("model", "mean", "rank interval", "certified above"):
            t.add_column(col, justify="left" if col == "model" else "right")
        for m in st.ranking.policies:
            t.add_row(m.name, "-" if m.mean is None else f"{m.mean:.3f}", f"[{m.rank_lo}, {m.rank_hi}]",
                      str(m.better_than))
        console.print(t)
        for line in res.sentences()[:len(res.edges)]:  # the certified edges (sentences() lists them first)
            console.print(f"  {line}")
        # every other pair in the status's words: equivalent, futile at the budget, or undecided with its forecast
        for v in st.verdicts:
            if v["verdict"] != "certified":
                console.print(f"  {v['verdict']}: {one_line(v['sentence'])}", markup=False)
        if st.complete:
            console.print("Every pair is decided. You can stop: every pair is certified"
                          + (" or equivalent." if res.margin is not None else "."))
        elif st.done:
            console.print(f"The campaign has stopped ({st.termination}); the open pairs stay undecided.")
        else:
            console.print("Some pairs are undecided: add more runs.")
    if any(st.faults.values()):
        console.print("Faults (not counted; offered again until judged): "
                      + ", ".join(f"{p} {n}" for p, n in st.faults.items() if n) + "."
                      + (" Waiting: " + ", ".join(f"{f['policy']} trial {f['trial']} ({f['reason']})"
                                                   for f in st.open_faults[:6]) + "." if st.open_faults else ""))
    if st.tags:
        console.print("Tags: " + "; ".join(f"{t}: " + ", ".join(f"{p} {n}" for p, n in per.items())
                                           for t, per in st.tags.items()) + ".")
    for line in st.warnings:
        if not line.startswith("note: "):  # notes are printed with the record's warnings already
            err_console.print(f"warning: {line}")
    console.print(f"Test: {st.test}.")
    if st.amendments:
        console.print(f"Design amended {st.amendments} time(s) (see campaign log).")
    # the whole head hash: kept somewhere else, it anchors this history (`campaign verify --anchor HASH`)
    console.print(f"Log: {st.records} live record(s), {st.undone} undone; head {st.head_hash}")


def _render_items(st: Any) -> None:
    """An item campaign's status: the certified edges, each open pair, the draws and evaluations, the pending draw."""
    res, it = st.result, st.items
    t = Table(title=f"{one_line(st.path)}: adaptive items, {it['draws']} draw(s), alpha = {res.alpha:g}")
    for col in ("model", "evaluations", "rank interval", "certified above"):
        t.add_column(col, justify="left" if col == "model" else "right")
    for m in st.ranking.policies:
        t.add_row(_cell(m.name), str(st.rollouts.get(m.name, 0)), f"[{m.rank_lo}, {m.rank_hi}]", str(m.better_than))
    console.print(t)
    for v in st.verdicts:
        console.print(f"  {v['verdict']}: {one_line(v['sentence'])}", markup=False)
    budget = "" if it["n_max"] is None else f" of a budget of {it['n_max']}"
    console.print(f"Draws: {it['draws']}{budget}; item evaluations: {it['evaluations']} (every model on every item: "
                  f"{len(st.rollouts) * it['n_items']}).")
    if st.complete:
        console.print("Every pair is certified. You can stop.")
    elif st.done:
        console.print(f"The campaign has stopped ({st.termination}); the open pairs stay undecided.")
    elif it["pending"] is not None:
        p = it["pending"]
        console.print(f"Next: draw {p['draw']}, item {one_line(p['item'])} on {', '.join(p['models'])} "
                      f"(probability {p['probability']:.6g}); see campaign next.", markup=False)


@campaign_app.command("undo")
def undo_cmd(db: Path = DB_ARG, record_id: int | None = typer.Argument(None, help="Entry to undo (default: the "
                                                                           "latest record)."),
             by: str | None = BY_OPT, note: str | None = NOTE_OPT, idempotency_key: str | None = KEY_OPT,
             as_json: bool = JSON_OPT) -> None:
    """Mark a record or fault undone (it is kept, with who and when); the ranking is recomputed without it."""
    with _open(db) as c:
        rec = c.undo(record_id, by=by, note=note, idempotency_key=idempotency_key)

    def render(r: Any) -> None:
        if r.action == "fault":
            console.print(f"Undid fault {r.id} ({one_line(r.policy)} trial {r.trial}) as entry {r.undone_by}.")
            return
        console.print(f"Undid entry {r.id}"
                      + (f" ({one_line(r.policy)} trial {r.trial}, score {r.score_text})"
                         if r.policy else f" (draw {r.trial}, item {one_line(r.item)})" if r.item is not None
                         else f" (replicate {r.trial})") + f" as entry {r.undone_by}; the ranking is "
                      "recomputed.")
    emit(rec, as_json, render)


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
            undone = f", undone by {e.undone_by}" if e.undone_by else ""
            if e.action == "record":
                what = "record" + (" (ahead)" if e.ahead else "") + undone
                sc = e.score_text
            elif e.action == "fault":
                what, sc = f"fault: {e.fault}{undone}", ""
            elif e.action == "amend":
                what, sc = "amend: " + amendment_text(e.changes or {}), ""
            else:
                what = f"undo {e.target}" if e.action == "undo" else e.action
                sc = ""
            if e.tags:
                what += f" [{', '.join(e.tags)}]"
            t.add_row(str(e.id), e.at, _cell(e.by or ""), _cell(what),
                      _cell(e.policy or ("" if e.item is None else f"item {e.item}")),
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
    emit(res, as_json, lambda r: console.print(f"Wrote {r.rows} rows to {one_line(r.path)}. "
                                               + (f"Replay: {r.rank_command}" if r.rank_command else
                                                  "Replay: certirank campaign verify (the draws' weights depend on "
                                                  "their order; no batch command replays them)"), soft_wrap=True))


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
        for w in r.warnings:
            console.print(f"note: {w}")
        console.print(f"{r.path}: {'verified' if r.ok else 'VERIFICATION FAILED'} ({r.records} live records).")
    emit(rep, as_json, render)
    if not rep.ok:
        raise typer.Exit(1)
