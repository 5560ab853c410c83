"""The builder page's apps: a palette group per app with its icon and its
actions, and what the inspector needs of each app."""

from __future__ import annotations

import re

from accounts.workspaces.models import Membership, Workspace
from tests.factories import make_credential
from tests.flows.test_views import json_script


def test_the_palette_groups_every_app_with_its_icon_and_actions(
    alice_client, alice_flow
):
    html = alice_client.get(f"/flows/{alice_flow.id}/").content.decode()

    apps = re.search(r'<ul class="palette-apps".*?</ul>\s*<p', html, re.S).group(0)
    assert '<img class="app-icon" src="/static/img/apps/slack.svg"' in apps
    assert re.search(
        r'data-app-action="slack"\s+data-operation="chat.postMessage"', apps
    )
    assert ">Send a message to a channel</button>" in apps
    kinds = {kind["type"]: kind for kind in json_script(html, "node-kinds")}
    github = kinds["app_action"]["apps"]["github"]
    assert github["icon"] == "/static/img/apps/github.svg"
    assert github["kinds"] == ["bearer", "oauth2"]
    assert {
        "id": "issues/create",
        "summary": "Create an issue",
        "method": "POST",
        "path": "/repos/{owner}/{repo}/issues",
        "kinds": ["bearer", "oauth2"],
    } in github["operations"]


def preselected(client, flow) -> dict[str, str]:
    """Each app's palette group's `data-credential`, by app slug."""
    html = client.get(f"/flows/{flow.id}/").content.decode()
    return dict(re.findall(r'data-app="([^"]+)" data-credential="([^"]*)"', html))


def test_a_new_action_starts_with_the_one_credential_named_for_its_app(
    alice_client, alice, alice_flow
):
    github = make_credential(alice, name="github-token", kind="bearer")
    make_credential(alice, name="Slack_bot", kind="bearer")
    make_credential(alice, name="slack_admin", kind="bearer")  # two fit: no guess
    make_credential(alice, name="jira", kind="bearer")  # Jira takes basic only
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="owner")
    make_credential(alice, name="stripe", kind="bearer", workspace=team)

    chosen = preselected(alice_client, alice_flow)

    assert chosen["github"] == str(github.pk)
    assert chosen["slack"] == ""
    assert chosen["jira"] == ""
    assert chosen["stripe"] == ""  # another workspace's
    assert chosen["notion"] == ""
