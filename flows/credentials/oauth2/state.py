"""The `state` of a Connect: bound to one person, credential and session,
good once and for ten minutes.

Connect stores an `OAuthState` row (the state's SHA-256, never the state; the
PKCE verifier encrypted) and puts the state in the provider's URL; the
callback finds the row by the state it brings back. A state that matches no
row (forged), was started by someone else or in another session, was used
already or is older than `STATE_LIFETIME` connects nothing: `consume` raises
`StateRefused` saying which. Registered with Django through `flows.models`.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from datetime import timedelta

from authlib.common.security import generate_token
from django.conf import settings
from django.db import models
from django.utils import timezone

from core import crypto

STATE_LIFETIME = timedelta(minutes=10)
USED = (
    "This Connect was already completed once (a state is good once), so "
    "nothing more was connected."
)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class StateRefused(Exception):
    """The callback's state cannot connect anything; the message says why."""


class OAuthState(models.Model):
    """One Connect in progress: who started it, for which credential, in
    which session, with which PKCE verifier (encrypted)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # The callback's lookup: the state it brings back, hashed.
    state_hash = models.CharField(max_length=64, unique=True)
    credential = models.ForeignKey(
        "flows.Credential", on_delete=models.CASCADE, related_name="oauth_states"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="oauth_states"
    )
    session_hash = models.CharField(max_length=64)
    encrypted_verifier = models.TextField()
    created_at = models.DateTimeField(default=timezone.now)
    used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"Connect of {self.credential_id} by {self.user_id}"

    @property
    def code_verifier(self) -> str:
        return crypto.decrypt(self.encrypted_verifier)["verifier"]


def start(credential, user, session_key: str) -> tuple[str, str]:
    """A new state and PKCE verifier for `user` connecting `credential` in the
    session `session_key`; the user's expired attempts are deleted on the way."""
    OAuthState.objects.filter(
        user=user, created_at__lt=timezone.now() - STATE_LIFETIME
    ).delete()
    state = secrets.token_urlsafe(32)
    verifier = generate_token(64)  # 64 of RFC 7636's unreserved characters
    OAuthState.objects.create(
        state_hash=_digest(state),
        credential=credential,
        user=user,
        session_hash=_digest(session_key),
        encrypted_verifier=crypto.encrypt({"verifier": verifier}),
    )
    return state, verifier


def consume(state: str, user, session_key: str | None) -> OAuthState:
    """The attempt `state` names, marked used; `StateRefused` unless it is
    this user's, from this session, unused and younger than ten minutes."""
    attempt = (
        OAuthState.objects.select_related("credential")
        .filter(state_hash=_digest(state or ""))
        .first()
    )
    if attempt is None:
        raise StateRefused(
            "This answer does not come from a Connect that Weir started (its "
            "state is unknown), so nothing was connected."
        )
    if attempt.user_id != user.pk or attempt.session_hash != _digest(session_key or ""):
        raise StateRefused(
            "This Connect was started by someone else or in another browser "
            "session, so nothing was connected. Press Connect again here."
        )
    if attempt.used_at is not None:
        raise StateRefused(USED)
    if attempt.created_at + STATE_LIFETIME < timezone.now():
        raise StateRefused(
            "This Connect was started more than 10 minutes ago and has expired, "
            "so nothing was connected. Press Connect again."
        )
    # Two callbacks racing with one state: only one UPDATE finds it unused.
    claimed = OAuthState.objects.filter(pk=attempt.pk, used_at__isnull=True).update(
        used_at=timezone.now()
    )
    if not claimed:
        raise StateRefused(USED)
    return attempt
