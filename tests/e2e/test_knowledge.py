"""The Knowledge pages in Chromium, through the production server: a Markdown
document added, indexed by the worker, its progress shown live, then found."""

from __future__ import annotations

from playwright.sync_api import expect

from knowledge.indexing import index_now
from knowledge.models import Document
from tests.e2e.accessibility import severe_violations

GUIDE = b"""# Weir guide

## Webhooks

A webhook answers 429 when its flow is called too often.

## Knowledge

Passages are found by meaning; the badger mascot is called Sett.
"""


def test_a_markdown_document_is_added_indexed_and_searchable(
    alice_page, live_url, page_errors, tmp_path
):
    page = alice_page
    page.goto(f"{live_url}/flows/")
    page.get_by_role("link", name="Knowledge").click()
    expect(page.get_by_role("heading", name="No knowledge bases yet")).to_be_visible()
    page.get_by_label("Name").fill("Weir docs")
    page.get_by_role("button", name="Create").click()
    expect(page.get_by_role("heading", name="Weir docs")).to_be_visible()

    guide = tmp_path / "guide.md"
    guide.write_bytes(GUIDE)
    page.get_by_label("PDF, DOCX, HTML, Markdown or text").set_input_files(guide)
    page.get_by_role("button", name="Add file").click()
    row = page.locator("tr[data-document]", has_text="guide.md")
    expect(row.locator("[data-status]")).to_have_text("Queued")

    index_now(str(Document.objects.get(name="guide.md").pk))  # the worker's task

    expect(row.locator("[data-status]")).to_have_text("Ready")  # no reload
    page.get_by_label("Question").fill("what is the mascot called")
    page.get_by_role("button", name="Search").click()
    first = page.locator("#results li").first
    expect(first).to_contain_text("the badger mascot is called Sett")
    expect(first).to_contain_text("guide.md · passage")
    assert severe_violations(page) == []
    assert page_errors == []


def test_a_private_url_is_refused_beside_the_field(alice_page, live_url, alice):
    from tests.knowledge.bases import make_base

    base = make_base(alice)
    alice_page.goto(f"{live_url}/knowledge/{base.id}/")
    alice_page.get_by_label("URL (public addresses only)").fill(
        "http://169.254.169.254/latest/meta-data/"
    )
    alice_page.get_by_role("button", name="Add page").click()

    expect(alice_page.locator("#url-error")).to_contain_text("not a public address")
    assert not Document.objects.exists()


def test_the_agent_page_gives_an_agent_a_knowledge_base(alice_page, live_url, alice):
    from agents.models import Agent
    from tests.factories import AgentFactory
    from tests.knowledge.bases import make_base

    agent = AgentFactory(created_by=alice, shared=False, name="Helper")
    base = make_base(alice, name="Support docs")
    alice_page.goto(f"{live_url}/agents/{agent.id}/edit/")

    expect(alice_page.get_by_label("Name", exact=True)).to_have_value("Helper")
    alice_page.get_by_label("Support docs").check()
    alice_page.get_by_role("button", name="Save").click()

    expect(alice_page.locator(".chat-header h1")).to_have_text("Helper")
    assert list(Agent.objects.get().knowledge_bases.all()) == [base]
