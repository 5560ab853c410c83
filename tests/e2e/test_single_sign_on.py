"""Single sign-on in Chromium: Weir's production server (`config.serve`)
set up for a real OpenID provider (tests/oidc_provider.py), signed in
through the provider's own login page."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts.workspaces.models import Membership, Workspace
from tests.e2e.accessibility import severe_violations
from tests.factories import UserFactory
from tests.oidc_provider import CLIENT_ID, CLIENT_SECRET, PASSWORD, OidcProvider


@pytest.fixture
def provider():
    started = OidcProvider().start()
    yield started
    started.stop()


@pytest.fixture
def sso_url(provider, granian):
    """A server of its own: the browser tests' shared one has no OIDC_ISSUER."""
    server = granian(
        threads=4,
        workers=1,
        OIDC_ISSUER=provider.url,
        OIDC_CLIENT_ID=CLIENT_ID,
        OIDC_CLIENT_SECRET=CLIENT_SECRET,
        OIDC_NAME="Test provider",
        OIDC_GROUP_ROLES="weir-ops:Ops:editor",
    )
    url = f"http://127.0.0.1:{server.port}"
    provider.redirect_uris.append(f"{url}/login/oidc/callback/")
    return url


def sign_in_at_the_provider(page, url, username):
    page.goto(f"{url}/")
    expect(page).to_have_url(f"{url}/login/?next=/")
    assert severe_violations(page) == []
    page.get_by_role("link", name="Sign in with Test provider").click()
    expect(page.get_by_role("heading", name="Test provider")).to_be_visible()
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()


def test_a_person_signs_in_through_the_provider_and_out_again(
    page, provider, sso_url, page_errors
):
    ada = UserFactory(username="ada", email="ada@example.com")
    ops = Workspace.objects.create(name="Ops", slug="ops")
    provider.add_person("ada-idp", email="ada@example.com", groups=["weir-ops"])

    sign_in_at_the_provider(page, sso_url, "ada-idp")

    expect(page).to_have_url(f"{sso_url}/")
    expect(page.get_by_role("heading", name="Flows", exact=True)).to_be_visible()
    expect(page.locator(".signout")).to_contain_text("ada")
    assert Membership.objects.get(workspace=ops, user=ada).role == "editor"

    page.get_by_role("button", name="Sign out").click()
    expect(page).to_have_url(f"{sso_url}/login/")
    page.goto(f"{sso_url}/")
    expect(page).to_have_url(f"{sso_url}/login/?next=/")
    assert page_errors == []


def test_an_unverified_address_shows_why_and_signs_nobody_in(page, provider, sso_url):
    UserFactory(username="ada", email="ada@example.com")
    provider.add_person("mallory", email="ada@example.com", email_verified=False)

    sign_in_at_the_provider(page, sso_url, "mallory")

    expect(page.get_by_role("alert")).to_contain_text(
        "The provider has not verified ada@example.com"
    )
    assert severe_violations(page) == []
    page.get_by_role("link", name="Back to sign in").click()
    page.goto(f"{sso_url}/")
    expect(page).to_have_url(f"{sso_url}/login/?next=/")
