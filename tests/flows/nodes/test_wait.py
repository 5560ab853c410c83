"""The wait node's settings, checked when a flow is saved."""

from __future__ import annotations

import pytest

from flows.nodes.wait import WaitNode, parse_time
from tests.flows.graphs import chain, node, trigger

pytestmark = pytest.mark.django_db


def problems(**data) -> dict[str, str]:
    return {error.field: error.message for error in WaitNode().validate_data(data)}


def test_the_default_data_is_valid():
    assert problems(**WaitNode.default_data) == {}


@pytest.mark.parametrize(
    "data",
    [
        {"mode": "duration", "seconds": 1},
        {"mode": "duration", "seconds": 30 * 24 * 3600},
        {"mode": "until", "until": "2026-12-01T09:00:00Z"},
        {"mode": "until", "until": "{{ input.at }}"},
        {"mode": "callback"},
        {"mode": "callback", "timeout_s": 60, "on_timeout": "continue"},
        {"mode": "form", "fields": [{"name": "age", "kind": "number"}]},
        {"mode": "callback", "context": [{"name": "Amount", "value": "{{ input.a }}"}]},
    ],
)
def test_good_settings_pass(data):
    assert problems(**data) == {}


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"mode": "forever"}, "data.mode"),
        ({}, "data.mode"),
        ({"mode": "duration", "seconds": 0}, "data.seconds"),
        ({"mode": "duration", "seconds": 30 * 24 * 3600 + 1}, "data.seconds"),
        ({"mode": "duration", "seconds": "60"}, "data.seconds"),
        ({"mode": "until", "until": "tomorrow"}, "data.until"),
        ({"mode": "until", "until": ""}, "data.until"),
        ({"mode": "callback", "timeout_s": 0}, "data.timeout_s"),
        ({"mode": "callback", "on_timeout": "retry"}, "data.on_timeout"),
        ({"mode": "form", "fields": [{"name": "a", "kind": "colour"}]}, "data.fields"),
        ({"mode": "callback", "context": [{"name": "Amount"}]}, "data.context"),
        ({"mode": "callback", "context": "Amount"}, "data.context"),
    ],
)
def test_bad_settings_name_their_field(data, field):
    assert field in problems(**data)


def test_a_bad_wait_is_a_400_on_save(api):
    nodes, edges = chain(trigger(), node("pause", "wait", mode="duration", seconds=0))

    response = api.post(
        "/api/flows", {"name": "W", "nodes": nodes, "edges": edges}, format="json"
    )

    assert response.status_code == 400
    [detail] = response.json()["error"]["details"]["nodes"]
    assert detail["field"] == "data.seconds"


def test_a_time_without_an_offset_is_utc():
    assert parse_time("2026-12-01T09:00:00").isoformat() == "2026-12-01T09:00:00+00:00"
    assert parse_time("2026-12-01T09:00:00+02:00").utcoffset().seconds == 7200
    assert parse_time("soon") is None
