"""Import cURL in the HTTP request inspector: real-world curl commands fill
the node's method, URL, query, headers and body; credentials are left out
with a note, and what cannot be read is an error beside the textarea."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.accessibility import severe_violations
from tests.e2e.pages import canvas_node, open_builder
from tests.factories import FlowFactory

GITHUB = """curl -L \\
  -H "Accept: application/vnd.github+json" \\
  -H "Authorization: Bearer <YOUR-TOKEN>" \\
  -H "X-GitHub-Api-Version: 2022-11-28" \\
  https://api.github.com/repos/OWNER/REPO/issues"""
SLACK = (
    "curl -X POST https://slack.com/api/chat.postMessage "
    "-H 'Authorization: Bearer xoxb-not-a-real-token' "
    """--json '{"channel": "C123ABC456", "text": "Hello, world"}'"""
)
FORM = 'curl -d "name=Ada&role=admin" https://httpbin.org/post'
BASIC = "curl -u ada:s3cr3t-pass https://api.example.com/me"
STRIPE = """curl https://api.stripe.com/v1/customers \\
  -u "sk_test_4eC39HqLyjWDarjtT1zdp7dc:" \\
  -d name="Jenny Rosen" \\
  --data-urlencode email="jenny.rosen@example.com" """
SEARCH = "curl -G https://api.example.com/search -d q=weir+flows -d per_page=5"
CREDENTIAL_NOTE = "Credentials belong in a credential"


def add_http_node(page, live_url, alice):
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)
    canvas_node(page, "Greet").click()
    page.locator("#palette").get_by_role("button", name="HTTP request").click()
    return flow


def import_curl(page, command):
    inspector = page.locator("#inspector")
    inspector.get_by_role("button", name="Import cURL").click()
    inspector.get_by_label("cURL command").fill(command)
    inspector.get_by_role("button", name="Fill the node").click()


def saved_data(page, flow) -> dict:
    page.keyboard.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")
    flow.refresh_from_db()
    return flow.nodes[2]["data"]


def test_real_world_curl_commands_fill_the_node(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    flow = add_http_node(page, live_url, alice)
    inspector = page.locator("#inspector")
    notes = inspector.locator(".curl-import-notes")

    import_curl(page, GITHUB)
    expect(inspector.get_by_label("URL", exact=True)).to_have_value(
        "https://api.github.com/repos/OWNER/REPO/issues"
    )
    expect(notes).to_contain_text("The Authorization header was left out.")
    data = saved_data(page, flow)
    assert (data["method"], data["body"]) == ("GET", None)
    assert data["headers"] == {
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": "2022-11-28",
    }

    import_curl(page, SLACK)
    expect(inspector.get_by_label("Method")).to_have_value("POST")
    data = saved_data(page, flow)
    assert data["url"] == "https://slack.com/api/chat.postMessage"
    assert data["body"] == {"channel": "C123ABC456", "text": "Hello, world"}
    assert data["headers"] == {
        "Content-Type": "application/json",
        "Accept": "application/json",
    }
    assert "xoxb" not in str(flow.nodes)

    import_curl(page, FORM)
    data = saved_data(page, flow)
    assert (data["method"], data["body"]) == ("POST", "name=Ada&role=admin")
    assert data["headers"] == {"Content-Type": "application/x-www-form-urlencoded"}

    import_curl(page, BASIC)
    expect(notes).to_contain_text(
        "The user and password (-u) were left out. " + CREDENTIAL_NOTE
    )
    data = saved_data(page, flow)
    assert (data["method"], data["url"]) == ("GET", "https://api.example.com/me")
    assert "s3cr3t-pass" not in str(flow.nodes)

    import_curl(page, STRIPE)
    data = saved_data(page, flow)
    assert (data["method"], data["url"]) == (
        "POST",
        "https://api.stripe.com/v1/customers",
    )
    assert data["body"] == "name=Jenny Rosen&email=jenny.rosen%40example.com"
    assert "sk_test" not in str(flow.nodes)

    import_curl(page, SEARCH)
    data = saved_data(page, flow)
    assert (data["method"], data["body"]) == ("GET", None)
    assert data["query"] == [
        {"name": "q", "value": "weir flows"},
        {"name": "per_page", "value": "5"},
    ]
    assert page_errors == []


def test_what_cannot_be_read_is_an_error_beside_the_textarea(
    alice_page, live_url, alice
):
    page = alice_page
    flow = add_http_node(page, live_url, alice)
    inspector = page.locator("#inspector")
    error = inspector.locator(".curl-import .field-error")

    for command, message in [
        ("wget https://example.com/", "Paste a command that starts with curl."),
        (
            "curl -T report.pdf https://example.com/upload",
            "The option -T cannot be imported.",
        ),
        (
            "curl -d @body.json https://example.com/",
            "-d @body.json reads the body from a file; paste its content instead.",
        ),
        ("curl -H 'Accept: x", "A single quote (') is never closed."),
        ("curl -s", "The command has no URL."),
    ]:
        if not inspector.get_by_label("cURL command").is_visible():
            inspector.get_by_role("button", name="Import cURL").click()
        inspector.get_by_label("cURL command").fill(command)
        inspector.get_by_role("button", name="Fill the node").click()
        expect(error).to_have_text(message)

    expect(inspector.get_by_label("URL", exact=True)).to_have_value(
        "https://example.com/"
    )
    page.keyboard.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")
    flow.refresh_from_db()
    assert flow.nodes[2]["data"]["method"] == "GET"


def test_the_import_panel_has_no_serious_violations(alice_page, live_url, alice):
    page = alice_page
    flow = add_http_node(page, live_url, alice)
    import_curl(page, BASIC)
    saved_data(page, flow)
    inspector = page.locator("#inspector")
    inspector.get_by_role("button", name="Import cURL").click()
    expect(inspector.get_by_role("button", name="Import cURL")).to_have_attribute(
        "aria-expanded", "true"
    )
    inspector.get_by_label("cURL command").fill("curl")
    inspector.get_by_role("button", name="Fill the node").click()
    expect(inspector.locator(".curl-import .field-error")).to_have_text(
        "The command has no URL."
    )

    # The inspector only: axe also flags the contrast of a just-added node's
    # card on the canvas, with or without this panel (not this test's subject).
    assert severe_violations(page, within="#inspector") == []
