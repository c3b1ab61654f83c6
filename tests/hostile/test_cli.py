"""Every CLI command and option × the values it must refuse: exit 2, one `error:` line, no traceback, nothing
silently accepted (issue 33 item 1). The cases come from the live command tree (`cli_cases`)."""

from __future__ import annotations

import re

import pytest

from cli_cases import KNOWN, cases, uncovered
from hostile_support import assert_refused, invoke

CASES = cases()


def _fill(args: tuple[str, ...], values: dict[str, str]) -> list[str]:
    return [re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], a) for a in args]


def test_every_option_has_bad_values():
    """A new option or command must come with the values it refuses (or be declared free text)."""
    assert uncovered() == []


def test_the_suite_is_large_enough():
    assert len(CASES) >= 700


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=[pytest.mark.xfail(strict=True, reason=KNOWN[k])]
                                               if (k := (c.command, c.param, c.value)) in KNOWN else [])
                                  for c in CASES])
def test_bad_value_is_refused_in_one_line(case, fresh):
    res = invoke(_fill(case.args, fresh))
    line = assert_refused(res)
    assert len(line) < 2000
