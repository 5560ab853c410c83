"""No serious or critical axe-core violations on any page (see accessibility.py)."""

from __future__ import annotations

from playwright.sync_api import expect

from flows.engine import run_flow
from flows.models import FlowRun
from tests.e2e.accessibility import severe_violations
from tests.e2e.pages import canvas_node, open_builder
from tests.factories import AgentFactory, FlowFactory


def test_the_login_page_has_no_serious_violations(page, live_url):
    page.goto(f"{live_url}/login/")

    assert severe_violations(page) == []


def test_the_flow_list_and_agents_pages_have_no_serious_violations(
    alice_page, live_url, alice
):
    page = alice_page
    FlowFactory(created_by=alice, name="Greeter")
    agent = AgentFactory(name="Echo", created_by=alice)

    for path in [
        "/",
        "/agents/",
        f"/agents/{agent.id}/",
        "/agents/new/",
        f"/agents/{agent.id}/edit/",
    ]:
        page.goto(f"{live_url}{path}")
        assert severe_violations(page) == [], path


def test_the_run_page_has_no_serious_violations(alice_page, live_url, alice):
    page = alice_page
    run = run_flow(
        FlowFactory(created_by=alice), {"name": "Ada"}, FlowRun.Trigger.MANUAL
    )

    page.goto(f"{live_url}/runs/{run.id}/")

    assert severe_violations(page) == []


def test_the_builder_has_no_serious_violations_in_any_tab(alice_page, live_url, alice):
    page = alice_page
    open_builder(page, live_url, FlowFactory(created_by=alice))
    assert severe_violations(page) == []

    canvas_node(page, "Greet").click()
    assert severe_violations(page) == [], "inspector"
    page.get_by_role("tab", name="Run").click()
    page.get_by_role("button", name="Run flow").click()
    expect(page.get_by_test_id("run-status")).to_have_text("succeeded")
    assert severe_violations(page) == [], "run"
    page.get_by_role("tab", name="History").click()
    expect(page.locator(".history-row")).to_have_count(1)
    assert severe_violations(page) == [], "history"


def test_a_published_agents_pages_have_no_serious_violations(
    alice_page, live_url, alice
):
    page = alice_page
    agent = AgentFactory(
        name="Desk", created_by=alice, published=True, public_slug="desk"
    )

    for path in ["/c/desk", f"/agents/{agent.id}/visitors/"]:
        page.goto(f"{live_url}{path}")
        assert severe_violations(page) == [], path
