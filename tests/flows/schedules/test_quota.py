"""One account's enabled schedules are capped (SCHEDULED_FLOWS_PER_OWNER): past
the cap, a save that adds one is refused in the error envelope, next to the
schedule node; flows that already have one stay editable."""

from __future__ import annotations

import pytest

from flows.models import Flow
from tests.factories import FlowFactory
from tests.flows.graphs import code, edge, node

pytestmark = pytest.mark.django_db


def graph(enabled=True) -> dict:
    return {
        "nodes": [
            node(
                "tick", "schedule", cron="*/5 * * * *", timezone="UTC", enabled=enabled
            ),
            code("work", "return {};"),
        ],
        "edges": [edge("tick", "work")],
    }


def scheduled_flows(owner, count, enabled=True):
    return [FlowFactory(created_by=owner, **graph(enabled)) for _ in range(count)]


@pytest.fixture(autouse=True)
def cap_of_two(settings):
    settings.SCHEDULED_FLOWS_PER_OWNER = 2


def test_a_schedule_past_the_cap_is_refused_next_to_its_node(api, alice):
    scheduled_flows(alice, 2)

    response = api.post("/api/flows", {"name": "third", **graph()}, format="json")

    assert response.status_code == 400
    body = response.json()["error"]
    assert body["code"] == "validation_error"
    assert "2 flows with an enabled schedule" in body["message"]
    [problem] = body["details"]["nodes"]
    assert (problem["index"], problem["field"]) == (0, "data.enabled")
    assert Flow.objects.filter(created_by=alice).count() == 2


def test_adding_a_schedule_to_an_existing_flow_counts_too(api, alice):
    scheduled_flows(alice, 2)
    plain = FlowFactory(created_by=alice, nodes=[node("hook", "webhook")], edges=[])

    response = api.patch(f"/api/flows/{plain.pk}", graph(), format="json")

    assert response.status_code == 400
    plain.refresh_from_db()
    assert plain.has_schedule is False


def test_disabled_schedules_and_other_users_schedules_do_not_count(api, alice, bob):
    scheduled_flows(alice, 5, enabled=False)
    scheduled_flows(bob, 3)
    scheduled_flows(alice, 1)

    response = api.post("/api/flows", {"name": "second", **graph()}, format="json")

    assert response.status_code == 201, response.content
    disabled = api.post("/api/flows", {"name": "off", **graph(False)}, format="json")
    assert disabled.status_code == 201


def test_a_flow_that_has_its_schedule_stays_editable_when_the_cap_is_lowered(
    api, alice, settings
):
    first, _, _ = scheduled_flows(alice, 3)
    settings.SCHEDULED_FLOWS_PER_OWNER = 1
    changed = graph()
    changed["nodes"][1] = code("work", "return {changed: true};")

    response = api.patch(f"/api/flows/{first.pk}", changed, format="json")

    assert response.status_code == 200, response.content


@pytest.mark.django_db(transaction=True)
def test_concurrent_saves_never_pass_the_cap(alice, monkeypatch, settings):
    import threading
    import time

    from django.db import connection
    from rest_framework.test import APIClient

    from flows.schedules import quota as schedule_quota

    if connection.vendor != "postgresql":
        pytest.skip("SQLite serialises writers already (IMMEDIATE transactions)")
    settings.SYNC_RUNS_PER_PROCESS = settings.SYNC_RUNS_PER_OWNER = 100  # not 429
    settings.SYNC_RUNS_PER_ACCOUNT = 100
    counted = schedule_quota.enabled_schedule

    def slowly(nodes):  # widens the window between the count and the insert
        time.sleep(0.02)
        return counted(nodes)

    monkeypatch.setattr(schedule_quota, "enabled_schedule", slowly)
    statuses, start = [], threading.Barrier(8)

    def save(index):
        client = APIClient()
        client.force_authenticate(alice)
        start.wait()
        response = client.post(
            "/api/flows", {"name": f"f{index}", **graph()}, format="json"
        )
        statuses.append(response.status_code)
        connection.close()

    threads = [threading.Thread(target=save, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert Flow.objects.filter(created_by=alice).count() == 2
    assert sorted(statuses) == [201, 201] + [400] * 6


def test_new_workspaces_do_not_multiply_the_cap_without_end(api, alice, settings):
    """The cap counts per workspace and anyone may make workspaces: a user at
    the cap made one workspace after another and scheduled in each. The
    workspaces a user owns (beside the personal one) are capped too, so one
    account's schedules stay under (1 + WORKSPACES_PER_USER) x the cap."""
    settings.WORKSPACES_PER_USER = 2
    scheduled_flows(alice, 2)
    made = []
    for n in range(4):
        response = api.post("/api/workspaces", {"name": f"spare {n}"}, format="json")
        made.append(response.status_code)
        if response.status_code == 201:
            for k in range(3):
                api.post(
                    "/api/flows",
                    {
                        "name": f"s{n}.{k}",
                        "workspace": response.json()["id"],
                        **graph(),
                    },
                    format="json",
                )

    assert made == [201, 201, 409, 409]
    refused = api.post("/api/workspaces", {"name": "one more"}, format="json").json()
    assert refused["error"]["code"] == "conflict"
    assert "2 workspaces" in refused["error"]["message"]
    scheduled = Flow.objects.filter(created_by=alice).scheduled().count()
    assert scheduled == (1 + 2) * 2
