"""The account page turns two-factor on (secret, QR code, a first code,
recovery codes shown once) and off (with a code)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from accounts.audit.models import AuditEvent
from accounts.two_factor import service
from accounts.two_factor.models import RecoveryCode
from tests.accounts.two_factor.conftest import Authenticator
from tests.factories import PASSWORD


@pytest.fixture
def client(alice):
    client = Client()
    client.force_login(alice)
    return client


def start(client) -> tuple[str, Authenticator]:
    page = client.post("/account/two-factor/", {"action": "start"}).content.decode()
    secret = re.search(r'data-secret="([A-Z2-7]+)"', page).group(1)
    return page, Authenticator(secret)


def test_signed_out_the_page_sends_to_sign_in(db):
    response = Client().get("/account/two-factor/")

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_the_page_says_it_is_off_and_offers_to_set_it_up(client):
    page = client.get("/account/two-factor/").content.decode()

    assert "Your account signs in with its password alone." in page
    assert "Set up two-factor sign-in" in page


def test_set_up_shows_a_qr_code_and_the_key_but_is_not_on_yet(client, alice):
    page, app = start(client)

    assert "<svg" in page
    assert "otpauth://totp/Weir:alice?secret=" in page
    assert not service.is_on(alice)


def test_a_first_code_turns_it_on_and_shows_ten_recovery_codes_once(client, alice):
    _, app = start(client)

    response = client.post(
        "/account/two-factor/", {"action": "confirm", "code": app.code()}
    )

    page = response.content.decode()
    codes = re.findall(r"<li><code>([a-z2-9]{5}-[a-z2-9]{5})</code></li>", page)
    assert len(set(codes)) == 10
    assert service.is_on(alice)
    # Stored hashed, never as typed; not shown again.
    stored = set(RecoveryCode.objects.values_list("code_hash", flat=True))
    assert not stored & set(codes)
    assert stored == {service.hash_code(code) for code in codes}
    again = client.get("/account/two-factor/").content.decode()
    assert codes[0] not in again
    assert "10 recovery codes left" in again
    assert AuditEvent.objects.filter(action="auth.2fa_enabled").count() == 1


def test_a_wrong_first_code_leaves_it_off_and_says_so(client, alice):
    start(client)

    response = client.post(
        "/account/two-factor/", {"action": "confirm", "code": "000000"}
    )

    assert response.status_code == 400
    assert "That code is not right" in response.content.decode()
    assert not service.is_on(alice)


def test_cancel_drops_the_unconfirmed_secret(client, alice):
    start(client)

    client.post("/account/two-factor/", {"action": "cancel"})

    assert service.pending_secret(alice) is None


def test_turning_it_off_needs_a_right_code(client, alice, alice_2fa):
    app, _ = alice_2fa

    wrong = client.post("/account/two-factor/", {"action": "disable", "code": "1"})
    assert wrong.status_code == 400
    assert service.is_on(alice)

    client.post("/account/two-factor/", {"action": "disable", "code": app.code()})

    assert not service.is_on(alice)
    assert not RecoveryCode.objects.filter(user=alice).exists()
    actions = list(AuditEvent.objects.values_list("action", flat=True))
    assert "auth.2fa_disabled" in actions
    assert "auth.2fa_failed" in actions


def test_wrong_codes_to_turn_it_off_count_against_the_sign_in_limit(
    client, alice, alice_2fa, settings
):
    """A stolen session guessing codes to turn two-factor off meets the same
    limit as guessing them at sign-in (R22)."""
    settings.LOGIN_FAILURE_RATE = "3/300s"
    app, _ = alice_2fa
    for _ in range(3):
        client.post("/account/two-factor/", {"action": "disable", "code": "000000"})

    response = client.post(
        "/account/two-factor/", {"action": "disable", "code": app.code()}
    )

    assert response.status_code == 429
    assert b"Too many failed attempts" in response.content
    assert service.is_on(alice)


def test_wrong_codes_on_the_account_page_throttle_the_sign_in_code_step(
    client, alice, alice_2fa, settings
):
    settings.LOGIN_FAILURE_RATE = "3/300s"
    app, _ = alice_2fa
    for _ in range(3):
        client.post(
            "/account/two-factor/", {"action": "replace_codes", "code": "000000"}
        )

    response = client.post(
        "/account/two-factor/", {"action": "replace_codes", "code": app.code()}
    )
    sign_in = Client().post("/login/", {"username": "alice", "password": PASSWORD})

    assert response.status_code == 429
    assert b"Too many failed attempts" in response.content
    assert sign_in.status_code == 429


def test_a_recovery_code_turns_it_off(client, alice, alice_2fa):
    _, codes = alice_2fa

    client.post("/account/two-factor/", {"action": "disable", "code": codes[0]})

    assert not service.is_on(alice)


def test_the_secret_is_stored_encrypted(alice, alice_2fa):
    app, _ = alice_2fa

    assert app.totp.secret not in alice.two_factor.secret_encrypted


def shown_codes(page: str) -> list[str]:
    return re.findall(r"<li><code>([a-z2-9]{5}-[a-z2-9]{5})</code></li>", page)


def test_new_recovery_codes_replace_all_the_old_ones_once(client, alice, alice_2fa):
    app, old = alice_2fa
    service.verify(alice, old[0])  # one used: 9 left

    response = client.post(
        "/account/two-factor/", {"action": "replace_codes", "code": app.code()}
    )

    page = response.content.decode()
    new = shown_codes(page)
    assert response.status_code == 200
    assert "Your new recovery codes" in page
    assert len(set(new)) == 10
    assert not set(new) & set(old)
    stored = set(
        RecoveryCode.objects.filter(user=alice).values_list("code_hash", flat=True)
    )
    assert stored == {service.hash_code(code) for code in new}
    assert service.verify(alice, old[1]) is None  # the old ones no longer sign in
    again = client.get("/account/two-factor/").content.decode()
    assert not set(shown_codes(again))
    assert "10 recovery codes left" in again
    event = AuditEvent.objects.get(action="auth.recovery_codes_replaced")
    assert event.target_id == str(alice.pk)


def test_a_wrong_code_replaces_nothing_and_says_so_next_to_the_field(
    client, alice, alice_2fa
):
    _, old = alice_2fa
    before = set(RecoveryCode.objects.values_list("code_hash", flat=True))

    response = client.post(
        "/account/two-factor/", {"action": "replace_codes", "code": "000000"}
    )

    page = response.content.decode()
    assert response.status_code == 400
    field = re.search(r'<input id="replace-code"[^>]*>', page).group(0)
    assert 'aria-invalid="true"' in field
    assert 'aria-describedby="replace-code-error"' in field
    assert re.search(
        r'id="replace-code-error"[^>]*>That code is wrong or was used already', page
    )
    assert 'id="two-factor-error"' not in page  # not at the top, next to its field
    assert set(RecoveryCode.objects.values_list("code_hash", flat=True)) == before
    assert not AuditEvent.objects.filter(action="auth.recovery_codes_replaced")
    assert AuditEvent.objects.filter(action="auth.2fa_failed").count() == 1


def test_a_recovery_code_cannot_make_new_recovery_codes(client, alice, alice_2fa):
    _, old = alice_2fa

    response = client.post(
        "/account/two-factor/", {"action": "replace_codes", "code": old[0]}
    )

    assert response.status_code == 400
    assert service.verify(alice, old[1]) == "recovery"  # still the old set
