"""Sign-ins in the audit log, from every way in (the API, /login/; the admin
signs in through /login/).

Called next to the shared throttle (`login_throttle`) by each of them: a
failed attempt is recorded with the username that was tried (there may be no
such user), never the password.
"""

from __future__ import annotations

from dataclasses import replace

from accounts.audit.actor import Actor
from accounts.audit.record import record


def signed_in(request, user, via: str = "") -> None:
    """`via` names a way in other than the password ("oidc")."""
    # The request is still anonymous: the actor is who just signed in.
    actor = replace(Actor.from_request(request), user=user, label=user.get_username())
    record("auth.login", actor, user, changes={"via": via} if via else None)


def sign_in_failed(request, username: str, reason: dict | None = None) -> None:
    """`reason`: why a single sign-on was refused ({"via", "code"})."""
    record(
        "auth.login_failed",
        Actor.from_request(request),
        target_type="user",
        target_label=username,
        changes=reason,
    )
