"""Fixtures of the hostile-input suite (helpers: hostile_support.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hostile_support import build_inputs


@pytest.fixture(scope="session")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return build_inputs(tmp_path_factory.mktemp("hostile-inputs"))


class _Fresh(dict):
    """The inputs; a campaign file is copied on first use (a case may write to it), `tmp` is the case's folder."""

    def __init__(self, inputs: dict[str, str], tmp: Path) -> None:
        super().__init__(inputs, tmp=str(tmp))
        self._tmp = tmp

    def __getitem__(self, key: str) -> str:
        if key in ("camp", "lbcamp", "opcamp", "blindcamp", "itemcamp"):
            copy = self._tmp / Path(super().__getitem__(key)).name
            if not copy.exists():
                shutil.copy(super().__getitem__(key), copy)
            return str(copy)
        return super().__getitem__(key)


@pytest.fixture
def fresh(inputs: dict[str, str], tmp_path: Path) -> dict[str, str]:
    return _Fresh(inputs, tmp_path)
