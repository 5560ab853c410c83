"""The chat page in Chromium against a live server: send, wait, read."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from agents.models import Conversation, Message
from flows.models import FlowRun
from tests.factories import AgentFactory, FlowFactory
from tests.llm_server import openai_text


@pytest.fixture
def chat_page(alice_page, live_url, dialogs, page_errors):
    """A page signed in as alice; `chat_page.open(agent)` goes to its chat."""
    alice_page.dialogs, alice_page.errors = dialogs, page_errors
    alice_page.open = lambda agent, query="": alice_page.goto(
        f"{live_url}/agents/{agent.id}/{query}"
    )
    return alice_page


def send(page, text):
    page.locator("#chat-input").fill(text)
    page.locator("#chat-input").press("Enter")


def test_a_user_chats_and_the_reply_renders_markdown_safely(chat_page, alice):
    agent = AgentFactory(name="Echo", model="echo:demo")
    chat_page.open(agent)

    send(chat_page, "Hello **world** <img src=x onerror=alert(1)>")

    reply = chat_page.locator(".chat-assistant").last
    expect(reply).to_contain_text("Echo: Hello world <img src=x onerror=alert(1)>")
    expect(reply.locator("strong")).to_have_text("world")
    expect(chat_page.locator(".chat-messages img")).to_have_count(0)
    expect(chat_page.locator(".chat-user")).to_have_text(
        "Hello **world** <img src=x onerror=alert(1)>"
    )
    conversation = Conversation.objects.get(user=alice)
    expect(chat_page).to_have_url(f"{chat_page.url.split('?')[0]}?c={conversation.id}")
    expect(chat_page.locator("#chat-conversations li.current")).to_have_count(1)
    assert chat_page.dialogs == []
    assert chat_page.errors == []


def test_the_typing_indicator_shows_while_the_model_thinks(chat_page, llm_server):
    agent = AgentFactory(name="Slow", model="openai:gpt-test")
    llm_server.queue(openai_text("Finally."), delay=1.5)
    chat_page.open(agent)

    send(chat_page, "Take your time")

    expect(chat_page.locator("#chat-typing")).to_be_visible()
    expect(chat_page.locator("#chat-send")).to_be_disabled()
    expect(chat_page.locator(".chat-assistant")).to_have_text("Finally.")
    expect(chat_page.locator("#chat-typing")).to_be_hidden()
    assert chat_page.errors == []


def test_a_failed_reply_shows_the_error_and_keeps_the_conversation(
    chat_page, alice, llm_server
):
    agent = AgentFactory(name="Down", model="openai:gpt-test")
    llm_server.queue({"error": {"message": "boom"}}, status=500)
    chat_page.open(agent)

    send(chat_page, "Are you there?")

    error = chat_page.locator(".chat-error")
    expect(error).to_have_count(1)
    conversation = Conversation.objects.get(user=alice)
    expect(error).to_have_text(conversation.messages.last().error["message"])
    expect(chat_page).to_have_url(f"{chat_page.url.split('?')[0]}?c={conversation.id}")
    expect(chat_page.locator("#chat-conversations li.current")).to_have_text(
        "Are you there?"
    )
    expect(chat_page.locator("#chat-send")).to_be_enabled()
    assert chat_page.errors == []


def test_a_tool_call_shows_collapsed_with_a_link_to_its_run(chat_page, alice):
    flow = FlowFactory(created_by=alice, name="Say hello")
    agent = AgentFactory(created_by=alice, model="echo:demo")
    agent.tools.add(flow)
    chat_page.open(agent)

    send(chat_page, '/tool Say hello {"name": "Ada"}')

    tool = chat_page.locator("details.chat-tool")
    expect(tool.locator("summary")).to_have_text("Tool say_hello · succeeded")
    run = FlowRun.objects.get(trigger="agent")
    link = tool.locator("a.chat-run-link")
    expect(link).to_have_attribute("href", f"/runs/{run.id}/")
    expect(link).to_be_hidden()  # collapsed until opened
    tool.locator("summary").click()
    expect(link).to_be_visible()
    expect(tool).to_contain_text('"greeting": "hi Ada"')
    expect(chat_page.locator(".chat-assistant")).to_contain_text(
        "Tool say_hello returned:"
    )

    chat_page.reload()  # her run link comes back with the history

    tool = chat_page.locator("details.chat-tool")
    tool.locator("summary").click()
    expect(tool.locator("a.chat-run-link")).to_have_attribute(
        "href", f"/runs/{run.id}/"
    )
    with chat_page.expect_response(f"**/runs/{run.id}/") as opened:
        chat_page.locator("a.chat-run-link").click()
    assert opened.value.status == 200


def test_someone_elses_tool_run_shows_its_result_but_no_run_link(
    page, login, bob, alice, live_url, page_errors
):
    flow = FlowFactory(created_by=alice, name="Say hello")
    agent = AgentFactory(created_by=alice, model="echo:demo")
    agent.tools.add(flow)
    login(bob)
    page.goto(f"{live_url}/agents/{agent.id}/")

    send(page, '/tool Say hello {"name": "Bob"}')

    tool = page.locator("details.chat-tool")
    expect(tool.locator("summary")).to_have_text("Tool say_hello · succeeded")
    tool.locator("summary").click()
    expect(tool).to_contain_text('"greeting": "hi Bob"')
    expect(tool.locator("a")).to_have_count(0)
    run = FlowRun.objects.get(trigger="agent")
    assert str(run.id) not in page.content()

    page.reload()  # the history, as the page renders it from the server

    expect(page.locator("details.chat-tool")).to_have_count(1)
    expect(page.locator("details.chat-tool summary")).to_have_text(
        "Tool say_hello · succeeded"
    )
    expect(page.locator("details.chat-tool a")).to_have_count(0)
    assert str(run.id) not in page.content()
    assert page_errors == []


def test_a_refused_tool_call_reads_refused_in_the_history(chat_page, alice):
    agent = AgentFactory(created_by=alice, model="echo:demo")
    agent.tools.add(FlowFactory(created_by=alice, name="Say hello"))
    conversation = Conversation.objects.create(agent=agent, user=alice, title="Old")
    Message.objects.create(conversation=conversation, role="user", content="Hi")
    Message.objects.create(
        conversation=conversation,
        role="assistant",
        tool_calls=[{"id": "c1", "name": "say_hello", "arguments": {}}],
    )
    Message.objects.create(
        conversation=conversation,
        role="tool",
        tool_call_id="c1",
        tool_name="say_hello",
        content='{"success": false, "error": {"code": "too_many_tool_calls"}}',
    )

    chat_page.open(agent, f"?c={conversation.id}")

    expect(chat_page.locator("details.chat-tool summary")).to_have_text(
        "Tool say_hello · refused"
    )
    assert chat_page.errors == []


def test_an_earlier_conversation_reopens_with_its_history(chat_page, alice, api):
    agent = AgentFactory(model="echo:demo")
    reply = api.post(
        f"/api/agents/{agent.id}/chat", {"content": "Remember me"}, format="json"
    ).json()
    chat_page.open(agent)

    chat_page.get_by_role("link", name="Remember me").click()

    expect(chat_page.locator(".chat-assistant")).to_have_text("Echo: Remember me")
    send(chat_page, "Again")
    expect(chat_page.locator(".chat-assistant").last).to_have_text(
        "Echo: Again (turn 2)"
    )
    # Tokens show before the reply is stored; `done` (streaming ends) after.
    expect(chat_page.locator(".chat-assistant.streaming")).to_have_count(0)
    assert Message.objects.filter(conversation_id=reply["conversation_id"]).count() == 4


def test_a_provider_failure_shows_an_error_and_the_chat_goes_on(chat_page, llm_server):
    agent = AgentFactory(model="openai:gpt-test")
    llm_server.queue({"error": {"message": "down"}}, status=500)
    llm_server.queue(openai_text("I am back."))
    chat_page.open(agent)

    send(chat_page, "Hello?")
    expect(chat_page.locator(".chat-error")).to_contain_text("HTTP 500")
    send(chat_page, "Hello again?")

    expect(chat_page.locator(".chat-assistant")).to_have_text("I am back.")
    assert Conversation.objects.get().messages.filter(role="user").count() == 2


def test_an_empty_conversation_explains_itself_until_the_first_message(
    chat_page, alice
):
    agent = AgentFactory(name="Echo", model="echo:demo", created_by=alice)
    agent.tools.add(FlowFactory(created_by=alice, name="Say hello"))
    chat_page.open(agent)

    hint = chat_page.locator("#chat-empty")
    expect(hint).to_contain_text("Ask Echo anything.")
    expect(hint).to_contain_text("It can run these flows as tools: Say hello.")
    expect(hint.locator("code")).to_have_text('/tool Say hello {"name": "Ada"}')

    send(chat_page, "Hi")

    expect(chat_page.locator(".chat-assistant")).to_contain_text("Echo: Hi")
    expect(hint).to_have_count(0)


def test_tokens_show_as_they_stream_before_the_turn_ends(chat_page, llm_server):
    agent = AgentFactory(name="Slow", model="openai:gpt-test")
    words = " ".join(f"w{n}" for n in range(30))
    llm_server.queue(openai_text(words), chunk_delay=0.1)
    chat_page.open(agent)

    send(chat_page, "Stream please")

    reply = chat_page.locator(".chat-assistant.streaming")
    expect(reply).to_contain_text("w0 w1 w2")
    # Still streaming: the reply is not complete, Stop is offered, Send is not.
    assert "w29" not in reply.inner_text()
    expect(chat_page.locator("#chat-stop")).to_be_visible()
    expect(chat_page.locator("#chat-send")).to_be_disabled()
    expect(chat_page.locator(".chat-assistant")).to_have_text(words)
    expect(chat_page.locator(".chat-assistant.streaming")).to_have_count(0)
    expect(chat_page.locator("#chat-stop")).to_be_hidden()
    assert chat_page.errors == []


def test_stop_ends_the_reply_and_keeps_the_text_so_far(chat_page, alice, llm_server):
    agent = AgentFactory(name="Chatty", model="openai:gpt-test")
    words = " ".join(f"w{n}" for n in range(60))
    llm_server.queue(openai_text(words), chunk_delay=0.1)
    chat_page.open(agent)

    send(chat_page, "Talk a lot")
    expect(chat_page.locator(".chat-assistant")).to_contain_text("w0 w1 w2")
    chat_page.locator("#chat-stop").click()

    expect(chat_page.locator(".chat-note")).to_contain_text("Stopped")
    expect(chat_page.locator("#chat-send")).to_be_enabled()
    stored = None
    for _ in range(50):
        stored = Message.objects.filter(role="assistant").first()
        if stored is not None:
            break
        chat_page.wait_for_timeout(100)
    assert stored is not None and stored.error["code"] == "cancelled"
    assert stored.content.startswith("w0 w1 w2")
    assert "w59" not in stored.content
    # Reopened, the conversation shows the partial reply and that it was stopped.
    chat_page.reload()
    expect(chat_page.locator(".chat-assistant")).to_contain_text("w0 w1 w2")
    expect(chat_page.locator(".chat-note")).to_have_text("Stopped.")
    assert chat_page.errors == []
