"""Parsing the run filters: what each query parameter accepts."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.http import QueryDict

from core.http.errors import ValidationFailed
from flows.api.run_filters import parse_run_filters


def test_dates_cover_whole_days_and_times_without_an_offset_are_utc():
    filters = parse_run_filters(
        QueryDict("since=2026-11-20&until=2026-11-21&status=failed&trigger=")
    )

    assert filters == {
        "status": "failed",
        "since": datetime(2026, 11, 20, tzinfo=UTC),
        "until": datetime(2026, 11, 22, tzinfo=UTC),
    }
    naive = parse_run_filters(QueryDict("since=2026-11-20T08:15:00"))
    assert naive["since"] == datetime(2026, 11, 20, 8, 15, tzinfo=UTC)


def test_every_bad_parameter_is_reported_at_once():
    with pytest.raises(ValidationFailed) as raised:
        parse_run_filters(QueryDict("status=nope&until=soon"))

    assert set(raised.value.details) == {"status", "until"}


@pytest.mark.parametrize(
    "query",
    [
        "until=9999-12-31",
        "since=9999-12-31T23:59:59-01:00",
        "until=0001-01-01T00:00:00+01:00",
    ],
)
@pytest.mark.django_db
def test_dates_at_the_ends_of_the_calendar_are_a_400_not_a_500(api, alice_flow, query):
    response = api.get(f"/api/flows/{alice_flow.id}/runs?{query}")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
