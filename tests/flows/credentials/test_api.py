"""`/api/credentials`: write-only secrets, ownership, every error row."""

from __future__ import annotations

import pytest

from flows.models import Credential
from tests.factories import FlowFactory, make_credential

pytestmark = pytest.mark.django_db


def test_it_creates_a_bearer_credential_without_echoing_the_token(api, alice):
    response = api.post(
        "/api/credentials",
        {"name": "stripe", "kind": "bearer", "token": "sk_live_abcdef123"},
        format="json",
    )

    assert response.status_code == 201
    body = response.json()
    assert body["name"] == "stripe"
    assert body["has_value"] is True
    assert "sk_live_abcdef123" not in response.content.decode()
    assert "token" not in body
    stored = Credential.objects.get(created_by=alice)
    assert stored.secrets() == {"token": "sk_live_abcdef123"}


def test_it_lists_only_the_callers_credentials_with_public_fields(api, alice, bob):
    make_credential(alice, "mine", "header", {"value": "v-123456"}, header_name="X-Key")
    make_credential(bob, "theirs")

    response = api.get("/api/credentials")

    assert response.status_code == 200
    [item] = response.json()
    assert item["name"] == "mine"
    assert item["header_name"] == "X-Key"
    assert "value" not in item
    assert "v-123456" not in response.content.decode()


def test_anonymous_gets_401(anon):
    response = anon.get("/api/credentials")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"


def test_it_refuses_an_unknown_kind(api):
    response = api.post(
        "/api/credentials",
        {"name": "x", "kind": "magic", "token": "abcd"},
        format="json",
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert Credential.objects.count() == 0


@pytest.mark.parametrize(
    ("body", "missing"),
    [
        ({"kind": "bearer"}, "token"),
        ({"kind": "header", "value": "abcd"}, "header_name"),
        ({"kind": "header", "header_name": "X-Key"}, "value"),
        ({"kind": "basic", "username": "u"}, "password"),
        ({"kind": "query", "value": "abcd"}, "param_name"),
        ({"kind": "custom"}, "values"),
    ],
)
def test_it_refuses_missing_fields(api, body, missing):
    response = api.post("/api/credentials", {"name": "x", **body}, format="json")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert missing in error["details"]
    assert Credential.objects.count() == 0


def test_it_refuses_a_value_over_8_kb(api):
    response = api.post(
        "/api/credentials",
        {"name": "big", "kind": "bearer", "token": "é" * 4097},  # 8194 bytes
        format="json",
    )

    assert response.status_code == 400
    assert "token" in response.json()["error"]["details"]
    assert Credential.objects.count() == 0


def test_it_refuses_custom_values_over_8_kb_in_total(api):
    values = {f"k{i}": "x" * 1000 for i in range(9)}
    response = api.post(
        "/api/credentials",
        {"name": "big", "kind": "custom", "values": values},
        format="json",
    )

    assert response.status_code == 400
    assert "values" in response.json()["error"]["details"]


def test_it_refuses_a_name_templates_cannot_read(api):
    response = api.post(
        "/api/credentials",
        {"name": "my key", "kind": "bearer", "token": "abcd"},
        format="json",
    )

    assert response.status_code == 400
    assert "name" in response.json()["error"]["details"]


def test_it_refuses_a_second_credential_with_the_same_name(api, alice):
    make_credential(alice, "dup")

    response = api.post(
        "/api/credentials",
        {"name": "dup", "kind": "bearer", "token": "abcd"},
        format="json",
    )

    assert response.status_code == 400
    assert Credential.objects.filter(created_by=alice).count() == 1


def test_a_field_of_another_kind_is_refused(api):
    response = api.post(
        "/api/credentials",
        {"name": "x", "kind": "bearer", "token": "abcd", "password": "p"},
        format="json",
    )

    assert response.status_code == 400
    assert "password" in response.json()["error"]["details"]


def test_patch_replaces_the_secret_and_keeps_what_it_does_not_send(api, alice):
    credential = make_credential(
        alice, "hdr", "header", {"value": "old-value"}, header_name="X-A"
    )

    response = api.patch(
        f"/api/credentials/{credential.id}", {"value": "new-value"}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["header_name"] == "X-A"
    credential.refresh_from_db()
    assert credential.secrets() == {"value": "new-value"}
    assert credential.public == {"header_name": "X-A"}


def test_patch_cannot_change_the_kind(api, alice):
    credential = make_credential(alice, "k")

    response = api.patch(
        f"/api/credentials/{credential.id}", {"kind": "basic"}, format="json"
    )

    assert response.status_code == 400
    credential.refresh_from_db()
    assert credential.kind == "bearer"


@pytest.mark.parametrize("method", ["get", "patch", "delete"])
def test_another_users_credential_is_not_found(api, bob, method):
    credential = make_credential(bob, "theirs")

    response = getattr(api, method)(
        f"/api/credentials/{credential.id}", {"name": "mine"}, format="json"
    )

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    credential.refresh_from_db()
    assert credential.name == "theirs"


def test_delete_of_an_unused_credential_succeeds(api, alice):
    credential = make_credential(alice, "unused")

    response = api.delete(f"/api/credentials/{credential.id}")

    assert response.status_code == 200
    assert response.json() == {"success": True}
    assert not Credential.objects.filter(pk=credential.pk).exists()


def _flow_using(owner, credential_id=None, template=""):
    data = {"method": "GET", "url": "https://example.com/" + template}
    if credential_id:
        data["credential_id"] = str(credential_id)
    nodes = [
        {"id": "t", "type": "webhook", "data": {}},
        {"id": "call", "type": "http_request", "name": "Call", "data": data},
    ]
    return FlowFactory(
        created_by=owner,
        nodes=nodes,
        edges=[{"id": "e", "source": "t", "target": "call"}],
    )


def test_delete_in_use_answers_409_listing_the_flows(api, alice):
    credential = make_credential(alice, "used")
    by_id = _flow_using(alice, credential.id)
    by_name = _flow_using(alice, template="{{ secrets.used }}")
    _flow_using(alice, template="{{ secrets.used_not }}")

    response = api.delete(f"/api/credentials/{credential.id}")

    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "conflict"
    assert {flow["id"] for flow in error["details"]["flows"]} == {
        str(by_id.id),
        str(by_name.id),
    }
    assert Credential.objects.filter(pk=credential.pk).exists()


def test_forced_delete_removes_a_credential_in_use(api, alice):
    credential = make_credential(alice, "used")
    _flow_using(alice, credential.id)

    response = api.delete(f"/api/credentials/{credential.id}?force=true")

    assert response.status_code == 200
    assert not Credential.objects.filter(pk=credential.pk).exists()


def test_a_flow_naming_another_users_credential_is_refused_naming_the_node(api, bob):
    credential = make_credential(bob, "theirs")
    nodes = [
        {"id": "t", "type": "webhook", "data": {}},
        {
            "id": "call",
            "type": "http_request",
            "name": "Fetch invoices",
            "data": {
                "method": "GET",
                "url": "https://example.com",
                "credential_id": str(credential.id),
            },
        },
    ]

    response = api.post(
        "/api/flows",
        {
            "name": "f",
            "nodes": nodes,
            "edges": [{"id": "e", "source": "t", "target": "call"}],
        },
        format="json",
    )

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    [problem] = error["details"]["nodes"]
    assert problem["index"] == 1
    assert problem["field"] == "data.credential_id"
    assert "Fetch invoices" in problem["message"]


def test_a_flow_may_name_its_owners_credential(api, alice):
    credential = make_credential(alice, "mine")
    nodes = [
        {"id": "t", "type": "webhook", "data": {}},
        {
            "id": "call",
            "type": "http_request",
            "data": {"url": "https://example.com", "credential_id": str(credential.id)},
        },
    ]

    response = api.post(
        "/api/flows",
        {
            "name": "f",
            "nodes": nodes,
            "edges": [{"id": "e", "source": "t", "target": "call"}],
        },
        format="json",
    )

    assert response.status_code == 201


def test_the_list_costs_the_same_queries_for_many_credentials(
    api, alice, django_assert_num_queries
):
    for index in range(5):
        make_credential(alice, f"key{index}")

    # The session, its user, the credentials.
    with django_assert_num_queries(3):
        response = api.get("/api/credentials")

    assert len(response.json()) == 5
