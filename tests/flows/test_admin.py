"""Django admin: run history with filters and steps; the flow form checks the graph."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.utils.html import escape

from flows.engine import run_flow
from tests.factories import FlowFactory, FlowRunFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff():
    client = Client()
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    return client


def test_runs_filter_by_status_and_trigger(staff):
    FlowRunFactory(status="failed", trigger="webhook", flow__name="Invoices")
    FlowRunFactory(status="succeeded", trigger="manual", flow__name="Reports")

    failed = staff.get("/admin/flows/flowrun/?status__exact=failed")
    manual = staff.get("/admin/flows/flowrun/?trigger__exact=manual")

    assert failed.status_code == 200
    assert "Invoices" in failed.text and "Reports" not in failed.text
    assert "Reports" in manual.text and "Invoices" not in manual.text


def test_runs_search_by_flow_name(staff):
    FlowRunFactory(flow__name="Invoices")
    FlowRunFactory(flow__name="Reports")

    response = staff.get("/admin/flows/flowrun/?q=invoic")

    assert "Invoices" in response.text
    assert "Reports" not in response.text


def test_a_run_page_shows_its_steps_and_cannot_be_edited(staff):
    run = run_flow(FlowFactory(name="Greeter"), {"name": "Ada"}, "manual")

    page = staff.get(f"/admin/flows/flowrun/{run.id}/change/")
    post = staff.post(f"/admin/flows/flowrun/{run.id}/change/", {"status": "failed"})
    add = staff.get("/admin/flows/flowrun/add/")

    assert page.status_code == 200
    assert "greet" in page.text and "hi Ada" in page.text
    assert 'name="status"' not in page.text
    assert post.status_code == 403
    assert add.status_code == 403
    run.refresh_from_db()
    assert run.status == "succeeded"


def change_form(flow, **changes) -> dict:
    data = {
        "created_by": flow.created_by_id,
        "name": flow.name,
        "description": "",
        "input_schema": "{}",
        "nodes": json.dumps(flow.nodes),
        "edges": json.dumps(flow.edges),
        "webhook_enabled": "on",
        "webhook_secret": "",
        "webhook_response_mode": flow.webhook_response_mode,
    }
    return {**data, **changes}


def test_the_flow_change_form_refuses_a_broken_graph_with_the_apis_messages(
    staff, api, alice_flow
):
    edges = [
        {"id": "e1", "source": "trigger", "target": "nowhere", "sourceHandle": None}
    ]
    before = (alice_flow.edges, alice_flow.version)

    page = staff.post(
        f"/admin/flows/flow/{alice_flow.id}/change/",
        change_form(alice_flow, edges=json.dumps(edges)),
    )
    answer = api.patch(f"/api/flows/{alice_flow.id}", {"edges": edges}, format="json")

    message = answer.json()["error"]["details"]["edges"][0]["message"]
    assert answer.status_code == 400
    assert page.status_code == 200  # the form again, not a redirect
    assert escape(f"Edge 0: {message}") in page.text
    alice_flow.refresh_from_db()
    assert (alice_flow.edges, alice_flow.version) == before


def test_the_flow_change_form_refuses_a_cycle(staff, alice_flow):
    nodes = alice_flow.nodes + [
        {"id": "again", "type": "code", "data": {"language": "javascript", "code": "1"}}
    ]
    edges = [
        {"id": "a", "source": "greet", "target": "again", "sourceHandle": None},
        {"id": "b", "source": "again", "target": "greet", "sourceHandle": None},
    ]

    page = staff.post(
        f"/admin/flows/flow/{alice_flow.id}/change/",
        change_form(alice_flow, nodes=json.dumps(nodes), edges=json.dumps(edges)),
    )

    assert page.status_code == 200
    assert "The flow has a cycle through nodes: again, greet." in page.text
    alice_flow.refresh_from_db()
    assert len(alice_flow.nodes) == 2


def test_the_flow_change_form_saves_a_valid_graph(staff, alice_flow):
    page = staff.post(
        f"/admin/flows/flow/{alice_flow.id}/change/",
        change_form(alice_flow, name="Renamed"),
    )

    assert page.status_code == 302
    alice_flow.refresh_from_db()
    assert alice_flow.name == "Renamed"


def test_staff_pin_and_unpin_runs_from_the_run_list(staff):
    run = FlowRunFactory()

    pinned = staff.post(
        "/admin/flows/flowrun/", {"action": "pin", "_selected_action": [run.pk]}
    )
    run.refresh_from_db()
    assert pinned.status_code == 302
    assert run.pinned is True

    staff.post(
        "/admin/flows/flowrun/", {"action": "unpin", "_selected_action": [run.pk]}
    )
    run.refresh_from_db()
    assert run.pinned is False


def test_an_admin_save_bumps_the_version_and_records_it(staff, alice_flow):
    staff.post(
        f"/admin/flows/flow/{alice_flow.id}/change/",
        change_form(alice_flow, name="Fixed by an admin"),
    )

    alice_flow.refresh_from_db()
    assert alice_flow.version == 2
    newest = alice_flow.versions.get(number=2)
    assert (newest.name, newest.source, newest.created_by_label) == (
        "Fixed by an admin",
        "admin",
        "root",
    )


def test_a_builder_holding_the_old_version_gets_412_after_an_admin_save(
    staff, api, alice_flow
):
    staff.post(
        f"/admin/flows/flow/{alice_flow.id}/change/",
        change_form(alice_flow, name="Fixed by an admin"),
    )

    answer = api.patch(
        f"/api/flows/{alice_flow.id}",
        {"name": "Stale tab"},
        format="json",
        HTTP_IF_MATCH='"1"',
    )

    assert answer.status_code == 412
    assert answer.json()["error"]["details"]["saved_by"] == "root"
    alice_flow.refresh_from_db()
    assert alice_flow.name == "Fixed by an admin"


def test_an_admin_save_that_changes_nothing_writes_no_version(staff, alice_flow):
    staff.post(f"/admin/flows/flow/{alice_flow.id}/change/", change_form(alice_flow))

    alice_flow.refresh_from_db()
    assert alice_flow.version == 1
    assert alice_flow.versions.count() == 1


def test_staff_who_may_only_view_runs_cannot_unpin_them(db):
    from django.contrib.auth.models import Permission

    viewer = UserFactory(username="viewer", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_flowrun"))
    client = Client()
    client.force_login(viewer)
    run = FlowRunFactory(pinned=True)

    page = client.get("/admin/flows/flowrun/")
    client.post(
        "/admin/flows/flowrun/", {"action": "unpin", "_selected_action": [run.pk]}
    )

    run.refresh_from_db()
    assert run.pinned is True  # retention still keeps it
    assert 'value="unpin"' not in page.text
