"""`ApiToken`: a personal token a program uses instead of a browser session."""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from accounts import rights
from accounts.tokens import text
from accounts.workspaces.models import Workspace
from accounts.workspaces.personal import personal_workspace

DEFAULT_DAYS = 30
# last_used_at and last_used_ip are written at most this often per token.
TOUCH_INTERVAL = timedelta(minutes=1)
SCOPES = tuple(rights.SCOPE_RIGHTS)
# A workspace token never chats (a chat is a person's) and is at most an editor.
WORKSPACE_SCOPES = tuple(scope for scope in SCOPES if scope != "agents:chat")
ROLE_CAPS = ("viewer", "runner", "editor")


class ApiTokenQuerySet(models.QuerySet):
    def for_user(self, user):
        """The tokens page and API reach tokens only through this: someone
        else's token does not exist."""
        return self.filter(user=user)

    def of_workspace(self, workspace):
        """A workspace's own tokens (`weir_wst_…`), not its members' personal ones."""
        return self.filter(workspace=workspace).workspace_tokens()

    def workspace_tokens(self):
        """Workspace tokens (`weir_wst_…`) only: no user's personal token."""
        return self.filter(user__isnull=True)

    def usable(self):
        """Neither revoked nor expired."""
        return self.filter(revoked_at__isnull=True, expires_at__gt=timezone.now())


class ApiToken(models.Model):
    """A bearer token: its maker's rights, narrowed by its scopes, until it
    expires or is revoked. Only the SHA-256 digest of its text is kept; the
    text is shown once, in the answer that creates it.

    A personal token (`weir_pat_…`) has a `user` and acts as them, in one of
    their workspaces. A workspace token (`weir_wst_…`) has none: it is the
    workspace's service account, its `role_cap` standing for a role, and it
    outlives whoever made it (`created_by`)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=100)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="api_tokens",
        help_text="Whose personal token it is; empty for a workspace token.",
    )
    role_cap = models.CharField(
        max_length=16,
        blank=True,
        choices=[(role, role) for role in ROLE_CAPS],
        help_text="A workspace token's role (viewer, runner or editor).",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="Who made it (kept for the record; a workspace token outlives them).",
    )
    # The one workspace the token reaches (accounts.workspaces.access narrows
    # every membership query to it).
    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="api_tokens"
    )
    scopes = models.JSONField(default=list)
    prefix = models.CharField(max_length=text.DISPLAY_LENGTH)
    # Every bearer request looks its token up by this (unique, so indexed).
    digest = models.CharField(max_length=64, unique=True)
    expires_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)
    last_used_ip = models.GenericIPAddressField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "API token"
        constraints = [
            # A personal token acts as its user; a workspace token has a role cap.
            models.CheckConstraint(
                condition=Q(user__isnull=False, role_cap="")
                | (Q(user__isnull=True) & ~Q(role_cap="")),
                name="apitoken_personal_or_workspace",
            ),
        ]

    def __str__(self):
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_workspace_token(self) -> bool:
        return self.user_id is None

    @classmethod
    def issue(
        cls, user, name: str, scopes, expires_at, workspace=None
    ) -> tuple[ApiToken, str]:
        """A new personal token (in `workspace`, one of `user`'s; their
        personal one by default) and its text, which is not kept anywhere."""
        value = text.new_token()
        token = cls.objects.create(
            user=user,
            created_by=user,
            workspace=workspace or personal_workspace(user),
            name=name,
            scopes=[scope for scope in SCOPES if scope in set(scopes)],
            prefix=text.display_prefix(value),
            digest=text.digest_of(value),
            expires_at=expires_at,
        )
        return token, value

    @classmethod
    def issue_for_workspace(
        cls, workspace, maker, name: str, scopes, expires_at, role_cap: str
    ) -> tuple[ApiToken, str]:
        """A new workspace token and its text; never `agents:chat`."""
        value = text.new_token(text.WORKSPACE)
        token = cls.objects.create(
            user=None,
            role_cap=role_cap,
            created_by=maker,
            workspace=workspace,
            name=name,
            scopes=[scope for scope in WORKSPACE_SCOPES if scope in set(scopes)],
            prefix=text.display_prefix(value),
            digest=text.digest_of(value),
            expires_at=expires_at,
        )
        return token, value

    @property
    def granted(self) -> frozenset[str]:
        """The rights its scopes grant (its maker's role narrows them further)."""
        return rights.granted_by(self.scopes)

    def touch(self, address: str | None) -> None:
        """Note the use; one UPDATE a minute at most, whatever the traffic (the
        condition also holds between processes that both saw an old value)."""
        now = timezone.now()
        if self.last_used_at is not None and now - self.last_used_at < TOUCH_INTERVAL:
            return
        stale = Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - TOUCH_INTERVAL)
        ApiToken.objects.filter(stale, pk=self.pk).update(
            last_used_at=now, last_used_ip=address or None
        )
        self.last_used_at, self.last_used_ip = now, address or None

    def revoke(self) -> None:
        if self.revoked_at is None:
            self.revoked_at = timezone.now()
            self.save(update_fields=["revoked_at"])
