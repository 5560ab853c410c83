"""The schedule preview endpoint and the schedule node's field errors."""

from __future__ import annotations

import pytest

from tests.flows.graphs import node

pytestmark = pytest.mark.django_db


def test_a_preview_gives_the_next_five_times_in_the_zone_and_a_sentence(api):
    response = api.post(
        "/api/schedules/preview",
        {"cron": "0 9 * * 1-5", "timezone": "Europe/Paris"},
        format="json",
    )

    assert response.status_code == 200
    body = response.json()
    assert len(body["next"]) == 5
    assert all(time.endswith(("+01:00", "+02:00")) for time in body["next"])
    assert all("T09:00:00" in time for time in body["next"])
    assert body["description"] == "At 09:00, Monday through Friday, Europe/Paris"


def test_a_bad_expression_and_zone_are_field_errors(api):
    response = api.post(
        "/api/schedules/preview",
        {"cron": "every day", "timezone": "Mars/Olympus"},
        format="json",
    )

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert set(error["details"]) == {"cron", "timezone"}
    assert "'Mars/Olympus' is not a time zone" in error["details"]["timezone"][0]


def test_the_preview_needs_a_session(client):
    response = client.post(
        "/api/schedules/preview", {"cron": "* * * * *"}, content_type="application/json"
    )

    assert response.status_code in (401, 403)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"cron": "61 * * * *", "timezone": "UTC"}, "data.cron"),
        ({"cron": "0 9 * * *", "timezone": "Nowhere/Here"}, "data.timezone"),
        ({"cron": "0 9 * * *", "missed": "catch_up"}, "data.missed"),
        ({"cron": "0 9 * * *", "enabled": "yes"}, "data.enabled"),
    ],
)
def test_a_schedule_node_with_bad_settings_is_not_saved(api, alice_flow, data, field):
    nodes = [*alice_flow.nodes, node("tick", "schedule", **data)]

    response = api.patch(f"/api/flows/{alice_flow.id}", {"nodes": nodes}, format="json")

    assert response.status_code == 400
    problems = response.json()["error"]["details"]["nodes"]
    assert [(p["index"], p["field"]) for p in problems] == [(2, field)]


def test_a_preview_of_an_expression_that_never_fires_is_a_field_error(api):
    response = api.post("/api/schedules/preview", {"cron": "0 0 30 2 *"}, format="json")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert "never fires" in error["details"]["cron"][0]


def test_saving_a_schedule_that_never_fires_is_a_field_error(api):
    graph = {"nodes": [node("tick", "schedule", cron="0 0 30 2 *")], "edges": []}

    response = api.post("/api/flows", {"name": "Feb 30", **graph}, format="json")

    assert response.status_code == 400
    assert "never fires" in str(response.json()["error"]["details"])
