"""Promotion in the browser: from the flow list to the diff, then applied."""

from __future__ import annotations

from playwright.sync_api import expect

from accounts.models import Membership, Workspace
from flows.history.models import FlowVersion
from tests.e2e.accessibility import severe_violations
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, trigger


def test_an_admin_promotes_a_flow_after_reading_its_diff(
    page, login, live_url, alice, page_errors
):
    staging = Workspace.objects.create(name="Staging", slug="staging")
    production = Workspace.objects.create(name="Production", slug="production")
    for workspace in (staging, production):
        Membership.objects.create(workspace=workspace, user=alice, role="admin")
    nodes, edges = chain(trigger(), code("hello", "return {hello: 'world'}"))
    FlowFactory(
        created_by=alice, workspace=staging, name="Say hello", nodes=nodes, edges=edges
    )

    login(alice)
    page.goto(f"{live_url}/?workspace={staging.id}")
    page.get_by_role("link", name="Promote…").click()
    expect(page.get_by_label("Say hello")).to_be_checked()
    assert severe_violations(page) == []
    page.get_by_label("To workspace").select_option(label="Production")
    page.get_by_role("button", name="Show changes").click()

    diff = page.get_by_label("Changes to Say hello")
    expect(diff).to_contain_text("return {hello: 'world'}")
    assert not production.flows.exists()
    assert severe_violations(page) == []
    page.get_by_role("button", name="Promote 1 flow to Production").click()

    expect(page.locator("#promote-done")).to_contain_text("Say hello: created")
    version = FlowVersion.objects.get(flow__workspace=production)
    assert version.source == "promote"
    assert version.promoted_from["workspace_name"] == "Staging"
    assert page_errors == []
