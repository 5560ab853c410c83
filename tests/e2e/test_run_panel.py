"""Running a flow from the builder's Run panel and reading what happened."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from flows.models import FlowRun
from tests.e2e.pages import canvas_node, open_builder, save_screenshot
from tests.factories import FlowFactory
from tests.flows.graphs import code, edge, node, trigger

GREET = "console.log('greeting ' + input.name); return {greeting: 'hi ' + input.name};"


def branching_flow(owner):
    """trigger -> greet -> is_vip? (true: vip transform, false: regular code)."""
    nodes = [
        trigger(),
        code("greet", GREET),
        node("is_vip", "condition", expression="input.vip === true"),
        node("vip", "transform", values={"label": "VIP {{ input.name }}"}),
        code("regular", "return {label: 'regular ' + prev.greeting};"),
    ]
    positions = [(40, 60), (260, 60), (480, 60), (700, 0), (700, 160)]
    for item, (x, y) in zip(nodes, positions, strict=True):
        item["position"] = {"x": x, "y": y}
    edges = [
        edge("trigger", "greet"),
        edge("greet", "is_vip"),
        edge("is_vip", "vip", "true"),
        edge("is_vip", "regular", "false"),
    ]
    return FlowFactory(created_by=owner, name="Greeter", nodes=nodes, edges=edges)


def test_running_from_the_panel_colours_nodes_and_shows_outputs(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    flow = branching_flow(alice)
    open_builder(page, live_url, flow)

    page.get_by_role("tab", name="Run").click()
    page.get_by_label("Input (JSON object)").fill('{"name": "Ada", "vip": false}')
    page.get_by_role("button", name="Run flow").click()

    result = page.locator("#run-result")
    expect(result.get_by_test_id("run-status")).to_have_text("succeeded")
    expect(result.locator(".run-duration")).to_have_text(
        re.compile(r"took [\d.]+ (ms|s)")
    )
    expect(page.locator("#run-progress")).to_be_hidden()
    expect(canvas_node(page, "Greet")).to_have_class(re.compile("run-succeeded"))
    expect(canvas_node(page, "Regular")).to_have_class(re.compile("run-succeeded"))
    expect(canvas_node(page, "Vip")).to_have_class(re.compile("run-skipped"))
    greet = result.locator('.step[data-node-id="greet"]')
    expect(greet.locator(".step-output")).to_contain_text('"greeting": "hi Ada"')
    expect(greet.locator(".step-logs")).to_have_text("greeting Ada")
    regular = result.locator('.step[data-node-id="regular"]')
    expect(regular.locator(".step-output")).to_contain_text('"label": "regular hi Ada"')
    save_screenshot(page, "builder-run")

    run = FlowRun.objects.get(flow=flow)
    assert run.trigger == "manual"
    assert run.input == {"name": "Ada", "vip": False}
    assert page_errors == []


def test_a_failing_node_is_red_and_its_error_is_shown(alice_page, live_url, alice):
    page = alice_page
    nodes = [trigger(), code("boom", "throw new Error('no coffee');")]
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=[edge("trigger", "boom")])
    open_builder(page, live_url, flow)

    page.get_by_role("tab", name="Run").click()
    page.get_by_role("button", name="Run flow").click()

    result = page.locator("#run-result")
    expect(result.get_by_test_id("run-status")).to_have_text("failed")
    expect(result.locator(".run-error")).to_contain_text("Boom failed")
    expect(result.locator(".run-error")).to_contain_text("no coffee")
    expect(canvas_node(page, "Boom")).to_have_class(re.compile("run-failed"))
    expect(canvas_node(page, "Trigger")).to_have_class(re.compile("run-succeeded"))


def test_input_that_is_not_a_json_object_is_refused_next_to_the_editor(
    alice_page, live_url, alice
):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)

    page.get_by_role("tab", name="Run").click()
    page.get_by_label("Input (JSON object)").fill("[1, 2]")
    page.get_by_role("button", name="Run flow").click()

    expect(page.locator("#run-input-error")).to_have_text(
        'The input must be a JSON object, like {"name": "Ada"}.'
    )
    assert not FlowRun.objects.filter(flow=flow).exists()


def test_unsaved_changes_are_saved_before_the_run(alice_page, live_url, alice):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)
    canvas_node(page, "Greet").click()
    page.get_by_label("JavaScript").fill("return {answer: 42};")

    page.get_by_role("tab", name="Run").click()
    page.get_by_role("button", name="Run flow").click()

    step = page.locator('#run-result .step[data-node-id="greet"]')
    expect(step.locator(".step-output")).to_contain_text('"answer": 42')
    expect(page.locator("#save-state")).to_have_text("Saved")
    flow.refresh_from_db()
    assert flow.nodes[1]["data"]["code"] == "return {answer: 42};"


def test_a_progress_indicator_shows_while_the_flow_runs(alice_page, live_url, alice):
    page = alice_page
    nodes = [trigger(), node("wait", "delay", ms=1000)]
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=[edge("trigger", "wait")])
    open_builder(page, live_url, flow)

    page.get_by_role("tab", name="Run").click()
    page.get_by_role("button", name="Run flow").click()

    expect(page.locator("#run-progress")).to_be_visible()
    expect(page.locator("#run-progress")).to_contain_text("Running…")
    expect(page.get_by_role("button", name="Run flow")).to_be_disabled()
    expect(page.locator("#run-result").get_by_test_id("run-status")).to_have_text(
        "succeeded"
    )
    expect(page.locator("#run-progress")).to_be_hidden()
    expect(page.get_by_role("button", name="Run flow")).to_be_enabled()
    expect(canvas_node(page, "Wait")).to_have_class(re.compile("run-succeeded"))


def test_a_response_node_shows_the_webhook_response(alice_page, live_url, alice):
    page = alice_page
    reply = node("reply", "response", status=201, body={"hello": "{{ input.name }}"})
    flow = FlowFactory(
        created_by=alice, nodes=[trigger(), reply], edges=[edge("trigger", "reply")]
    )
    open_builder(page, live_url, flow)

    page.get_by_role("tab", name="Run").click()
    page.get_by_label("Input (JSON object)").fill('{"name": "Ada"}')
    page.get_by_role("button", name="Run flow").click()

    response = page.locator("#run-result .run-response")
    expect(response).to_contain_text("Webhook response · HTTP 201")
    expect(response).to_contain_text('"hello": "Ada"')
