"""Query strings and import bodies never answer 5xx (issue 27 item 13).

Found by hand first (`?until=9999-12-31`, a malformed `credentials` field in
an import), then searched for with hypothesis: every list's query parameters
with text, dates and times at the calendar's ends, and export documents whose
`credentials` and node references are any JSON value.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.flows.graph.test_fuzz import json_values
from tests.flows.graphs import chain, node, trigger

pytestmark = pytest.mark.django_db
FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
PARAMS = ["status", "trigger", "since", "until", "range", "page", "page_size", "q"]

zones = st.integers(min_value=-23, max_value=23).map(
    lambda hours: timezone(timedelta(hours=hours))
)
moments = (
    st.dates(min_value=date(1, 1, 1)).map(str)
    | st.datetimes().map(datetime.isoformat)
    | st.builds(
        lambda at, zone: at.replace(tzinfo=zone).isoformat(), st.datetimes(), zones
    )
    | st.sampled_from(["9999-12-31", "0001-01-01", "9999-12-31T23:59:59-23:00", "24h"])
)
values = moments | st.text(max_size=30) | st.integers().map(str)
queries = st.dictionaries(st.sampled_from(PARAMS), values, max_size=4)


def answered(response) -> None:
    assert response.status_code < 500, response.content[:300]
    if response.status_code >= 400:
        assert "error" in response.json()


@FUZZ
@given(query=queries)
def test_run_lists_stats_and_the_audit_log_never_answer_5xx(api, alice_flow, query):
    text = urlencode(query)
    for path in (
        f"/api/flows/{alice_flow.id}/runs",
        "/api/runs",
        "/api/runs/stats",
        "/api/audit",
        "/api/flows",
    ):
        answered(api.get(f"{path}?{text}"))


@FUZZ
@given(credentials=json_values, reference=json_values)
def test_imports_never_answer_5xx_whatever_their_credentials(
    api, alice, credentials, reference
):
    nodes, edges = chain(
        trigger(),
        node("call", "http_request", method="GET", url="https://example.com/"),
    )
    nodes[1]["data"]["credential"] = reference
    document = {
        "weir_version": 1,
        "name": "fuzzed",
        "nodes": nodes,
        "edges": edges,
        "credentials": credentials,
    }

    answered(api.post("/api/flows/import", document, format="json"))
