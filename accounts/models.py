"""The accounts app's models: workspaces and memberships (accounts/workspaces/),
the audit log (accounts/audit/), API tokens (accounts/tokens/) and the failed
sign-in counter used when no Redis is configured."""

from __future__ import annotations

from django.db import models

from accounts.audit.models import AuditEvent
from accounts.preferences.models import Preference
from accounts.tokens.models import ApiToken
from accounts.workspaces.invitations import Invitation
from accounts.workspaces.models import Membership, Variable, Workspace

__all__ = [
    "ApiToken",
    "AuditEvent",
    "Invitation",
    "Membership",
    "Preference",
    "SignInFailureWindow",
    "Variable",
    "Workspace",
]


class SignInFailureWindow(models.Model):
    """Failed sign-ins of one address and username in one window of
    `LOGIN_FAILURE_RATE` (`accounts.failure_counts`).

    Without Redis each web process has a cache of its own, so a count there is
    a count per process; this row is shared by all of them. The key (address,
    username and window start) is the primary key: the counter is one upsert on
    it, and no other query looks a row up. The key is a SHA-256 of those
    (a username typed at the form may be of any length).
    """

    key = models.CharField(max_length=64, primary_key=True)
    count = models.PositiveIntegerField(default=0)
    # Serves the prune of ended windows (`failure_counts.hit`).
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.key}: {self.count}"
