"""Signing in with two-factor on: the API, /login/ and the admin (issue 27)."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.audit.models import AuditEvent
from tests.factories import PASSWORD


def api_login(code=None, password=PASSWORD, client=None):
    client = client or APIClient(enforce_csrf_checks=True)
    token = client.get("/api/auth/csrf").json()["csrfToken"]
    body = {"username": "alice", "password": password}
    if code is not None:
        body["code"] = code
    response = client.post(
        "/api/auth/login", body, format="json", HTTP_X_CSRFTOKEN=token
    )
    return response, client


def page_login(client, next_url=None):
    data = {"username": "alice", "password": PASSWORD}
    if next_url:
        data["next"] = next_url
    return client.post("/login/", data)


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


# The API


def test_the_api_signs_in_without_a_code_when_two_factor_is_off(alice):
    response, client = api_login()

    assert response.status_code == 200
    assert client.get("/api/auth/session").json()["username"] == "alice"


def test_the_api_asks_for_the_code_when_two_factor_is_on(alice, alice_2fa):
    response, client = api_login()

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "two_factor_required"
    assert client.get("/api/auth/session").status_code == 401


def test_the_api_signs_in_with_the_code(alice, alice_2fa):
    app, _ = alice_2fa

    response, client = api_login(code=app.code())

    assert response.status_code == 200
    assert client.get("/api/auth/session").json()["username"] == "alice"


def test_the_api_refuses_a_wrong_code_and_records_it(alice, alice_2fa):
    app, _ = alice_2fa
    wrong = f"{(int(app.code()) + 1) % 1_000_000:06d}"

    response, client = api_login(code=wrong)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_code"
    assert client.get("/api/auth/session").status_code == 401
    assert AuditEvent.objects.filter(action="auth.2fa_failed").count() == 1


def test_a_code_works_once_a_replay_is_refused(alice, alice_2fa):
    app, _ = alice_2fa
    code = app.code()
    assert api_login(code=code)[0].status_code == 200

    response, client = api_login(code=code)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_code"
    assert client.get("/api/auth/session").status_code == 401


def test_an_older_window_is_refused_after_a_newer_was_used(alice, alice_2fa):
    app, _ = alice_2fa
    assert api_login(code=app.code())[0].status_code == 200

    assert api_login(code=app.code(-1))[0].json()["error"]["code"] == "invalid_code"


def test_a_recovery_code_works_once(alice, alice_2fa):
    _, codes = alice_2fa

    first, _ = api_login(code=codes[3].upper())
    again, _ = api_login(code=codes[3])

    assert first.status_code == 200
    assert again.json()["error"]["code"] == "invalid_code"


def test_bad_codes_count_against_the_sign_in_limit(alice, alice_2fa, settings):
    settings.LOGIN_FAILURE_RATE = "3/300s"
    app, _ = alice_2fa
    for _ in range(3):
        assert api_login(code="000000")[0].status_code == 400

    response, _ = api_login(code=app.code())

    assert response.status_code == 429
    assert response.json()["error"]["code"] == "throttled"


def test_a_wrong_password_with_a_right_code_is_still_wrong(alice, alice_2fa):
    app, _ = alice_2fa

    response, _ = api_login(code=app.code(), password="wrong")

    assert response.json()["error"]["code"] == "invalid_credentials"


# The /login/ page


def test_the_page_signs_in_at_once_when_two_factor_is_off(alice):
    client = Client()

    response = page_login(client)

    assert response.status_code == 302
    assert signed_in(client)


def test_the_page_asks_for_the_code_before_signing_in(alice, alice_2fa):
    app, _ = alice_2fa
    client = Client()

    response = page_login(client, next_url="/runs/")

    assert response.status_code == 302
    assert response["Location"] == "/login/code/"
    assert not signed_in(client)
    page = client.get("/login/code/")
    assert b"Enter your code" in page.content

    response = client.post("/login/code/", {"code": app.code()})

    assert response.status_code == 302
    assert response["Location"] == "/runs/"
    assert signed_in(client)
    assert AuditEvent.objects.filter(action="auth.login").count() == 1


def test_the_page_refuses_a_wrong_code_next_to_the_field(alice, alice_2fa):
    client = Client()
    page_login(client)

    response = client.post("/login/code/", {"code": "123456"})

    assert response.status_code == 400
    assert b"That code is wrong or was used already" in response.content
    assert not signed_in(client)


def test_the_page_refuses_a_replayed_code(alice, alice_2fa):
    app, _ = alice_2fa
    code = app.code()
    first = Client()
    page_login(first)
    first.post("/login/code/", {"code": code})
    assert signed_in(first)

    second = Client()
    page_login(second)
    response = second.post("/login/code/", {"code": code})

    assert response.status_code == 400
    assert not signed_in(second)


def test_the_page_counts_bad_codes_against_the_limit(alice, alice_2fa, settings):
    settings.LOGIN_FAILURE_RATE = "3/300s"
    app, _ = alice_2fa
    client = Client()
    page_login(client)
    for _ in range(3):
        client.post("/login/code/", {"code": "000000"})

    response = client.post("/login/code/", {"code": app.code()})

    assert response.status_code == 429
    assert b"Too many failed sign-in attempts" in response.content
    assert not signed_in(client)


def test_the_code_page_without_a_password_first_goes_back_to_sign_in(alice_2fa):
    response = Client().post("/login/code/", {"code": "123456"})

    assert response.status_code == 302
    assert response["Location"] == "/login/"


def test_a_held_sign_in_expires(alice, alice_2fa, settings):
    app, _ = alice_2fa
    client = Client()
    page_login(client)
    settings.TWO_FACTOR_PENDING_SECONDS = -1

    response = client.post("/login/code/", {"code": app.code()})

    assert response["Location"] == "/login/"
    assert not signed_in(client)


def test_the_code_page_does_not_redirect_off_site(alice, alice_2fa):
    app, _ = alice_2fa
    client = Client()
    page_login(client, next_url="https://evil.example/")

    response = client.post("/login/code/", {"code": app.code()})

    assert response["Location"] == "/"


# The admin


def test_the_admin_login_is_the_sites_sign_in(alice):
    response = Client().get("/admin/login/?next=/admin/flows/")

    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/admin/flows/"


@pytest.mark.parametrize("path", ["/admin/", "/admin/flows/flow/"])
def test_the_admin_asks_staff_for_their_code(alice, alice_2fa, path):
    alice.is_staff = True
    alice.is_superuser = True
    alice.save()
    app, _ = alice_2fa
    client = Client()
    to_login = client.get(path, follow=True)
    assert to_login.redirect_chain[-1][0].startswith("/login/?next=")

    page_login(client, next_url=path)
    response = client.post("/login/code/", {"code": app.code()})

    assert response["Location"] == path
    assert client.get(path).status_code == 200


def test_a_signed_in_user_who_is_not_staff_is_refused_not_looped(alice):
    client = Client()
    client.force_login(alice)

    response = client.get("/admin/login/?next=/admin/")

    assert response.status_code == 403
