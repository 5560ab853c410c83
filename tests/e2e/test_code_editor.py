"""The code node's CodeMirror editor: highlighting, saving what is typed,
completions from the last run, the error line marked, and keyboard exit."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.pages import canvas_node, open_builder
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, trigger


def code_flow(owner, source="return {greeting: 'hi ' + input.name};"):
    nodes, edges = chain(trigger(), code("greet", source))
    return FlowFactory(created_by=owner, name="Editor", nodes=nodes, edges=edges)


def open_code(page, live_url, flow):
    open_builder(page, live_url, flow)
    canvas_node(page, "Greet").click()
    return page.get_by_test_id("code-editor")


def test_the_code_is_highlighted_and_what_is_typed_is_saved(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    flow = code_flow(alice)
    editor = open_code(page, live_url, flow)

    expect(page.locator("#inspector .cm-editor .cm-lineNumbers")).to_be_visible()
    expect(editor.locator("span").first).to_be_visible()  # highlighted tokens
    editor.fill("const n = input.items.length;\nreturn {n};")
    page.get_by_role("button", name="Save").click()

    expect(page.locator("#save-state")).to_have_text("Saved")
    flow.refresh_from_db()
    assert flow.nodes[1]["data"]["code"] == "const n = input.items.length;\nreturn {n};"
    assert page_errors == []


def test_input_fields_of_the_last_run_are_offered_as_completions(
    alice_page, live_url, alice
):
    page = alice_page
    flow = code_flow(alice)
    open_builder(page, live_url, flow)
    page.get_by_role("tab", name="Run").click()
    page.locator("#run-input").fill('{"name": "Ada", "city": "Paris"}')
    page.get_by_role("button", name="Run flow").click()
    expect(page.locator("#run-result").get_by_test_id("run-status")).to_have_text(
        "succeeded"
    )
    canvas_node(page, "Greet").click()
    editor = page.get_by_test_id("code-editor")
    editor.fill("return input.")
    editor.press("End")
    page.keyboard.type("c")

    options = page.locator(".cm-tooltip-autocomplete li")
    expect(options.first).to_contain_text("city")
    page.wait_for_timeout(200)  # CodeMirror ignores keys for 75 ms after opening
    page.keyboard.press("Enter")
    expect(editor).to_have_text("return input.city")


def test_the_line_of_the_last_runs_error_is_marked(alice_page, live_url, alice):
    page = alice_page
    flow = code_flow(alice, "const a = 1;\nconst b = 2;\nnull.boom;\nreturn a;")
    open_builder(page, live_url, flow)
    page.get_by_role("tab", name="Run").click()
    page.get_by_role("button", name="Run flow").click()
    expect(page.locator("#run-result").get_by_test_id("run-status")).to_have_text(
        "failed"
    )

    canvas_node(page, "Greet").click()

    marked = page.locator("#inspector .cm-line.cm-error-line")
    expect(marked).to_have_count(1)
    expect(marked).to_have_text("null.boom;")


def test_tab_indents_and_escape_then_tab_leaves_the_editor(alice_page, live_url, alice):
    page = alice_page
    flow = code_flow(alice, "return 1;")
    editor = open_code(page, live_url, flow)
    editor.click()
    page.keyboard.press("Control+Home")

    page.keyboard.press("Tab")
    expect(editor).to_have_text("  return 1;")
    expect(editor).to_be_focused()
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")

    expect(editor).not_to_be_focused()
