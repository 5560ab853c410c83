"""PASSWORD_SIGN_IN: whether an account may sign in with its password.

Off (with single sign-on on), only superusers may: the break-glass account
for when the provider is down. It is asked after the password is checked,
and a refusal reads exactly like a wrong password on every way in (/login/,
the API), so it never tells anyone that a password was right.
"""

from __future__ import annotations

from django.conf import settings


def allows(user) -> bool:
    return settings.PASSWORD_SIGN_IN or user.is_superuser


def wrong_password_message() -> str:
    """The API's answer to a wrong password, or to a refused right one."""
    if settings.PASSWORD_SIGN_IN:
        return "Wrong username or password."
    return (
        "Wrong username or password. Only administrators sign in with a "
        f"password here: sign in with {settings.OIDC_NAME} on /login/."
    )
