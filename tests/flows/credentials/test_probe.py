"""`POST /api/credentials/:id/test` for the HTTP kinds, against a real loopback
server, and every error row of the endpoint."""

from __future__ import annotations

import base64
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.tokens.models import ApiToken
from accounts.workspaces.models import Membership, Workspace
from flows.credentials import probe
from tests.factories import UserFactory, make_credential
from tests.http_server import base

pytestmark = pytest.mark.django_db

TOKEN = "tok-probe-good-123"


def endpoint(credential) -> str:
    return f"/api/credentials/{credential.id}/test"


def try_it(client, credential, url=None):
    body = {} if url is None else {"url": url}
    return client.post(endpoint(credential), body, format="json")


def test_a_bearer_token_the_server_accepts_is_ok(api, alice, server, allow_loopback):
    server.accepts = {f"Bearer {TOKEN}"}
    credential = make_credential(alice, "stripe", secrets={"token": TOKEN})
    url = f"{base(server)}/protected"

    response = try_it(api, credential, url)

    assert response.status_code == 200
    assert response.json() == {"ok": True, "message": f"GET {url} answered 200 OK."}
    assert server.hits == ["/protected"]


def test_a_token_the_server_refuses_is_not_ok_and_says_why(
    api, alice, server, allow_loopback
):
    server.accepts = {"Bearer another-token"}
    credential = make_credential(alice, "stripe", secrets={"token": TOKEN})

    response = try_it(api, credential, f"{base(server)}/protected")

    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is False
    assert (
        "answered 401 Unauthorized (the server refused the credential)"
        in (body["message"])
    )
    assert TOKEN not in response.content.decode()


def test_a_header_credential_sends_its_header(api, alice, server, allow_loopback):
    server.accepts = {"key-probe-456"}
    credential = make_credential(
        alice, "crm", "header", {"value": "key-probe-456"}, header_name="X-Api-Key"
    )

    response = try_it(api, credential, f"{base(server)}/protected")

    assert response.json()["ok"] is True


def test_a_basic_credential_sends_its_pair(api, alice, server, allow_loopback):
    pair = base64.b64encode(b"ada:pw-probe-789").decode()
    server.accepts = {f"Basic {pair}"}
    credential = make_credential(
        alice, "legacy", "basic", {"password": "pw-probe-789"}, username="ada"
    )

    response = try_it(api, credential, f"{base(server)}/protected")

    assert response.json()["ok"] is True


def test_a_query_credential_adds_its_parameter_but_not_to_the_message(
    api, alice, server, allow_loopback
):
    server.accepts = {"q-probe-secret"}
    credential = make_credential(
        alice, "maps", "query", {"value": "q-probe-secret"}, param_name="api_key"
    )
    url = f"{base(server)}/protected?lang=en"

    response = try_it(api, credential, url)

    assert response.json() == {"ok": True, "message": f"GET {url} answered 200 OK."}
    assert server.hits == ["/protected?lang=en&api_key=q-probe-secret"]


def test_a_secret_echoed_in_a_failure_is_masked(api, alice, server, allow_loopback):
    credential = make_credential(
        alice, "maps", "query", {"value": "q-probe-secret"}, param_name="api_key"
    )

    # http.client refuses the space, quoting the path it was given (secret included).
    response = try_it(api, credential, f"{base(server)}/a b")

    body = response.json()
    assert body["ok"] is False
    assert "[redacted:maps]" in body["message"]
    assert "q-probe-secret" not in response.content.decode()


def test_a_page_that_is_not_there_is_not_ok(api, alice, server, allow_loopback):
    credential = make_credential(alice, "stripe")

    response = try_it(api, credential, f"{base(server)}/missing")

    assert response.json() == {
        "ok": False,
        "message": f"GET {base(server)}/missing answered 404 Not Found.",
    }


def test_a_private_address_stays_refused(api, alice, server):
    credential = make_credential(alice, "stripe")

    response = try_it(api, credential, f"{base(server)}/protected")

    assert response.json() == {
        "ok": False,
        "message": "127.0.0.1 is refused: it is not a public address (an operator "
        "may allow it in the admin or with HTTP_NODE_ALLOWLIST).",
    }
    assert server.hits == []


def test_a_server_that_is_down_is_not_ok(api, alice, closed_port, allow_loopback):
    credential = make_credential(alice, "stripe")

    response = try_it(api, credential, f"http://127.0.0.1:{closed_port}/")

    body = response.json()
    assert body["ok"] is False
    assert "Connection refused" in body["message"]
    assert "Traceback" not in body["message"]


def test_a_slow_server_is_not_ok_after_the_time_limit(
    api, alice, server, allow_loopback, monkeypatch
):
    monkeypatch.setattr(probe, "TIMEOUT_SECONDS", 0.5)
    credential = make_credential(alice, "stripe")
    url = f"{base(server)}/slow"

    response = try_it(api, credential, url)

    assert response.json() == {
        "ok": False,
        "message": f"{url} gave no complete answer within 0.5 s.",
    }


def test_a_custom_credential_answers_that_it_cannot_be_tested(api, alice):
    credential = make_credential(alice, "bag", "custom", {"values": {"a": "bcdef"}})

    response = try_it(api, credential)

    assert response.status_code == 200
    assert response.json()["ok"] is False
    assert "cannot test it" in response.json()["message"]


@pytest.mark.parametrize("url", [None, "ftp://example.com/", "example.com", ""])
def test_an_http_kind_needs_an_http_url(api, alice, server, url):
    credential = make_credential(alice, "stripe")

    response = try_it(api, credential, url)

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert list(error["details"]) == ["url"]
    assert server.hits == []


def test_anonymous_gets_401(anon, alice):
    credential = make_credential(alice, "stripe")

    response = try_it(anon, credential, "https://example.com/")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"


def test_someone_elses_credential_is_not_found(bob_api, alice, server):
    credential = make_credential(alice, "stripe")

    response = try_it(bob_api, credential, f"{base(server)}/protected")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert server.hits == []


def test_an_unknown_credential_is_not_found(api):
    response = api.post(
        "/api/credentials/00000000-0000-0000-0000-000000000000/test",
        {"url": "https://example.com/"},
        format="json",
    )

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


@pytest.fixture
def team_credential(alice):
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="owner")
    return make_credential(alice, "team_key", workspace=team, secrets={"token": TOKEN})


def member(team_credential, role) -> APIClient:
    user = UserFactory(username=f"team_{role}")
    Membership.objects.create(workspace=team_credential.workspace, user=user, role=role)
    client = APIClient()
    client.force_login(user)
    return client


@pytest.mark.parametrize("role", ["viewer", "runner"])
def test_a_member_who_may_not_edit_flows_gets_403(
    team_credential, role, server, allow_loopback
):
    response = try_it(
        member(team_credential, role), team_credential, f"{base(server)}/protected"
    )

    assert response.status_code == 403
    error = response.json()["error"]
    assert error["code"] == "permission_denied"
    assert "flows.edit" in error["message"]
    assert server.hits == []


def test_an_editor_of_the_workspace_may_test(team_credential, server, allow_loopback):
    server.accepts = {f"Bearer {TOKEN}"}

    response = try_it(
        member(team_credential, "editor"), team_credential, f"{base(server)}/protected"
    )

    assert response.status_code == 200
    assert response.json()["ok"] is True


def token_client(user, *scopes) -> APIClient:
    expires_at = timezone.now() + timedelta(days=1)
    _, value = ApiToken.issue(user, "script", list(scopes), expires_at)
    client = APIClient(enforce_csrf_checks=True)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {value}")
    return client


def test_a_token_without_flows_write_gets_403(alice, server, allow_loopback):
    credential = make_credential(alice, "stripe")
    client = token_client(alice, "credentials:read", "credentials:write")

    response = try_it(client, credential, f"{base(server)}/protected")

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"
    assert server.hits == []


def test_a_token_with_flows_write_may_test(alice, server, allow_loopback):
    server.accepts = {f"Bearer {TOKEN}"}
    credential = make_credential(alice, "stripe", secrets={"token": TOKEN})
    client = token_client(alice, "flows:read", "flows:write")

    response = try_it(client, credential, f"{base(server)}/protected")

    assert response.status_code == 200
    assert response.json()["ok"] is True


def test_tests_past_the_rate_are_refused_with_429(
    api, alice, server, allow_loopback, settings
):
    settings.CREDENTIAL_TEST_RATE = "2/min"
    credential = make_credential(alice, "stripe")
    url = f"{base(server)}/protected"

    statuses = [try_it(api, credential, url).status_code for _ in range(3)]
    refused = try_it(api, credential, url)

    assert statuses == [200, 200, 429]
    assert refused.json()["error"]["code"] == "throttled"
    assert int(refused["Retry-After"]) >= 1
    assert len(server.hits) == 2


def test_a_refused_body_does_not_count_against_the_rate(api, alice, settings):
    settings.CREDENTIAL_TEST_RATE = "1/min"
    credential = make_credential(alice, "bag", "custom", {"values": {"a": "bcdef"}})
    stripe = make_credential(alice, "stripe")

    refused = try_it(api, stripe)
    answered = try_it(api, credential)

    assert refused.status_code == 400
    assert answered.status_code == 200
