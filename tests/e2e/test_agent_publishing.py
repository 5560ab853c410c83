"""An editor publishes an agent from its page, gets the widget's snippet, and
reads what a visitor wrote on the visitors' page (Chromium, live server)."""

from __future__ import annotations

from playwright.sync_api import expect

from agents.models import Agent
from tests.agents.public.helpers import Visitor
from tests.factories import AgentFactory


def test_an_editor_publishes_an_agent_and_reads_its_visitors(
    alice_page, alice, live_url
):
    agent = AgentFactory(created_by=alice, shared=False, name="Desk")
    page = alice_page
    page.goto(f"{live_url}/agents/{agent.id}/edit/")

    page.get_by_label("Published").check()
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#agent-public_slug-error")).to_have_text(
        "A published agent needs a slug."
    )
    page.get_by_label("Public address (slug)").fill("desk")
    page.get_by_label("Sites that may embed the widget").fill(
        "https://Shop.example.com\nnot an origin"
    )
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#agent-allowed_origins-error")).to_contain_text(
        "'not an origin' is not an origin"
    )
    page.get_by_label("Sites that may embed the widget").fill(
        "https://Shop.example.com"
    )
    page.get_by_label("Messages per visitor").fill("5/min")
    page.get_by_role("button", name="Save").click()
    expect(page).to_have_url(f"{live_url}/agents/{agent.id}/")

    agent.refresh_from_db()
    assert (agent.published, agent.public_slug, agent.visitor_rate) == (
        True,
        "desk",
        "5/min",
    )
    assert agent.allowed_origins == ["https://shop.example.com"]
    page.goto(f"{live_url}/agents/{agent.id}/edit/")
    expect(page.locator("#agent-embed-code")).to_have_value(
        f'<script src="{live_url}/c/widget.js" data-agent="desk"></script>'
    )

    Visitor(Agent.objects.get(pk=agent.pk)).chat("Do you ship abroad?")
    page.get_by_role("link", name="Visitors' conversations").click()
    page.get_by_role("link", name="Do you ship abroad?").click()
    expect(page.locator(".chat-assistant")).to_have_text("Echo: Do you ship abroad?")
