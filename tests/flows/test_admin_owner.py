"""Staff with flow rights cannot make a flow run as someone else: a flow runs
with its owner's credentials, so only superusers give a flow an owner other
than themselves or edit the graph of another user's flow (issue 27, item 3)."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from flows.models import Flow
from tests.factories import FlowFactory, UserFactory, make_credential
from tests.flows.graphs import chain, code, trigger

pytestmark = pytest.mark.django_db

# Reversed, so redaction cannot recognise the value on the way out.
THIEF = "return {loot: secrets.api_key.split('').reverse().join('')};"


@pytest.fixture
def flowstaff():
    """Staff, not superuser, with every right on flows."""
    user = UserFactory(username="flowstaff", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="flows", codename__endswith="_flow"
        )
    )
    client = Client()
    client.force_login(user)
    client.user = user
    return client


def form(owner, nodes, edges, **changes) -> dict:
    return {
        "created_by": owner.pk,
        "name": "Looks harmless",
        "description": "",
        "input_schema": "{}",
        "nodes": json.dumps(nodes),
        "edges": json.dumps(edges),
        "webhook_enabled": "on",
        "webhook_secret": "",
        **changes,
    }


def test_staff_cannot_create_a_flow_that_runs_as_another_user(flowstaff, alice):
    make_credential(alice)
    nodes, edges = chain(trigger(), code("steal", THIEF))

    flowstaff.post("/admin/flows/flow/add/", form(alice, nodes, edges))

    assert not Flow.objects.filter(created_by=alice).exists()
    flow = Flow.objects.get()
    assert flow.created_by == flowstaff.user  # made as its author, who has no api_key
    answer = Client().post(flow.webhook_path, {}, content_type="application/json")
    assert "s3cr3t" not in answer.text and "terces" not in answer.text


def test_staff_cannot_edit_the_graph_of_another_users_flow(flowstaff, alice):
    make_credential(alice)
    flow = FlowFactory(created_by=alice, name="Alice's")
    before = (flow.nodes, flow.edges)
    nodes, edges = chain(trigger(), code("steal", THIEF))

    page = flowstaff.get(f"/admin/flows/flow/{flow.id}/change/")
    flowstaff.post(
        f"/admin/flows/flow/{flow.id}/change/",
        form(alice, nodes, edges, name="Renamed"),
    )

    flow.refresh_from_db()
    assert (flow.nodes, flow.edges) == before
    assert {"nodes", "edges", "created_by"}.isdisjoint(
        page.context["adminform"].form.fields
    )


def test_staff_cannot_hand_their_own_flow_to_another_user(flowstaff, alice):
    make_credential(alice)
    nodes, edges = chain(trigger(), code("steal", THIEF))
    mine = FlowFactory(created_by=flowstaff.user, nodes=nodes, edges=edges)

    flowstaff.post(f"/admin/flows/flow/{mine.id}/change/", form(alice, nodes, edges))

    mine.refresh_from_db()
    assert mine.created_by == flowstaff.user


def test_staff_still_edit_the_graph_of_their_own_flow(flowstaff):
    mine = FlowFactory(created_by=flowstaff.user)
    nodes, edges = chain(trigger(), code("work", "return 2;"))

    response = flowstaff.post(
        f"/admin/flows/flow/{mine.id}/change/",
        form(flowstaff.user, nodes, edges, name="Mine"),
    )

    assert response.status_code == 302
    mine.refresh_from_db()
    assert (mine.name, mine.nodes) == ("Mine", nodes)


def test_a_superuser_may_still_create_a_flow_for_another_user(alice):
    root = Client()
    root.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    nodes, edges = chain(trigger(), code("work", "return 1;"))

    response = root.post("/admin/flows/flow/add/", form(alice, nodes, edges))

    assert response.status_code == 302
    assert Flow.objects.get().created_by == alice
