"""Chromium under the Content-Security-Policy: every page still works, and a
script injected into a page (inline or as an event handler) does not run."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.factories import (
    AgentFactory,
    FlowFactory,
    FlowRunFactory,
    webhook_code_graph,
)
from tests.flows.graphs import chain, code, trigger

RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__violations.push(event.violatedDirective + " " + event.blockedURI);
});
"""


@pytest.fixture
def csp_page(alice_page, alice, page_errors, dialogs):
    """alice's page, recording CSP violations and console errors."""
    alice.is_staff = alice.is_superuser = True
    alice.save()
    alice_page.add_init_script(RECORD_VIOLATIONS)
    alice_page.console_errors = []
    alice_page.on(
        "console",
        lambda message: (
            message.type == "error" and alice_page.console_errors.append(message.text)
        ),
    )
    alice_page.page_errors, alice_page.dialogs = page_errors, dialogs
    return alice_page


def assert_clean(page):
    assert page.evaluate("window.__violations") == []
    assert not [e for e in page.console_errors if "Content Security Policy" in e]
    assert page.page_errors == []


def test_every_page_works_under_the_policy(csp_page, live_url, alice):
    nodes, edges = webhook_code_graph()
    flow = FlowFactory(created_by=alice, name="Greeter", nodes=nodes, edges=edges)
    run = FlowRunFactory(flow=flow, status="succeeded")
    agent = AgentFactory(name="Echo", model="echo:demo")
    page = csp_page

    page.goto(f"{live_url}/")
    expect(page.locator("tr.flow-row", has_text="Greeter")).to_be_visible()
    assert_clean(page)

    page.goto(f"{live_url}/flows/{flow.id}/")
    page.wait_for_selector("body[data-builder-ready]")
    expect(page.locator(".drawflow-node")).to_have_count(len(nodes))
    assert_clean(page)

    page.goto(f"{live_url}/runs/{run.id}/")
    expect(page.locator("main")).to_contain_text("succeeded", ignore_case=True)
    assert_clean(page)

    page.goto(f"{live_url}/agents/")
    expect(page.locator("main")).to_contain_text("Echo")
    page.goto(f"{live_url}/agents/{agent.id}/")
    page.locator("#chat-input").fill("hello there")
    page.locator("#chat-input").press("Enter")
    expect(page.locator("main")).to_contain_text("hello there")
    assert_clean(page)

    page.goto(f"{live_url}/admin/flows/flow/{flow.id}/change/")
    expect(page.locator("#flow_form")).to_be_visible()
    assert_clean(page)

    page.goto(f"{live_url}/api/docs")
    expect(page.locator(".swagger-ui .opblock").first).to_be_visible(timeout=15000)
    assert_clean(page)


def test_the_builder_runs_a_flow_under_the_policy(csp_page, live_url, alice):
    nodes, edges = chain(trigger(), code("js", "return {ok: true}"))
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    page = csp_page
    page.goto(f"{live_url}/flows/{flow.id}/")
    page.wait_for_selector("body[data-builder-ready]")

    page.get_by_role("tab", name="Run").click()
    page.get_by_role("button", name="Run flow").click()

    status = page.locator("#run-result").get_by_test_id("run-status")
    expect(status).to_have_text("succeeded")
    assert_clean(page)


def test_an_injected_inline_script_does_not_run(csp_page, live_url, alice):
    page = csp_page
    page.goto(f"{live_url}/")

    # As if an XSS slipped past escaping: an inline script and an event handler.
    page.evaluate(
        """() => {
          const script = document.createElement("script");
          script.textContent = "window.__pwned = 'inline script'";
          document.body.appendChild(script);
          document.body.insertAdjacentHTML("beforeend",
            '<img src="data:," onerror="window.__pwned = \\'onerror\\'">' +
            '<img src="/nowhere.png" onerror="window.__pwned = \\'onerror\\'">');
          const link = document.createElement("a");
          link.href = "javascript:void (window.__pwned = 'javascript: URL')";
          document.body.appendChild(link);
          link.click();
        }"""
    )
    page.wait_for_timeout(500)

    assert page.evaluate("window.__pwned") is None
    violations = page.evaluate("window.__violations")
    assert any(v.startswith("script-src") for v in violations)
    assert page.dialogs == []
