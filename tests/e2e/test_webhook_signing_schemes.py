"""Signing a webhook the way Slack signs, set up in the builder's webhook box."""

from __future__ import annotations

import time
import urllib.error
import urllib.request

from playwright.sync_api import expect
from slack_sdk.signature import SignatureVerifier

from flows.models import Flow, FlowRun
from tests.e2e.pages import open_builder
from tests.factories import FlowFactory

SLACK_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"


def slash_command(url: str, secret: str) -> int:
    """Slack's slash command request: a form, signed with the app's secret."""
    body = b"command=%2Fweather&text=Paris&user_name=ada"
    timestamp = str(int(time.time()))
    signature = SignatureVerifier(secret).generate_signature(
        timestamp=timestamp, body=body
    )
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "X-Slack-Request-Timestamp": timestamp,
            "X-Slack-Signature": signature,
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_a_slack_signing_secret_pasted_in_the_builder_signs_the_webhook(
    alice_page, live_url, alice
):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)

    page.get_by_label("Signed as").select_option("slack")
    page.get_by_label("The provider's signing secret").fill(SLACK_SECRET)
    page.get_by_role("button", name="Add secret").click()

    expect(page.locator("#signing-state")).to_have_text("Signed (Slack)")
    assert Flow.objects.get(pk=flow.pk).webhook_signature_scheme == "slack"
    url = f"{live_url}/api/webhooks/{flow.id}"
    assert slash_command(url, "not-the-apps-secret") == 401
    assert slash_command(url, SLACK_SECRET) == 200
    run = FlowRun.objects.get(flow=flow)
    assert run.input == {"command": "/weather", "text": "Paris", "user_name": "ada"}


def test_stripe_without_its_secret_says_what_to_paste(alice_page, live_url, alice):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)

    page.get_by_label("Signed as").select_option("stripe")
    page.get_by_role("button", name="Add secret").click()

    expect(page.locator("#webhook-error")).to_contain_text("Stripe")
    expect(page.locator("#signing-state")).to_have_text("Unsigned")
