"""OIDC_GROUP_ROLES: the provider's groups become workspace roles at each
sign-in: added, changed and removed, each change audited, and never a
membership people made."""

from __future__ import annotations

import pytest

from accounts.audit.models import AuditEvent
from accounts.workspaces.models import Membership, Workspace
from tests.factories import UserFactory


@pytest.fixture
def ops(db):
    return Workspace.objects.create(name="Ops", slug="ops-team")


@pytest.fixture
def ada(db):
    return UserFactory(username="ada", email="ada@example.com")


@pytest.fixture
def mapping(settings, sso):
    settings.OIDC_GROUP_ROLES = [
        ("weir-ops", "Ops", "editor"),
        ("weir-admins", "ops-team", "admin"),
        ("weir-viewers", "Ops", "viewer"),
    ]


def role_in(workspace, user):
    found = Membership.objects.filter(workspace=workspace, user=user).first()
    return found.role if found else None


def test_a_group_adds_the_membership_and_audits_it(
    sso, sign_in_with, mapping, ops, ada
):
    sso.add_person("ada", groups=["weir-ops", "unrelated"])

    sign_in_with("ada")

    membership = Membership.objects.get(workspace=ops, user=ada)
    assert (membership.role, membership.source) == ("editor", "oidc_groups")
    event = AuditEvent.objects.get(action="member.added")
    assert event.actor_label == "OIDC_GROUP_ROLES"
    assert event.workspace_id == ops.id
    assert event.changes["role"] == "editor"


def test_the_highest_role_of_the_groups_wins(sso, sign_in_with, mapping, ops, ada):
    sso.add_person("ada", groups=["weir-viewers", "weir-admins", "weir-ops"])

    sign_in_with("ada")

    assert role_in(ops, ada) == "admin"


def test_a_changed_group_changes_the_role_at_the_next_sign_in(
    sso, sign_in_with, visitor, mapping, ops, ada
):
    person = sso.add_person("ada", groups=["weir-ops"])
    sign_in_with("ada")
    visitor.post("/logout/")
    person.claims["groups"] = ["weir-admins"]

    sign_in_with("ada")

    assert role_in(ops, ada) == "admin"
    event = AuditEvent.objects.get(action="member.role_changed")
    assert event.changes["from"] == "editor"
    assert event.changes["to"] == "admin"


def test_a_group_gone_from_the_claim_removes_the_membership(
    sso, sign_in_with, visitor, mapping, ops, ada
):
    person = sso.add_person("ada", groups=["weir-ops"])
    sign_in_with("ada")
    visitor.post("/logout/")
    del person.claims["groups"]

    sign_in_with("ada")

    assert role_in(ops, ada) is None
    assert AuditEvent.objects.filter(action="member.removed").count() == 1


def test_a_sign_in_with_the_same_groups_changes_nothing(
    sso, sign_in_with, visitor, mapping, ops, ada
):
    sso.add_person("ada", groups=["weir-ops"])
    sign_in_with("ada")
    visitor.post("/logout/")

    sign_in_with("ada")

    assert AuditEvent.objects.filter(action__startswith="member.").count() == 1


def test_a_membership_people_made_is_never_changed_or_removed(
    sso, sign_in_with, visitor, mapping, ops, ada
):
    Membership.objects.create(workspace=ops, user=ada, role="runner")
    person = sso.add_person("ada", groups=["weir-admins"])
    sign_in_with("ada")
    visitor.post("/logout/")
    person.claims["groups"] = []

    sign_in_with("ada")

    assert role_in(ops, ada) == "runner"
    assert not AuditEvent.objects.filter(action__startswith="member.").exists()


def test_an_owner_is_never_demoted(sso, sign_in_with, mapping, ops, ada):
    Membership.objects.create(
        workspace=ops, user=ada, role="owner", source="oidc_groups"
    )
    sso.add_person("ada", groups=["weir-viewers"])

    sign_in_with("ada")

    assert role_in(ops, ada) == "owner"


def test_a_workspace_that_does_not_exist_is_skipped(
    sso, sign_in_with, visitor, settings, ada
):
    settings.OIDC_GROUP_ROLES = [("weir-ops", "Nowhere", "editor")]
    sso.add_person("ada", groups=["weir-ops"])

    answer = sign_in_with("ada")

    assert answer.status_code == 302
    assert not Workspace.objects.filter(name="Nowhere").exists()


def test_a_personal_workspace_is_never_mapped(sso, sign_in_with, settings, ada):
    bob = UserFactory(username="bob")
    settings.OIDC_GROUP_ROLES = [("weir-ops", "bob", "admin")]
    sso.add_person("ada", groups=["weir-ops"])

    sign_in_with("ada")

    assert role_in(Workspace.objects.get(personal_of=bob), ada) is None


def test_a_single_group_string_counts(sso, sign_in_with, mapping, ops, ada):
    sso.add_person("ada", groups="weir-ops")

    sign_in_with("ada")

    assert role_in(ops, ada) == "editor"


def test_another_groups_claim_can_be_named(
    sso, sign_in_with, mapping, settings, ops, ada
):
    settings.OIDC_GROUPS_CLAIM = "roles"
    sso.add_person("ada", roles=["weir-ops"])

    sign_in_with("ada")

    assert role_in(ops, ada) == "editor"
