"""The webhook URL at the bottom of the left panel, and the runs it leaves behind."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import urllib.request

import pytest
from playwright.sync_api import expect

from flows.engine import run_flow
from flows.models import FlowRun
from tests.e2e.pages import open_builder
from tests.factories import FlowFactory


def post_json(url: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, json.loads(response.read())


def test_the_history_lists_runs_and_shows_one_runs_steps(alice_page, live_url, alice):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    run_flow(flow, {"name": "Bea"}, FlowRun.Trigger.WEBHOOK)
    run_flow(flow, {"name": "Cy"}, FlowRun.Trigger.MANUAL)
    open_builder(page, live_url, flow)

    page.get_by_role("tab", name="History").click()

    rows = page.locator("#history-rows tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("manual")
    expect(rows.nth(1)).to_contain_text("webhook")
    expect(rows.nth(1)).to_contain_text("succeeded")
    expect(rows.nth(1).locator("td.num")).to_have_text(re.compile(r"[\d.]+ (ms|s)"))
    rows.nth(1).click()
    detail = page.locator("#history-detail")
    expect(detail.locator('.step[data-node-id="greet"] .step-output')).to_contain_text(
        '"greeting": "hi Bea"'
    )
    expect(page.locator("#node-2")).to_have_class(re.compile("run-succeeded"))


def test_the_history_has_an_empty_state(alice_page, live_url, alice):
    page = alice_page
    open_builder(page, live_url, FlowFactory(created_by=alice))

    page.get_by_role("tab", name="History").click()

    expect(page.locator("#history-empty")).to_contain_text("No runs yet")


def test_a_call_to_the_webhook_url_shows_up_in_the_history(alice_page, live_url, alice):
    """Needs the webhooks app's endpoint (issue 4) merged with the engine."""
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)

    webhook_url = page.locator(".left-panel #webhook-url").inner_text().strip()
    assert webhook_url == f"{live_url}/api/webhooks/{flow.id}"
    curl = page.locator("#webhook-curl")
    expect(curl).to_contain_text(f"curl -X POST '{webhook_url}'")
    status, body = post_json(webhook_url, {"name": "Dee"})
    assert status == 200
    assert body["results"]["greet"] == {"greeting": "hi Dee"}

    page.get_by_role("tab", name="History").click()
    row = page.locator("#history-rows tr").first
    expect(row).to_contain_text("webhook")
    expect(row).to_contain_text("succeeded")
    row.click()
    expect(page.locator('#history-detail .step[data-node-id="greet"]')).to_contain_text(
        "hi Dee"
    )
    assert FlowRun.objects.get(flow=flow).trigger == "webhook"


def test_turning_the_webhook_off_saves_at_once(alice_page, live_url, alice):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)

    with page.expect_response(lambda response: response.request.method == "PATCH"):
        page.get_by_label("Enabled").uncheck()

    expect(page.locator("#webhook-section")).to_have_class(re.compile("disabled"))
    flow.refresh_from_db()
    assert flow.webhook_enabled is False
    page.get_by_label("Flow name").fill("Still saves")
    page.keyboard.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")


def test_a_signing_secret_is_shown_once_and_can_be_removed(alice_page, live_url, alice):
    """Needs the webhooks app's secret endpoints (issue 4)."""
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)
    expect(page.locator("#signing-state")).to_have_text("Unsigned")

    page.get_by_role("button", name="Add secret").click()

    secret = page.locator("#secret-value")
    expect(secret).to_have_value(re.compile(r"^whsec_"))
    expect(page.locator("#signing-state")).to_have_text("Signed")
    expect(page.locator("#webhook-curl")).to_contain_text(secret.input_value())
    flow.refresh_from_db()
    assert flow.webhook_secret == secret.input_value()
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Remove").click()
    expect(page.locator("#signing-state")).to_have_text("Unsigned")
    expect(page.locator("#secret-once")).to_be_hidden()
    flow.refresh_from_db()
    assert flow.webhook_secret == ""


@pytest.mark.processes
def test_the_signed_curl_example_runs_as_pasted(alice_page, live_url, alice):
    """Paste the left panel's example into a shell: the signed call is accepted.

    Needs the webhooks app (issue 4), curl and openssl.
    """
    assert shutil.which("curl") and shutil.which("openssl")
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)
    page.get_by_role("button", name="Add secret").click()
    expect(page.locator("#signing-state")).to_have_text("Signed")

    example = page.locator("#webhook-curl").inner_text()
    shell = subprocess.run(
        ["bash", "-c", example + " --silent --fail-with-body"],
        capture_output=True,
        text=True,
        timeout=30,
    )

    assert shell.returncode == 0, shell.stdout + shell.stderr
    assert json.loads(shell.stdout)["results"]["greet"] == {"greeting": "hi Ada"}
    assert FlowRun.objects.get(flow=flow).trigger == "webhook"
