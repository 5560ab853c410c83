"""Every user has a personal workspace, and what they make lands in it."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from accounts.models import Membership, Workspace
from accounts.workspaces.personal import personal_workspace
from agents.models import Agent
from tests.factories import FlowFactory, make_credential

pytestmark = pytest.mark.django_db


def test_a_new_user_owns_a_personal_workspace_named_after_them():
    ada = get_user_model().objects.create_user("ada", password="x")

    workspace = Workspace.objects.get(personal_of=ada)
    assert (workspace.name, workspace.slug, workspace.is_personal) == (
        "ada",
        "ada",
        True,
    )
    assert list(workspace.memberships.values_list("user", "role")) == [
        (ada.pk, "owner")
    ]


def test_slugs_stay_unique_when_usernames_slugify_alike():
    get_user_model().objects.create_user("Ada")
    other = get_user_model().objects.create_user("ada")

    assert personal_workspace(other).slug == "ada-2"


def test_a_user_without_one_gets_it_on_first_use(alice):
    Workspace.objects.filter(personal_of=alice).delete()

    workspace = personal_workspace(alice)

    assert workspace.personal_of == alice
    assert Membership.objects.get(workspace=workspace).role == "owner"


def test_flows_credentials_and_agents_land_in_the_creators_personal_workspace(
    alice,
):
    flow = FlowFactory(created_by=alice)
    credential = make_credential(alice)
    agent = Agent.objects.create(created_by=alice, name="A", model="echo:demo")

    mine = Workspace.objects.get(personal_of=alice)
    assert flow.workspace == credential.workspace == agent.workspace == mine


def test_an_agent_nobody_owns_has_no_workspace():
    agent = Agent.objects.create(name="Shared", model="echo:demo", shared=True)

    assert agent.workspace is None


def test_credential_names_are_unique_per_workspace_not_per_server(alice, bob):
    make_credential(alice, name="api_key")
    make_credential(bob, name="api_key")

    with pytest.raises(IntegrityError), transaction.atomic():
        make_credential(alice, name="api_key")


def test_a_workspace_holding_flows_cannot_be_deleted(alice_flow):
    from django.db.models import ProtectedError

    with pytest.raises(ProtectedError):
        alice_flow.workspace.delete()
