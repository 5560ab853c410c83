"""The palette and the inspector's per-kind forms."""

from __future__ import annotations

from playwright.sync_api import expect

from flows.nodes import NODE_KINDS
from tests.e2e.pages import canvas_node, open_builder
from tests.factories import AgentFactory, FlowFactory


def test_a_kind_dragged_from_the_palette_lands_where_it_is_dropped(
    alice_page, live_url, alice
):
    page = alice_page
    flow = FlowFactory(created_by=alice, nodes=[], edges=[])
    open_builder(page, live_url, flow)

    page.drag_and_drop(
        '#palette [data-kind="delay"]',
        "#drawflow",
        target_position={"x": 400, "y": 300},
    )

    delay = canvas_node(page, "Delay")
    expect(delay).to_be_visible()
    box = delay.bounding_box()
    canvas = page.locator("#drawflow").bounding_box()
    assert abs(box["x"] - (canvas["x"] + 400 - 90)) < 3
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#save-state")).to_have_text("Saved")
    flow.refresh_from_db()
    assert flow.nodes[0]["type"] == "delay"
    assert flow.nodes[0]["data"] == {"ms": 1000}


def test_a_transform_is_edited_as_key_value_rows(alice_page, live_url, alice):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)

    canvas_node(page, "Greet").click()
    page.locator("#palette").get_by_role("button", name="Transform").click()
    rows = page.locator("#inspector .kv-row")
    expect(rows).to_have_count(1)
    rows.first.get_by_label("Value").fill("Hello {{ input.name }}!")
    page.get_by_role("button", name="Add row").click()
    rows.nth(1).get_by_label("Key").fill("city")
    rows.nth(1).get_by_label("Value").fill("{{ input.address.city }}")
    page.keyboard.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")

    flow.refresh_from_db()
    transform = flow.nodes[2]
    assert transform["type"] == "transform"
    assert transform["data"] == {
        "values": {
            "greeting": "Hello {{ input.name }}!",
            "city": "{{ input.address.city }}",
        }
    }


def test_an_agent_node_picks_its_agent_from_a_list(alice_page, live_url, alice):
    page = alice_page
    agent = AgentFactory(name="Echo")
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)

    page.locator("#palette").get_by_role("button", name="Agent").click()
    page.get_by_label("Agent", exact=True).select_option(label="Echo (echo:demo)")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#save-state")).to_have_text("Saved")

    flow.refresh_from_db()
    assert flow.nodes[2]["data"]["agent_id"] == str(agent.id)


def test_a_response_status_takes_a_number_or_a_template(alice_page, live_url, alice):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)

    canvas_node(page, "Greet").click()
    page.locator("#palette").get_by_role("button", name="Response").click()
    status = page.locator("#inspector").get_by_label("HTTP status")
    expect(status).to_have_value("200")
    status.fill("{{ input.code }}")
    page.keyboard.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")
    flow.refresh_from_db()
    assert flow.nodes[2]["data"]["status"] == "{{ input.code }}"

    status.fill("201")
    page.keyboard.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")
    flow.refresh_from_db()
    assert flow.nodes[2]["data"]["status"] == 201


def test_clearing_the_response_status_falls_back_to_the_default(
    alice_page, live_url, alice
):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)

    canvas_node(page, "Greet").click()
    page.locator("#palette").get_by_role("button", name="Response").click()
    page.locator("#inspector").get_by_label("HTTP status").fill("")
    page.keyboard.press("Control+s")

    expect(page.locator("#save-state")).to_have_text("Saved")
    flow.refresh_from_db()
    assert flow.nodes[2]["data"]["status"] is None


APP_DEPENDENT = ("Operation", "Parameters")


def test_each_kind_added_from_the_palette_shows_the_form_it_declares(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    flow = FlowFactory(created_by=alice, nodes=[], edges=[])
    open_builder(page, live_url, flow)

    for kind in NODE_KINDS.values():
        page.locator(f'#palette [data-kind="{kind.type}"]').click()
        inspector = page.locator("#inspector")
        expect(inspector.locator(".inspector-kind")).to_have_text(kind.label)
        labels = ["Node name"] + [field.label for field in kind.form_fields]
        if kind.type == "app_action":  # an operation's form follows the app picked
            labels = [label for label in labels if label not in APP_DEPENDENT]
        if not kind.is_trigger:  # every node with inputs merges and retries
            labels += ["Runs when", "Error output", "Attempts", "Backoff"]
            labels += ["Wait before retrying (ms)", "Retry on"]
        expect(inspector.locator(".field > .field-label")).to_have_text(labels)
    method = page.locator("#inspector").get_by_label("Method")
    # Focusing a node selects it (keyboard access); a click needs it in view,
    # and the palette's chain of 18 nodes runs far to the right.
    page.locator(".drawflow-node.kind-http_request").focus()
    expect(method.locator("option")).to_have_text(
        list(NODE_KINDS["http_request"].form_fields[0].options)
    )
    page.keyboard.press("Control+s")
    expect(page.locator("#banner")).to_contain_text("Agent")  # no agent chosen yet

    flow.refresh_from_db()
    assert flow.nodes == []
    assert page_errors == []
