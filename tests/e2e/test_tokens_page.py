"""The API tokens page in a browser: create, copy, use from a script, revoke."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from playwright.sync_api import expect

from accounts.tokens.models import ApiToken
from tests.e2e.accessibility import severe_violations


def call(method: str, url: str, token: str, body=None):
    """A script's request with the token (the standard library's client)."""
    request = urllib.request.Request(
        url,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers
    except urllib.error.HTTPError as error:
        return error.code, error.headers


def test_a_token_made_on_the_page_works_until_it_is_revoked(
    alice_page, live_url, alice, context, page_errors
):
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = alice_page
    page.goto(f"{live_url}/account/tokens/")
    expect(page.get_by_role("heading", name="No API tokens yet")).to_be_visible()

    page.get_by_role("button", name="New token").click()
    page.get_by_label("Name", exact=True).fill("nightly report")
    page.get_by_role("checkbox", name="flows:read").check()
    page.get_by_role("button", name="Create token").click()

    expect(page.locator("#created-token")).to_contain_text("shown this once")
    page.get_by_role("button", name="Copy").click()
    value = page.evaluate("navigator.clipboard.readText()")
    assert value.startswith("weir_pat_")
    row = page.locator("tr.token-row", has_text="nightly report")
    expect(row).to_contain_text(f"{value[:13]}…")
    expect(row).to_contain_text("flows:read")
    expect(row).to_contain_text("Never")

    assert call("GET", f"{live_url}/api/flows", value)[0] == 200
    assert call("POST", f"{live_url}/api/flows", value, {"name": "x"})[0] == 403

    page.get_by_role("button", name="Done").click()
    page.reload()
    assert value not in page.content()
    row = page.locator("tr.token-row", has_text="nightly report")
    expect(row).not_to_contain_text("Never")  # the script's call shows
    row.get_by_role("button", name="Revoke nightly report").click()
    page.get_by_role("button", name="Revoke", exact=True).click()

    expect(page.get_by_role("heading", name="No API tokens yet")).to_be_visible()
    status, headers = call("GET", f"{live_url}/api/flows", value)
    assert status == 401
    assert headers["WWW-Authenticate"] == 'Bearer error="invalid_token"'
    assert ApiToken.objects.get().revoked_at is not None
    assert page_errors == []


def test_creating_without_a_scope_says_so_next_to_the_form(alice_page, live_url):
    alice_page.goto(f"{live_url}/account/tokens/")
    alice_page.get_by_role("button", name="New token").click()
    alice_page.get_by_label("Name", exact=True).fill("nothing")
    alice_page.get_by_role("button", name="Create token").click()

    expect(alice_page.locator("#token-error")).to_have_text("Tick at least one scope.")
    assert not ApiToken.objects.exists()


def test_the_tokens_page_has_no_serious_violations(alice_page, live_url, alice):
    page = alice_page
    page.goto(f"{live_url}/account/tokens/")
    assert severe_violations(page) == []

    page.get_by_role("button", name="New token").click()
    assert severe_violations(page) == []
    page.get_by_label("Name", exact=True).fill("CI")
    page.get_by_role("checkbox", name="flows:run").check()
    page.get_by_role("button", name="Create token").click()
    expect(page.locator("tr.token-row")).to_have_count(1)
    assert severe_violations(page) == []
