"""Issue 38 items 5 and 6: the Run tab's first input fits the flow (its last
run's input, its trigger's pin, an example from its input_schema, or {}), and
the builder states and applies the role in the flow's own workspace.

On the commit before (02aaa99) the Run tab always said {"name": "Ada"}, and a
viewer of a flow's workspace whose current workspace was their own saw "owner"
in the header, with the palette and every field editable."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from accounts.models import Membership, Workspace
from flows.models import Flow
from tests.e2e.pages import canvas_node, open_builder
from tests.factories import FlowFactory, FlowRunFactory

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer"},
        "score": {"type": "number"},
        "vip": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "plan": {"enum": ["free", "pro"]},
        "address": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}


def run_tab_input(page) -> dict:
    page.get_by_role("tab", name="Run").click()
    return json.loads(page.get_by_label("Input (JSON object)").input_value())


def test_the_run_tab_starts_from_an_example_of_the_input_schema(
    alice_page, live_url, alice
):
    flow = FlowFactory(created_by=alice, input_schema=SCHEMA)

    sample = run_tab_input(open_builder(alice_page, live_url, flow))

    assert sample == {
        "name": "text",
        "age": 0,
        "score": 0,
        "vip": False,
        "tags": [],
        "plan": "free",
        "address": {"city": "text"},
    }


def test_the_trigger_pin_comes_before_the_schema(alice_page, live_url, alice):
    flow = FlowFactory(created_by=alice, input_schema=SCHEMA)
    Flow.objects.filter(pk=flow.pk).update(pins={"trigger": {"email": "a@b.test"}})

    sample = run_tab_input(open_builder(alice_page, live_url, flow))

    assert sample == {"email": "a@b.test"}


def test_the_last_run_input_comes_first(alice_page, live_url, alice):
    flow = FlowFactory(created_by=alice, input_schema=SCHEMA)
    Flow.objects.filter(pk=flow.pk).update(pins={"trigger": {"email": "a@b.test"}})
    FlowRunFactory(flow=flow, input={"order": 1})
    FlowRunFactory(flow=flow, input={"order": 2})

    sample = run_tab_input(open_builder(alice_page, live_url, flow))

    assert sample == {"order": 2}


def test_without_runs_pins_or_schema_the_input_is_empty(alice_page, live_url, alice):
    sample = run_tab_input(
        open_builder(alice_page, live_url, FlowFactory(created_by=alice))
    )

    assert sample == {}


def test_a_viewer_sees_the_read_only_builder_whatever_workspace_is_current(
    alice_page, live_url, alice, bob, page_errors
):
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=bob, role="owner")
    Membership.objects.create(workspace=team, user=alice, role="viewer")
    flow = FlowFactory(created_by=bob, workspace=team, name="Theirs")
    page = alice_page
    page.goto(f"{live_url}/")  # alice's own workspace (she owns it) is current
    expect(page.locator("#role-badge")).to_have_text("owner")

    open_builder(page, live_url, flow)

    expect(page.locator("#role-badge")).to_have_text("viewer")
    expect(page.locator("#read-only-note")).to_contain_text("viewer")
    expect(page.get_by_role("button", name="Save")).to_have_count(0)
    expect(page.get_by_label("Search nodes")).to_be_hidden()
    expect(page.get_by_label("Flow name")).to_be_disabled()
    canvas_node(page, "Greet").click()
    expect(page.get_by_label("Node name")).to_be_disabled()
    page.keyboard.press("Delete")  # the editing keys do nothing either
    page.keyboard.press("Control+d")
    expect(page.locator(".drawflow-node")).to_have_count(2)
    assert page_errors == []
