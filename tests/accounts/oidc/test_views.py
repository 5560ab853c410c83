"""Single sign-on end to end against a real provider: the button, the round
trip, each refusal's page, state/nonce/PKCE, two-factor and signing out."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import pyotp
import pytest
from django.test import Client

from accounts.audit.actor import Actor
from accounts.audit.models import AuditEvent
from accounts.two_factor import service as two_factor
from tests.accounts.oidc.conftest import audit_actions, signed_in_user
from tests.factories import UserFactory
from tests.oidc_provider import callback_path


def turn_on_two_factor(user) -> pyotp.TOTP:
    """Two-factor on, confirmed with the last window's code (the current
    one stays unused); the user's authenticator."""
    app = pyotp.TOTP(two_factor.start_setup(user))
    last_window = int(time.time()) - two_factor.STEP_SECONDS
    assert two_factor.confirm(user, app.at(last_window), Actor.system())
    return app


@pytest.fixture
def ada(db):
    return UserFactory(username="ada", email="Ada@Example.com")


def test_the_login_page_offers_the_provider_by_name(sso, visitor):
    page = visitor.get("/login/?next=/flows/")

    assert page.status_code == 200
    assert b"Sign in with Test provider" in page.content
    assert b'href="/login/oidc/?next=/flows/"' in page.content


def test_the_login_page_has_no_provider_button_without_oidc(visitor):
    page = visitor.get("/login/")

    assert b"Sign in with" not in page.content
    assert visitor.get("/login/oidc/").status_code == 404


def test_the_start_sends_the_browser_to_the_provider_with_pkce_state_and_nonce(
    sso, visitor
):
    start = visitor.get("/login/oidc/")

    location = urlsplit(start["Location"])
    asked = parse_qs(location.query)
    assert f"{location.scheme}://{location.netloc}{location.path}" == (
        f"{sso.url}/authorize"
    )
    assert asked["code_challenge_method"] == ["S256"]
    assert asked["scope"] == ["openid email profile"]
    assert {"state", "nonce", "code_challenge"} <= set(asked)


def test_a_verified_email_signs_in_to_its_account(sso, sign_in_with, visitor, ada):
    sso.add_person("ada-at-idp", email="ada@example.com")

    answer = sign_in_with("ada-at-idp", next_url="/flows/")

    assert answer.status_code == 302
    assert answer["Location"] == "/flows/"
    assert signed_in_user(visitor) == "ada"
    login = AuditEvent.objects.get(action="auth.login")
    assert (login.actor, login.changes) == (ada, {"via": "oidc"})


def test_the_token_request_carries_the_pkce_verifier(sso, sign_in_with, ada):
    sso.add_person("ada")

    sign_in_with("ada")

    assert len(sso.token_requests[0]["code_verifier"]) == 64


def test_an_unverified_email_never_joins_an_existing_account(
    sso, sign_in_with, visitor, ada
):
    sso.add_person("mallory", email="ada@example.com", email_verified=False)

    answer = sign_in_with("mallory")

    assert answer.status_code == 403
    assert b"has not verified ada@example.com" in answer.content
    assert b"email_not_verified" in answer.content
    assert signed_in_user(visitor) is None
    failed = AuditEvent.objects.get(action="auth.login_failed")
    assert failed.changes == {"via": "oidc", "code": "email_not_verified"}


def test_an_email_with_no_account_is_refused_without_create_users(
    sso, sign_in_with, visitor
):
    sso.add_person("grace", email="grace@example.com")

    answer = sign_in_with("grace")

    assert answer.status_code == 403
    assert b"No Weir account has the address grace@example.com" in answer.content
    assert signed_in_user(visitor) is None


def test_a_missing_email_claim_is_refused(sso, sign_in_with, visitor):
    person = sso.add_person("nobody")
    del person.claims["email"]

    answer = sign_in_with("nobody")

    assert answer.status_code == 403
    assert b"email_missing" in answer.content
    assert signed_in_user(visitor) is None


def test_an_email_two_accounts_share_is_refused(sso, sign_in_with, visitor, ada):
    UserFactory(username="ada2", email="ada@example.com")
    sso.add_person("ada")

    answer = sign_in_with("ada")

    assert answer.status_code == 409
    assert b"email_ambiguous" in answer.content
    assert signed_in_user(visitor) is None


def test_a_turned_off_account_is_refused(sso, sign_in_with, visitor, ada):
    ada.is_active = False
    ada.save()
    sso.add_person("ada")

    answer = sign_in_with("ada")

    assert answer.status_code == 403
    assert b"account_disabled" in answer.content
    assert signed_in_user(visitor) is None


def test_a_wrong_state_is_refused(sso, visitor, ada):
    sso.add_person("ada")
    start = visitor.get("/login/oidc/")
    callback = sso.sign_in(start["Location"], "ada")
    state = parse_qs(urlsplit(callback).query)["state"][0]

    answer = visitor.get(callback_path(callback).replace(state, "forged-state"))

    assert answer.status_code == 400
    assert b"sign_in_not_verified" in answer.content
    assert signed_in_user(visitor) is None


def test_a_callback_this_browser_did_not_start_is_refused(sso, visitor, ada):
    sso.add_person("ada")
    callback = sso.sign_in(visitor.get("/login/oidc/")["Location"], "ada")

    answer = Client().get(callback_path(callback))

    assert answer.status_code == 400
    assert b"sign_in_incomplete" in answer.content


def test_a_state_is_used_once(sso, sign_in_with, visitor, ada):
    sso.add_person("ada")
    start = visitor.get("/login/oidc/")
    callback = callback_path(sso.sign_in(start["Location"], "ada"))
    visitor.get(callback)
    visitor.post("/logout/")

    again = visitor.get(callback)

    assert again.status_code == 400
    assert signed_in_user(visitor) is None


def test_a_wrong_nonce_is_refused(sso, visitor, ada):
    sso.add_person("ada")
    start = visitor.get("/login/oidc/")
    session = visitor.session
    for entry in session["oidc_states"].values():
        entry["nonce"] = "another-nonce"
    session.save()
    callback = sso.sign_in(start["Location"], "ada")

    answer = visitor.get(callback_path(callback))

    assert answer.status_code == 400
    assert b"sign_in_not_verified" in answer.content
    assert signed_in_user(visitor) is None


def test_a_wrong_pkce_verifier_is_refused_by_the_provider(sso, visitor, ada):
    sso.add_person("ada")
    start = visitor.get("/login/oidc/")
    session = visitor.session
    for entry in session["oidc_states"].values():
        entry["code_verifier"] = "x" * 64
    session.save()
    callback = sso.sign_in(start["Location"], "ada")

    answer = visitor.get(callback_path(callback))

    assert answer.status_code == 400
    assert b"code_refused" in answer.content
    assert signed_in_user(visitor) is None


def test_an_id_token_for_another_client_is_refused(sso, sign_in_with, visitor, ada):
    sso.add_person("ada")
    sso.id_token_extra = {"aud": ["someone-else"]}

    answer = sign_in_with("ada")

    assert answer.status_code == 400
    assert b"sign_in_not_verified" in answer.content
    assert signed_in_user(visitor) is None


def test_an_id_token_from_another_issuer_is_refused(sso, sign_in_with, visitor, ada):
    sso.add_person("ada")
    sso.id_token_extra = {"iss": "https://evil.example"}

    answer = sign_in_with("ada")

    assert answer.status_code == 400
    assert signed_in_user(visitor) is None


def test_userinfo_about_someone_else_is_refused(sso, sign_in_with, visitor, ada):
    sso.add_person("ada")
    sso.userinfo_extra = {"sub": "someone-else"}

    answer = sign_in_with("ada")

    assert answer.status_code == 400
    assert b"subject_mismatch" in answer.content
    assert signed_in_user(visitor) is None


def test_the_provider_saying_no_shows_its_reason(sso, visitor):
    start = visitor.get("/login/oidc/")

    answer = visitor.get(callback_path(sso.deny(start["Location"])))

    assert answer.status_code == 403
    assert b"provider_refused" in answer.content
    assert b"Test provider did not sign you in" in answer.content
    assert signed_in_user(visitor) is None


def test_an_unreachable_provider_is_a_502_page(sso, visitor, settings, closed_port):
    settings.OIDC_ISSUER = f"http://127.0.0.1:{closed_port}"

    answer = visitor.get("/login/oidc/")

    assert answer.status_code == 502
    assert b"Test provider could not be reached" in answer.content


def test_a_wrong_client_secret_is_a_refused_code(sso, sign_in_with, visitor, ada):
    sso.add_person("ada")
    sso.client_secret = "not-ours"

    answer = sign_in_with("ada")

    assert answer.status_code == 400
    assert b"code_refused" in answer.content
    assert signed_in_user(visitor) is None


def test_signing_out_ends_the_weir_session(sso, sign_in_with, visitor, ada):
    sso.add_person("ada")
    sign_in_with("ada")

    visitor.post("/logout/")

    assert signed_in_user(visitor) is None
    assert visitor.get("/")["Location"].startswith("/login/")


def test_two_factor_is_asked_when_the_provider_did_no_second_factor(
    sso, sign_in_with, visitor, ada
):
    app = turn_on_two_factor(ada)
    sso.add_person("ada", amr=["pwd"])

    answer = sign_in_with("ada", next_url="/flows/")

    assert answer["Location"] == "/login/code/"
    assert signed_in_user(visitor) is None
    after_code = visitor.post("/login/code/", {"code": app.now()})
    assert after_code["Location"] == "/flows/"
    assert signed_in_user(visitor) == "ada"


@pytest.mark.parametrize("method", ["mfa", "otp", "hwk"])
def test_two_factor_is_not_asked_again_after_the_providers_own(
    sso, sign_in_with, visitor, ada, method
):
    turn_on_two_factor(ada)
    sso.add_person("ada", amr=["pwd", method])

    answer = sign_in_with("ada", next_url="/flows/")

    assert answer["Location"] == "/flows/"
    assert signed_in_user(visitor) == "ada"


def test_staff_signed_in_with_the_providers_second_factor_need_no_totp_setup(
    sso, sign_in_with, visitor, ada, settings
):
    settings.REQUIRE_2FA_FOR_STAFF = True
    ada.is_staff = True
    ada.save()
    sso.add_person("ada", amr=["pwd", "mfa"])

    sign_in_with("ada")

    assert visitor.get("/").status_code == 200


def test_staff_signed_in_without_a_second_factor_are_sent_to_set_it_up(
    sso, sign_in_with, visitor, ada, settings
):
    settings.REQUIRE_2FA_FOR_STAFF = True
    ada.is_staff = True
    ada.save()
    sso.add_person("ada", amr=["pwd"])

    sign_in_with("ada")

    assert visitor.get("/")["Location"].startswith("/account/two-factor/")


def test_sign_in_is_recorded_once(sso, sign_in_with, ada):
    sso.add_person("ada")

    sign_in_with("ada")

    assert audit_actions(action__startswith="auth.") == ["auth.login"]
