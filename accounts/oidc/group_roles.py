"""OIDC_GROUP_ROLES: the provider's groups as workspace roles, applied at
each single sign-on.

For each workspace the mapping names, the person's role is the highest one
their groups give (`weir-ops:Ops:editor,weir-admins:Ops:admin`: in both,
admin). The mapping keeps the memberships it made (`source` "oidc_groups"):
it adds one, changes its role when the groups change, and removes it when
no group gives a role there any more. A membership made by people, and any
owner, it never touches: the mapping cannot take away what someone gave by
hand. Each change is one audit event by the actor "OIDC_GROUP_ROLES", the
members page's own events (`member.added`, `member.role_changed`,
`member.removed`). A workspace the mapping names that does not exist (or a
personal one) is skipped with a warning: the mapping makes no workspaces.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from django.conf import settings
from django.db import transaction
from django.db.models import Q

from accounts.audit.actor import Actor
from accounts.workspaces import members
from accounts.workspaces.models import Membership, Workspace
from accounts.workspaces.roles import ROLES

logger = logging.getLogger("weir.oidc")
GROUPS = Membership.Source.GROUPS
OWNER = Membership.Role.OWNER


def groups_in(claims: dict) -> set[str]:
    """The OIDC_GROUPS_CLAIM values (a list, or one string)."""
    value = claims.get(settings.OIDC_GROUPS_CLAIM) or []
    if isinstance(value, str):
        value = [value]
    return {str(group) for group in value if isinstance(group, str | int)}


def wanted_roles(groups: set[str]) -> dict[Workspace, str | None]:
    """{workspace the mapping names: the highest role `groups` give there},
    None where they give none. A query per workspace the mapping names."""
    found: dict[str, Workspace | None] = {}
    wanted: dict[Workspace, str | None] = {}
    for group, named, role in settings.OIDC_GROUP_ROLES:
        if named not in found:
            found[named] = _workspace(named)
        workspace = found[named]
        if workspace is None:
            continue
        best = wanted.setdefault(workspace, None)
        if group in groups and (best is None or rank(role) > rank(best)):
            wanted[workspace] = role
    return wanted


def rank(role: str) -> int:
    return ROLES.index(role)


def _workspace(named: str) -> Workspace | None:
    """The team workspace with this slug, else the only one with this name."""
    teams = Workspace.objects.filter(personal_of__isnull=True)
    found = list(teams.filter(Q(slug=named) | Q(name=named))[:3])
    by_slug = [workspace for workspace in found if workspace.slug == named]
    if by_slug:
        return by_slug[0]
    if len(found) == 1:
        return found[0]
    logger.warning("OIDC_GROUP_ROLES names %r: no single team workspace.", named)
    return None


def apply(user, claims: dict, request) -> None:
    """Bring `user`'s mapped memberships in step with `claims`' groups."""
    if not settings.OIDC_GROUP_ROLES:
        return
    actor = replace(Actor.from_request(request), user=None, label="OIDC_GROUP_ROLES")
    for workspace, role in wanted_roles(groups_in(claims)).items():
        with transaction.atomic():
            membership = (
                Membership.objects.select_for_update()
                .filter(workspace=workspace, user=user)
                .first()
            )
            if membership is None:
                if role is not None:
                    members.add_member(workspace, user, role, actor, source=GROUPS)
            elif membership.source != GROUPS or membership.role == OWNER:
                continue  # made by people, or an owner: theirs to change
            elif role is None:
                members.remove_member(membership, actor)
            elif membership.role != role:
                members.change_role(membership, role, actor)
