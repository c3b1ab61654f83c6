"""`certirank campaign plan | amend | launch | unblind | note`: the schedule, amendments of the locked design,
starting a policy through its loader (blind), unblinding, and free notes (thin shells over certirank.Campaign)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from ._common import JSON_OPT, console, emit, err_console, one_line
from .campaign import BY_OPT, DB_ARG, KEY_OPT, NOTE_OPT, _cell, _open, _q, amendment_text, campaign_app


@campaign_app.command("plan")
def plan_cmd(db: Path = DB_ARG, count: int = typer.Option(2, "--count", help="How many blocks to show, from the "
                                                                          "block of the first rollout still needed."),
             as_json: bool = JSON_OPT) -> None:
    """The schedule: environments shuffled within balanced blocks, each trial's policies in a Williams-balanced
    order (seeded, stored); which rollouts are recorded, faulted or still needed."""
    with _open(db) as c:
        pl = c.plan(count)
        blind_now = c.blind and not c.unblinded

    def render(p: Any) -> None:
        console.print(f"{one_line(p.path)}: {p.rule} over {len(p.environments)} environments (seed {p.seed}); policy "
                      f"order per trial: {'Williams-balanced' if p.order == 'williams' else 'as configured'}.")
        for b in p.blocks:
            t = Table(title=f"Block {b['block']}" if b["block"] is not None else "Trials")
            for col in ("trial", "environment", f"order ({'codes' if blind_now else 'policies'})", "recorded",
                        "needed now"):
                t.add_column(col)
            for tr in b["trials"]:
                faults = "".join(f" {p}:{n} fault(s)" for p, n in tr["faults"].items())
                t.add_row(str(tr["trial"]), _cell(tr["environment"]), _cell(" > ".join(tr["order"])),
                          _cell(", ".join(tr["recorded"]) + faults), _cell(", ".join(tr["needed"])))
            console.print(t)
        if len(p.segments) > 1:
            console.print("Amended: " + "; ".join(f"from trial {s['from_trial']}: {len(s['environments'])} "
                                                  f"environments, seed {s['seed']}" for s in p.segments[1:]) + ".")
    emit(pl, as_json, render)




@campaign_app.command("amend")
def amend_cmd(db: Path = DB_ARG,
              changes: list[str] | None = typer.Argument(None, help="KEY=VALUE changes: n_max=400, "
                                                          "environments=a,b,c (the list with the new ones), seed=7, "
                                                          "tags=..., open_tags=true, checklist=..., launch='...', "
                                                          "checkpoints=POLICY=PATH."),
              reason: str | None = typer.Option(None, "--reason", help="Why (required; kept in the audit chain)."),
              design: Path | None = typer.Option(None, "--design", help="A design.toml: every setting that differs "
                                                 "from the design in force is amended."),
              by: str | None = BY_OPT, idempotency_key: str | None = KEY_OPT, as_json: bool = JSON_OPT) -> None:
    """Amend the locked design, logged in the audit chain. Only changes that keep the guarantee are accepted (a
    larger budget, more environments, a new schedule seed, tags, checklist, launch); alpha, the scale, the
    estimand and the policies are refused with the reason, and nothing is written."""
    from ..errors import ParameterError
    if reason is None:
        raise ParameterError("an amendment needs --reason TEXT (kept in the audit trail with it)")
    from ..campaign._amend import parse_settings
    with _open(db) as c:
        rec = c.amend(parse_settings(changes), reason=reason, design=design, by=by, idempotency_key=idempotency_key)
    emit(rec, as_json, lambda r: console.print(
        f"Amended as entry {r.id}: {one_line(amendment_text(r.changes or {}))} (reason: {one_line(r.note)})."))


@campaign_app.command("launch")
def launch_cmd(db: Path = DB_ARG, policy: str = typer.Argument(..., help="Policy name, or its code while blind."),
               trial: int | None = typer.Argument(None, help="The trial (fills {trial} and {environment})."),
               dry_run: bool = typer.Option(False, "--dry-run", help="Print the command instead of running it (the "
                                            "checkpoint hidden while blind).")) -> None:
    """Start a policy with the launch template of the design: the checkpoint is filled in without being shown,
    so a blind operator starts the right policy knowing only its code. Exits with the command's exit code."""
    import shlex

    from ..errors import ParameterError
    with _open(db) as c:
        words = c.launch_command(policy, trial)
        hidden = c.blind and not c.unblinded
        name = c._resolve(policy)
        secret = (c.design.checkpoints or {}).get(name)
        shown = c._shown(name)
    masked = [w.replace(secret, f"<checkpoint of {shown}>") if hidden and secret else w for w in words]
    if dry_run:
        console.print(shlex.join(masked), markup=False, soft_wrap=True)
        return
    err_console.print(f"Starting {one_line(shown)}" + (" (checkpoint hidden: the campaign is blind)" if hidden else
                                                        f": {one_line(shlex.join(words))}"))
    try:
        done = subprocess.run(words, check=False)
    except OSError as exc:
        raise ParameterError(f"cannot start {words[0]!r}: {exc.strerror or exc} (check the launch template: "
                             f"certirank campaign launch {_q(db)} {shlex.quote(shown)} --dry-run)") from None
    raise typer.Exit(done.returncode)


@campaign_app.command("unblind")
def unblind_cmd(db: Path = DB_ARG, by: str | None = BY_OPT, note: str | None = NOTE_OPT,
                idempotency_key: str | None = KEY_OPT, as_json: bool = JSON_OPT) -> None:
    """Reveal the policy names of a blind campaign, for good (logged in the audit trail: who and when)."""
    from ..campaign._status import unblinding
    with _open(db) as c:
        out = unblinding(c, by=by, note=note, idempotency_key=idempotency_key)

    def render(d: Any) -> None:
        if d.entry is None:
            console.print(f"{one_line(d.path)} was already unblinded; the codes were:")
        else:
            console.print(f"Unblinded as entry {d.entry.id}; every view shows names from now on. The codes were:")
        for name, code in sorted(d.codes.items(), key=lambda kv: kv[1]):
            console.print(f"  {code} = {one_line(name)}")
    emit(out, as_json, render)


@campaign_app.command("note")
def note_cmd(db: Path = DB_ARG, text: str = typer.Argument(..., help="The note (kept in the audit trail)."),
             by: str | None = BY_OPT, idempotency_key: str | None = KEY_OPT, as_json: bool = JSON_OPT) -> None:
    """Write a free note to the audit trail ("gripper pads changed", "sun on the table from 16:00")."""
    with _open(db) as c:
        rec = c.note(text, by=by, idempotency_key=idempotency_key)
    emit(rec, as_json, lambda r: console.print(f"Noted as entry {r.id}."))
