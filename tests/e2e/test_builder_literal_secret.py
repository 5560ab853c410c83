"""The builder warns when a secret is typed where a credential belongs
(issue 27 item 17): the save goes through, the banner says where."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.pages import canvas_node, open_builder
from tests.factories import FlowFactory

KEY = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t"


def test_a_key_typed_into_code_saves_with_a_warning(alice_page, live_url, alice):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)

    canvas_node(page, "Greet").click()
    page.get_by_label("JavaScript").fill(f'return {{ key: "{KEY}" }};')
    page.get_by_role("button", name="Save").click()

    expect(page.locator("#save-state")).to_have_text("Saved")
    banner = page.locator("#banner")
    expect(banner).to_contain_text("Saved, but check:")
    expect(banner).to_contain_text("has a secret typed into data.code")
    expect(banner).to_contain_text("{{ secrets.NAME }}")
