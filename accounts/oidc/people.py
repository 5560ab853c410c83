"""Which Weir account a provider's claims reach: the rule that an e-mail
address the provider has not verified reaches none.

An account is found by its e-mail (case-insensitive), and only when the
provider says it verified that address (`email_verified` true): anyone can
type any address into an account at many providers, and an unverified one
would otherwise open someone else's Weir account. With OIDC_CREATE_USERS an
address no account has makes a new account, with its personal workspace
(the user model's post_save makes it, as for every account).
"""

from __future__ import annotations

import re

from django.conf import settings
from django.contrib.auth import get_user_model

USERNAME = re.compile(r"[\w.@+-]+")


class SignInRefused(Exception):
    """The provider vouched for someone Weir will not sign in; the message
    is what the person reads on the error page."""

    def __init__(self, code: str, message: str, status: int = 403):
        super().__init__(message)
        self.code, self.message, self.status = code, message, status


def email_is_verified(claims: dict) -> bool:
    """True only for `email_verified: true` (some providers send "true")."""
    return claims.get("email_verified") in (True, "true")


def account_for(claims: dict):
    """The active account these claims reach, made when allowed; raises
    `SignInRefused` with the reason otherwise."""
    email = str(claims.get("email") or "").strip()
    if not email:
        raise SignInRefused(
            "email_missing",
            "The provider sent no e-mail address: Weir finds accounts by it. "
            "Ask your administrator to release the email scope to Weir.",
        )
    if not email_is_verified(claims):
        raise SignInRefused(
            "email_not_verified",
            f"The provider has not verified {email}, so it cannot sign in to "
            "Weir. Verify the address with your provider, then try again.",
        )
    found = list(get_user_model().objects.filter(email__iexact=email)[:2])
    if len(found) > 1:
        raise SignInRefused(
            "email_ambiguous",
            f"More than one Weir account has the address {email}; an "
            "administrator must give each its own before it can sign in.",
            status=409,
        )
    if found:
        if not found[0].is_active:
            raise SignInRefused(
                "account_disabled", f"The Weir account of {email} is turned off."
            )
        return found[0]
    if not settings.OIDC_CREATE_USERS:
        raise SignInRefused(
            "no_account",
            f"No Weir account has the address {email}. Ask an administrator "
            "to make one.",
        )
    return get_user_model().objects.create_user(
        _free_username(claims, email),
        email=email,
        first_name=str(claims.get("given_name") or "")[:150],
        last_name=str(claims.get("family_name") or "")[:150],
    )


def _free_username(claims: dict, email: str) -> str:
    """The provider's `preferred_username`, else the address's local part,
    with `-2`, `-3`... when taken (a query per try)."""
    users = get_user_model().objects
    for wanted in (claims.get("preferred_username"), email.split("@")[0]):
        base = str(wanted or "").strip()[:140]
        if USERNAME.fullmatch(base):
            break
    else:
        base = "user"
    name, n = base, 1
    while users.filter(username__iexact=name).exists():
        n += 1
        name = f"{base}-{n}"
    return name
