"""PASSWORD_SIGN_IN off: only a superuser (the break-glass account) signs in
with a password, on /login/ and the API alike; everyone else's right
password reads like a wrong one."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.audit.models import AuditEvent
from tests.factories import PASSWORD, UserFactory


@pytest.fixture
def passwords_off(settings):
    settings.PASSWORD_SIGN_IN = False
    settings.OIDC_NAME = "Acme SSO"


@pytest.fixture
def root(db):
    return UserFactory(username="root", is_superuser=True, is_staff=True)


def sign_in_page(client, username):
    return client.post("/login/", {"username": username, "password": PASSWORD})


def api_sign_in(username):
    client = APIClient()
    return client, client.post(
        "/api/auth/login", {"username": username, "password": PASSWORD}, format="json"
    )


def test_a_right_password_of_someone_else_is_refused_on_the_login_page(
    passwords_off, alice
):
    client = Client()

    answer = sign_in_page(client, "alice")

    assert answer.status_code == 200
    assert b"Wrong username or password" in answer.content
    assert client.get("/api/auth/session").status_code == 401
    assert AuditEvent.objects.filter(action="auth.login_failed").count() == 1


def test_the_superuser_still_signs_in_with_a_password(passwords_off, root):
    client = Client()

    answer = sign_in_page(client, "root")

    assert answer.status_code == 302
    assert client.get("/api/auth/session").json()["username"] == "root"


def test_the_api_refuses_a_right_password_of_someone_else(passwords_off, alice):
    client, answer = api_sign_in("alice")

    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "invalid_credentials"
    assert "sign in with Acme SSO" in answer.json()["error"]["message"]
    assert client.get("/api/auth/session").status_code == 401


def test_the_api_lets_the_superuser_in(passwords_off, root):
    client, answer = api_sign_in("root")

    assert answer.status_code == 200
    assert client.get("/api/auth/session").json()["username"] == "root"


def test_the_login_page_tucks_the_password_form_away_for_administrators(
    passwords_off, db
):
    page = Client().get("/login/")

    assert b"<details" in page.content
    assert b"Sign in with a password (administrators only)" in page.content


def test_with_passwords_on_everyone_signs_in_with_theirs(alice):
    client = Client()

    answer = sign_in_page(client, "alice")

    assert answer.status_code == 302
    assert b"<details" not in Client().get("/login/").content
