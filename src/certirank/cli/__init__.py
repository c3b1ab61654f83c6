"""The `certirank` command: a thin shell over the Python API.

Every command computes a result object through the public API and either prints it for people or, with
`--json`, prints exactly `result.to_dict()`. User errors (`CertirankError`) become one line on stderr and exit
code 2; implementations are imported inside each command so `certirank --help` is fast. One module per command;
shared options and helpers live in `_common`.
"""

from __future__ import annotations

import sys

from ._common import app, console, emit, err_console, key_values, parse_score_range, read_input
from . import inspect, compare, simulate, compose_test, rank, demo, leaderboard, baseline, report, check, campaign, campaign_design, campaign_serve  # noqa: F401  (each registers its command on `app`)
from . import validate  # noqa: F401,E402

__all__ = ["app", "console", "emit", "err_console", "key_values", "main", "parse_score_range", "read_input"]


def main() -> None:
    """Console-script entry point."""
    app(prog_name="certirank")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
