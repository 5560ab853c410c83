"""`POST/DELETE /api/flows/:id/webhook-secret` and the flow's `webhook_signed`."""

from __future__ import annotations

import base64

from rest_framework.test import APIClient

from flows.models import Flow


def secret_path(flow) -> str:
    return f"/api/flows/{flow.id}/webhook-secret"


def test_creating_a_secret_shows_it_once(api, alice_flow):
    response = api.post(secret_path(alice_flow))

    assert response.status_code == 201
    secret = response.json()["secret"]
    assert secret.startswith("whsec_")
    assert len(base64.b64decode(secret.removeprefix("whsec_"))) == 32
    alice_flow.refresh_from_db()
    assert alice_flow.webhook_secret == secret


def test_the_flow_says_it_is_signed_but_never_shows_the_secret(api, alice_flow):
    secret = api.post(secret_path(alice_flow)).json()["secret"]

    response = api.get(f"/api/flows/{alice_flow.id}")

    assert response.json()["webhook_signed"] is True
    assert secret not in response.content.decode()
    assert "webhook_secret" not in response.json()


def test_an_unsigned_flow_says_so(api, alice_flow):
    response = api.get(f"/api/flows/{alice_flow.id}")

    assert response.json()["webhook_signed"] is False


def test_webhook_signed_cannot_be_written(api, alice_flow):
    response = api.patch(
        f"/api/flows/{alice_flow.id}", {"webhook_signed": True}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["webhook_signed"] is False
    alice_flow.refresh_from_db()
    assert alice_flow.webhook_secret == ""


def test_posting_again_rotates_the_secret(api, alice_flow):
    first = api.post(secret_path(alice_flow)).json()["secret"]

    second = api.post(secret_path(alice_flow)).json()["secret"]

    assert second != first
    alice_flow.refresh_from_db()
    assert alice_flow.webhook_secret == second


def test_rotating_the_secret_does_not_bump_the_graph_version(api, alice_flow):
    api.post(secret_path(alice_flow))

    alice_flow.refresh_from_db()
    assert alice_flow.version == 1


def test_deleting_the_secret_makes_the_webhook_unsigned(api, alice_flow):
    api.post(secret_path(alice_flow))

    response = api.delete(secret_path(alice_flow))

    assert response.status_code == 200
    assert response.json() == {"success": True}
    alice_flow.refresh_from_db()
    assert alice_flow.webhook_secret == ""


def test_anonymous_gets_401(anon, alice_flow):
    for method in (anon.post, anon.delete):
        response = method(secret_path(alice_flow))

        assert response.status_code == 401
        assert response.json()["error"]["code"] == "not_authenticated"
    alice_flow.refresh_from_db()
    assert alice_flow.webhook_secret == ""


def test_other_user_gets_404(bob_api, alice_flow):
    for method in (bob_api.post, bob_api.delete):
        response = method(secret_path(alice_flow))

        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"
    alice_flow.refresh_from_db()
    assert alice_flow.webhook_secret == ""


def test_other_users_secret_survives_their_delete_attempt(bob_api, alice_flow):
    alice_flow.webhook_secret = "whsec_AAAA"
    alice_flow.save()

    response = bob_api.delete(secret_path(alice_flow))

    assert response.status_code == 404
    assert Flow.objects.get(pk=alice_flow.pk).webhook_secret == "whsec_AAAA"


def test_malformed_flow_id_is_not_found(api):
    response = api.post("/api/flows/not-a-uuid/webhook-secret")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_get_is_method_not_allowed(api, alice_flow):
    response = api.get(secret_path(alice_flow))

    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"


def test_csrf_is_enforced_for_session_callers(alice, alice_flow):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(alice)

    response = client.post(secret_path(alice_flow))

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "csrf_failed"
    alice_flow.refresh_from_db()
    assert alice_flow.webhook_secret == ""


def test_csrf_token_lets_the_owner_create_a_secret(alice, alice_flow):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(alice)
    token = client.get("/api/auth/csrf").json()["csrfToken"]

    response = client.post(secret_path(alice_flow), HTTP_X_CSRFTOKEN=token)

    assert response.status_code == 201
