"""SMTP and PostgreSQL credentials: a server's address is public, the password
is not."""

from __future__ import annotations

import pytest

from flows.credentials.models import Credential

pytestmark = pytest.mark.django_db


def test_it_creates_an_smtp_credential_without_echoing_the_password(api):
    response = api.post(
        "/api/credentials",
        {
            "name": "mail",
            "kind": "smtp",
            "host": "smtp.example.com",
            "port": 587,
            "security": "starttls",
            "username": "flows",
            "from_address": "flows@example.com",
            "password": "hunter2hunter2",
        },
        format="json",
    )

    assert response.status_code == 201
    body = response.json()
    assert body["host"] == "smtp.example.com"
    assert body["from_address"] == "flows@example.com"
    assert "password" not in body
    assert "database" not in body
    stored = Credential.objects.get(name="mail")
    assert stored.secrets() == {"password": "hunter2hunter2"}
    assert "hunter2hunter2" not in str(stored.public)


def test_a_postgres_credential_needs_its_database(api):
    response = api.post(
        "/api/credentials",
        {"name": "db", "kind": "postgres", "host": "db.example.com", "username": "r"},
        format="json",
    )

    assert response.status_code == 400
    details = response.json()["error"]["details"]
    assert set(details) == {"database"}


@pytest.mark.parametrize(
    ("kind", "fields"),
    [
        ("smtp", {"host": "relay.example.com", "from_address": "a@example.com"}),
        (
            "smtp",
            {
                "host": "relay.example.com",
                "username": "flows",
                "from_address": "a@example.com",
            },
        ),
        ("postgres", {"host": "db.example.com", "database": "app", "username": "r"}),
    ],
)
def test_a_server_credential_saves_without_a_password(api, kind, fields):
    response = api.post(
        "/api/credentials", {"name": "server", "kind": kind, **fields}, format="json"
    )

    assert response.status_code == 201, response.json()
    assert response.json()["has_value"] is False
    assert "port" not in response.json()  # unset: the default applies
    stored = Credential.objects.get(name="server")
    assert stored.secrets() == {}
    assert stored.public == fields


def test_a_password_added_later_is_kept(api):
    created = api.post(
        "/api/credentials",
        {
            "name": "db",
            "kind": "postgres",
            "host": "db.example.com",
            "database": "app",
            "username": "r",
        },
        format="json",
    ).json()

    response = api.patch(
        f"/api/credentials/{created['id']}", {"password": "pw-later-1"}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["has_value"] is True
    assert Credential.objects.get(name="db").secrets() == {"password": "pw-later-1"}


def test_a_basic_credential_still_needs_its_password(api):
    response = api.post(
        "/api/credentials",
        {"name": "legacy", "kind": "basic", "username": "ada"},
        format="json",
    )

    assert response.status_code == 400
    assert set(response.json()["error"]["details"]) == {"password"}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("host", "smtp.example.com\r\nX: y"),
        ("port", 70000),
        ("security", "ssl3"),
        ("from_address", "a@example.com\nBcc: e@x.org"),
    ],
)
def test_bad_server_fields_are_refused(api, field, value):
    body = {
        "name": "mail",
        "kind": "smtp",
        "host": "smtp.example.com",
        "from_address": "flows@example.com",
        "password": "pw-pw-pw",
        field: value,
    }

    response = api.post("/api/credentials", body, format="json")

    assert response.status_code == 400
    assert field in response.json()["error"]["details"]
    assert not Credential.objects.exists()
