"""`save_flow`: one version per real change, in the change's transaction."""

from __future__ import annotations

import pytest

from accounts.audit.actor import Actor
from flows.history.models import FlowVersion
from flows.history.save import StaleVersion, save_flow
from flows.models import Flow
from tests.factories import FlowFactory

pytestmark = pytest.mark.django_db


def test_a_new_flow_gets_version_one(alice):
    flow = Flow(created_by=alice)

    version = save_flow(
        flow, {"name": "New"}, actor=Actor(user=alice, label="alice"), source="create"
    )

    assert flow.version == 1
    assert (version.number, version.name, version.source) == (1, "New", "create")
    assert version.created_by == alice


def test_a_change_bumps_the_version_and_snapshots_the_flow(alice):
    flow = FlowFactory(created_by=alice)

    version = save_flow(
        flow, {"name": "Renamed"}, actor=Actor(user=alice, label="alice"), source="edit"
    )

    flow.refresh_from_db()
    assert flow.version == 2
    assert version.snapshot()["name"] == "Renamed"
    assert version.snapshot()["nodes"] == flow.nodes
    assert version.settings == {
        "webhook_enabled": True,
        "webhook_response_mode": "completed",
        "error_flow_id": None,
        "mcp_offered": False,
    }


def test_a_save_equal_to_the_stored_flow_writes_nothing(alice):
    flow = FlowFactory(created_by=alice)
    nodes = [dict(node) for node in flow.nodes]

    version = save_flow(flow, {"nodes": nodes}, actor=Actor(), source="edit")

    assert version is None
    flow.refresh_from_db()
    assert flow.version == 1
    assert FlowVersion.objects.filter(flow=flow).count() == 1


def test_pins_and_the_webhook_secret_are_saved_without_a_version(alice):
    flow = FlowFactory(created_by=alice)

    version = save_flow(
        flow,
        {"pins": {"greet": {"x": 1}}, "webhook_secret": "whsec_abc"},
        actor=Actor(),
        source="edit",
    )

    assert version is None
    flow.refresh_from_db()
    assert (flow.version, flow.pins, flow.webhook_secret) == (
        1,
        {"greet": {"x": 1}},
        "whsec_abc",
    )
    stored = FlowVersion.objects.get(flow=flow)
    assert "whsec_abc" not in str(stored.snapshot())
    assert "pins" not in stored.snapshot()


def test_a_stale_expected_version_changes_nothing(alice):
    flow = FlowFactory(created_by=alice)
    save_flow(flow, {"name": "Second"}, actor=Actor(label="bob"), source="edit")

    with pytest.raises(StaleVersion) as raised:
        save_flow(
            Flow.objects.get(pk=flow.pk),
            {"name": "Third"},
            actor=Actor(),
            source="edit",
            expected_version=1,
        )

    assert raised.value.current == 2
    assert raised.value.newest.created_by_label == "bob"
    flow.refresh_from_db()
    assert (flow.name, flow.version) == ("Second", 2)


def test_an_error_after_the_save_keeps_no_version(alice, monkeypatch):
    flow = FlowFactory(created_by=alice, name="Before")

    def broken(*args, **kwargs):
        raise RuntimeError("the disk is full")

    monkeypatch.setattr("flows.history.save._write_version", broken)
    with pytest.raises(RuntimeError):
        save_flow(flow, {"name": "After"}, actor=Actor(), source="edit")

    flow.refresh_from_db()
    assert (flow.name, flow.version) == ("Before", 1)
    assert FlowVersion.objects.filter(flow=flow).count() == 1


def test_the_saver_is_remembered_after_the_user_is_deleted(alice, bob):
    flow = FlowFactory(created_by=alice)
    save_flow(
        flow, {"name": "By bob"}, actor=Actor(user=bob, label="bob"), source="edit"
    )

    bob.delete()

    version = FlowVersion.objects.get(flow=flow, number=2)
    assert (version.created_by, version.created_by_label) == (None, "bob")
