"""A user's authenticator secret and their recovery codes."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class TwoFactor(models.Model):
    """One user's TOTP secret (encrypted like credential values), on once a
    first code confirmed it. `last_step` is the time step of the last code
    accepted: a code is accepted only for a later step, so none is used twice."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="two_factor"
    )
    secret_encrypted = models.TextField()
    confirmed_at = models.DateTimeField(null=True, blank=True)
    last_step = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        state = "on" if self.confirmed_at else "being set up"
        return f"two-factor for {self.user} ({state})"


class RecoveryCode(models.Model):
    """A single-use code for when the authenticator is lost; only its keyed
    hash is stored (`service.hash_code`), so the table alone reveals none."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="recovery_codes",
    )
    code_hash = models.CharField(max_length=64)
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "code_hash"], name="recovery_code_unique_per_user"
            )
        ]

    def __str__(self):
        return f"recovery code of {self.user}"
