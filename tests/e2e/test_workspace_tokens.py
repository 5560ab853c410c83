"""A workspace's tokens in a browser: an admin makes one from the members page
(shown once, copied), a script uses it as the workspace, the admin revokes it."""

from __future__ import annotations

from playwright.sync_api import expect

from accounts.models import Membership, Workspace
from accounts.tokens.models import ApiToken
from flows.models import Flow
from tests.e2e.test_tokens_page import call


def test_an_admin_makes_a_workspace_token_a_script_uses_it_then_it_is_revoked(
    alice_page, live_url, alice, context, page_errors
):
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="admin")
    page = alice_page
    page.goto(f"{live_url}/workspaces/{team.id}/members/")
    page.get_by_role("link", name="Workspace tokens").click()
    expect(page.get_by_role("heading", name="Tokens of Team")).to_be_visible()
    # The page's module script opens the form; it has run once the page loaded
    # (the link's navigation, unlike goto, is not waited for).
    page.wait_for_load_state()
    expect(page.get_by_role("checkbox", name="agents:chat")).to_have_count(0)

    page.get_by_role("button", name="New token").click()
    page.get_by_label("Name", exact=True).fill("deploy bot")
    page.get_by_label("Acts as").select_option("runner")
    page.get_by_role("checkbox", name="flows:read").check()
    page.get_by_role("checkbox", name="flows:write").check()
    page.get_by_role("button", name="Create token").click()

    expect(page.locator("#created-token")).to_contain_text("shown this once")
    page.get_by_role("button", name="Copy").click()
    value = page.evaluate("navigator.clipboard.readText()")
    assert value.startswith("weir_wst_")
    row = page.locator("tr.token-row", has_text="deploy bot")
    expect(row).to_contain_text("runner")
    # A runner: reads the workspace's flows, may not create one.
    assert call("GET", f"{live_url}/api/flows", value)[0] == 200
    assert call("POST", f"{live_url}/api/flows", value, {"name": "x"})[0] == 403
    assert not Flow.objects.filter(name="x").exists()

    page.get_by_role("button", name="Done").click()
    page.reload()
    assert value not in page.content()
    page.locator("tr.token-row", has_text="deploy bot").get_by_role(
        "button", name="Revoke deploy bot"
    ).click()
    page.get_by_role("button", name="Revoke", exact=True).click()

    expect(page.get_by_role("heading", name="No API tokens yet")).to_be_visible()
    assert call("GET", f"{live_url}/api/flows", value)[0] == 401
    token = ApiToken.objects.get()
    assert (token.user, token.revoked_at is not None) == (None, True)
    assert page_errors == []
