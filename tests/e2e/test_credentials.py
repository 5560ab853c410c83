"""The Credentials page in a browser: create, edit, delete with the in-use warning."""

from __future__ import annotations

from playwright.sync_api import expect

from flows.models import Credential
from tests.e2e.pages import canvas_node, open_builder
from tests.factories import FlowFactory, UserFactory, make_credential

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


def test_a_refused_name_shows_the_servers_message(alice_page, live_url):
    alice_page.goto(f"{live_url}/credentials/")
    alice_page.get_by_role("button", name="New credential").click()
    alice_page.get_by_label("Name", exact=True).fill("has space")
    alice_page.get_by_label("Token").fill("abcdef")
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
