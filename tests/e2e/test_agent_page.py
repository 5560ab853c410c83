"""The agent page in Chromium: make an agent, test its connection, edit, delete."""

from __future__ import annotations

from playwright.sync_api import expect

from agents.models import Agent
from tests.factories import AgentFactory, FlowFactory, make_credential
from tests.llm_server import openai_text


def test_a_user_creates_an_agent_with_a_tool_and_chats_with_it(
    alice_page, alice, live_url
):
    FlowFactory(created_by=alice, name="Say hello")
    alice_page.goto(f"{live_url}/agents/")
    expect(alice_page.locator(".empty-state")).to_contain_text("No agents yet")

    alice_page.locator("#new-agent").click()
    alice_page.get_by_label("Name", exact=True).fill("Greeter")
    alice_page.get_by_label("System prompt").fill("Greet people.")
    alice_page.get_by_label("Say hello").check()
    alice_page.get_by_role("button", name="Create agent").click()

    expect(alice_page.locator(".chat-header h1")).to_have_text("Greeter")
    agent = Agent.objects.get(name="Greeter")
    expect(alice_page).to_have_url(f"{live_url}/agents/{agent.id}/")
    assert (agent.created_by, agent.model, agent.system_prompt) == (
        alice,
        "echo:demo",
        "Greet people.",
    )
    assert [flow.name for flow in agent.tools.all()] == ["Say hello"]
    # The chat's module script wires Enter; it has run once the DOM is loaded.
    alice_page.wait_for_load_state("domcontentloaded")
    alice_page.locator("#chat-input").fill("Hi")
    alice_page.locator("#chat-input").press("Enter")
    expect(alice_page.locator(".chat-assistant").last).to_have_text("Echo: Hi")


def test_errors_show_next_to_their_field_and_nothing_is_saved(alice_page, live_url):
    alice_page.goto(f"{live_url}/agents/new/")

    alice_page.get_by_label("Name", exact=True).fill("Hot")
    alice_page.get_by_label("Temperature").fill("5")
    alice_page.get_by_role("button", name="Create agent").click()

    expect(alice_page.locator("#agent-temperature-error")).to_contain_text("2")
    expect(alice_page.locator("#agent-name-error")).to_be_hidden()
    assert not Agent.objects.exists()


def test_test_connection_shows_the_answer_or_the_providers_refusal(
    alice_page, alice, live_url, llm_server
):
    make_credential(alice, name="openai_key")
    alice_page.goto(f"{live_url}/agents/new/")
    alice_page.get_by_label("Provider").select_option("openai")
    alice_page.get_by_label("Model", exact=True).fill("gpt-test")
    alice_page.get_by_label("API key").select_option(label="openai_key (bearer)")

    llm_server.queue(openai_text("OK"))
    alice_page.get_by_role("button", name="Test connection").click()
    expect(alice_page.locator("#agent-test-result")).to_contain_text('answered "OK"')

    llm_server.queue({"error": {"message": "Incorrect API key"}}, status=401)
    alice_page.get_by_role("button", name="Test connection").click()
    expect(alice_page.locator("#agent-test-result")).to_contain_text(
        "Incorrect API key"
    )
    assert llm_server.requests[0]["headers"]["authorization"].startswith("Bearer tok-")


def test_the_owner_edits_and_deletes_an_agent(alice_page, alice, live_url):
    agent = AgentFactory(created_by=alice, shared=False, name="Old name")
    alice_page.goto(f"{live_url}/agents/{agent.id}/")

    alice_page.get_by_role("link", name="Edit agent").click()
    # The form's script fills in the agent and sends Save: typing before it
    # ran had it write "Old name" into the field mid-fill ("Old nameNew name").
    expect(alice_page.get_by_label("Name", exact=True)).to_have_value("Old name")
    alice_page.get_by_label("Name", exact=True).fill("New name")
    alice_page.get_by_role("button", name="Save").click()
    expect(alice_page.locator(".chat-header h1")).to_have_text("New name")

    alice_page.get_by_role("link", name="Edit agent").click()
    alice_page.get_by_role("button", name="Delete agent").click()
    alice_page.locator("#agent-confirm-delete").click()
    expect(alice_page).to_have_url(f"{live_url}/agents/")
    assert not Agent.objects.exists()


def test_the_agent_page_sets_a_budget_and_charts_usage(alice_page, alice, live_url):
    from decimal import Decimal

    from agents.models import Conversation, Message

    agent = AgentFactory(created_by=alice, shared=False, name="Spender")
    conversation = Conversation.objects.create(agent=agent, user=alice, title="t")
    Message.objects.create(
        conversation=conversation,
        role="assistant",
        content="x",
        usage={"input_tokens": 120, "output_tokens": 30},
        cost_usd=Decimal("0.42"),
    )
    alice_page.goto(f"{live_url}/agents/{agent.id}/edit/")

    expect(alice_page.locator("#agent-usage-totals")).to_contain_text("$0.42")
    expect(alice_page.locator("#agent-usage-chart rect")).to_have_count(30)
    expect(alice_page.locator("#agent-usage-users tbody td")).to_have_text(
        ["alice", "1", "120", "30", "$0.42"]
    )
    alice_page.get_by_label("Max cost per day ($)").fill("1.5")
    alice_page.get_by_role("button", name="Save").click()
    expect(alice_page.locator(".chat-header h1")).to_have_text("Spender")
    agent.refresh_from_db()
    assert agent.max_cost_per_day == Decimal("1.5")


def test_a_new_agent_page_has_no_usage_section(alice_page, live_url):
    alice_page.goto(f"{live_url}/agents/new/")

    expect(alice_page.locator(".agent-usage")).to_have_count(0)
