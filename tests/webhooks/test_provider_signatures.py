"""Deliveries signed as GitHub, Stripe and Slack sign them (issue 36).

Stripe's and Slack's signatures are made by their own libraries (stripe,
slack_sdk), so what is tested is the providers' scheme, not our reading of
it; GitHub publishes no Python library, so its header is made as its docs
say (HMAC-SHA256 of the body, hex, `sha256=`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time

import pytest
import stripe
from slack_sdk.signature import SignatureVerifier

from flows.models import Flow
from tests.factories import FlowFactory
from tests.webhooks.conftest import post_webhook, webhook_runs

SECRET = "s3cret-from-the-provider"


def signed_flow(owner, scheme: str) -> Flow:
    return FlowFactory(
        created_by=owner, webhook_secret=SECRET, webhook_signature_scheme=scheme
    )


def github_headers(body: bytes, secret: str = SECRET) -> dict:
    digest = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return {
        "HTTP_X_HUB_SIGNATURE_256": f"sha256={digest}",
        "HTTP_X_GITHUB_DELIVERY": "72d3162e-cc78-11e3-81ab-4c9367dc0958",
        "HTTP_X_GITHUB_EVENT": "issues",
    }


def stripe_headers(body: bytes, secret: str = SECRET, timestamp=None) -> dict:
    header = stripe.WebhookSignature.generate_signature_header(
        body.decode(), secret, timestamp=timestamp
    )
    return {"HTTP_STRIPE_SIGNATURE": header}


def slack_headers(body: bytes, secret: str = SECRET, timestamp=None) -> dict:
    timestamp = str(timestamp or int(time.time()))
    signature = SignatureVerifier(secret).generate_signature(
        timestamp=timestamp, body=body
    )
    return {
        "HTTP_X_SLACK_SIGNATURE": signature,
        "HTTP_X_SLACK_REQUEST_TIMESTAMP": timestamp,
    }


SIGNERS = {"github": github_headers, "stripe": stripe_headers, "slack": slack_headers}
BODY = json.dumps({"id": "evt_1", "type": "ping"}).encode()


@pytest.mark.parametrize("scheme", sorted(SIGNERS))
def test_a_delivery_signed_by_the_provider_runs(client, alice, scheme):
    flow = signed_flow(alice, scheme)

    response = post_webhook(client, flow, BODY, **SIGNERS[scheme](BODY))

    assert response.status_code == 200
    assert webhook_runs(flow) == 1


@pytest.mark.parametrize("scheme", sorted(SIGNERS))
def test_a_signature_made_with_another_secret_is_401(client, alice, scheme):
    flow = signed_flow(alice, scheme)

    response = post_webhook(client, flow, BODY, **SIGNERS[scheme](BODY, "other-one"))

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
    assert "does not match" in response.json()["error"]["message"]
    assert webhook_runs(flow) == 0


@pytest.mark.parametrize("scheme", sorted(SIGNERS))
def test_a_missing_signature_is_401_naming_the_providers_header(client, alice, scheme):
    flow = signed_flow(alice, scheme)

    response = post_webhook(client, flow, BODY)

    assert response.status_code == 401
    header = {"github": "X-Hub-Signature-256", "stripe": "Stripe-Signature"}
    assert (
        header.get(scheme, "X-Slack-Signature") in response.json()["error"]["message"]
    )
    assert webhook_runs(flow) == 0


@pytest.mark.parametrize("scheme", sorted(SIGNERS))
def test_a_body_changed_after_signing_is_401(client, alice, scheme):
    flow = signed_flow(alice, scheme)

    headers = SIGNERS[scheme](BODY)
    response = post_webhook(client, flow, BODY.replace(b"ping", b"pong"), **headers)

    assert response.status_code == 401
    assert webhook_runs(flow) == 0


@pytest.mark.parametrize("scheme", ["stripe", "slack"])
def test_a_stale_signature_is_401(client, alice, scheme):
    flow = signed_flow(alice, scheme)
    ten_minutes_ago = int(time.time()) - 600

    headers = SIGNERS[scheme](BODY, timestamp=ten_minutes_ago)
    response = post_webhook(client, flow, BODY, **headers)

    assert response.status_code == 401
    assert "5 minutes" in response.json()["error"]["message"]
    assert webhook_runs(flow) == 0


def test_stripes_library_accepts_what_weir_accepts(alice):
    """Both sides agree: the header Stripe's library made verifies there too."""
    headers = stripe_headers(BODY)

    event = stripe.Webhook.construct_event(
        BODY.decode(), headers["HTTP_STRIPE_SIGNATURE"], SECRET
    )

    assert event["id"] == "evt_1"


def test_a_github_delivery_id_makes_a_redelivery_answer_from_the_first_run(
    client, alice
):
    flow = signed_flow(alice, "github")
    headers = github_headers(BODY)

    first = post_webhook(client, flow, BODY, **headers)
    again = post_webhook(client, flow, BODY, **headers)

    assert (first.status_code, again.status_code) == (200, 200)
    assert again["Idempotent-Replayed"] == "true"
    assert webhook_runs(flow) == 1


@pytest.mark.parametrize(
    ("payload", "field", "message"),
    [
        ({"scheme": "stripe"}, "secret", "Stripe"),
        ({"scheme": "slack"}, "secret", "Slack"),
        ({"scheme": "standard", "secret": "not-whsec"}, "secret", "whsec_"),
        ({"scheme": "gitlab"}, "scheme", ""),
    ],
)
def test_setting_a_secret_refuses_what_cannot_work(api, alice, payload, field, message):
    flow = FlowFactory(created_by=alice)

    response = api.post(f"/api/flows/{flow.id}/webhook-secret", payload, format="json")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert field in json.dumps(error["details"])
    assert message in json.dumps(error["details"])


def test_setting_a_github_secret_makes_one_and_says_the_scheme(api, alice):
    flow = FlowFactory(created_by=alice)

    response = api.post(
        f"/api/flows/{flow.id}/webhook-secret", {"scheme": "github"}, format="json"
    )

    assert response.status_code == 201
    assert response.json()["scheme"] == "github"
    assert len(response.json()["secret"]) == 64
    shown = api.get(f"/api/flows/{flow.id}").json()
    assert (shown["webhook_signed"], shown["webhook_signature_scheme"]) == (
        True,
        "github",
    )


def test_a_github_delivery_id_past_the_id_limit_is_400_and_runs_nothing(client, alice):
    # X-GitHub-Delivery is not signed: a replayer picks any text for it.
    flow = signed_flow(alice, "github")
    headers = {**github_headers(BODY), "HTTP_X_GITHUB_DELIVERY": "x" * 300}

    response = post_webhook(client, flow, BODY, **headers)

    assert response.status_code == 400
    assert "256" in response.json()["error"]["message"]
    assert webhook_runs(flow) == 0
