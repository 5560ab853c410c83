"""Form pages and approvals with input, in Chromium through the production
server: a visitor fills a form (an error first, then a file), an approver
reads the context and answers with values and a comment, and the builder
edits a form's fields and shows its public URL."""

from __future__ import annotations

from playwright.sync_api import expect

from flows.engine import run_flow, waits
from flows.files import open_bytes
from flows.models import FlowRun
from tests.e2e.accessibility import severe_violations
from tests.e2e.pages import canvas_node, open_builder
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, node, trigger

FIELDS = [
    {"name": "name", "label": "Your name", "kind": "text", "required": True},
    {"name": "email", "label": "E-mail", "kind": "email", "required": True},
    {"name": "team", "label": "Team", "kind": "select", "options": ["red", "blue"]},
    {"name": "cv", "label": "CV", "kind": "file"},
]


def contact_flow(alice):
    form = node(
        "form",
        "form",
        slug="contact",
        title="Contact us",
        fields=FIELDS,
        thank_you="Thanks, **we will write back**.",
    )
    nodes, edges = chain(form, code("echo", "return input;"))
    nodes[1]["position"] = {"x": 400, "y": 0}
    return FlowFactory(created_by=alice, name="Contact", nodes=nodes, edges=edges)


def test_a_visitor_fixes_an_error_and_sends_the_form_with_a_file(
    page, live_url, alice, page_errors, dialogs, tmp_path
):
    contact_flow(alice)
    page.goto(f"{live_url}/f/contact")
    expect(page.get_by_role("heading", name="Contact us")).to_be_visible()
    page.get_by_label("Your name").fill("<script>alert(1)</script>")
    page.get_by_label("E-mail").fill("not an address")
    page.get_by_role("button", name="Send").click()

    error = page.locator("#field-email-error")
    expect(error).to_contain_text("Enter an e-mail address")
    expect(page.get_by_label("E-mail")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_label("Your name")).to_have_value("<script>alert(1)</script>")
    assert not FlowRun.objects.exists()
    assert severe_violations(page) == []

    cv = tmp_path / "cv.txt"
    cv.write_bytes(b"my cv")
    page.get_by_label("E-mail").fill("ada@example.com")
    page.get_by_label("Team").select_option("blue")
    page.get_by_label("CV").set_input_files(str(cv))
    page.get_by_role("button", name="Send").click()

    expect(page.get_by_role("status")).to_contain_text("we will write back")
    run = FlowRun.objects.get()
    assert run.trigger == "form" and run.status == "succeeded"
    assert run.input["email"] == "ada@example.com" and run.input["team"] == "blue"
    assert open_bytes(run.input["cv"], workspace_id=run.flow.workspace_id) == b"my cv"
    assert dialogs == [] and page_errors == []


def test_an_approver_reads_the_context_and_answers_with_input(
    page, live_url, alice, login, page_errors
):
    wait = node(
        "approve",
        "wait",
        mode="callback",
        timeout_s=3600,
        ask_comment=True,
        context=[{"name": "Amount", "value": "**{{ input.amount }} EUR**"}],
        fields=[
            {"name": "refund", "label": "Refund", "kind": "number", "required": True}
        ],
    )
    nodes, edges = chain(trigger(), wait)
    nodes[1]["name"] = "Approve the refund"
    flow = FlowFactory(created_by=alice, name="Refunds", nodes=nodes, edges=edges)
    run = run_flow(flow, {"amount": 40}, FlowRun.Trigger.MANUAL)
    login(alice)

    page.goto(live_url + waits.resume_path(run.pk, "approve"))
    expect(page.locator(".context dd strong")).to_have_text("40 EUR")
    expect(page.locator(".local-time")).to_contain_text("your time:")
    page.get_by_role("button", name="Approve").click()
    expect(page.locator("#field-refund-error")).to_have_text("This field is required.")
    assert severe_violations(page) == []

    page.get_by_label("Refund").fill("25")
    page.get_by_label("Comment").fill("Half, as agreed")
    page.get_by_role("button", name="Reject").click()

    expect(page.get_by_role("status")).to_contain_text("rejected")
    resumed = FlowRun.objects.get(pk=run.pk).wait_state["resumed"]
    assert resumed["values"] == {"refund": 25}
    assert resumed["comment"] == "Half, as agreed"
    assert resumed["decided_by"]["username"] == "alice"
    assert page_errors == []


def test_the_builder_edits_a_forms_fields_and_shows_its_url(
    alice_page, live_url, alice
):
    page = alice_page
    flow = contact_flow(alice)
    open_builder(page, live_url, flow)
    canvas_node(page, "Form").click()

    expect(page.locator("#inspector .form-url")).to_have_text(f"{live_url}/f/contact")
    rows = page.locator("#inspector .form-field-row")
    expect(rows).to_have_count(4)
    page.get_by_role("button", name="Add field").click()
    rows.nth(4).get_by_label("Field name").fill("topics")
    rows.nth(4).get_by_label("Field kind").select_option("multi_select")
    rows.nth(4).get_by_label("Field options").fill("billing, bugs")
    page.keyboard.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")

    flow.refresh_from_db()
    assert flow.nodes[0]["data"]["fields"][4] == {
        "name": "topics",
        "label": "",
        "kind": "multi_select",
        "required": False,
        "options": ["billing", "bugs"],
    }
    page.goto(f"{live_url}/f/contact")
    expect(page.get_by_role("checkbox", name="bugs")).to_be_visible()
