"""Issue 37's measure a user feels: from an empty workspace to a flow that
posts a GitHub issue to a Slack channel, in the browser, with no HTTP written
by hand. A new user makes the GitHub and Slack tokens on the Credentials page,
builds webhook (GitHub's `issues` event) → Slack "Send a message to a
channel" → GitHub "Comment on an issue" from the palette's app actions, saves,
and GitHub's event is sent to the webhook URL. Both apps are Stoplight Prism
serving the vendored documents (tests/flows/app_actions/prism.py): a path,
body or auth the document does not allow is a 4xx there and fails the run.

The action count is asserted (docs/builder.md, "Measured"); the scripted
user's seconds are printed and recorded there, not asserted."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect

from flows.models import Credential, Flow, FlowRun
from tests.e2e.walk import Walk
from tests.flows.app_actions.prism import Prisms

BOUND = 25  # docs/builder.md, "Measured"

# The parts of GitHub's `issues` webhook payload (action "opened") the flow reads.
ISSUE_OPENED = {
    "action": "opened",
    "issue": {
        "number": 42,
        "title": "The export button does nothing",
        "html_url": "https://github.com/octocat/hello-world/issues/42",
        "user": {"login": "ada"},
    },
    "repository": {
        "name": "hello-world",
        "full_name": "octocat/hello-world",
        "owner": {"login": "octocat"},
    },
}


@pytest.fixture(scope="module")
def prisms():
    servers = Prisms()
    yield servers
    servers.stop()


def tokens() -> dict[str, str]:
    return {
        credential.name: str(credential.pk) for credential in Credential.objects.all()
    }


def param(page, name: str):
    return page.locator(f'#inspector [data-param="{name}"]').locator("input")


def test_a_new_user_sends_github_issues_to_slack_from_an_empty_workspace(
    alice_page, live_url, alice, prisms, allow_loopback, page_errors
):
    slack_server, github_server = prisms.url("slack"), prisms.url("github")
    page = alice_page
    page.goto(f"{live_url}/")
    expect(page.locator("#flow-table")).to_have_count(0)  # nothing yet
    walk = Walk(page)
    inspector = page.locator("#inspector")

    walk.click(page.get_by_role("link", name="Credentials"))
    for name, token in (("github", "ghp_walk"), ("slack", "xoxb-walk")):
        walk.click(page.get_by_role("button", name="New credential"))
        walk.fill(page.get_by_label("Name", exact=True), name)
        walk.fill(page.get_by_label("Token", exact=True), token)
        walk.click(page.get_by_role("button", name="Save"))
        expect(page.locator("tr.credential-row", has_text=name)).to_be_visible()
    walk.click(page.get_by_role("link", name="Flows"))

    walk.fill(page.get_by_label("New flow name"), "Issues to Slack")
    walk.press("Enter")
    page.wait_for_selector("body[data-builder-ready]")
    walk.click(page.locator("#palette").get_by_role("button", name="Webhook"))

    walk.fill(page.locator("#palette-search"), "slack message")
    walk.press("Enter")
    walk.fill(param(page, "channel"), "#issues")
    walk.fill(
        param(page, "text"),
        "New issue #{{ input.issue.number }}: {{ input.issue.title }} "
        "{{ input.issue.html_url }}",
    )
    # The one credential named for Slack is chosen already.
    expect(inspector.get_by_label("Credential")).to_have_value(tokens()["slack"])
    # Standing in for slack.com: not the user's work, not counted.
    inspector.get_by_label("Server URL").fill(slack_server)

    walk.fill(page.locator("#palette-search"), "github comment")
    walk.press("Enter")
    walk.fill(param(page, "owner"), "{{ input.repository.owner.login }}")
    walk.fill(param(page, "repo"), "{{ input.repository.name }}")
    walk.fill(param(page, "issue_number"), "{{ input.issue.number }}")
    walk.fill(param(page, "body"), "Sent to Slack: {{ prev.body.ts }}")
    expect(inspector.get_by_label("Credential")).to_have_value(tokens()["github"])
    inspector.get_by_label("Server URL").fill(github_server)  # api.github.com

    walk.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")
    url = page.locator("#webhook-url").inner_text()
    seconds = walk.stop()

    answer = httpx.post(
        url, json=ISSUE_OPENED, headers={"X-GitHub-Event": "issues"}, timeout=30
    )

    assert answer.status_code == 200, answer.text
    run = FlowRun.objects.get(flow=Flow.objects.get(name="Issues to Slack"))
    assert run.status == "succeeded", run.error
    flow = run.flow
    slack, github = (
        next(node for node in flow.nodes if node["data"].get("app") == app)
        for app in ("slack", "github")
    )
    assert slack["data"]["params"] == {
        "body": {
            "channel": "#issues",
            "text": "New issue #{{ input.issue.number }}: {{ input.issue.title }} "
            "{{ input.issue.html_url }}",
        }
    }
    told, commented = run.results[slack["id"]], run.results[github["id"]]
    assert told["status"] == 200 and told["body"]["ok"] is True  # Prism: no 422
    assert commented["status"] == 201
    assert slack["data"]["credential_id"] == tokens()["slack"]
    assert github["data"]["credential_id"] == tokens()["github"]
    assert [(e["source"], e["target"]) for e in flow.edges] == [
        (flow.nodes[0]["id"], slack["id"]),
        (slack["id"], github["id"]),
    ]
    print(f"walk: {walk.actions} actions, {seconds} s: {walk.log}")
    assert walk.actions <= BOUND, walk.log
    assert page_errors == []
