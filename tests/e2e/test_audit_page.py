"""A workspace's audit page in a browser: reached from the header, filtered."""

from __future__ import annotations

from playwright.sync_api import expect

from accounts.audit.models import AuditEvent
from accounts.models import Membership, Workspace


def test_an_admin_opens_the_audit_page_and_filters_it(
    alice_page, live_url, alice, page_errors
):
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="admin")
    AuditEvent.objects.create(
        action="flow.updated",
        actor_label="alice",
        workspace=team,
        target_type="flow",
        target_label="Orders",
        changes={"from": 1, "to": 2},
    )
    AuditEvent.objects.create(
        action="member.added",
        actor_label="alice",
        workspace=team,
        target_type="membership",
        target_label="vera",
    )
    page = alice_page
    page.goto(f"{live_url}/?workspace={team.id}")
    page.locator("#audit-link").click()

    expect(page.get_by_role("heading", name="Audit log of Team")).to_be_visible()
    expect(page.locator("tr.audit-row")).to_have_count(2)
    page.get_by_label("Action").fill("member")
    page.get_by_role("button", name="Filter").click()

    expect(page.locator("tr.audit-row")).to_have_count(1)
    expect(page.locator("#audit-table")).to_contain_text("membership: vera")
    expect(page.locator("#audit-table")).not_to_contain_text("Orders")
    page.get_by_label("Who").fill("nobody")
    page.get_by_role("button", name="Filter").click()
    expect(
        page.get_by_role("heading", name="No events match these filters")
    ).to_be_visible()
    assert page_errors == []
