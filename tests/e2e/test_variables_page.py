"""Workspace variables in a browser: added on the Variables page (reached from
the members page), then read by a flow's run as `vars.NAME`, with a date
formatted in the time zone another variable names."""

from __future__ import annotations

import json
import urllib.request

from playwright.sync_api import expect

from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, trigger

SOURCE = (
    "return vars.GREETING + ', ' + input.name + ' · '"
    " + dates.format(input.when, 'YYYY-MM-DD HH:mm', vars.TZ)"
)


def post_json(url: str, body: dict) -> dict:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def add_variable(page, name: str, value: str) -> None:
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_label("Value", exact=True).fill(value)
    page.get_by_role("button", name="Add variable").click()
    expect(page.locator(f'tr[data-name="{name}"]')).to_be_visible()


def test_a_variable_added_on_the_page_is_read_by_the_next_run(
    alice_page, live_url, alice, page_errors
):
    nodes, edges = chain(trigger(), code("greet", SOURCE))
    flow = FlowFactory(created_by=alice, name="Greeter", nodes=nodes, edges=edges)
    page = alice_page
    page.goto(f"{live_url}/workspaces/{flow.workspace_id}/members/")
    page.get_by_role("link", name="Variables").click()
    expect(page.locator("#variables-empty")).to_contain_text("No variables yet")

    add_variable(page, "GREETING", "Bonjour")
    add_variable(page, "TZ", "Europe/Paris")
    body = post_json(
        f"{live_url}/api/webhooks/{flow.id}",
        {"name": "Dee", "when": "2026-07-01T10:00:00Z"},
    )

    assert body["results"]["greet"] == "Bonjour, Dee · 2026-07-01 12:00"
    page.get_by_label("Value of GREETING").fill("Salut")
    page.get_by_role("button", name="Save").first.click()
    expect(page.get_by_label("Value of GREETING")).to_have_value("Salut")
    again = post_json(
        f"{live_url}/api/webhooks/{flow.id}",
        {"name": "Dee", "when": "2026-01-01T10:00:00Z"},
    )
    assert again["results"]["greet"] == "Salut, Dee · 2026-01-01 11:00"
    assert page_errors == []
