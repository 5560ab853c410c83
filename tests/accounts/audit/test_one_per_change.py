"""Issue 23: every change to a flow, whichever way it comes (API, import,
restore, move, the admin), writes exactly one `FlowVersion` and one audit
event: none missed, none doubled."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.audit.models import AuditEvent
from accounts.models import Membership, Workspace
from flows.models import FlowVersion
from tests.factories import FlowFactory, UserFactory, make_credential
from tests.flows.graphs import chain, node, trigger
from tests.flows.test_admin import change_form

pytestmark = pytest.mark.django_db


def counted(change) -> tuple[int, int, list[str]]:
    """(new versions, new events, their actions) written by `change()`."""
    versions, events = FlowVersion.objects.count(), AuditEvent.objects.count()
    change()
    actions = list(
        AuditEvent.objects.order_by("at").values_list("action", flat=True)[events:]
    )
    return FlowVersion.objects.count() - versions, len(actions), actions


def edit(api, flow):
    response = api.patch(f"/api/flows/{flow.id}", {"name": "Two"}, format="json")
    assert response.status_code == 200, response.content


def admin_save(api, flow):
    staff = Client()
    staff.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    response = staff.post(
        f"/admin/flows/flow/{flow.id}/change/", change_form(flow, name="By admin")
    )
    assert response.status_code == 302, response.content


def import_copy(api, flow):
    document = api.get(f"/api/flows/{flow.id}/export").json()
    response = api.post("/api/flows/import", document, format="json")
    assert response.status_code == 201, response.content


@pytest.mark.parametrize(
    ("change", "action"),
    [
        (edit, "flow.updated"),
        (admin_save, "flow.updated"),
        (import_copy, "flow.imported"),
    ],
)
def test_each_way_of_changing_a_flow_writes_one_version_and_one_event(
    api, alice_flow, change, action
):
    versions, events, actions = counted(lambda: change(api, alice_flow))

    assert (versions, events, actions) == (1, 1, [action])


def test_a_restore_writes_one_version_and_one_event(api, alice_flow):
    edit(api, alice_flow)

    versions, events, actions = counted(
        lambda: api.post(
            f"/api/flows/{alice_flow.id}/versions/1/restore", HTTP_IF_MATCH='"2"'
        )
    )

    assert (versions, events, actions) == (1, 1, ["flow.restored"])


def test_a_move_writes_one_version_when_it_remaps_and_an_event_per_workspace(
    api, alice
):
    """A move is logged in the workspace it left and the one it joined; a
    remapped credential changes the graph: one version, and its `flow.updated`
    (source `move`) as any new version has. Without one, the graph is as it
    was: no version (a save equal to the snapshot writes nothing)."""
    ops = Workspace.objects.create(name="Ops", slug="ops")
    Membership.objects.create(workspace=ops, user=alice, role="editor")
    key = make_credential(alice, "stripe")
    make_credential(alice, "stripe", workspace=ops)
    nodes, edges = chain(
        trigger(),
        node("h", "http_request", url="https://example.com", credential_id=str(key.pk)),
    )
    remapped = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    plain = FlowFactory(created_by=alice)

    def move(flow):
        response = api.post(
            f"/api/flows/{flow.id}/move", {"workspace": str(ops.id)}, format="json"
        )
        assert response.status_code == 200, response.content

    versions, _, actions = counted(lambda: move(remapped))
    assert (versions, sorted(actions)) == (
        1,
        ["flow.moved", "flow.moved", "flow.updated"],
    )
    updated = AuditEvent.objects.get(action="flow.updated")
    assert updated.changes == {"from": 1, "to": 2, "source": "move"}
    assert counted(lambda: move(plain)) == (0, 2, ["flow.moved", "flow.moved"])
