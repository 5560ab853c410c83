"""The single sign-on settings: read at start-up, a malformed one refused
with a message naming it."""

from __future__ import annotations

import pytest

from tests.config.test_settings import PRODUCTION_ENV, manage, print_settings

pytestmark = pytest.mark.processes

SSO = {
    **PRODUCTION_ENV,
    "OIDC_ISSUER": "https://id.example.com/",
    "OIDC_CLIENT_ID": "weir",
    "OIDC_CLIENT_SECRET": "s3cret",
}


def test_the_defaults_ask_for_email_and_profile_and_keep_passwords():
    result = print_settings(
        "repr(s.OIDC_SCOPES), s.OIDC_CREATE_USERS, s.PASSWORD_SIGN_IN, "
        "s.OIDC_ISSUER, s.OIDC_GROUP_ROLES",
        env=SSO,
    )

    assert result.stdout.split() == [
        "'openid",
        "email",
        "profile'",
        "False",
        "True",
        "https://id.example.com",
        "[]",
    ], result.stderr


def test_group_roles_are_read_as_group_workspace_role():
    result = print_settings(
        "s.OIDC_GROUP_ROLES",
        env={**SSO, "OIDC_GROUP_ROLES": "weir-ops:Ops:editor, weir-admins:ops:admin"},
    )

    assert result.stdout.strip() == (
        "[('weir-ops', 'Ops', 'editor'), ('weir-admins', 'ops', 'admin')]"
    ), result.stderr


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("weir-ops:Ops", "each entry is group:workspace:role"),
        ("weir-ops:Ops:owner", "the role must be one of viewer, runner"),
    ],
)
def test_a_malformed_group_role_refuses_to_start(value, said):
    result = manage("check", env={**SSO, "OIDC_GROUP_ROLES": value})

    assert result.returncode != 0
    assert "OIDC_GROUP_ROLES" in result.stderr
    assert said in result.stderr


def test_an_issuer_without_its_client_refuses_to_start():
    result = manage("check", env={**SSO, "OIDC_CLIENT_SECRET": ""})

    assert result.returncode != 0
    assert "set OIDC_CLIENT_ID and OIDC_CLIENT_SECRET too" in result.stderr
