"""The node view (issue 38, item 3): a node's input, settings and output side
by side, fields dragged from the input into a setting, node names in
references and completions, and a code editor that takes the whole width."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.pages import canvas_node, open_builder, save_screenshot
from tests.e2e.test_papercuts import spaced
from tests.factories import FlowFactory
from tests.flows.graphs import code, node, trigger


def flow_of_two_steps(alice):
    return FlowFactory(
        created_by=alice,
        name="Greeting",
        **spaced(
            trigger(),
            node("shape", "transform", values={"greeting": "Hello"}),
            node("reply", "transform", values={"text": "Dear "}),
        ),
    )


def run_once(page):
    page.get_by_role("tab", name="Run").click()
    page.locator("#run-input").fill('{"name": "Ada", "city": "Paris"}')
    page.get_by_role("button", name="Run flow").click()
    expect(page.locator("#run-result").get_by_test_id("run-status")).to_have_text(
        "succeeded"
    )


def test_the_node_view_shows_input_settings_and_output_and_takes_dragged_fields(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    open_builder(page, live_url, flow_of_two_steps(alice))
    run_once(page)
    canvas_node(page, "Reply").dblclick()

    view = page.get_by_role("dialog", name="Reply")
    expect(view).to_be_visible()
    inputs = view.get_by_role("region", name="Input")
    output = view.get_by_role("region", name="Output")
    expect(inputs.locator("[data-path='input.city']")).to_contain_text("city")
    shape = inputs.locator("[data-path='results.shape']")
    expect(shape).to_contain_text("Shape")
    expect(shape.locator(".tree-caption")).to_have_text("shape")
    expect(output).to_contain_text("From the last run.")
    expect(output.locator("[data-path='results.reply.text']")).to_be_visible()
    save_screenshot(page, "builder-node-view")
    page.emulate_media(color_scheme="dark")
    save_screenshot(page, "builder-node-view-dark")
    page.emulate_media(color_scheme="light")

    value = view.get_by_label("Value")
    value.fill("Dear !")
    inputs.locator("[data-path='input.name']").drag_to(
        value, target_position={"x": value.bounding_box()["width"] - 4, "y": 10}
    )
    expect(value).to_have_value("Dear !{{ input.name }}")
    value.fill("Dear !")
    inputs.locator("[data-path='results.shape.greeting']").drag_to(
        value, target_position={"x": 4, "y": 10}
    )
    expect(value).to_have_value("{{ results.shape.greeting }}Dear !")
    expect(view.locator(".template-refs")).to_have_text("Refers to Shape (shape)")

    view.get_by_role("button", name="Close").click()
    expect(view).to_be_hidden()
    expect(page.locator("#pane-inspector #inspector")).to_be_visible()
    assert page_errors == []


def test_results_completion_names_the_nodes_and_the_editor_widens(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    open_builder(page, live_url, flow_of_two_steps(alice))
    run_once(page)
    canvas_node(page, "Reply").click()
    page.get_by_role("button", name="Open node view").click()
    view = page.get_by_role("dialog", name="Reply")

    value = view.get_by_label("Value")
    value.fill("")
    value.press_sequentially("{{ results.")
    options = page.get_by_role("listbox", name="Fields of the last run")
    option = options.get_by_role("option").filter(has_text="Shape")
    expect(option).to_have_text("Shapeshape")
    expect(option.locator(".option-id")).to_have_text("shape")
    option.click()
    expect(value).to_have_value("{{ results.shape")

    view.get_by_role("button", name="Wide editor").click()
    expect(view.get_by_role("button", name="Wide editor")).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(view.get_by_role("region", name="Input")).to_be_hidden()
    settings = view.locator("#node-view-settings").bounding_box()
    assert settings["width"] > 1200
    page.keyboard.press("Escape")
    expect(view).to_be_hidden()
    assert page_errors == []


def test_a_field_dropped_on_the_code_editor_is_the_bare_path(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    flow = FlowFactory(
        created_by=alice,
        name="Coded",
        **spaced(trigger(), code("say", "return 1;")),
    )
    open_builder(page, live_url, flow)
    run_once(page)
    canvas_node(page, "Say").dblclick()
    view = page.get_by_role("dialog", name="Say")

    editor = view.get_by_test_id("code-editor")
    view.get_by_role("region", name="Input").locator(
        "[data-path='input.city']"
    ).drag_to(editor, target_position={"x": 4, "y": 8})

    expect(editor).to_contain_text("input.city")
    expect(editor).not_to_contain_text("{{")
    assert page_errors == []


def test_tab_skips_the_panels_under_the_view_and_deleting_the_node_closes_it(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    open_builder(page, live_url, flow_of_two_steps(alice))
    canvas_node(page, "Reply").dblclick()
    view = page.get_by_role("dialog", name="Reply")
    expect(view.get_by_role("region", name="Input")).to_contain_text(
        "No input yet: run the flow"
    )

    behind = "document.activeElement.closest('.left-panel, .canvas-area, .right-panel')"
    for _ in range(40):
        page.keyboard.press("Tab")
        assert page.evaluate(behind) is None, "Tab reached the panels under the view"
    view.get_by_role("button", name="Delete node").click()

    expect(view).to_be_hidden()
    expect(canvas_node(page, "Reply")).to_have_count(0)
    assert page_errors == []
