"""The chat page in Debian's Chromium against a live server: send, wait, read.

Self-contained browser fixtures (the shared ones live in tests/e2e); without
Chromium the tests are skipped locally and fail under CI.
"""

from __future__ import annotations

import os
import shutil

import pytest
from django.conf import settings as django_settings
from django.test import Client
from playwright.sync_api import expect

from agents.models import Conversation, Message
from flows.models import FlowRun
from tests.agents.conftest import openai_text
from tests.factories import AgentFactory, FlowFactory

# Playwright's sync API keeps an event loop in the main thread; the ORM calls
# made between page steps are never concurrent with it.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("WEIR_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="session")
def browser_type_launch_args():
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        message = f"Chromium not found at {CHROMIUM} (apt-get install chromium)."
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return {"executable_path": CHROMIUM, "args": ["--no-sandbox", "--disable-gpu"]}


@pytest.fixture
def chat_page(page, live_server, settings, transactional_db, alice):
    """A page signed in as alice; `chat_page.open(agent)` goes to its chat."""
    settings.BASE_URL = live_server.url
    client = Client()
    client.force_login(alice)
    cookie = client.cookies[django_settings.SESSION_COOKIE_NAME]
    page.context.add_cookies(
        [
            {
                "name": django_settings.SESSION_COOKIE_NAME,
                "value": cookie.value,
                "url": live_server.url,
            }
        ]
    )
    dialogs, errors = [], []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.dialogs, page.errors = dialogs, errors
    page.open = lambda agent, query="": page.goto(
        f"{live_server.url}/agents/{agent.id}/{query}"
    )
    return page


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


def test_a_tool_call_shows_collapsed_with_a_link_to_its_run(chat_page, alice):
    flow = FlowFactory(owner=alice, name="Say hello")
    agent = AgentFactory(owner=alice, model="echo:demo")
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
