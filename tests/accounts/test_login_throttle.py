"""One failure limit for every way of signing in: the API and /login/ (which the
admin's login sends to)."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

from accounts import login_throttle
from tests.factories import PASSWORD


@pytest.fixture
def tight_limit(settings):
    settings.LOGIN_FAILURE_RATE = "3/300s"


def page_login(client, path, password):
    return client.post(path, {"username": "alice", "password": password})


def api_login(password):
    client = APIClient(enforce_csrf_checks=True)
    token = client.get("/api/auth/csrf").json()["csrfToken"]
    return client.post(
        "/api/auth/login",
        {"username": "alice", "password": password},
        format="json",
        HTTP_X_CSRFTOKEN=token,
    )


def test_the_login_page_stops_guessing_after_the_limit(alice, tight_limit):
    client = Client()
    for _ in range(3):
        assert page_login(client, "/login/", "wrong").status_code == 200

    response = page_login(client, "/login/", PASSWORD)

    assert response.status_code == 429
    assert b"Too many failed sign-in attempts" in response.content
    assert "_auth_user_id" not in client.session


def test_the_admin_login_has_no_form_of_its_own_to_guess_on(alice):
    alice.is_staff = True
    alice.save()
    client = Client()

    response = page_login(client, "/admin/login/", PASSWORD)

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")
    assert "_auth_user_id" not in client.session


def test_failures_on_the_api_lock_the_login_page_too(alice, tight_limit):
    for _ in range(3):
        assert api_login("wrong").status_code == 400

    response = page_login(Client(), "/login/", PASSWORD)

    assert response.status_code == 429
    assert api_login(PASSWORD).status_code == 429


def test_successful_sign_ins_do_not_count_as_failures(alice, tight_limit):
    for _ in range(5):
        client = Client()
        assert page_login(client, "/login/", PASSWORD).status_code == 302
        assert api_login(PASSWORD).status_code == 200

    assert page_login(Client(), "/login/", "wrong").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_parallel_attempts_cannot_exceed_the_limit(tight_limit):
    """Counted before the password check, in one atomic step: of eight guesses
    sent at once, exactly three get to try a password (without Redis the count
    is the database's, each thread on a connection of its own)."""
    request = RequestFactory().post("/login/", REMOTE_ADDR="203.0.113.9")
    outcomes = []
    barrier = threading.Barrier(8)

    def guess():
        barrier.wait()
        try:
            login_throttle.start_attempt(request, "alice")
            outcomes.append("checked")
        except login_throttle.LoginThrottled:
            outcomes.append("throttled")
        finally:
            connection.close()

    threads = [threading.Thread(target=guess) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(outcomes) == ["checked"] * 3 + ["throttled"] * 5
