"""The one command-line runner of the test suite: `CLI`, served to every test as the `cli` fixture
(tests/conftest.py).

Tests of a command live in `tests/cli/test_<command>.py`; a test of the API that checks the CLI agrees with it
(or a helper such as tests/hostile/hostile_support.py) uses the same runner. No other test file builds a click
runner (tests/test_architecture.py checks it), so how a command is run in-process is written once.
"""

from __future__ import annotations

from typing import Any

import typer.main
import typer.testing
from typer.testing import CliRunner

from certirank.cli import app


class Cli:
    """`certirank` run in-process: ``cli(args)`` returns the click result; ``ok``, ``fails`` and ``refuses`` assert
    the three outcomes the tests check."""

    def __init__(self) -> None:
        self._runner = CliRunner()
        self._command: Any = None

    def __call__(self, args: list[Any], command: Any = None, **kwargs: Any) -> Any:
        """Run ``certirank ARGS``; `command` runs a given click command instead of the session's (a test of how
        the command is built)."""
        if command is None:
            # typer rebuilds the click command from the app on every invoke (0.2 s); build it once per session
            if self._command is None:
                self._command = typer.main.get_command(app)
            command = self._command
        built = typer.testing._get_command
        typer.testing._get_command = lambda _app: command
        try:
            return self._runner.invoke(app, [str(a) for a in args], prog_name="certirank", **kwargs)
        finally:
            typer.testing._get_command = built

    def campaign(self, *args: Any, **kwargs: Any) -> Any:
        """Run ``certirank campaign ARGS`` (arguments may be paths or numbers)."""
        return self(["campaign", *args], **kwargs)

    @staticmethod
    def words(res: Any) -> str:
        """The output of `res` as one line of words: rich wraps at the terminal width, the tests read sentences."""
        return " ".join(res.output.split())

    def ok(self, args: list[Any], **kwargs: Any) -> str:
        """Exit 0; returns stdout."""
        res = self(args, **kwargs)
        assert res.exit_code == 0, (res.output, res.exception)
        return res.stdout

    def fails(self, args: list[Any], *needles: str) -> str:
        """Exit code 2, no traceback, one ``error:`` line on stderr mentioning every needle; returns that line."""
        res = self(args)
        assert res.exit_code == 2, (res.exit_code, res.output, res.exception)
        assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
        for needle in needles:
            assert needle in lines[0], (needle, lines[0])
        return lines[0]

    def refuses(self, args: list[Any], *needles: str) -> str:
        """Exit code 2 without a traceback (a usage error from click included), the output mentioning every
        needle; returns the output."""
        res = self(args)
        text = res.output
        # an escaped exception gives exit code 1 and sets res.exception to it; a clean error is SystemExit(2)
        assert res.exit_code == 2, (res.exit_code, text, res.exception)
        assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
        assert "Traceback" not in text
        for needle in needles:
            assert needle in text, (needle, text)
        return text


CLI = Cli()
