"""Run files in the builder: the run panel shows a file's name, type and size
with a download link (keyboard too), and a stored page with a script is a
download in a real browser, never a page that runs on Weir's origin."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from tests.e2e.pages import open_builder
from tests.factories import FlowFactory
from tests.flows.graphs import code, edge, trigger

PAGE = (
    "<html><body><script>alert('stored xss ' + document.cookie)</script></body></html>"
)
FILE = {"$file": {"name": "page.html", "type": "text/html", "text": PAGE}}
MAKE_PAGE = f"return {{page: {json.dumps(FILE)}}};"
FACTS = f"text/html · {len(PAGE)} B"


def file_flow(owner):
    nodes = [trigger(), code("make", MAKE_PAGE)]
    nodes[0]["position"], nodes[1]["position"] = {"x": 40, "y": 60}, {"x": 300, "y": 60}
    return FlowFactory(
        created_by=owner, name="Files", nodes=nodes, edges=[edge("trigger", "make")]
    )


def run_from_the_panel(page, live_url, flow):
    open_builder(page, live_url, flow)
    page.get_by_role("tab", name="Run").click()
    page.get_by_role("button", name="Run flow").click()
    result = page.locator("#run-result")
    expect(result.get_by_test_id("run-status")).to_have_text("succeeded")
    return result.locator('.step[data-node-id="make"]')


def test_the_run_panel_shows_a_file_with_a_download_link(
    alice_page, live_url, alice, page_errors
):
    step = run_from_the_panel(alice_page, live_url, file_flow(alice))

    link = step.get_by_role("link", name=f"Download page.html ({FACTS})")
    expect(link).to_have_text("page.html")
    expect(step.locator(".step-file")).to_contain_text(FACTS)
    expect(step.locator(".step-output")).to_contain_text('"page": "[file page.html]"')
    expect(step.locator(".step-output")).not_to_contain_text("sha256")

    link.focus()
    with alice_page.expect_download() as download:
        alice_page.keyboard.press("Enter")
    assert download.value.suggested_filename == "page.html"
    with open(download.value.path(), "rb") as saved:
        assert saved.read() == PAGE.encode()
    assert page_errors == []


def test_opening_a_stored_page_downloads_it_and_runs_no_script(
    alice_page, live_url, alice, dialogs
):
    step = run_from_the_panel(alice_page, live_url, file_flow(alice))
    href = step.get_by_role("link").first.get_attribute("href")
    builder_url = alice_page.url

    # The attack: send a member straight to the file's address.
    with alice_page.expect_download() as download:
        alice_page.evaluate("(href) => { window.location.href = href; }", href)

    assert download.value.suggested_filename == "page.html"
    alice_page.wait_for_timeout(300)
    assert dialogs == []  # no script ran
    assert alice_page.url == builder_url  # and no page of ours showed the file
