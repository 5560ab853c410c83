"""The roles table: each role holds the rights of the ones below it."""

from __future__ import annotations

from accounts.models import Membership
from accounts.workspaces import roles


def test_each_role_grants_everything_the_role_below_it_grants():
    ladder = [roles.ROLE_RIGHTS[role] for role in roles.ROLES]

    assert all(low < high for low, high in zip(ladder, ladder[1:], strict=False))


def test_a_viewer_sees_but_never_reads_run_data():
    assert roles.grants("viewer", roles.FLOWS_VIEW)
    assert not roles.grants("viewer", roles.RUNS_DATA)
    assert not roles.grants(None, roles.FLOWS_VIEW)


def test_only_an_owner_owns_the_workspace():
    assert [r for r in roles.ROLES if roles.grants(r, roles.WORKSPACE_OWN)] == ["owner"]


def test_the_membership_choices_are_the_roles_of_the_table():
    assert tuple(Membership.Role.values) == roles.ROLES
