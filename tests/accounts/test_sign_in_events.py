"""Sign-ins and failed sign-ins reach the audit log from every way in."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.audit.models import AuditEvent
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


def api_login(password):
    return APIClient().post(
        "/api/auth/login",
        {"username": "alice", "password": password},
        format="json",
        REMOTE_ADDR="198.51.100.7",
    )


def test_an_api_sign_in_is_recorded_as_the_user(alice):
    api_login(PASSWORD)

    (event,) = AuditEvent.objects.all()
    assert (event.action, event.actor, event.actor_label) == (
        "auth.login",
        alice,
        "alice",
    )
    assert event.address == "198.51.100.7"


def test_a_failed_api_sign_in_names_the_username_tried_never_the_password(alice):
    response = api_login("wrong-guess-123")

    assert response.status_code == 400
    (event,) = AuditEvent.objects.all()
    assert (event.action, event.actor, event.target_label) == (
        "auth.login_failed",
        None,
        "alice",
    )
    assert "wrong-guess-123" not in json.dumps(event.as_log())


def test_the_sign_in_page_records_success_and_failure(alice):
    # The admin signs in through this page too (tests/accounts/two_factor).
    Client().post("/login/", {"username": "alice", "password": "nope"})
    Client().post("/login/", {"username": "alice", "password": PASSWORD})

    assert list(AuditEvent.objects.order_by("at").values_list("action", flat=True)) == [
        "auth.login_failed",
        "auth.login",
    ]
