"""Two-factor sign-in in a browser: turn it on from the account page, sign
out, sign back in with the password and then the code."""

from __future__ import annotations

import time

import pyotp
from playwright.sync_api import expect

from accounts.audit.actor import Actor
from accounts.two_factor import service
from tests.e2e.accessibility import severe_violations
from tests.factories import PASSWORD


def next_window_code(totp: pyotp.TOTP) -> str:
    """The code of the next 30-second window (this one's was spent turning it on)."""
    return totp.at(int(time.time()) + service.STEP_SECONDS)


def test_turn_on_two_factor_sign_out_and_sign_in_with_the_code(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    page.goto(f"{live_url}/")
    page.get_by_role("link", name="alice").click()
    expect(page.locator("#two-factor-state")).to_contain_text("password alone")
    page.get_by_role("button", name="Set up two-factor sign-in").click()
    expect(page.locator(".qr-code svg")).to_be_visible()
    secret = page.locator("#two-factor-secret").inner_text().replace(" ", "")
    totp = pyotp.TOTP(secret)
    first_code = totp.now()
    page.get_by_label("Then type the 6-digit code the app shows").fill(first_code)
    page.get_by_role("button", name="Turn on").click()

    expect(page.locator("#recovery-codes li")).to_have_count(10)
    assert service.is_on(alice)

    page.get_by_role("button", name="Sign out").click()
    page.goto(f"{live_url}/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Enter your code")).to_be_visible()
    page.get_by_label("Code").fill(first_code)  # used already: refused
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("wrong or was used already")

    page.get_by_label("Code").fill(next_window_code(totp))
    page.get_by_role("button", name="Sign in").click()

    expect(page.get_by_role("link", name="alice")).to_be_visible()
    expect(page).to_have_url(f"{live_url}/")
    assert page_errors == []


def test_the_two_factor_pages_have_no_serious_violations(alice_page, live_url, alice):
    page = alice_page
    page.goto(f"{live_url}/account/two-factor/")
    assert severe_violations(page) == [], "off"
    page.get_by_role("button", name="Set up two-factor sign-in").click()
    expect(page.locator(".qr-code svg")).to_be_visible()
    assert severe_violations(page) == [], "set up"
    secret = page.locator("#two-factor-secret").inner_text().replace(" ", "")
    page.get_by_label("Then type the 6-digit code the app shows").fill(
        pyotp.TOTP(secret).now()
    )
    page.get_by_role("button", name="Turn on").click()
    expect(page.locator("#recovery-codes li")).to_have_count(10)
    assert severe_violations(page) == [], "recovery codes"

    page.get_by_role("button", name="Sign out").click()
    page.goto(f"{live_url}/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Enter your code")).to_be_visible()
    assert severe_violations(page) == [], "code step"


def test_new_recovery_codes_from_the_account_page(alice_page, live_url, alice):
    app = pyotp.TOTP(service.start_setup(alice))
    assert service.confirm(alice, app.at(int(time.time()) - 30), Actor.system())
    page = alice_page
    page.goto(f"{live_url}/account/two-factor/")
    field = page.get_by_label("Type the 6-digit code the app shows now")

    field.fill("000000")
    page.get_by_role("button", name="Make new recovery codes").click()

    expect(page.locator("#replace-code-error")).to_contain_text("wrong")
    expect(field).to_have_attribute("aria-invalid", "true")
    assert severe_violations(page) == [], "wrong code"
    field.fill(app.now())
    page.get_by_role("button", name="Make new recovery codes").click()
    expect(page.locator("#recovery-codes li")).to_have_count(10)
    expect(page.locator("#replace-code-error")).to_have_count(0)
    assert severe_violations(page) == [], "new codes"
