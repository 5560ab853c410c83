"""The Credentials page in a browser: create, edit, delete with the in-use warning."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from flows.models import Credential
from tests.e2e.accessibility import severe_violations
from tests.e2e.pages import canvas_node, open_builder
from tests.factories import AgentFactory, FlowFactory, UserFactory, make_credential
from tests.http_server import base

SECRET = "sk-typed-in-the-browser-123"


def test_creating_a_header_credential_stores_it_encrypted_and_hides_it(
    alice_page, live_url, alice, page_errors
):
    alice_page.goto(f"{live_url}/credentials/")
    alice_page.get_by_role("button", name="New credential").click()
    alice_page.get_by_label("Name", exact=True).fill("crm")
    alice_page.get_by_label("Kind").select_option("header")
    alice_page.get_by_label("Header name").fill("X-Api-Key")
    alice_page.get_by_label("Value", exact=True).fill(SECRET)
    alice_page.get_by_role("button", name="Save").click()

    row = alice_page.locator("tr.credential-row", has_text="crm")
    expect(row).to_contain_text("Header · X-Api-Key")
    expect(row).to_contain_text("Saved (hidden)")
    assert SECRET not in alice_page.content()
    credential = Credential.objects.get(created_by=alice, name="crm")
    assert credential.secrets() == {"value": SECRET}
    assert page_errors == []


def test_a_plugin_kinds_form_is_drawn_from_the_registry(
    alice_page, live_url, alice, page_errors
):
    alice_page.goto(f"{live_url}/credentials/")
    alice_page.get_by_role("button", name="New credential").click()
    alice_page.get_by_label("Name", exact=True).fill("hello")
    alice_page.get_by_label("Kind").select_option("hello_token")

    expect(alice_page.locator("#credential-kind-docs")).to_have_text(
        "A token sent as the X-Hello-Token header."
    )
    expect(alice_page.get_by_label("Header name")).to_be_hidden()
    alice_page.get_by_label("Token", exact=True).fill(SECRET)
    alice_page.get_by_role("button", name="Save").click()

    row = alice_page.locator("tr.credential-row", has_text="hello")
    expect(row).to_contain_text("Hello token")
    expect(row).to_contain_text("Saved (hidden)")
    expect(row.get_by_role("button", name="Test hello")).to_be_visible()
    credential = Credential.objects.get(name="hello")
    assert (credential.kind, credential.secrets()) == ("hello_token", {"token": SECRET})
    assert page_errors == []


def test_a_refused_name_shows_the_servers_message(alice_page, live_url):
    alice_page.goto(f"{live_url}/credentials/")
    alice_page.get_by_role("button", name="New credential").click()
    alice_page.get_by_label("Name", exact=True).fill("has space")
    alice_page.get_by_label("Token", exact=True).fill("abcdef")
    alice_page.get_by_role("button", name="Save").click()

    expect(alice_page.locator("#credential-error")).to_contain_text("name:")
    assert not Credential.objects.exists()


def test_deleting_a_credential_in_use_lists_the_flows_then_deletes_anyway(
    alice_page, live_url, alice
):
    credential = make_credential(alice, "stripe")
    FlowFactory(
        created_by=alice,
        name="Charge customers",
        nodes=[
            {"id": "t", "type": "webhook", "data": {}},
            {
                "id": "c",
                "type": "http_request",
                "data": {"url": "https://x.test", "credential_id": str(credential.id)},
            },
        ],
        edges=[],
    )
    alice_page.goto(f"{live_url}/credentials/")

    alice_page.get_by_role("button", name="Delete", exact=True).click()
    alice_page.locator("#confirm-delete").click()

    expect(alice_page.locator("#delete-flows")).to_contain_text("Charge customers")
    assert Credential.objects.filter(pk=credential.pk).exists()
    alice_page.get_by_role("button", name="Delete anyway").click()
    expect(alice_page.locator("#empty-credentials")).to_be_visible()
    assert not Credential.objects.filter(pk=credential.pk).exists()


def test_a_credential_an_agent_uses_is_kept_and_the_agent_named(
    alice_page, live_url, alice
):
    credential = make_credential(alice, "openai_key")
    AgentFactory(
        created_by=alice,
        name="Support bot",
        model="openai:gpt-4o-mini",
        credential=credential,
    )
    alice_page.goto(f"{live_url}/credentials/")

    alice_page.get_by_role("button", name="Delete", exact=True).click()
    alice_page.locator("#confirm-delete").click()

    agent = alice_page.locator("#delete-flows").get_by_role("link", name="Support bot")
    expect(agent).to_have_attribute("href", re.compile(r"^/agents/.+/edit/$"))
    expect(alice_page.locator("#delete-error")).to_contain_text("choose another")
    expect(alice_page.locator("#confirm-delete")).to_have_text("Delete")  # no forcing
    assert Credential.objects.filter(pk=credential.pk).exists()


def test_the_http_request_inspector_picks_a_credential_by_name(
    alice_page, live_url, alice, page_errors
):
    credential = make_credential(alice, "stripe")
    make_credential(bob_user(), "not_mine")
    flow = FlowFactory(
        created_by=alice,
        nodes=[
            {
                "id": "call",
                "type": "http_request",
                "name": "Charge",
                "position": {"x": 80, "y": 80},
                "data": {"method": "GET", "url": "https://x.test/"},
            }
        ],
        edges=[],
    )
    open_builder(alice_page, live_url, flow)

    canvas_node(alice_page, "Charge").click()
    picker = alice_page.locator("#inspector").get_by_label("Credential")
    expect(picker.locator("option")).to_have_text(["No credential", "stripe (bearer)"])
    picker.select_option(label="stripe (bearer)")
    alice_page.get_by_role("button", name="Save").click()
    expect(alice_page.locator("#save-state")).to_have_text("Saved")

    flow.refresh_from_db()
    assert flow.nodes[0]["data"]["credential_id"] == str(credential.id)
    assert page_errors == []


def bob_user():
    return UserFactory(username="bob")


def test_testing_a_token_by_keyboard_shows_the_answer_beside_the_button(
    alice_page, live_url, alice, server, allow_loopback, page_errors
):
    server.accepts = {"Bearer tok-e2e-works-123"}
    make_credential(alice, "stripe", secrets={"token": "tok-e2e-works-123"})
    url = f"{base(server)}/protected"
    alice_page.goto(f"{live_url}/credentials/")

    alice_page.get_by_role("button", name="Test stripe").focus()
    alice_page.keyboard.press("Enter")
    expect(alice_page.get_by_label("URL", exact=True)).to_be_focused()
    alice_page.keyboard.type(url)
    alice_page.keyboard.press("Enter")

    result = alice_page.locator("#test-result")
    expect(result).to_have_text(f"✓ GET {url} answered 200 OK.")
    expect(result).to_have_attribute("role", "status")
    assert severe_violations(alice_page) == []
    assert server.hits == ["/protected"]
    assert "tok-e2e-works-123" not in alice_page.content()
    assert page_errors == []


def test_a_refused_token_and_a_missing_url_read_as_failures(
    alice_page, live_url, alice, server, allow_loopback
):
    make_credential(alice, "stripe")
    alice_page.goto(f"{live_url}/credentials/")
    alice_page.get_by_role("button", name="Test stripe").click()

    alice_page.get_by_role("button", name="Test", exact=True).click()
    result = alice_page.locator("#test-result")
    expect(result).to_have_text("✗ url: The URL to send a GET to with this credential.")
    alice_page.get_by_label("URL", exact=True).fill(f"{base(server)}/protected")
    alice_page.get_by_role("button", name="Test", exact=True).click()
    expect(result).to_contain_text("answered 401 Unauthorized")
    expect(result).to_have_class("test-result failed")


def test_a_mail_server_test_says_what_it_does_and_what_went_wrong(
    alice_page, live_url, alice, closed_port, settings
):
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.1"]
    Credential.objects.create(
        created_by=alice,
        name="relay",
        kind="smtp",
        public={
            "host": "127.0.0.1",
            "port": closed_port,
            "security": "none",
            "from_address": "flows@example.com",
        },
    )
    make_credential(alice, "bag", "custom", {"values": {"a": "bcdef"}})
    alice_page.goto(f"{live_url}/credentials/")

    expect(alice_page.locator("tr.credential-row", has_text="relay")).to_contain_text(
        "No password"
    )
    expect(alice_page.get_by_role("button", name="Test bag")).to_have_count(0)
    alice_page.get_by_role("button", name="Test relay").click()
    expect(alice_page.locator("#test-server-hint")).to_have_text(
        f"Weir connects to 127.0.0.1:{closed_port}, says EHLO; no mail is sent."
    )
    expect(alice_page.get_by_label("URL", exact=True)).to_be_hidden()
    alice_page.get_by_role("button", name="Test", exact=True).click()

    expect(alice_page.locator("#test-result")).to_have_text(
        f"✗ 127.0.0.1 refused a connection on port {closed_port}."
    )
