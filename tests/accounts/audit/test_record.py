"""Each change writes one audit event, in its transaction, and one log line."""

from __future__ import annotations

import json

import pytest

from accounts.audit.models import AuditEvent
from flows.models import FlowVersion
from tests.factories import make_credential

pytestmark = pytest.mark.django_db


def events(**filters):
    return list(AuditEvent.objects.filter(**filters).order_by("at"))


def test_creating_a_flow_records_who_and_from_where(api, alice):
    response = api.post(
        "/api/flows",
        {"name": "New"},
        format="json",
        HTTP_USER_AGENT="curl/8",
        REMOTE_ADDR="203.0.113.9",
    )

    (event,) = events(action="flow.created")
    assert (event.actor, event.actor_label) == (alice, "alice")
    assert (event.target_type, event.target_id) == ("flow", response.json()["id"])
    assert (event.target_label, event.address, event.user_agent) == (
        "New",
        "203.0.113.9",
        "curl/8",
    )
    assert event.request_id


def test_a_patch_records_the_version_it_moved_from_and_to(api, alice_flow):
    api.patch(f"/api/flows/{alice_flow.id}", {"name": "Two"}, format="json")

    (event,) = events(action="flow.updated")
    assert event.changes == {"from": 1, "to": 2, "source": "edit"}


def test_an_identical_patch_records_nothing(api, alice_flow):
    before = AuditEvent.objects.count()

    api.patch(f"/api/flows/{alice_flow.id}", {"name": alice_flow.name}, format="json")

    assert AuditEvent.objects.count() == before


def test_an_error_after_the_save_keeps_neither_version_nor_event(
    api, alice_flow, monkeypatch
):
    """The audit write fails after the flow row and its version were written:
    the whole save is undone."""

    def broken(*args, **kwargs):
        raise RuntimeError("the audit table is gone")

    monkeypatch.setattr("flows.history.save.record", broken)
    api.raise_request_exception = False
    name = alice_flow.name

    response = api.patch(f"/api/flows/{alice_flow.id}", {"name": "Two"}, format="json")

    assert response.status_code == 500
    alice_flow.refresh_from_db()
    assert (alice_flow.name, alice_flow.version) == (name, 1)
    assert FlowVersion.objects.filter(flow=alice_flow).count() == 1
    assert not AuditEvent.objects.filter(action="flow.updated").exists()


def test_import_restore_and_delete_are_recorded(api, alice_flow):
    document = api.get(f"/api/flows/{alice_flow.id}/export").json()
    api.post("/api/flows/import", document, format="json")
    api.patch(f"/api/flows/{alice_flow.id}", {"name": "Two"}, format="json")
    api.post(f"/api/flows/{alice_flow.id}/versions/1/restore")
    api.delete(f"/api/flows/{alice_flow.id}")

    assert [e.action for e in events(target_id=str(alice_flow.id))] == [
        "flow.created",  # by the test's factory
        "flow.updated",
        "flow.restored",
        "flow.deleted",
    ]
    (restored,) = events(action="flow.restored")
    assert restored.changes["restored"] == 1
    assert len(events(action="flow.imported")) == 1
    # The event outlives the flow, and still names it.
    assert events(action="flow.deleted")[0].target_label == alice_flow.name


def test_the_webhook_secret_is_recorded_as_set_and_removed_never_shown(api, alice_flow):
    secret = api.post(f"/api/flows/{alice_flow.id}/webhook-secret").json()["secret"]
    api.delete(f"/api/flows/{alice_flow.id}/webhook-secret")

    assert [e.action for e in events(target_id=str(alice_flow.id))] == [
        "flow.created",
        "flow.webhook_secret_set",
        "flow.webhook_secret_removed",
    ]
    dump = json.dumps([e.as_log() for e in AuditEvent.objects.all()])
    assert secret not in dump
    assert FlowVersion.objects.filter(flow=alice_flow).count() == 1


def test_credentials_say_whether_the_secret_changed_never_its_value(api, alice):
    created = api.post(
        "/api/credentials",
        {"name": "mail", "kind": "bearer", "token": "tok-first-s3cr3t"},
        format="json",
    ).json()
    path = f"/api/credentials/{created['id']}"
    api.patch(path, {"name": "mail2"}, format="json")
    api.patch(path, {"token": "tok-second-s3cr3t"}, format="json")
    api.delete(path)

    recorded = events(target_type="credential")
    assert [e.action for e in recorded] == [
        "credential.created",
        "credential.updated",
        "credential.updated",
        "credential.deleted",
    ]
    assert recorded[1].changes == {"fields": ["name"], "secret_changed": False}
    assert recorded[2].changes == {"fields": [], "secret_changed": True}
    dump = json.dumps([e.as_log() for e in recorded])
    assert "s3cr3t" not in dump


def test_a_run_by_hand_and_its_cancel_are_recorded(api, alice_flow):
    run_id = api.post(f"/api/flows/{alice_flow.id}/run?async=true").json()["run_id"]
    api.post(f"/api/runs/{run_id}/cancel")

    started, cancelled = events(target_id=run_id)
    assert (started.action, cancelled.action) == ("run.started", "run.cancelled")
    assert started.target_label == f"{alice_flow.name} (v1)"
    assert cancelled.changes == {"status_before": "queued"}


def test_the_event_outlives_its_actor(api, alice, alice_flow):
    api.patch(f"/api/flows/{alice_flow.id}", {"name": "Two"}, format="json")

    alice.delete()

    (event,) = events(action="flow.updated")
    assert (event.actor, event.actor_label) == (None, "alice")


@pytest.mark.django_db(transaction=True)
def test_each_event_is_one_json_line_on_the_audit_logger(api, alice, json_logs):
    make_credential(alice, name="mail")
    api.post("/api/flows", {"name": "Logged"}, format="json")

    lines = [json.loads(line) for line in json_logs.getvalue().splitlines()]
    (line,) = [line for line in lines if line["logger"] == "weir.audit"]
    assert line["event"]["action"] == "flow.created"
    assert line["event"]["actor"] == "alice"
    assert line["event"]["target"] == "Logged"
    assert line["event"]["request_id"] == line["request_id"]


@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_change_writes_no_log_line(
    api, alice_flow, monkeypatch, json_logs
):
    monkeypatch.setattr(
        "flows.history.save._record_secret",
        lambda *args: (_ for _ in ()).throw(RuntimeError("after the event")),
    )
    api.raise_request_exception = False

    api.patch(f"/api/flows/{alice_flow.id}", {"name": "Two"}, format="json")

    assert "weir.audit" not in json_logs.getvalue()
    assert not AuditEvent.objects.filter(action="flow.updated").exists()


def test_each_event_lands_in_the_workspace_of_its_target(alice, alice_flow):
    from accounts.audit.actor import Actor
    from accounts.audit.record import record
    from accounts.workspaces.models import Membership
    from tests.factories import FlowRunFactory, make_credential

    workspace = alice_flow.workspace
    actor = Actor.system()
    targets = [
        alice_flow,
        make_credential(alice),
        Membership.objects.get(user=alice),
        workspace,
        FlowRunFactory(flow=alice_flow),
    ]

    events = [record("x.y", actor, target) for target in targets]
    signed_in = record("auth.login", actor, alice)

    assert {event.workspace_id for event in events} == {workspace.pk}
    assert signed_in.workspace_id is None
