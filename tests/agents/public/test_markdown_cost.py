"""Rendering costs time in proportion to the text, whatever the text.

Chat messages are rendered on every read of a conversation, and a public
chat's visitor chooses theirs: one message at the length cap built to make a
pattern backtrack (`[[[[…](http://xxxx…`, ` *a *a *a…`) cost 3-8 s of CPU per
render inside `re`, which holds the GIL, so every thread of the web process
stalled with it (a review of `main`, 2026-12-06).
"""

from __future__ import annotations

import threading
import time
from itertools import pairwise

import pytest

from agents.chat import MAX_CONTENT_CHARS
from agents.models import Message
from core.markdown import render_markdown
from tests.agents.public.helpers import Visitor, published_agent

pytestmark = pytest.mark.timing

N = MAX_CONTENT_CHARS


def cut(text: str) -> str:
    return text[:N]


HOSTILE = {
    "link openers, then an address with no end": cut(
        "[" * (N // 2) + "](http://" + "x" * N
    ),
    "links with no closing parenthesis": cut("[a](http://" * N),
    "link texts with no address": cut("[a]" * N),
    "italic openers that cannot close": cut(" *a" * N),
    "italic openers after a letter": cut("*a " * N),
    "bold openers": cut("**a" * N),
    "bold openers and spaces": cut("** a" * N),
    "inline code openers": cut("`a" * N),
    "fence openers": cut("```\n" * N),
    "blank-looking lines": cut("\n " * N),
    "list markers": cut("- *[a](http://x\n" * N),
}


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_message_at_the_length_cap_renders_in_a_fraction_of_a_second(text):
    started = time.perf_counter()
    render_markdown(text)

    assert time.perf_counter() - started < 0.5


@pytest.mark.django_db
def test_a_visitors_hostile_message_does_not_stall_the_process_on_each_read():
    visitor = Visitor(published_agent())
    text = HOSTILE["link openers, then an address with no end"]
    conversation_id = visitor.chat(text).json()["conversation_id"]
    assert Message.objects.filter(content=text, role="user").exists()
    ticks, stop = [], threading.Event()

    def another_request_thread():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.01)

    other = threading.Thread(target=another_request_thread)
    started = time.perf_counter()
    other.start()
    try:
        response = visitor.conversation(conversation_id)
    finally:
        stop.set()
        other.join()
    moments = [started, *ticks, time.perf_counter()]

    assert response.status_code == 200
    assert text in [message["content"] for message in response.json()["messages"]]
    longest_stall = max(b - a for a, b in pairwise(moments))
    assert longest_stall < 0.5
