"""/logout/: GET asks, POST signs out; a cross-site GET cannot sign anyone out."""

from __future__ import annotations

from django.test import Client


def test_get_shows_a_confirmation_and_keeps_the_session(alice_client):
    response = alice_client.get("/logout/")

    assert response.status_code == 200
    assert b"Sign out of Weir?" in response.content
    assert b'method="post"' in response.content
    assert alice_client.get("/").status_code == 200


def test_post_signs_out_and_goes_to_the_login_page(alice_client):
    response = alice_client.post("/logout/")

    assert response.status_code == 302
    assert response["Location"] == "/login/"
    assert alice_client.get("/").status_code == 302


def test_anonymous_get_goes_to_the_login_page(db):
    response = Client().get("/logout/")

    assert response.status_code == 302
    assert response["Location"] == "/login/"


def test_post_without_csrf_token_does_not_sign_out(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)

    response = client.post("/logout/")

    assert response.status_code == 403
    assert client.get("/").status_code == 200
