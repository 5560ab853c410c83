"""`/api/credentials` for kind oauth2: its fields per grant, every error row,
the connection it shows (never a token), Disconnect, and exports without it."""

from __future__ import annotations

import pytest

from accounts.workspaces.models import Membership
from flows.credentials.probe import probe
from flows.models import Credential
from tests.factories import FlowFactory, UserFactory, make_credential
from tests.flows.credentials.oauth2_helpers import connected, oauth2_credential

pytestmark = pytest.mark.django_db

CODE_BODY = {
    "name": "crm",
    "kind": "oauth2",
    "grant": "authorization_code",
    "authorize_url": "https://id.example.com/authorize",
    "token_url": "https://id.example.com/token",
    "client_id": "weir",
    "client_secret": "cs-0123456789abcdef",
    "scopes": ["read", "offline_access"],
    "authorize_params": {"access_type": "offline"},
}


def test_it_creates_an_authorization_code_credential_not_yet_connected(api, alice):
    response = api.post("/api/credentials", CODE_BODY, format="json")

    assert response.status_code == 201
    body = response.json()
    assert body["scopes"] == ["read", "offline_access"]
    assert body["authorize_params"] == {"access_type": "offline"}
    assert body["connected"] is False
    assert body["reconnect_needed"] is False
    assert body["expires_at"] is None
    assert "client_secret" not in body
    stored = Credential.objects.get(created_by=alice)
    assert stored.secrets() == {"client_secret": "cs-0123456789abcdef"}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"grant": None}, "grant"),
        ({"grant": "password"}, "grant"),
        ({"authorize_url": None}, "authorize_url"),
        ({"token_url": "ftp://id.example.com/token"}, "token_url"),
        ({"client_id": None}, "client_id"),
        ({"scopes": ["has space"]}, "scopes"),
        ({"authorize_params": {"state": "mine"}}, "authorize_params"),
        ({"authorize_params": {"code_verifier": "x"}}, "authorize_params"),
        ({"authorize_params": {"url": "https://evil.example"}}, "authorize_params"),
        ({"client_auth": "private_key_jwt"}, "client_auth"),
    ],
)
def test_it_refuses_a_bad_authorization_code_credential(api, change, field):
    body = {**CODE_BODY, **change}
    body = {key: value for key, value in body.items() if value is not None}

    response = api.post("/api/credentials", body, format="json")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert field in error["details"]
    assert not Credential.objects.exists()


def test_a_client_credentials_credential_needs_its_secret_and_no_authorize_url(api):
    body = {
        "name": "machine",
        "kind": "oauth2",
        "grant": "client_credentials",
        "token_url": "https://id.example.com/token",
        "client_id": "weir",
        "authorize_url": "https://id.example.com/authorize",
    }

    response = api.post("/api/credentials", body, format="json")

    details = response.json()["error"]["details"]
    assert response.status_code == 400
    assert set(details) == {"client_secret", "authorize_url"}


def test_the_grant_cannot_change(api, alice, oauth_provider):
    credential = oauth2_credential(alice, oauth_provider)

    response = api.patch(
        f"/api/credentials/{credential.id}",
        {"grant": "client_credentials"},
        format="json",
    )

    assert response.status_code == 400
    assert "grant" in response.json()["error"]["details"]


def test_a_connected_credential_shows_its_connection_never_a_token(
    api, alice, oauth_provider
):
    credential = oauth2_credential(alice, oauth_provider)
    token = connected(credential, oauth_provider)

    response = api.get(f"/api/credentials/{credential.id}")

    body = response.json()
    assert body["connected"] is True
    assert body["granted_scopes"] == ["read"]
    assert body["expires_at"].startswith(str(credential.token_expires_at.year))
    text = response.content.decode()
    assert token.access_token not in text
    assert token.refresh_token not in text


def test_other_kinds_are_never_connected_and_show_no_oauth2_field(api, alice):
    make_credential(alice, "plain")

    [body] = api.get("/api/credentials").json()

    assert body["connected"] is False
    assert body["expires_at"] is None
    assert "token_url" not in body


def test_changing_the_token_url_forgets_the_tokens(api, alice, oauth_provider):
    credential = oauth2_credential(alice, oauth_provider)
    connected(credential, oauth_provider)

    response = api.patch(
        f"/api/credentials/{credential.id}",
        # A new token URL takes its client secret again (test_api_destination.py).
        {"token_url": "https://elsewhere.example.com/token", "client_secret": "s2"},
        format="json",
    )

    assert response.json()["connected"] is False
    credential.refresh_from_db()
    assert credential.secrets() == {"client_secret": "s2"}


def test_renaming_keeps_the_tokens(api, alice, oauth_provider):
    credential = oauth2_credential(alice, oauth_provider)
    connected(credential, oauth_provider)

    response = api.patch(
        f"/api/credentials/{credential.id}", {"name": "crm2"}, format="json"
    )

    assert response.json()["connected"] is True


def test_disconnect_forgets_the_tokens_and_keeps_the_client(api, alice, oauth_provider):
    credential = oauth2_credential(alice, oauth_provider)
    connected(credential, oauth_provider)

    response = api.post(f"/api/credentials/{credential.id}/disconnect")

    assert response.status_code == 200
    assert response.json()["connected"] is False
    credential.refresh_from_db()
    assert credential.secrets() == {
        "client_secret": "provider-client-secret-0123456789"
    }
    assert credential.token_status == ""


def test_disconnect_of_another_kind_is_refused(api, alice):
    credential = make_credential(alice, "plain")

    response = api.post(f"/api/credentials/{credential.id}/disconnect")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"


def test_disconnect_anonymous_gets_401(anon, alice, oauth_provider):
    credential = oauth2_credential(alice, oauth_provider)

    response = anon.post(f"/api/credentials/{credential.id}/disconnect")

    assert response.status_code == 401


def test_disconnect_of_someone_elses_credential_is_not_found(
    bob_api, alice, oauth_provider
):
    credential = oauth2_credential(alice, oauth_provider)

    response = bob_api.post(f"/api/credentials/{credential.id}/disconnect")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_a_viewer_may_not_disconnect(alice, oauth_provider):
    from rest_framework.test import APIClient

    credential = oauth2_credential(alice, oauth_provider)
    connected(credential, oauth_provider)
    viewer = UserFactory(username="vera")
    Membership.objects.create(
        workspace=credential.workspace, user=viewer, role="viewer"
    )
    client = APIClient()
    client.force_login(viewer)

    response = client.post(f"/api/credentials/{credential.id}/disconnect")

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"
    credential.refresh_from_db()
    assert credential.connected


def test_an_export_carries_no_token(api, alice, oauth_provider):
    credential = oauth2_credential(alice, oauth_provider)
    token = connected(credential, oauth_provider)
    flow = FlowFactory(
        created_by=alice,
        nodes=[
            {
                "id": "c",
                "type": "http_request",
                "data": {
                    "url": f"{oauth_provider.url}/api/me",
                    "credential_id": str(credential.id),
                },
            }
        ],
        edges=[],
    )

    response = api.get(f"/api/flows/{flow.id}/export")

    text = response.content.decode()
    assert response.status_code == 200
    assert {"name": "crm", "kind": "oauth2"} in response.json()["credentials"]
    for secret in (token.access_token, token.refresh_token, "provider-client-secret"):
        assert secret not in text


def test_a_test_sends_the_token_a_run_would_send(alice, oauth_provider, allow_loopback):
    credential = oauth2_credential(alice, oauth_provider, grant="client_credentials")

    answer = probe(credential, f"{oauth_provider.url}/api/me")

    assert answer["ok"] is True
    assert "200" in answer["message"]


def test_a_test_of_an_unconnected_credential_says_so(alice, oauth_provider):
    credential = oauth2_credential(alice, oauth_provider)

    answer = probe(credential, f"{oauth_provider.url}/api/me")

    assert answer == {"ok": False, "message": answer["message"]}
    assert "not connected" in answer["message"]
