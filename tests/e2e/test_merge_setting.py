"""The inspector's "Runs when" setting: a node fed by both branches of a
condition runs when set to `any`, and the setting survives save and reload."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.pages import canvas_node, open_builder
from tests.factories import FlowFactory
from tests.flows.graphs import code, edge, node, trigger


def branches_into_merge(owner):
    nodes = [
        trigger(),
        node("check", "condition", expression="input.n > 1"),
        code("yes", "return {said: 'big'};"),
        code("no", "return {said: 'small'};"),
        code("merge", "return {merged: prev.said};"),
    ]
    spots = [(40, 120), (260, 120), (480, 40), (480, 220), (700, 120)]
    for item, (x, y) in zip(nodes, spots, strict=True):
        item["position"] = {"x": x, "y": y}
    edges = [
        edge("trigger", "check"),
        edge("check", "yes", "true"),
        edge("check", "no", "false"),
        edge("yes", "merge"),
        edge("no", "merge"),
    ]
    return FlowFactory(created_by=owner, name="Merge", nodes=nodes, edges=edges)


def test_runs_when_any_merges_the_branches_of_a_condition(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    flow = branches_into_merge(alice)
    open_builder(page, live_url, flow)
    canvas_node(page, "Merge").click()
    runs_when = page.get_by_label("Runs when")
    expect(runs_when).to_have_value("all")

    runs_when.select_option("any")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#save-state")).to_have_text("Saved")

    flow.refresh_from_db()
    assert next(n for n in flow.nodes if n["id"] == "merge")["wait"] == "any"
    page.get_by_role("tab", name="Run").click()
    page.locator("#run-input").fill('{"n": 0}')
    page.get_by_role("button", name="Run flow").click()
    result = page.locator("#run-result")
    expect(result.get_by_test_id("run-status")).to_have_text("succeeded")
    expect(result.locator('.step[data-node-id="merge"] .step-output')).to_contain_text(
        '"merged": "small"'
    )

    page.reload()
    page.wait_for_selector("body[data-builder-ready]")
    canvas_node(page, "Merge").click()
    expect(page.get_by_label("Runs when")).to_have_value("any")
    assert page_errors == []
