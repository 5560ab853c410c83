"""Connecting an OAuth2 credential in Chromium: create it on the Credentials
page, press Connect, Allow on the provider's consent page (Authlib's server,
tests/oauth_provider.py), and come back Connected; then Disconnect."""

from __future__ import annotations

from playwright.sync_api import expect

from flows.models import Credential
from tests.oauth_provider import CLIENT_ID, CLIENT_SECRET


def test_connect_goes_through_the_providers_consent_and_comes_back_connected(
    alice_page, live_url, alice, oauth_provider, page_errors
):
    page = alice_page
    page.goto(f"{live_url}/credentials/")
    page.get_by_role("button", name="New credential").click()
    page.get_by_label("Name", exact=True).fill("crm")
    page.get_by_label("Kind").select_option("oauth2")
    expect(page.locator("#oauth-redirect-uri")).to_have_text(
        f"{live_url}/oauth/callback"
    )
    page.get_by_label("Authorize URL").fill(f"{oauth_provider.url}/authorize")
    page.get_by_label("Token URL").fill(f"{oauth_provider.url}/token")
    page.get_by_label("Client ID").fill(CLIENT_ID)
    page.get_by_label("Client secret").fill(CLIENT_SECRET)
    page.get_by_label("Scopes").fill("read write")
    page.get_by_role("button", name="Save").click()
    row = page.locator("tr.credential-row", has_text="crm")
    expect(row).to_contain_text("Not connected")

    row.get_by_role("link", name="Connect crm").click()
    expect(page.get_by_role("heading")).to_contain_text(f"Allow {CLIENT_ID}")
    page.get_by_role("button", name="Allow").click()

    expect(page).to_have_url(f"{live_url}/credentials/")
    expect(row).to_contain_text("Connected")
    expect(row.get_by_role("link", name="Reconnect crm")).to_be_visible()
    credential = Credential.objects.get(name="crm")
    assert credential.connected
    assert credential.granted_scopes == ["read", "write"]
    access_token = credential.secrets()["access_token"]
    assert oauth_provider.live(access_token) is not None
    assert access_token not in page.content()

    row.get_by_role("button", name="Disconnect crm").click()
    expect(row).to_contain_text("Not connected")
    credential.refresh_from_db()
    assert not credential.connected
    assert page_errors == []
