"""REQUIRE_2FA_FOR_STAFF: staff without two-factor reach only its set-up page."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.tokens.models import ApiToken
from tests.accounts.two_factor.conftest import Authenticator
from tests.factories import UserFactory


@pytest.fixture
def required(settings):
    settings.REQUIRE_2FA_FOR_STAFF = True


@pytest.fixture
def staff(db):
    return UserFactory(username="sam", is_staff=True, is_superuser=True)


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("path", ["/admin/", "/admin/flows/flow/", "/", "/runs/"])
def test_staff_without_two_factor_cannot_reach_the_admin_or_the_app(
    staff, required, path
):
    response = signed_in(staff).get(path)

    assert response.status_code == 302
    assert (
        response["Location"] == f"/account/two-factor/?next={path.replace('/', '%2F')}"
    )


def test_staff_without_two_factor_get_403_from_the_api(staff, required):
    response = signed_in(staff).get("/api/flows")

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "two_factor_setup_required"


def test_staff_can_open_the_set_up_page_and_sign_out(staff, required):
    client = signed_in(staff)

    assert client.get("/account/two-factor/").status_code == 200
    assert client.get("/api/auth/session").status_code == 200
    assert client.post("/logout/").status_code == 302


def test_staff_with_two_factor_reach_the_admin(staff, required, enrol):
    enrol(staff)

    assert signed_in(staff).get("/admin/").status_code == 200


def test_the_setting_off_lets_staff_in_without_it(staff, settings):
    settings.REQUIRE_2FA_FOR_STAFF = False

    assert signed_in(staff).get("/admin/").status_code == 200


def test_users_who_are_not_staff_are_not_held(alice, required):
    assert signed_in(alice).get("/").status_code == 200


def test_a_bearer_token_is_not_held_by_the_two_factor_rule(staff, required):
    _, value = ApiToken.issue(
        staff, "script", ["flows:read"], timezone.now() + timedelta(days=1)
    )
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {value}")

    assert client.get("/api/flows").status_code == 200


def test_staff_with_two_factor_continue_where_they_were_going(staff, required):
    client = signed_in(staff)
    sent = client.get("/admin/flows/flow/")
    page = client.post(sent["Location"], {"action": "start"}).content.decode()
    app = Authenticator(re.search(r'data-secret="([A-Z2-7]+)"', page).group(1))

    page = client.post(sent["Location"], {"action": "confirm", "code": app.code()})

    assert 'href="/admin/flows/flow/"' in page.content.decode()
    assert client.get("/admin/flows/flow/").status_code == 200
