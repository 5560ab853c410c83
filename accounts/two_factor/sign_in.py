"""The second step of signing in, shared by the API, `/login/` and (through
`/login/`) the admin.

A code is counted by the same throttle as a password (`login_throttle`): a
wrong code is one more failure for that address and username, so someone who
knows the password gets `LOGIN_FAILURE_RATE` guesses at the code like anyone
else. The `/login/` page keeps who passed the password in the session for
`TWO_FACTOR_PENDING_SECONDS`, and signs them in only after the code.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.contrib.auth import get_user_model

from accounts import login_throttle
from accounts.audit.actor import Actor
from accounts.two_factor import service

PENDING_KEY = "two_factor_pending"
# Set by a single sign-on whose provider did a second factor itself (`amr`).
PROVIDER_MFA_KEY = "two_factor_by_provider"
# `amr` values (RFC 8176) that say the provider asked for more than a password.
PROVIDER_MFA_METHODS = frozenset({"mfa", "otp", "hwk"})


def provider_did_mfa(amr) -> bool:
    """Whether an ID token's `amr` claim names a second factor."""
    return isinstance(amr, list) and bool(PROVIDER_MFA_METHODS & set(map(str, amr)))


def signed_in_by_provider_mfa(request) -> bool:
    """This session began with a single sign-on that did a second factor."""
    return bool(request.session.get(PROVIDER_MFA_KEY))


class WrongCode(Exception):
    """The code is not an unused code of this user's."""


def check_code(request, user, code: str) -> str:
    """Counts the attempt, checks `code`; "totp" or "recovery". Raises
    `login_throttle.LoginThrottled` or `WrongCode` (recorded as 2fa_failed)."""
    attempt = login_throttle.start_attempt(request, user.get_username())
    kind = service.verify(user, code or "")
    if kind is None:
        service.code_failed(user, Actor.from_request(request))
        raise WrongCode()
    login_throttle.attempt_succeeded(attempt)
    return kind


def hold(request, user, next_url: str) -> None:
    """Remember, in the session, that `user` passed the password step."""
    request.session[PENDING_KEY] = {
        "user": user.pk,
        "backend": user.backend,
        "at": time.time(),
        "next": next_url,
    }


def held_user(request):
    """The user waiting for their code, or None (none, or held too long)."""
    pending = request.session.get(PENDING_KEY)
    if not pending:
        return None
    if time.time() - pending["at"] > settings.TWO_FACTOR_PENDING_SECONDS:
        release(request)
        return None
    user = get_user_model().objects.filter(pk=pending["user"], is_active=True).first()
    if user is not None:
        user.backend = pending["backend"]
    return user


def held_next(request) -> str:
    return (request.session.get(PENDING_KEY) or {}).get("next", "")


def release(request) -> None:
    request.session.pop(PENDING_KEY, None)
