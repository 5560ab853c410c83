"""Phones (issue 38, item 8): at 390 px the runs list, a run, the approval
page and an agent's chat fit the screen and work; the flow list does not run
off it; the builder says it needs a wider screen instead of collapsing."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from flows.engine import run_flow, waits
from flows.models import Credential, FlowRun
from tests.e2e.pages import save_screenshot
from tests.e2e.test_papercuts import spaced
from tests.factories import AgentFactory, FlowFactory
from tests.flows.graphs import code, node, trigger

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def phone(alice_page):
    alice_page.set_viewport_size(PHONE)
    return alice_page


def fits_the_screen(page):
    """Nothing runs off the right edge: the page does not scroll sideways."""
    widths = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert widths[0] <= widths[1], f"the page is {widths[0]} px wide on a 390 px phone"


def inside(page, locator):
    box = locator.bounding_box()
    assert (
        box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    )


@pytest.fixture
def waiting_run(alice):
    flow = FlowFactory(
        created_by=alice,
        name="Refunds for the customers of the north-west region",
        **spaced(
            trigger(),
            node("approve", "wait", mode="callback", timeout_s=3600),
            code("after", "return prev;"),
        ),
    )
    flow.nodes[1]["name"] = "Approve the refund of order 1234567890"
    flow.save()
    return run_flow(flow, {"amount": 40, "reason": "x" * 200}, FlowRun.Trigger.MANUAL)


def test_runs_a_run_and_the_approval_page_fit_a_phone(
    phone, live_url, waiting_run, page_errors
):
    phone.goto(f"{live_url}/runs/")
    expect(phone.locator("tr.run-row")).to_have_count(1)
    fits_the_screen(phone)
    inside(phone, phone.get_by_role("button", name="Filter"))
    save_screenshot(phone, "phone-runs")

    phone.goto(f"{live_url}/runs/{waiting_run.pk}/")
    expect(phone.get_by_role("heading", level=1)).to_be_visible()
    fits_the_screen(phone)

    phone.goto(live_url + waits.resume_path(waiting_run.pk, "approve"))
    approve = phone.get_by_role("button", name="Approve")
    inside(phone, approve)
    fits_the_screen(phone)
    approve.click()
    expect(phone.get_by_role("status")).to_contain_text("approved")
    assert page_errors == []


def test_an_agents_chat_and_the_flow_list_fit_a_phone(
    phone, live_url, alice, page_errors
):
    FlowFactory(created_by=alice, name="A flow with a name long enough to wrap " * 2)
    agent = AgentFactory(name="Echo", model="echo:demo", created_by=alice)
    phone.goto(f"{live_url}/")
    fits_the_screen(phone)

    phone.goto(f"{live_url}/agents/{agent.id}/")
    message = phone.locator("#chat-input")
    inside(phone, message)
    fits_the_screen(phone)
    message.fill("hello")
    message.press("Enter")
    expect(phone.locator(".chat-assistant").last).to_contain_text("hello")
    assert page_errors == []


def test_the_builder_on_a_phone_asks_for_a_wider_screen(
    phone, live_url, alice, page_errors
):
    flow = FlowFactory(created_by=alice, name="Hook", **spaced(trigger()))
    phone.goto(f"{live_url}/flows/{flow.id}/")
    phone.wait_for_selector("body[data-builder-ready]")

    expect(phone.get_by_text("The builder needs a wider screen")).to_be_visible()
    expect(phone.locator("#drawflow")).to_be_hidden()
    fits_the_screen(phone)
    assert page_errors == []


def test_the_credentials_connect_button_is_whole_on_a_phone(
    phone, live_url, alice, page_errors
):
    Credential.objects.create(
        created_by=alice,
        name="crm_with_a_rather_long_name",
        kind="oauth2",
        public={
            "grant": "authorization_code",
            "authorize_url": "https://login.example.com/oauth2/v2/authorize",
            "token_url": "https://login.example.com/oauth2/v2/token",
            "client_id": "a-very-long-client-identifier-0123456789abcdef",
            "scopes": "read write",
        },
    )
    phone.goto(f"{live_url}/credentials/")

    connect = phone.get_by_role("link", name="Connect crm_with_a_rather_long_name")
    expect(connect).to_be_visible()
    inside(phone, connect)
    fits_the_screen(phone)
    assert page_errors == []
