"""A sync or a promotion writes flows through `save_flow`, past the API's
checks: it must keep the workspace's cap of enabled schedules
(SCHEDULED_FLOWS_PER_OWNER) as a save does (found in review: any user, admin
of their personal workspace, synced a bundle of 200 per-minute schedules)."""

from __future__ import annotations

import json

import pytest

from flows.git.files import export_workspace
from flows.nodes.schedule import enabled_schedule
from tests.factories import FlowFactory
from tests.flows.git.test_api import browser, sync
from tests.flows.git.test_promote_api import keys, promote
from tests.flows.graphs import code, edge, node


@pytest.fixture(autouse=True)
def cap_of_two(settings):
    settings.SCHEDULED_FLOWS_PER_OWNER = 2


def scheduled(workspace, maker, count, enabled=True, name="Tick") -> list:
    return [
        FlowFactory(
            created_by=maker,
            workspace=workspace,
            name=f"{name} {index}",
            nodes=[
                node("tick", "schedule", cron="* * * * *", enabled=enabled),
                code("work", "return {};"),
            ],
            edges=[edge("tick", "work")],
        )
        for index in range(count)
    ]


def enabled_schedules(workspace) -> int:
    return sum(enabled_schedule(f.nodes) is not None for f in workspace.flows.all())


def files_of(workspace) -> dict:
    return {
        name: json.loads(text) for name, text in export_workspace(workspace).items()
    }


def test_a_sync_past_the_cap_is_refused_and_writes_nothing(staging, production, ops):
    scheduled(staging, ops, 3)  # made directly: the cap holds for saves

    response = sync(browser(ops), production, {"files": files_of(staging)})

    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert "enabled schedule" in error["details"]["problem"]
    assert error["details"]["file"].startswith("tick-")
    assert not production.flows.exists()


def test_a_promotion_past_the_cap_is_refused_and_writes_nothing(
    staging, production, ops
):
    flows = scheduled(staging, ops, 1)
    scheduled(production, ops, 2, name="Nightly")

    response = promote(browser(ops), staging, production, keys(flows))

    assert response.status_code == 400, response.content
    assert "enabled schedule" in response.json()["error"]["message"]
    assert enabled_schedules(production) == 2
    assert production.flows.count() == 2


def test_schedules_within_the_cap_or_disabled_or_already_there_are_synced(
    staging, production, ops
):
    scheduled(staging, ops, 2)
    scheduled(staging, ops, 3, enabled=False, name="Paused")
    first = sync(browser(ops), production, {"files": files_of(staging)})
    # The cap lowered under what the workspace holds: its flows stay editable.
    for flow in staging.flows.all():
        flow.description = "Changed"
        flow.save()
    again = sync(browser(ops), production, {"files": files_of(staging)})

    assert first.status_code == 200, first.content
    assert again.status_code == 200, again.content
    assert again.json()["counts"]["update"] == 5
    assert enabled_schedules(production) == 2
