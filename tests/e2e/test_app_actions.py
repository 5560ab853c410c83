"""Apps in the builder: a GitHub issue posted to Slack, built from the palette's
app actions and their operation forms, with no HTTP written by hand."""

from __future__ import annotations

from playwright.sync_api import expect

from flows.demo import issue_to_slack_graph
from flows.graph import validate_graph
from tests.e2e.pages import canvas_node, open_builder
from tests.factories import FlowFactory, make_credential
from tests.flows.graphs import chain, trigger


def add_action(page, search: str, action: str):
    page.locator("#palette-search").fill(search)
    page.locator("#palette-apps").get_by_role("button", name=action).click()


def param(page, name: str):
    return page.locator(f'#inspector [data-param="{name}"]').locator(
        "input, select, textarea"
    )


def test_a_github_issue_goes_to_slack_through_two_app_actions(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    github = make_credential(alice, name="github", kind="bearer")
    slack = make_credential(alice, name="slack", kind="bearer")
    make_credential(alice, name="jira", kind="basic", secrets={"password": "p"})
    nodes, edges = chain(trigger())
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    open_builder(page, live_url, flow)
    canvas_node(page, "Trigger").click()

    add_action(page, "github create issue", "Create an issue")
    inspector = page.locator("#inspector")
    expect(inspector.get_by_label("Operation", exact=True)).to_have_value(
        "issues/create"
    )
    expect(inspector.locator('[data-param="title"] .required-mark')).to_be_visible()
    expect(inspector.locator('[data-param="body"] .required-mark')).to_have_count(0)
    param(page, "owner").fill("{{ input.owner }}")
    param(page, "repo").fill("hello-world")
    param(page, "title").fill("{{ input.title }}")
    credential = inspector.get_by_label("Credential")
    expect(credential.locator("option", has_text="jira")).to_have_count(0)
    credential.select_option(label="github (bearer)")
    node = canvas_node(page, "Create an issue")
    expect(node.locator("img.app-icon")).to_have_attribute(
        "src", "/static/img/apps/github.svg"
    )

    add_action(page, "slack message", "Send a message to a channel")
    param(page, "channel").fill("#issues")
    param(page, "text").fill("New issue: {{ prev.body.html_url }}")
    param(page, "unfurl_links").select_option("true")
    inspector.get_by_label("Credential").select_option(label="slack (bearer)")
    page.keyboard.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")

    flow.refresh_from_db()
    issue, message = flow.nodes[1], flow.nodes[2]
    assert (issue["type"], issue["data"]["app"]) == ("app_action", "github")
    assert issue["data"]["params"] == {
        "owner": "{{ input.owner }}",
        "repo": "hello-world",
        "body": {"title": "{{ input.title }}"},
    }
    assert issue["data"]["credential_id"] == str(github.pk)
    assert message["data"]["operation"] == "chat.postMessage"
    assert message["data"]["params"] == {
        "body": {
            "channel": "#issues",
            "text": "New issue: {{ prev.body.html_url }}",
            "unfurl_links": True,
        }
    }
    assert message["data"]["credential_id"] == str(slack.pk)
    assert [(e["source"], e["target"]) for e in flow.edges] == [
        ("trigger", issue["id"]),
        (issue["id"], message["id"]),
    ]
    assert validate_graph(flow.nodes, flow.edges).as_details() == {}
    assert page_errors == []


def test_the_operation_search_narrows_the_list_and_enums_are_selects(
    alice_page, live_url, alice
):
    page = alice_page
    nodes, edges = chain(trigger())
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    open_builder(page, live_url, flow)
    canvas_node(page, "Trigger").click()

    add_action(page, "github list", "List repository issues")
    inspector = page.locator("#inspector")
    state = param(page, "state")
    expect(state.locator("option")).to_have_text(
        ["(default: open)", "open", "closed", "all"]
    )
    inspector.locator("#app-action-search").fill("comment")
    visible = inspector.locator("#app-action-operation option:not([hidden])")
    expect(visible).to_have_text(["Pick an operation", "Comment on an issue"])


def test_the_demo_app_flow_asks_for_its_two_credentials_when_opened(
    alice_page, live_url, alice
):
    page = alice_page
    make_credential(alice, name="github", kind="bearer")
    nodes, edges = issue_to_slack_graph()
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    open_builder(page, live_url, flow)

    expect(page.locator(".node-needs")).to_have_text(
        ["Pick a GitHub credential", "Pick a Slack credential"]
    )
    canvas_node(page, "Open the issue").click()
    page.locator("#inspector").get_by_label("Credential").select_option(
        label="github (bearer)"
    )
    expect(page.locator(".node-needs")).to_have_text(["Pick a Slack credential"])
