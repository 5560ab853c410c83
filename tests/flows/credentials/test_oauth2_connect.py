"""Connect, against a real authorization server: the redirect with PKCE and a
state, the consent, the callback storing the tokens; and every way a state
or an answer can fail, each connecting nothing."""

from __future__ import annotations

import http.client
from datetime import timedelta
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from django.conf import settings
from django.test import Client
from django.utils import timezone

from accounts.audit.models import AuditEvent
from accounts.workspaces.models import Membership
from flows.credentials.oauth2.state import OAuthState
from flows.models import Credential
from tests.factories import UserFactory, make_credential
from tests.flows.credentials.oauth2_helpers import oauth2_credential

pytestmark = pytest.mark.django_db


def connect(client, credential):
    return client.get(f"/oauth/connect/{credential.id}")


def consent(authorize_url: str, answer="allow") -> dict:
    """Press Allow (or Deny) on the provider's page: the callback's query."""
    parts = urlsplit(authorize_url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
    connection.request(
        "POST",
        f"{parts.path}?{parts.query}",
        urlencode({"answer": answer}),
        {"Content-Type": "application/x-www-form-urlencoded"},
    )
    location = connection.getresponse().getheader("Location")
    connection.close()
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def callback(client, query: dict):
    return client.get(f"/oauth/callback?{urlencode(query)}")


def test_connect_sends_the_browser_to_the_provider_with_pkce_and_a_state(
    oauth_provider, alice_client, alice
):
    credential = oauth2_credential(
        alice, oauth_provider, authorize_params={"prompt": "consent"}
    )

    response = connect(alice_client, credential)

    assert response.status_code == 302
    url = urlsplit(response["Location"])
    query = {k: v[0] for k, v in parse_qs(url.query).items()}
    assert f"{url.scheme}://{url.netloc}{url.path}" == f"{oauth_provider.url}/authorize"
    assert query["response_type"] == "code"
    assert query["client_id"] == "weir-client"
    assert query["redirect_uri"] == f"{settings.BASE_URL}/oauth/callback"
    assert query["scope"] == "read"
    assert query["prompt"] == "consent"
    assert query["code_challenge_method"] == "S256"
    attempt = OAuthState.objects.get(credential=credential)
    assert query["code_challenge"] == create_s256_code_challenge(attempt.code_verifier)
    assert query["state"] not in attempt.state_hash  # only its hash is stored


def test_allowing_on_the_provider_connects_the_credential(
    oauth_provider, allow_loopback, alice_client, alice
):
    credential = oauth2_credential(alice, oauth_provider)

    query = consent(connect(alice_client, credential)["Location"])
    response = callback(alice_client, query)

    assert response.status_code == 302
    assert response["Location"] == "/credentials/"
    credential.refresh_from_db()
    assert credential.connected
    assert credential.granted_scopes == ["read"]
    stored = credential.secrets()
    assert oauth_provider.live(stored["access_token"]) is not None
    assert stored["refresh_token"]
    assert stored["client_secret"]
    assert stored["access_token"] not in credential.encrypted
    [exchange] = oauth_provider.grants_of("authorization_code")
    assert exchange["code_verifier"]
    assert AuditEvent.objects.filter(action="credential.connected").count() == 1


def test_a_forged_state_connects_nothing(oauth_provider, alice_client, alice):
    credential = oauth2_credential(alice, oauth_provider)
    connect(alice_client, credential)

    response = callback(alice_client, {"code": "abc", "state": "made-up"})

    assert response.status_code == 400
    assert "state is unknown" in response.content.decode()
    credential.refresh_from_db()
    assert not credential.connected
    assert oauth_provider.token_requests == []


def test_a_reused_state_connects_nothing_the_second_time(
    oauth_provider, allow_loopback, alice_client, alice
):
    credential = oauth2_credential(alice, oauth_provider)
    query = consent(connect(alice_client, credential)["Location"])
    callback(alice_client, query)

    response = callback(alice_client, query)

    assert response.status_code == 400
    assert "already completed once" in response.content.decode()
    assert len(oauth_provider.grants_of("authorization_code")) == 1


def test_an_expired_state_connects_nothing(oauth_provider, alice_client, alice):
    credential = oauth2_credential(alice, oauth_provider)
    query = consent(connect(alice_client, credential)["Location"])
    OAuthState.objects.update(created_at=timezone.now() - timedelta(minutes=11))

    response = callback(alice_client, query)

    assert response.status_code == 400
    assert "expired" in response.content.decode()
    assert oauth_provider.token_requests == []


def test_a_state_from_another_session_connects_nothing(
    oauth_provider, alice_client, alice
):
    credential = oauth2_credential(alice, oauth_provider)
    query = consent(connect(alice_client, credential)["Location"])
    other_session = Client()
    other_session.force_login(alice)

    response = callback(other_session, query)

    assert response.status_code == 400
    assert "another browser session" in response.content.decode()
    assert OAuthState.objects.get().used_at is None


def test_a_state_brought_back_by_another_user_connects_nothing(
    oauth_provider, alice_client, alice, bob
):
    credential = oauth2_credential(alice, oauth_provider)
    query = consent(connect(alice_client, credential)["Location"])
    bob_client = Client()
    bob_client.force_login(bob)

    response = callback(bob_client, query)

    assert response.status_code == 400
    assert "someone else" in response.content.decode()
    credential.refresh_from_db()
    assert not credential.connected


def test_denying_on_the_provider_connects_nothing(oauth_provider, alice_client, alice):
    credential = oauth2_credential(alice, oauth_provider)

    query = consent(connect(alice_client, credential)["Location"], answer="deny")
    response = callback(alice_client, query)

    assert response.status_code == 400
    assert "access_denied" in response.content.decode()
    credential.refresh_from_db()
    assert not credential.connected


def test_a_callback_without_a_code_connects_nothing(
    oauth_provider, alice_client, alice
):
    credential = oauth2_credential(alice, oauth_provider)
    query = consent(connect(alice_client, credential)["Location"])

    response = callback(alice_client, {"state": query["state"]})

    assert response.status_code == 400
    assert "no authorization code" in response.content.decode()


def test_a_code_the_provider_refuses_connects_nothing(
    oauth_provider, allow_loopback, alice_client, alice
):
    credential = oauth2_credential(alice, oauth_provider)
    query = consent(connect(alice_client, credential)["Location"])
    oauth_provider.codes.clear()  # the code is no longer valid

    response = callback(alice_client, query)

    assert response.status_code == 400
    assert "invalid_grant" in response.content.decode()
    credential.refresh_from_db()
    assert not credential.connected


def test_a_token_endpoint_that_is_down_connects_nothing(
    oauth_provider, allow_loopback, alice_client, alice
):
    credential = oauth2_credential(alice, oauth_provider)
    query = consent(connect(alice_client, credential)["Location"])
    oauth_provider.down = True

    response = callback(alice_client, query)

    assert response.status_code == 502
    assert "503" in response.content.decode()


def test_a_token_url_outside_the_wall_connects_nothing(
    oauth_provider, alice_client, alice
):
    credential = oauth2_credential(alice, oauth_provider)  # loopback not allowed
    query = consent(connect(alice_client, credential)["Location"])

    response = callback(alice_client, query)

    assert response.status_code == 502
    assert oauth_provider.token_requests == []


def test_connect_signed_out_goes_to_sign_in(oauth_provider, alice):
    credential = oauth2_credential(alice, oauth_provider)

    response = connect(Client(), credential)

    assert response.status_code == 302
    assert response["Location"].startswith(settings.LOGIN_URL)
    assert not OAuthState.objects.exists()


def test_connecting_someone_elses_credential_is_not_found(oauth_provider, alice, bob):
    credential = oauth2_credential(bob, oauth_provider)
    client = Client()
    client.force_login(alice)

    assert connect(client, credential).status_code == 404


def test_a_viewer_may_not_connect(oauth_provider, alice):
    credential = oauth2_credential(alice, oauth_provider)
    viewer = UserFactory(username="vera")
    Membership.objects.create(
        workspace=credential.workspace, user=viewer, role="viewer"
    )
    client = Client()
    client.force_login(viewer)

    response = connect(client, credential)

    assert response.status_code == 403
    assert "credentials.edit" in response.content.decode()
    assert not OAuthState.objects.exists()


def test_only_an_authorization_code_credential_is_connected(
    oauth_provider, alice_client, alice
):
    machine = oauth2_credential(alice, oauth_provider, grant="client_credentials")
    bearer = make_credential(alice, "plain")

    assert connect(alice_client, machine).status_code == 400
    assert connect(alice_client, bearer).status_code == 400
    assert not Credential.objects.filter(token_status="connected").exists()
