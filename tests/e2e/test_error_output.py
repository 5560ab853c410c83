"""The inspector's Error output: a red port whose connection carries a failed
node's error to another node, so the run goes on."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.pages import canvas_node, connect, open_builder
from tests.factories import FlowFactory
from tests.flows.graphs import code, edge, trigger


def risky_flow(owner):
    nodes = [
        trigger(),
        code("risky", "throw new Error('bad data');"),
        code("rescue", "return {caught: prev.code};"),
    ]
    for item, (x, y) in zip(nodes, ((40, 100), (300, 100), (560, 240)), strict=True):
        item["position"] = {"x": x, "y": y}
    return FlowFactory(
        created_by=owner, name="Risky", nodes=nodes, edges=[edge("trigger", "risky")]
    )


def test_an_error_port_catches_the_failure_and_the_run_goes_on(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    flow = risky_flow(alice)
    open_builder(page, live_url, flow)
    risky, rescue = canvas_node(page, "Risky"), canvas_node(page, "Rescue")
    risky.click()

    page.get_by_role("checkbox", name="Error output").check()

    expect(risky).to_have_class(re.compile("with-error-output"))
    expect(risky.locator(".outputs .output")).to_have_count(2)
    connect(page, risky, rescue, output="output_2")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#save-state")).to_have_text("Saved")
    flow.refresh_from_db()
    assert flow.nodes[1]["error_output"] is True
    assert {"source": "risky", "target": "rescue", "sourceHandle": "error"}.items() <= (
        flow.edges[1].items()
    )

    page.get_by_role("tab", name="Run").click()
    page.get_by_role("button", name="Run flow").click()
    result = page.locator("#run-result")
    expect(result.get_by_test_id("run-status")).to_have_text("succeeded")
    expect(result.locator('.step[data-node-id="risky"]')).to_contain_text("failed")
    expect(result.locator('.step[data-node-id="rescue"] .step-output')).to_contain_text(
        '"caught": "code_error"'
    )
    assert page_errors == []


def test_turning_the_error_output_off_removes_its_port_and_connection(
    alice_page, live_url, alice
):
    page = alice_page
    flow = risky_flow(alice)
    flow.nodes[1]["error_output"] = True
    flow.edges.append(edge("risky", "rescue", "error"))
    flow.save()
    open_builder(page, live_url, flow)
    risky = canvas_node(page, "Risky")
    expect(risky.locator(".outputs .output")).to_have_count(2)
    risky.click()

    page.get_by_role("checkbox", name="Error output").uncheck()
    page.get_by_role("button", name="Save").click()

    expect(page.locator("#save-state")).to_have_text("Saved")
    expect(risky.locator(".outputs .output")).to_have_count(1)
    flow.refresh_from_db()
    assert "error_output" not in flow.nodes[1]
    assert [e["target"] for e in flow.edges] == ["risky"]
