"""Access by membership: non-members find nothing (404), members without the
right are refused (403), and each role sees and does what its rights say."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.audit.actor import Actor
from accounts.models import Membership
from accounts.tokens.models import ApiToken
from accounts.workspaces import members as members_api
from accounts.workspaces.access import account_of, forget_accounts
from flows.models import Credential, Flow, FlowRun
from tests.factories import FlowFactory, FlowRunFactory, make_credential
from tests.flows.graphs import chain, chain_flow, code, node, trigger

pytestmark = pytest.mark.django_db


def test_a_non_member_finds_no_flow_of_the_workspace(as_member, team_flow):
    response = as_member(None).get(f"/api/flows/{team_flow.id}")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_a_viewer_reads_a_flow_but_may_not_change_it(as_member, team_flow):
    viewer = as_member("viewer")

    assert viewer.get(f"/api/flows/{team_flow.id}").status_code == 200
    response = viewer.patch(
        f"/api/flows/{team_flow.id}", {"name": "Mine"}, format="json"
    )

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"
    assert "viewer" in response.json()["error"]["message"]
    assert Flow.objects.get(pk=team_flow.pk).name == "Team flow"


def test_an_editor_changes_a_flow_another_member_made(as_member, team_flow):
    response = as_member("editor").patch(
        f"/api/flows/{team_flow.id}", {"name": "Renamed"}, format="json"
    )

    assert response.status_code == 200
    assert Flow.objects.get(pk=team_flow.pk).name == "Renamed"


def test_a_viewer_may_not_run_a_flow_and_a_runner_may(as_member, team_flow):
    refused = as_member("viewer").post(
        f"/api/flows/{team_flow.id}/run", {}, format="json"
    )
    ran = as_member("runner").post(f"/api/flows/{team_flow.id}/run", {}, format="json")

    assert refused.status_code == 403
    assert ran.status_code == 200
    assert FlowRun.objects.filter(flow=team_flow).count() == 1


def test_a_viewers_run_view_has_no_input_results_or_steps(as_member, team_flow):
    run = FlowRunFactory(flow=team_flow, input={"card": "4242"}, results={"a": 1})

    seen = as_member("viewer").get(f"/api/runs/{run.id}").json()
    full = as_member("runner").get(f"/api/runs/{run.id}").json()

    assert seen["status"] == "succeeded"
    assert (seen["input"], seen["results"], seen["response"]) == (None, None, None)
    assert seen["steps"] == []
    assert "4242" not in str(seen)
    assert full["input"] == {"card": "4242"}
    assert "steps" in full


def test_the_flow_list_holds_every_workspace_of_the_user_and_narrows_to_one(
    api, alice, team, team_flow
):
    Membership.objects.create(workspace=team, user=alice, role="viewer")
    own = FlowFactory(created_by=alice)

    everything = {f["id"] for f in api.get("/api/flows").json()}
    team_only = api.get(f"/api/flows?workspace={team.id}").json()

    assert everything == {str(own.id), str(team_flow.id)}
    assert [f["id"] for f in team_only] == [str(team_flow.id)]


def test_a_flow_is_created_in_the_workspace_posted(as_member, team):
    response = as_member("editor").post(
        "/api/flows", {"name": "New", "workspace": str(team.id)}, format="json"
    )

    assert response.status_code == 201
    assert Flow.objects.get(pk=response.json()["id"]).workspace == team


def test_a_viewer_may_not_create_a_flow_in_the_workspace(as_member, team):
    response = as_member("viewer").post(
        "/api/flows", {"name": "New", "workspace": str(team.id)}, format="json"
    )

    assert response.status_code == 403
    assert not Flow.objects.filter(name="New").exists()


def test_a_non_member_may_not_create_a_flow_in_the_workspace(as_member, team):
    response = as_member(None).post(
        "/api/flows", {"name": "New", "workspace": str(team.id)}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["error"]["details"]["workspace"] == [
        "No workspace of yours has this id."
    ]


def test_a_removed_member_loses_the_flow_on_the_next_request(
    as_member, members, team, team_flow
):
    editor = as_member("editor")
    assert editor.get(f"/api/flows/{team_flow.id}").status_code == 200

    Membership.objects.filter(user=members["editor"], workspace=team).delete()

    assert editor.get(f"/api/flows/{team_flow.id}").status_code == 404


def test_a_demoted_editor_may_no_longer_save_on_the_next_request(
    as_member, members, team, team_flow
):
    editor = as_member("editor")
    Membership.objects.filter(user=members["editor"]).update(role="viewer")

    response = editor.patch(f"/api/flows/{team_flow.id}", {"name": "X"}, format="json")

    assert response.status_code == 403


def test_a_viewer_sees_credential_names_but_may_not_create_one(
    as_member, members, team
):
    make_credential(members["owner"], name="team_key", workspace=team)

    names = [c["name"] for c in as_member("viewer").get("/api/credentials").json()]
    response = as_member("viewer").post(
        "/api/credentials",
        {"name": "k", "kind": "bearer", "token": "t", "workspace": str(team.id)},
        format="json",
    )

    assert "team_key" in names
    assert response.status_code == 403
    assert not Credential.objects.filter(name="k").exists()


def test_a_run_uses_the_workspace_credential_whoever_made_it(as_member, members, team):
    make_credential(members["owner"], name="team_key", workspace=team)
    flow = chain_flow(
        trigger(),
        code("c", "return secrets.team_key.length;"),
        created_by=members["editor"],
        workspace=team,
    )

    response = as_member("runner").post(f"/api/flows/{flow.id}/run", {}, format="json")

    assert response.json()["status"] == "succeeded", response.json()
    assert response.json()["results"]["c"] == len("tok-team_key-s3cr3t-value")


def test_a_flow_may_not_name_another_workspaces_credential(as_member, alice, team):
    theirs = make_credential(alice, name="alices")
    nodes, edges = chain(
        trigger(),
        node(
            "h", "http_request", url="https://example.com", credential_id=str(theirs.pk)
        ),
    )

    response = as_member("editor").post(
        "/api/flows",
        {"name": "N", "workspace": str(team.id), "nodes": nodes, "edges": edges},
        format="json",
    )

    assert response.status_code == 400
    assert "does not exist" in response.json()["error"]["message"]


def team_token(user, team, *scopes) -> APIClient:
    """A script's client with a token of `user` reaching `team`."""
    expires = timezone.now() + timedelta(days=1)
    token, value = ApiToken.issue(user, "script", scopes, expires)
    ApiToken.objects.filter(pk=token.pk).update(workspace=team)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {value}")
    return client


def test_a_token_is_its_makers_role_narrowed_by_its_scopes(members, team, team_flow):
    read_only = team_token(members["editor"], team, "flows:read")
    write = team_token(members["viewer"], team, "flows:write")
    url = f"/api/flows/{team_flow.id}"

    # An editor's flows:read token may not save; a viewer's flows:write may not.
    assert read_only.get(url).status_code == 200
    assert read_only.patch(url, {"name": "x"}, format="json").status_code == 403
    assert write.patch(url, {"name": "x"}, format="json").status_code == 403
    assert Flow.objects.get(pk=team_flow.pk).name == "Team flow"


def test_a_token_creates_in_its_own_workspace_by_default(members, team):
    script = team_token(members["editor"], team, "flows:write")

    response = script.post("/api/flows", {"name": "By script"}, format="json")

    assert response.status_code == 201
    assert Flow.objects.get(name="By script").workspace == team


def test_a_demoted_editors_token_loses_write_on_the_next_request(
    members, team, team_flow
):
    script = team_token(members["editor"], team, "flows:read", "flows:write")
    url = f"/api/flows/{team_flow.id}"
    assert script.patch(url, {"name": "Saved"}, format="json").status_code == 200

    Membership.objects.filter(user=members["editor"]).update(role="viewer")
    refused = script.patch(url, {"name": "After"}, format="json")

    assert refused.status_code == 403
    assert script.get(url).status_code == 200  # still reads, as a viewer
    assert Flow.objects.get(pk=team_flow.pk).name == "Saved"


# The account cap (SYNC_RUNS_PER_ACCOUNT) is charged to account_of: nobody
# may move their workspaces' runs onto someone else's share.


def _team_made_by(maker):
    return members_api.create_workspace("Mallory's team", maker, Actor.system())


def test_a_maker_who_makes_someone_else_owner_and_steps_down_still_pays(alice, bob):
    team = _team_made_by(alice)
    members_api.add_member(team, bob, Membership.Role.OWNER, Actor.system())
    own = Membership.objects.get(workspace=team, user=alice)
    members_api.change_role(own, Membership.Role.ADMIN, Actor.system())
    forget_accounts()

    assert account_of(team.pk) == alice.pk


def test_an_owner_added_later_never_becomes_the_account_by_the_order_of_ids(alice, bob):
    team = _team_made_by(alice)
    # Ids are random: an owner added later may well sort before the maker.
    Membership.objects.create(
        id=uuid.UUID(int=0), workspace=team, user=bob, role=Membership.Role.OWNER
    )
    forget_accounts()

    assert account_of(team.pk) == alice.pk
