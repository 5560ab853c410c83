"""Dark mode (issue 38, item 8): the pages follow a dark system, the canvas
and the code editor too; the header's theme menu keeps a choice for the
account, across reloads and sign-ins."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from accounts.models import Preference
from tests.e2e.accessibility import severe_violations
from tests.e2e.pages import canvas_node, open_builder, save_screenshot
from tests.e2e.test_papercuts import spaced
from tests.factories import FlowFactory, FlowRunFactory
from tests.flows.graphs import code, trigger

BACKGROUND = "el => getComputedStyle(el).backgroundColor"


def brightness(page, selector: str) -> float:
    """0 (black) to 1 (white): the element's own background colour."""
    colour = page.locator(selector).first.evaluate(BACKGROUND)
    red, green, blue = (int(part) for part in re.findall(r"\d+", colour)[:3])
    return (0.2126 * red + 0.7152 * green + 0.0722 * blue) / 255


def test_every_page_the_canvas_and_the_code_editor_follow_a_dark_system(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    page.emulate_media(color_scheme="dark")
    flow = FlowFactory(
        created_by=alice,
        name="Dark",
        **spaced(
            trigger(),
            code(
                "say",
                "// greet\nconst who = input.name;\n"
                "return { text: `Hi ${who}`, n: 1, ok: true };",
            ),
        ),
    )
    run = FlowRunFactory(flow=flow, status="failed", error={"message": "Boom"})
    pages = ("/", "/runs/", f"/runs/{run.pk}/", "/credentials/", "/agents/")
    for path in (*pages, "/account/tokens/"):
        page.goto(live_url + path)
        assert brightness(page, "body") < 0.15, path
        assert brightness(page, ".topbar") < 0.2, path
        assert severe_violations(page) == [], path

    open_builder(page, live_url, flow)
    assert brightness(page, "#drawflow") < 0.15
    assert brightness(page, ".drawflow-node") < 0.2
    canvas_node(page, "Say").click()
    editor = page.locator(".cm-code-editor .cm-editor")
    expect(editor).to_be_visible()
    assert brightness(page, ".cm-code-editor .cm-editor") < 0.2
    assert brightness(page, ".cm-code-editor .cm-gutters") < 0.2
    save_screenshot(page, "builder-dark")
    assert severe_violations(page) == []
    assert page_errors == []


def test_the_theme_menu_keeps_dark_for_the_account(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    page.goto(f"{live_url}/runs/")
    assert brightness(page, "body") > 0.9

    with page.expect_response(f"{live_url}/account/theme/") as saved:
        page.get_by_label("Theme").select_option("dark")
    assert saved.value.ok
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert brightness(page, "body") < 0.15
    page.reload()
    expect(page.get_by_label("Theme")).to_have_value("dark")
    assert brightness(page, "body") < 0.15
    assert Preference.objects.get(user=alice).theme == "dark"

    page.get_by_label("Theme").select_option("system")
    expect(page.locator("html")).to_have_attribute("data-theme", "system")
    assert brightness(page, "body") > 0.9
    assert page_errors == []
