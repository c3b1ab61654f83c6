"""schemathesis against the campaign page's OpenAPI schema (/openapi.json): generated requests to every route
(query strings, path parameters, form bodies, with and without the token) never get a 5xx. Bounded to a few
examples per route so that it runs in seconds; `.ci/run` installs schemathesis through the dev extra."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the campaign page needs the 'web' extra (fastapi)")
schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is in the dev extra")
from hypothesis import HealthCheck, settings  # noqa: E402

from certirank.campaign import Campaign  # noqa: E402
from certirank.web import create_app  # noqa: E402

TOKEN = "schema-test-token-0123456"
_folder = Path(tempfile.mkdtemp(prefix="certirank-schema-"))
_db = _folder / "schema.campaign"
_camp = Campaign.init(_db, ["a", "b", "<c>"], alpha=0.1, n_max=100)
for _s in _camp.next():
    _camp.record(_s.policy, _s.trial, 0.5)
_camp.close()
APP = create_app(_db, token=TOKEN, allow_hosts=["testserver"])  # the test client's host name
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@schema.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_generated_request_gets_a_server_error(case):
    for headers in ({}, {"X-Certirank-Token": TOKEN}):
        response = case.call(headers=headers)
        assert response.status_code < 500, (case.method, case.path, response.status_code, response.text[:300])
