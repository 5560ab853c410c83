"""OIDC_CREATE_USERS: a verified address no account has makes one, with its
personal workspace, as every new account gets."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from accounts.workspaces.models import Membership, Workspace
from tests.accounts.oidc.conftest import signed_in_user
from tests.factories import UserFactory


@pytest.fixture
def create_users(settings):
    settings.OIDC_CREATE_USERS = True


def test_a_first_sign_in_makes_the_account_and_its_personal_workspace(
    sso, sign_in_with, visitor, create_users
):
    sso.add_person(
        "grace",
        email="grace@example.com",
        preferred_username="ghopper",
        given_name="Grace",
        family_name="Hopper",
    )

    answer = sign_in_with("grace")

    assert answer.status_code == 302
    assert signed_in_user(visitor) == "ghopper"
    grace = get_user_model().objects.get(email="grace@example.com")
    assert (grace.username, grace.first_name, grace.last_name) == (
        "ghopper",
        "Grace",
        "Hopper",
    )
    assert grace.has_usable_password() is False
    workspace = Workspace.objects.get(personal_of=grace)
    assert Membership.objects.get(workspace=workspace, user=grace).role == "owner"


def test_a_second_sign_in_reaches_the_same_account(
    sso, sign_in_with, visitor, create_users
):
    sso.add_person("grace")
    sign_in_with("grace")
    visitor.post("/logout/")

    sign_in_with("grace")

    assert get_user_model().objects.filter(email="grace@example.com").count() == 1
    assert signed_in_user(visitor) == "grace"


def test_a_taken_username_gets_a_number(sso, sign_in_with, visitor, create_users):
    UserFactory(username="grace", email="other-grace@example.com")
    sso.add_person("grace", email="grace@example.com")

    sign_in_with("grace")

    assert signed_in_user(visitor) == "grace-2"


def test_an_unusable_preferred_username_falls_back_to_the_address(
    sso, sign_in_with, visitor, create_users
):
    sso.add_person("grace", email="g.hopper@example.com", preferred_username="G H!")

    sign_in_with("grace")

    assert signed_in_user(visitor) == "g.hopper"


def test_an_unverified_address_makes_no_account(
    sso, sign_in_with, visitor, create_users
):
    sso.add_person("grace", email_verified=False)

    answer = sign_in_with("grace")

    assert answer.status_code == 403
    assert not get_user_model().objects.filter(email="grace@example.com").exists()


def test_email_verified_as_the_string_true_counts(
    sso, sign_in_with, visitor, create_users
):
    sso.add_person("grace", email_verified="true")

    sign_in_with("grace")

    assert signed_in_user(visitor) == "grace"
