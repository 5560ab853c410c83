"""User-supplied text is shown as text: node names, run outputs and logs."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.pages import canvas_node, open_builder
from tests.factories import FlowFactory
from tests.flows.graphs import code, edge, trigger

ATTACK = "<img src=x onerror=alert('xss')>"


def test_a_script_in_a_node_name_is_shown_as_text(alice_page, live_url, alice, dialogs):
    page = alice_page
    nodes = [trigger(), code("greet", "return 1;")]
    nodes[1]["name"] = ATTACK
    flow = FlowFactory(created_by=alice, name=ATTACK, nodes=nodes, edges=[])
    open_builder(page, live_url, flow)

    expect(canvas_node(page, ATTACK)).to_be_visible()
    expect(page.locator(".drawflow-node img")).to_have_count(0)
    canvas_node(page, ATTACK).click()
    expect(page.get_by_label("Node name")).to_have_value(ATTACK)

    page.get_by_label("Node name").fill("<script>alert(1)</script>")
    expect(canvas_node(page, "<script>alert(1)</script>")).to_be_visible()
    page.keyboard.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")
    flow.refresh_from_db()
    assert flow.nodes[1]["name"] == "<script>alert(1)</script>"
    page.goto(f"{live_url}/")
    expect(page.locator(".flow-link")).to_have_text(ATTACK)
    assert dialogs == []


def test_a_script_in_a_run_output_and_log_is_shown_as_text(
    alice_page, live_url, alice, dialogs
):
    page = alice_page
    source = f'console.log("{ATTACK}"); return {{html: "{ATTACK}"}};'
    nodes = [trigger(), code("greet", source)]
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=[edge("trigger", "greet")])
    open_builder(page, live_url, flow)

    page.get_by_role("tab", name="Run").click()
    page.get_by_role("button", name="Run flow").click()

    step = page.locator('#run-result .step[data-node-id="greet"]')
    expect(step.locator(".step-output")).to_contain_text(ATTACK)
    expect(step.locator(".step-logs")).to_have_text(ATTACK)
    expect(page.locator("#run-result img")).to_have_count(0)

    page.locator("#run-result").get_by_role("link", name="Open run page").click()
    greet_step = page.locator(".timeline-step").nth(1)
    expect(greet_step.locator(".step-output")).to_contain_text(ATTACK)
    expect(greet_step.locator(".step-logs")).to_contain_text(ATTACK)
    expect(page.locator(".timeline img")).to_have_count(0)
    assert dialogs == []
