"""A pytest plugin: assert a certified claim inside a test suite (entry point ``pytest11``: ``certirank``).

Installing certirank registers it; nothing else is needed. It adds

- the fixture ``certirank_check``: ``certirank_check(data, claims, alpha=0.05, fail_on="any", **options)`` runs
  :func:`certirank.check` and fails the test, with one line per claim, unless the gate passes; it returns the
  check's result so the test can look further;
- the marker ``certirank`` (``@pytest.mark.certirank``) to select these tests (``pytest -m certirank``);
- the ini option ``certirank_alpha`` (default 0.05): the level used when a call gives none.

``fail_on="any"`` fails unless every claim is certified; ``"reversed"`` fails only when a claim is certified the
other way (the gate for "did this change make things worse?"). Like ``certirank check``, the claims of one call
are decided together (family-wise error at most alpha over them).

Importing this module costs nothing: certirank itself is imported when a test first uses the fixture, so a
project that has certirank installed but never uses the fixture pays no import time (``-p no:certirank`` turns
the plugin off altogether).
"""

from __future__ import annotations

from typing import Any

import pytest

FAIL_ON = ("any", "reversed")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("certirank_alpha", "certirank_check: the family-wise level when a call gives none", default="0.05")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "certirank: a test that asserts claims certified by certirank")


def _failed(result: Any, fail_on: str) -> bool:
    statuses = [c["status"] for c in result.claims]
    if fail_on == "reversed":
        return "certified the other way" in statuses
    return any(s != "certified" for s in statuses)


@pytest.fixture
def certirank_check(request: pytest.FixtureRequest) -> Any:
    """Check claims such as ``"new>old"`` against evaluation data; the test fails unless the gate passes."""
    default_alpha = float(request.config.getini("certirank_alpha"))

    def check(data: Any, claims: Any, *, alpha: float | None = None, fail_on: str = "any", **options: Any) -> Any:
        import certirank

        if fail_on not in FAIL_ON:
            raise certirank.ParameterError(f"fail_on must be one of {', '.join(FAIL_ON)}, got {fail_on!r}")
        result = certirank.check(data, claims, alpha=default_alpha if alpha is None else alpha, **options)
        if _failed(result, fail_on):
            pytest.fail("certirank check failed:\n" + "\n".join(result.lines()), pytrace=False)
        return result

    return check
