"""Workspaces in the browser: the switcher, the members page, and what a
viewer is shown (and refused)."""

from __future__ import annotations

from playwright.sync_api import expect

from accounts.models import Membership, Workspace
from flows.models import Flow
from tests.factories import FlowFactory, UserFactory


def test_the_switcher_changes_the_flow_list(alice_page, live_url, alice):
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="editor")
    FlowFactory(created_by=alice, name="Mine")
    FlowFactory(created_by=alice, workspace=team, name="Ours")

    alice_page.goto(f"{live_url}/")
    expect(alice_page.locator("#flow-table")).to_contain_text("Mine")
    alice_page.get_by_label("Workspace").select_option(label="Team")
    alice_page.get_by_role("button", name="Switch").click()

    expect(alice_page.locator("#flow-table")).to_contain_text("Ours")
    expect(alice_page.locator("#flow-table")).not_to_contain_text("Mine")
    expect(alice_page.locator("#role-badge")).to_have_text("editor")


def test_an_admin_adds_a_viewer_who_sees_no_save_or_run(
    page, login, live_url, alice, page_errors
):
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="admin")
    flow = FlowFactory(created_by=alice, workspace=team, name="Ours")
    UserFactory(username="vera")

    login(alice)
    page.goto(f"{live_url}/workspaces/{team.id}/members/")
    page.get_by_label("Username or e-mail").fill("nobody")
    page.get_by_role("button", name="Invite").click()
    expect(page.locator("#add-note")).to_contain_text("If an account has this")
    page.get_by_label("Username or e-mail").fill("vera")
    page.get_by_role("button", name="Invite").click()
    expect(page.locator("#add-note")).to_contain_text("If an account has this")
    assert not Membership.objects.filter(user__username="vera", workspace=team)

    # Vera joins only once she accepts, from the invitation in her top bar.
    page.context.clear_cookies()
    login(UserFactory._meta.model.objects.get(username="vera"))
    page.goto(f"{live_url}/flows/")
    page.locator("#invitations-link").click()
    page.get_by_role("button", name="Accept").click()
    expect(page.locator("tr[data-username=vera]")).to_contain_text("vera")
    assert (
        Membership.objects.get(user__username="vera", workspace=team).role == "viewer"
    )
    page.goto(f"{live_url}/flows/{flow.id}/?workspace={team.id}")
    page.wait_for_selector("body[data-builder-ready]")
    expect(page.locator("#save-button")).to_be_hidden()
    expect(page.locator("#run-button")).to_be_hidden()
    expect(page.locator("#role-badge")).to_have_text("viewer")
    # The server refuses the save anyway, from the viewer's own session.
    status = page.evaluate(
        """async (id) => {
            const csrf = await (await fetch('/api/auth/csrf')).json();
            const r = await fetch('/api/flows/' + id, {method: 'PATCH',
              headers: {'Content-Type': 'application/json',
                        'X-CSRFToken': csrf.csrfToken},
              body: JSON.stringify({name: 'Hijacked'})});
            return r.status;
        }""",
        str(flow.id),
    )
    assert status == 403
    assert Flow.objects.get(pk=flow.pk).name == "Ours"
    assert page_errors == []


def test_an_admin_withdraws_a_mistaken_invitation_from_the_keyboard(
    page, login, live_url, alice, page_errors
):
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="admin")
    UserFactory(username="vera")

    login(alice)
    page.goto(f"{live_url}/workspaces/{team.id}/members/")
    expect(page.locator("#no-invitations")).to_be_visible()
    page.get_by_label("Username or e-mail").fill("vear")
    page.get_by_label("Role").first.select_option("admin")
    page.get_by_role("button", name="Invite").click()
    row = page.locator("#invitation-table tr[data-address=vear]")
    expect(row).to_contain_text("admin")
    expect(row).to_contain_text("alice")

    withdraw = page.get_by_role("button", name="Withdraw the invitation for vear")
    withdraw.focus()
    page.keyboard.press("Enter")

    expect(page.locator("#withdraw-note")).to_have_text(
        "The invitation for vear is withdrawn."
    )
    expect(page.locator("#no-invitations")).to_be_visible()
    assert not team.invitations.exists()
    assert page_errors == []
