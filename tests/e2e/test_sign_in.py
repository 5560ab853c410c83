"""Signing in through /login/ in a real browser."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.factories import PASSWORD


def test_a_user_signs_in_and_sees_their_flows(page, live_url, alice):
    page.goto(f"{live_url}/")

    expect(page).to_have_url(f"{live_url}/login/?next=/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()

    expect(page).to_have_url(f"{live_url}/")
    expect(page.get_by_role("heading", name="Flows", exact=True)).to_be_visible()
    expect(page.locator(".signout")).to_contain_text("alice")


def test_a_wrong_password_shows_the_error_next_to_the_form(page, live_url, alice):
    page.goto(f"{live_url}/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Sign in").click()

    error = page.locator(".login-card .form-error")
    expect(error).to_have_text("Wrong username or password. Try again.")
    expect(page.get_by_label("Username")).to_have_value("alice")
    expect(page).to_have_url(f"{live_url}/login/")


def test_signing_out_returns_to_the_login_page(alice_page, live_url):
    alice_page.goto(f"{live_url}/")

    alice_page.get_by_role("button", name="Sign out").click()

    expect(alice_page).to_have_url(f"{live_url}/login/")
    alice_page.goto(f"{live_url}/")
    expect(alice_page).to_have_url(f"{live_url}/login/?next=/")
