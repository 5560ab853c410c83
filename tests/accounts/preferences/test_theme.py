"""`POST /account/theme/`: the theme kept on the account and shown by every
page's `<html data-theme>`."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Preference

pytestmark = pytest.mark.django_db

URL = "/account/theme/"


def theme_of(page) -> str:
    html = page.content.decode()
    return html.split('data-theme="', 1)[1].split('"', 1)[0]


def test_a_chosen_theme_is_kept_and_the_pages_show_it(client, alice):
    client.force_login(alice)
    assert theme_of(client.get("/runs/")) == "system"

    response = client.post(URL, {"theme": "dark", "next": "/runs/"})

    assert response.status_code == 302
    assert response["Location"] == "/runs/"
    assert Preference.objects.get(user=alice).theme == "dark"
    assert theme_of(client.get("/runs/")) == "dark"


def test_the_theme_follows_the_person_to_another_browser(client, alice):
    client.force_login(alice)
    client.post(URL, {"theme": "light"})

    elsewhere = Client()
    elsewhere.force_login(alice)

    assert theme_of(elsewhere.get("/")) == "light"


def test_the_script_gets_json(client, alice):
    client.force_login(alice)

    response = client.post(
        URL, {"theme": "dark"}, headers={"Accept": "application/json"}
    )

    assert response.status_code == 200
    assert response.json() == {"theme": "dark"}


def test_an_unknown_theme_is_a_400_in_the_error_envelope(client, alice):
    client.force_login(alice)

    response = client.post(
        URL, {"theme": "pink"}, headers={"Accept": "application/json"}
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert "theme" in response.json()["error"]["details"]
    assert not Preference.objects.filter(user=alice).exists()


def test_an_unknown_theme_from_the_form_is_a_plain_400(client, alice):
    client.force_login(alice)

    response = client.post(URL, {"theme": ""})

    assert response.status_code == 400
    assert "Choose one of: system, light, dark." in response.content.decode()


def test_next_elsewhere_goes_home_instead(client, alice):
    client.force_login(alice)

    response = client.post(URL, {"theme": "dark", "next": "https://evil.example/"})

    assert response["Location"] == "/"


def test_signed_out_people_are_sent_to_sign_in_and_get_is_not_allowed(client, alice):
    response = client.post(URL, {"theme": "dark"})
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")

    client.force_login(alice)
    assert client.get(URL).status_code == 405
