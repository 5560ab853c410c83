"""The chat widget on a page of another site, in Chromium, against the
production server: an allowed site's visitor types and sees the streamed
reply; on a site that is not allowed the widget refuses, and the hosted page
will not show in its frame (CSP frame-ancestors)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import expect

from agents.models import Conversation
from tests.agents.public.helpers import published_agent

HOST_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shop</title></head>
<body><h1>A shop on another site</h1>
<script src="{weir}/c/widget.js" data-agent="helper"></script>
{extra}
</body></html>"""


class HostSite:
    """A site of its own (another port: another origin) serving one page."""

    def __init__(self):
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                body = site.html.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.html = ""
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def serve(self, weir: str, extra: str = "") -> str:
        self.html = HOST_PAGE.format(weir=weir, extra=extra)
        return self.origin + "/"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def host_site():
    site = HostSite()
    yield site
    site.stop()


def test_a_visitor_on_an_allowed_site_chats_through_the_widget(
    page, live_url, host_site, page_errors, dialogs
):
    agent = published_agent(allowed_origins=[host_site.origin])
    page.goto(host_site.serve(live_url))

    button = page.get_by_role("button", name="Chat with us")
    button.click()
    expect(button).to_have_attribute("aria-expanded", "true")
    chat = page.frame_locator("iframe.weir-chat-frame")
    chat.locator("#chat-input").fill("Hello **there** <img src=x onerror=alert(1)>")
    chat.locator("#chat-input").press("Enter")

    reply = chat.locator(".chat-assistant").last
    expect(reply).to_contain_text("Echo: Hello there <img src=x onerror=alert(1)>")
    expect(reply.locator("strong")).to_have_text("there")
    expect(chat.locator("#chat-send")).to_be_enabled()
    conversation = Conversation.objects.get(agent=agent)
    assert conversation.visitor and conversation.user is None

    # The conversation is the visitor's after a reload, and goes on.
    page.reload()
    page.get_by_role("button", name="Chat with us").click()
    chat = page.frame_locator("iframe.weir-chat-frame")
    expect(chat.locator(".chat-user")).to_have_count(1)
    chat.locator("#chat-input").fill("Again")
    chat.locator("#chat-input").press("Enter")
    expect(chat.locator(".chat-assistant").last).to_contain_text("Echo: Again (turn 2)")
    assert Conversation.objects.filter(agent=agent).count() == 1
    chat.locator("#chat-input").press("Escape")
    expect(page.locator(".weir-chat-panel")).to_be_hidden()
    expect(page.get_by_role("button", name="Chat with us")).to_be_focused()
    assert dialogs == []
    assert page_errors == []


def test_the_widget_refuses_on_a_site_not_allowed(page, live_url, host_site):
    published_agent(allowed_origins=["https://shop.example.com"])
    framed_directly = f'<iframe id="direct" src="{live_url}/c/helper"></iframe>'
    page.goto(host_site.serve(live_url, extra=framed_directly))

    page.get_by_role("button", name="Chat with us").click()

    expect(page.get_by_role("alert")).to_have_text(
        "This chat is not available on this site."
    )
    expect(page.locator("iframe.weir-chat-frame")).to_have_count(0)
    # Framed by hand, the hosted page is refused by the browser.
    direct = page.frame_locator("#direct")
    expect(direct.locator("#chat-input")).to_have_count(0)
    assert not Conversation.objects.exists()
