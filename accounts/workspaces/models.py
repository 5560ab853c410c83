"""`Workspace` and `Membership`: flows, credentials and agents belong to a
workspace, and people hold one role in it.

Registered with Django through `accounts.models`, which imports them.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.text import slugify


class WorkspaceQuerySet(models.QuerySet):
    def for_user(self, user):
        """The workspaces `user` is a member of (only the token's one for a
        request made with an API token); none for anonymous users."""
        if user is None or not user.is_authenticated:
            return self.none()
        return self.filter(pk__in=Membership.objects.of(user).values("workspace_id"))


class MembershipQuerySet(models.QuerySet):
    def of(self, user):
        """`user`'s memberships; for a request made with an API token, only the
        one in the token's workspace (`token_workspace_id`, which the bearer
        authentication sets on the request's user): a token reaches one
        workspace. A workspace token's service account
        (accounts/tokens/service.py) brings its own: rows with the same
        `workspace_id` and `role`. Call it on `Membership.objects` and filter
        after: for a workspace token its rows replace the queryset it is
        called on, with whatever that was filtered by."""
        service = getattr(user, "service_memberships", None)
        if service is not None:  # a workspace token: its own row stands for one
            return service
        memberships = self.filter(user=user)
        only = getattr(user, "token_workspace_id", None)
        return memberships if only is None else memberships.filter(workspace_id=only)


class Workspace(models.Model):
    """A team's (or one person's) flows, credentials and agents.

    Every user gets a personal workspace (`personal_of`) when the account is
    made, so a one-person install looks as it did before workspaces: their
    flows are in it and they are its owner. A personal workspace cannot be
    deleted; others can, by an owner, once they hold nothing.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=100)
    slug = models.SlugField(max_length=60, unique=True)
    personal_of = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        # The workspace outlives its person: its flows may be others' work too.
        on_delete=models.SET_NULL,
        related_name="personal_workspace",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        # Made by the flows app before workspaces moved here (issue 34).
        db_table = "flows_workspace"
        ordering = ["name"]

    def __str__(self):
        return self.name

    @property
    def is_personal(self) -> bool:
        return self.personal_of_id is not None

    @classmethod
    def unique_slug(cls, name: str) -> str:
        """`name` as a slug not taken yet (`ada`, `ada-2`, ...); a query per try."""
        base = slugify(name)[:50] or "workspace"
        slug, n = base, 1
        while cls.objects.filter(slug=slug).exists():
            n += 1
            slug = f"{base}-{n}"
        return slug


class Membership(models.Model):
    """One person's role in one workspace (accounts/workspaces/roles.py)."""

    class Role(models.TextChoices):
        VIEWER = "viewer"
        RUNNER = "runner"
        EDITOR = "editor"
        ADMIN = "admin"
        OWNER = "owner"

    class Source(models.TextChoices):
        """Who keeps the membership: people (the members page and API), or
        OIDC_GROUP_ROLES at each single sign-on, which changes and removes
        only the memberships it made (accounts/oidc/group_roles.py)."""

        PEOPLE = "people"
        GROUPS = "oidc_groups"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="memberships"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=16, choices=Role.choices)
    source = models.CharField(
        max_length=16, choices=Source.choices, default=Source.PEOPLE
    )
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = MembershipQuerySet.as_manager()

    class Meta:
        db_table = "flows_membership"
        ordering = ["created_at"]
        constraints = [
            # Also serves role_of(user, workspace): one row per request.
            models.UniqueConstraint(
                fields=["workspace", "user"], name="membership_workspace_user_unique"
            ),
        ]
        indexes = [
            # The workspaces a user belongs to (every list's filter).
            models.Index(fields=["user", "workspace"], name="membership_user_idx"),
        ]

    def __str__(self):
        return f"{self.user} in {self.workspace} ({self.role})"


class Variable(models.Model):
    """A workspace's non-secret name/value pair, read in templates and code as
    `vars.NAME` (docs/engine.md, "Variables"). Values are plain text, shown to
    every member and kept out of flow exports; secrets belong in credentials.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="variables"
    )
    name = models.CharField(max_length=64)
    value = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            # Also serves a run's one query for its workspace's variables.
            models.UniqueConstraint(
                fields=["workspace", "name"], name="variable_workspace_name_unique"
            ),
        ]

    def __str__(self):
        return self.name
