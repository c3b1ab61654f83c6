"""The command registry: every command is declared here by name, and its module is imported only when it runs.

`certirank --help` lists the commands from these declarations (name and one-line help) without importing a
single command module, so it loads neither numpy nor scipy; `certirank compare ...` imports `cli/compare.py` (and
what it uses) and nothing of the other commands. A command module still registers itself on the typer app with
`@app.command(...)`; `tests/test_startup.py` checks that the declared one-line help is the command's own (its
docstring's first line), so the two cannot drift apart.

Reading ``group.commands`` (the documentation hook, the glossary check, the hostile-input walk) imports every
command: whoever enumerates them all gets them all.
"""

from __future__ import annotations

import importlib
from typing import Any

from typer.core import TyperCommand, TyperGroup

__all__ = ["COMMANDS", "LazyGroup"]

# command -> (the modules under certirank.cli that register it, the one line `certirank --help` shows), in the
# order `--help` lists them
COMMANDS: dict[str, tuple[tuple[str, ...], str]] = {
    "inspect": (("inspect",), "Summarise an evaluation file: per-policy count, mean and missing trials."),
    "compare": (("compare",), "Sequentially compare two policies on their paired trials, read in a seeded random "
                              "order (anytime-valid)."),
    "simulate": (("simulate",), "Check guarantees and efficiency on a simulated scenario: FWER, power, full "
                                "ranking, sample cost."),
    "compose-test": (("compose_test",), "Choose m test cases and weights that score new policies like the full "
                                        "pool (RPOSST)."),
    "rank": (("rank",), "Certified ranking of policies from recorded trials (AnyRank), read in a seeded random "
                        "order; for battle / preference data, the certified preference graph."),
    "demo": (("demo",), "A simulated robot-policy campaign run live through AnyRank, compared with Bonferroni."),
    "leaderboard": (("leaderboard",), "Certified leaderboard (BB-EDGE): edges, rank intervals and Top-k from "
                                      "repeated runs of L models."),
    "baseline": (("baseline",), "Run a comparison baseline (Bradley–Terry family or leaderboard baseline); none "
                                "controls the FWER of the mean ranking."),
    "report": (("report",), "Turn a result into one shareable HTML page: tables, letters, graph, curves and the "
                            "guarantee."),
    "check": (("check",), "CI gate: exit 0 if every claim is certified, 1 if one is not (yet), 3 if one is "
                          "certified the other way (--fail-on reversed: 0 unless one is certified the other way)."),
    "validate": (("validate",), "Check the family-wise error guarantees by seeded Monte Carlo on adversarial "
                                "scenarios (pass/fail per row)."),
    "campaign": (("campaign", "campaign_design", "campaign_serve"), "Live evaluation campaigns: what to run next, record it, can I "
                                                 "stop? (one SQLite file; safe for several operators at once)"),
}


def _build(app: Any, name: str) -> Any:
    """Import the modules of command `name` and build its click command from what they registered on `app`."""
    import typer.main

    for module in COMMANDS[name][0]:
        importlib.import_module(f"{__package__}.{module}")
    for info in app.registered_commands:
        if (info.name or typer.main.get_command_name(info.callback.__name__)) == name:  # type: ignore[union-attr]
            return typer.main.get_command_from_info(info, pretty_exceptions_short=app.pretty_exceptions_short,
                                                    rich_markup_mode=app.rich_markup_mode)
    for group in app.registered_groups:
        if group.name == name:
            return typer.main.get_group_from_info(group, pretty_exceptions_short=app.pretty_exceptions_short,
                                                  suggest_commands=app.suggest_commands,
                                                  rich_markup_mode=app.rich_markup_mode)
    raise LookupError(f"certirank.cli.{'/'.join(COMMANDS[name][0])} did not register the command {name!r}")


class LazyGroup(TyperGroup):
    """A typer group whose commands are built on first use from `COMMANDS`."""

    _listing = False
    app: Any = None  # the typer app the command modules register on (set where it is made, in _common)

    @property  # type: ignore[override]
    def commands(self) -> dict[str, Any]:
        for name in COMMANDS:
            self._get(name)
        return self._commands

    @commands.setter
    def commands(self, value: Any) -> None:
        self._commands = dict(value)

    def _get(self, name: str) -> Any:
        if name not in self._commands and name in COMMANDS:
            self._commands[name] = _build(self.app, name)
        return self._commands.get(name)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(dict.fromkeys([*COMMANDS, *self._commands]))

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if self._listing and cmd_name not in self._commands and cmd_name in COMMANDS:
            # the help page shows a name and one line: the declaration, not the module
            return TyperCommand(name=cmd_name, help=COMMANDS[cmd_name][1])
        return self._get(cmd_name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False
