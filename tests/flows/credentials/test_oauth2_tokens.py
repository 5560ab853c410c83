"""oauth2 tokens in runs, against a real authorization server: fetched on
first use, refreshed before expiry and once after a 401, renewed by exactly
one worker at a time, and a refused refresh failing nodes with
`credential_expired` until someone reconnects."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from flows.credentials.oauth2 import tokens
from flows.models import Credential, RunStep
from tests.factories import FlowFactory
from tests.flows.credentials.oauth2_helpers import connected, oauth2_credential
from tests.flows.graphs import chain, node, trigger
from tests.http_server import base

pytestmark = pytest.mark.django_db


def run_call(owner, credential, url):
    from flows.engine import run_flow

    node_list, edges = chain(
        trigger(),
        node("call", "http_request", url=url, credential_id=str(credential.id)),
    )
    flow = FlowFactory(created_by=owner, nodes=node_list, edges=edges)
    return run_flow(flow, {}, "manual")


def me(provider) -> str:
    return f"{provider.url}/api/me"


def test_a_client_credentials_token_is_fetched_once_for_two_runs(
    oauth_provider, allow_loopback, alice
):
    credential = oauth2_credential(alice, oauth_provider, grant="client_credentials")

    first = run_call(alice, credential, me(oauth_provider))
    second = run_call(alice, credential, me(oauth_provider))

    assert first.status == second.status == "succeeded"
    assert second.results["call"]["body"]["user"] == "octo"
    assert len(oauth_provider.grants_of("client_credentials")) == 1
    credential.refresh_from_db()
    assert credential.connected
    assert credential.token_expires_at is not None


def test_a_client_credentials_token_about_to_expire_is_fetched_again(
    oauth_provider, allow_loopback, alice
):
    oauth_provider.expires_in = 30  # inside the minute of leeway
    credential = oauth2_credential(alice, oauth_provider, grant="client_credentials")

    run_call(alice, credential, me(oauth_provider))
    run = run_call(alice, credential, me(oauth_provider))

    assert run.status == "succeeded"
    assert len(oauth_provider.grants_of("client_credentials")) == 2


def test_an_expired_token_is_refreshed_before_the_request_and_rotated(
    oauth_provider, allow_loopback, alice
):
    credential = oauth2_credential(alice, oauth_provider)
    old = connected(credential, oauth_provider, expires_in=-5)

    run = run_call(alice, credential, me(oauth_provider))

    assert run.status == "succeeded"
    assert run.results["call"]["body"]["user"] == "octo"
    [refresh] = oauth_provider.refreshes()
    assert refresh["refresh_token"] == old.refresh_token
    credential.refresh_from_db()
    stored = credential.secrets()
    assert stored["refresh_token"] not in (None, old.refresh_token)
    assert stored["access_token"] != old.access_token
    assert oauth_provider.api_hits == [f"Bearer {stored['access_token']}"]


def test_a_current_token_is_sent_without_asking_the_provider(
    oauth_provider, allow_loopback, alice
):
    credential = oauth2_credential(alice, oauth_provider)
    token = connected(credential, oauth_provider)

    run = run_call(alice, credential, me(oauth_provider))

    assert run.status == "succeeded"
    assert oauth_provider.token_requests == []
    assert oauth_provider.api_hits == [f"Bearer {token.access_token}"]


def test_a_401_refreshes_once_and_sends_the_request_again(
    oauth_provider, allow_loopback, alice
):
    credential = oauth2_credential(alice, oauth_provider)
    old = connected(credential, oauth_provider)
    oauth_provider.revoke_access_tokens()  # Weir still thinks it good for an hour

    run = run_call(alice, credential, me(oauth_provider))

    assert run.status == "succeeded"
    assert run.results["call"]["status"] == 200
    assert len(oauth_provider.refreshes()) == 1
    credential.refresh_from_db()
    new = credential.secrets()["access_token"]
    assert oauth_provider.api_hits == [f"Bearer {old.access_token}", f"Bearer {new}"]


def test_a_second_401_is_the_nodes_answer_with_no_second_refresh(
    oauth_provider, allow_loopback, alice
):
    credential = oauth2_credential(alice, oauth_provider)
    connected(credential, oauth_provider)
    oauth_provider.expires_in = -1  # every token the provider gives is dead
    oauth_provider.revoke_access_tokens()

    run = run_call(alice, credential, me(oauth_provider))

    # The node fails on the 401 it got after the one renewal (on_http_error).
    assert run.status == "failed"
    assert (run.error["code"], run.error["status"]) == ("http_error", 401)
    assert len(oauth_provider.refreshes()) == 1
    assert len(oauth_provider.api_hits) == 2


def test_a_refused_refresh_marks_the_credential_and_fails_with_credential_expired(
    oauth_provider, allow_loopback, alice
):
    credential = oauth2_credential(alice, oauth_provider)
    old = connected(credential, oauth_provider, expires_in=-5)
    old.revoked = True  # the provider no longer knows the refresh token

    run = run_call(alice, credential, me(oauth_provider))
    again = run_call(alice, credential, me(oauth_provider))

    assert run.status == "failed"
    assert run.error["code"] == "credential_expired"
    assert "'crm'" in run.error["message"]
    assert "Reconnect" in run.error["message"]
    credential.refresh_from_db()
    assert credential.token_status == Credential.TokenStatus.RECONNECT_NEEDED
    assert "refresh_token" not in credential.secrets()
    assert again.error["code"] == "credential_expired"
    assert len(oauth_provider.refreshes()) == 1  # not asked again
    assert oauth_provider.api_hits == []


def test_an_expired_token_without_a_refresh_token_needs_a_reconnect(
    oauth_provider, allow_loopback, alice
):
    credential = oauth2_credential(alice, oauth_provider)
    connected(credential, oauth_provider, expires_in=-5, refresh=False)

    run = run_call(alice, credential, me(oauth_provider))

    assert run.error["code"] == "credential_expired"
    assert oauth_provider.token_requests == []
    credential.refresh_from_db()
    assert credential.token_status == Credential.TokenStatus.RECONNECT_NEEDED


def test_a_credential_never_connected_fails_with_credential_not_connected(
    oauth_provider, allow_loopback, alice
):
    credential = oauth2_credential(alice, oauth_provider)

    run = run_call(alice, credential, me(oauth_provider))

    assert run.error["code"] == "credential_not_connected"
    assert "Connect" in run.error["message"]
    assert oauth_provider.api_hits == []


def test_a_refused_client_fails_with_credential_refused(
    oauth_provider, allow_loopback, alice
):
    credential = oauth2_credential(alice, oauth_provider, grant="client_credentials")
    credential.set_secrets({"client_secret": "wrong-secret-value"})
    credential.save()

    run = run_call(alice, credential, me(oauth_provider))

    assert run.error["code"] == "credential_refused"
    assert "invalid_client" in run.error["message"]
    assert "wrong-secret-value" not in str(run.error)


def test_a_token_endpoint_that_is_down_fails_with_credential_token_failed(
    oauth_provider, allow_loopback, alice
):
    oauth_provider.down = True
    credential = oauth2_credential(alice, oauth_provider)
    connected(credential, oauth_provider, expires_in=-5)

    run = run_call(alice, credential, me(oauth_provider))

    assert run.error["code"] == "credential_token_failed"
    assert "503" in run.error["message"]
    credential.refresh_from_db()
    assert credential.connected  # a provider down is no reason to reconnect


def test_tokens_are_redacted_from_what_a_run_stores(
    oauth_provider, server, allow_loopback, alice
):
    credential = oauth2_credential(alice, oauth_provider, grant="client_credentials")

    run = run_call(alice, credential, base(server) + "/echo-auth")

    credential.refresh_from_db()
    access_token = credential.secrets()["access_token"]
    assert run.results["call"]["body"]["authorization"] == "Bearer [redacted:crm]"
    step = RunStep.objects.get(run=run, node_id="call")
    assert access_token not in str(step.output)


@pytest.mark.django_db(transaction=True)
def test_two_workers_needing_a_refresh_at_once_refresh_exactly_once(
    oauth_provider, allow_loopback, alice
):
    credential = oauth2_credential(alice, oauth_provider)
    old = connected(credential, oauth_provider, expires_in=-5)
    oauth_provider.token_delay = 0.4  # the second arrives while the first waits
    start = threading.Barrier(2)
    seen: list = []

    def worker():
        try:
            start.wait(5)
            stale = Credential.objects.get(pk=credential.pk)
            seen.append(tokens.usable_secrets(stale)["access_token"])
        except Exception as error:  # noqa: BLE001 (shown by the assertion)
            seen.append(error)
        finally:
            connection.close()

    workers = [threading.Thread(target=worker) for _ in range(2)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join(10)

    [refresh] = oauth_provider.refreshes()
    assert refresh["refresh_token"] == old.refresh_token
    assert len(seen) == 2 and seen[0] == seen[1]
    assert oauth_provider.live(seen[0]) is not None
