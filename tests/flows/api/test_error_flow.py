"""Setting a flow's error flow through the API, and every way it is refused."""

from __future__ import annotations

import uuid

import pytest

from tests.factories import FlowFactory

pytestmark = pytest.mark.django_db


def set_error_flow(api, flow, value):
    return api.patch(f"/api/flows/{flow.id}", {"error_flow": value}, format="json")


def test_a_flow_of_the_same_owner_becomes_the_error_flow(api, alice, alice_flow):
    handler = FlowFactory(created_by=alice, name="handler")

    response = set_error_flow(api, alice_flow, str(handler.id))

    assert response.status_code == 200
    assert response.json()["error_flow"] == str(handler.id)
    alice_flow.refresh_from_db()
    assert alice_flow.error_flow_id == handler.id
    assert set_error_flow(api, alice_flow, None).json()["error_flow"] is None


@pytest.mark.parametrize("whose", ["bob", "nobody"])
def test_another_users_flow_reads_like_a_missing_one(api, bob, alice_flow, whose):
    other = str(FlowFactory(created_by=bob).id) if whose == "bob" else str(uuid.uuid4())

    response = set_error_flow(api, alice_flow, other)

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert error["details"]["error_flow"] == ["No flow of this workspace has this id."]
    alice_flow.refresh_from_db()
    assert alice_flow.error_flow_id is None


def test_a_flow_cannot_be_its_own_error_flow(api, alice_flow):
    response = set_error_flow(api, alice_flow, str(alice_flow.id))

    assert response.status_code == 400
    assert response.json()["error"]["details"]["error_flow"] == [
        "A flow cannot be its own error flow: its failure would start it."
    ]
