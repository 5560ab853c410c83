"""Small helpers the browser tests share: opening pages, reading the canvas."""

from __future__ import annotations

import os
import re
from pathlib import Path

from django.conf import settings

# Set WEIR_SCREENSHOTS=docs/screenshots to (re)write the screenshots in the docs.
SCREENSHOT_DIR = os.environ.get("WEIR_SCREENSHOTS", "")


def open_builder(page, live_url: str, flow):
    """Open a flow in the builder and wait until its script has started."""
    page.goto(f"{live_url}/flows/{flow.id}/")
    page.wait_for_selector("body[data-builder-ready]")
    return page


def canvas_node(page, name: str):
    """The canvas node whose title is `name`."""
    exactly = re.compile(f"^{re.escape(name)}$")
    return page.locator(
        ".drawflow-node", has=page.locator(".node-name", has_text=exactly)
    )


def connect(page, source, target, output: str = "output_1") -> None:
    """Drag from `source`'s output port to `target`'s input port."""
    start = source.locator(f".outputs .{output}").bounding_box()
    end = target.locator(".inputs .input_1").bounding_box()
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + 2, end["y"] + 2, steps=8)
    page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=2)
    page.mouse.up()


def save_screenshot(page, name: str) -> None:
    """Write <WEIR_SCREENSHOTS>/<name>.png when that variable names a folder."""
    if SCREENSHOT_DIR:
        folder = Path(settings.BASE_DIR) / SCREENSHOT_DIR
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"{name}.png"))
