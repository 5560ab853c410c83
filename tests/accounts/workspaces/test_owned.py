"""The workspace-owned pattern itself (accounts/workspaces/owned.py, fields.py):
the save default, `for_user` with and without a right, and the one
`workspace` field of every create endpoint."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth.models import AnonymousUser

from accounts.rights import AGENTS_EDIT, CREDENTIALS_EDIT, FLOWS_EDIT, RUNS_START
from accounts.workspaces.fields import NOT_YOURS
from accounts.workspaces.personal import personal_workspace
from agents.models import Agent
from flows.models import Credential, Flow, FlowRun
from knowledge.models import KnowledgeBase
from tests.factories import FlowRunFactory, make_credential

pytestmark = pytest.mark.django_db

# One create endpoint of each workspace-owned kind, with a valid body, and the
# right a member's role needs to create there (None: any member may).
CREATES = {
    "flow": ("/api/flows", {"name": "New"}, FLOWS_EDIT),
    "credential": (
        "/api/credentials",
        {"name": "new_key", "kind": "bearer", "token": "t0ken"},
        CREDENTIALS_EDIT,
    ),
    "agent": ("/api/agents", {"name": "New", "model": "echo:demo"}, AGENTS_EDIT),
    "knowledge base": ("/api/knowledge-bases", {"name": "New"}, FLOWS_EDIT),
    "token": ("/api/tokens", {"name": "New", "scopes": ["flows:read"]}, None),
}


@pytest.mark.parametrize(
    "make",
    [
        lambda user: Flow(created_by=user, name="Mine"),
        lambda user: Credential(created_by=user, name="mine", kind="bearer"),
        lambda user: Agent(created_by=user, name="Mine", model="echo:demo"),
        lambda user: KnowledgeBase(created_by=user, name="Mine"),
    ],
    ids=["flow", "credential", "agent", "knowledge base"],
)
def test_a_row_saved_without_a_workspace_lands_in_its_creators_personal_one(
    alice, make
):
    row = make(alice)
    row.save()

    row.refresh_from_db()
    assert row.workspace == personal_workspace(alice)


def test_for_user_reaches_only_the_workspaces_of_a_member(
    members, bob, team, team_flow
):
    assert list(Flow.objects.for_user(members["viewer"])) == [team_flow]
    assert list(Flow.objects.for_user(bob)) == []


def test_for_user_with_a_right_reaches_only_where_the_role_holds_it(members, team_flow):
    assert list(Flow.objects.for_user(members["editor"], FLOWS_EDIT)) == [team_flow]
    assert list(Flow.objects.for_user(members["viewer"], FLOWS_EDIT)) == []
    assert list(Flow.objects.for_user(members["runner"], RUNS_START)) == [team_flow]


def test_for_user_finds_nothing_for_an_anonymous_user(team_flow):
    assert list(Flow.objects.for_user(AnonymousUser())) == []
    assert list(Flow.objects.for_user(None)) == []


def test_a_runs_workspace_is_its_flows(members, bob, team_flow):
    run = FlowRunFactory(flow=team_flow)

    assert list(FlowRun.objects.for_user(members["viewer"])) == [run]
    assert list(FlowRun.objects.for_user(bob)) == []


def test_a_key_credential_for_an_agent_needs_agents_edit_there(members, team):
    key = make_credential(members["owner"], workspace=team)

    assert list(Credential.objects.for_user(members["editor"], AGENTS_EDIT)) == [key]
    assert list(Credential.objects.for_user(members["runner"], AGENTS_EDIT)) == []


@pytest.mark.parametrize("kind", CREATES)
def test_another_workspace_reads_like_a_missing_one(as_member, team, kind):
    url, body, _ = CREATES[kind]
    bob = as_member(None)

    theirs = bob.post(url, {**body, "workspace": str(team.id)}, format="json")
    missing = bob.post(url, {**body, "workspace": str(uuid.uuid4())}, format="json")

    for response in (theirs, missing):
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "validation_error"
        assert response.json()["error"]["details"]["workspace"] == [NOT_YOURS]
    assert theirs.json() == missing.json()


@pytest.mark.parametrize("kind", [kind for kind in CREATES if CREATES[kind][2]])
def test_a_viewer_may_not_create_in_the_workspace(as_member, team, kind):
    url, body, right = CREATES[kind]

    response = as_member("viewer").post(
        url, {**body, "workspace": str(team.id)}, format="json"
    )

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"
    assert f"it needs {right}" in response.json()["error"]["message"]


@pytest.mark.parametrize("kind", CREATES)
def test_a_member_who_may_creates_in_the_workspace(as_member, team, kind):
    url, body, _ = CREATES[kind]

    response = as_member("editor").post(
        url, {**body, "workspace": str(team.id)}, format="json"
    )

    assert response.status_code == 201
    assert response.json()["workspace"] == str(team.id)


def test_the_workspace_of_an_update_is_ignored(as_member, bob, team, team_flow):
    response = as_member("editor").patch(
        f"/api/flows/{team_flow.id}",
        {"name": "Renamed", "workspace": str(personal_workspace(bob).id)},
        format="json",
    )

    assert response.status_code == 200
    team_flow.refresh_from_db()
    assert (team_flow.name, team_flow.workspace) == ("Renamed", team)
