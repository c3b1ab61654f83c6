"""Shared test fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from cli_runner import CLI, Cli

# pytester runs the pytest plugin (certirank.integrations.pytest_plugin) on generated test files
pytest_plugins = ["pytester"]

# Property-based tests draw the same examples on every run, so CI results are reproducible.
settings.register_profile("certirank", derandomize=True, database=None)
settings.load_profile("certirank")

# CERTIRANK_SHARED_DATA points elsewhere (e.g. from a git worktree, whose parent has no shared/ folder)
SHARED_DATA = Path(os.environ.get("CERTIRANK_SHARED_DATA")
                   or Path(__file__).resolve().parents[1].parent / "shared" / "data")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Path to ../shared/data (or $CERTIRANK_SHARED_DATA); tests that need it skip, with the reason, without it."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data folder not found at {SHARED_DATA} (clone outside the project setting)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def cli() -> Cli:
    """The one command-line runner (tests/cli_runner.py): ``cli(args)``, ``cli.ok``, ``cli.fails``, ``cli.refuses``."""
    return CLI
