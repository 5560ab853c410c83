"""Documents from the `weir.apps` entry points: a working one becomes an app,
a broken one is logged and skipped."""

from __future__ import annotations

import logging
from importlib.metadata import EntryPoint

import pytest
import yaml

from flows.app_actions import catalogue, plugins
from tests.flows.app_actions.documents import WIDGETS, widgets_yaml

# What the entry points below load.
widgets_document = dict(WIDGETS)


def widgets_text() -> bytes:
    return widgets_yaml(title="Widgets from text")


def broken():
    raise RuntimeError("plugin exploded")


@pytest.fixture
def entry_points(monkeypatch):
    def use(*points):
        found = [EntryPoint(name, value, plugins.GROUP) for name, value in points]
        monkeypatch.setattr(plugins, "entry_points", lambda group: found)

    return use


def test_each_plugin_document_is_an_app_and_a_broken_one_is_skipped(
    entry_points, caplog
):
    module = __name__
    entry_points(
        ("widgets", f"{module}:widgets_document"),
        ("text", f"{module}:widgets_text"),
        ("boom", f"{module}:broken"),
        ("nowhere", "no.such.module:thing"),
    )

    with caplog.at_level(logging.ERROR, logger="weir.plugins"):
        found = plugins.plugin_documents()

    assert sorted(found) == ["text", "widgets"]
    assert found["text"]["info"]["title"] == "Widgets from text"
    assert any("Plugin boom (weir.apps" in line for line in caplog.messages)
    assert any("Plugin nowhere (weir.apps" in line for line in caplog.messages)


def test_a_plugin_giving_a_path_reads_the_file(entry_points, tmp_path, monkeypatch):
    path = tmp_path / "widgets.yaml"
    path.write_bytes(widgets_yaml(title="Widgets from a file"))
    monkeypatch.setattr(
        __import__(__name__, fromlist=["x"]), "widgets_path", path, raising=False
    )
    entry_points(("file", f"{__name__}:widgets_path"))

    assert plugins.plugin_documents()["file"]["info"]["title"] == "Widgets from a file"


# Found in review (docs/security.md, S25): what one plugin can do to the others.


def exits():
    raise SystemExit("goodbye")


def widgets_long_text() -> str:
    """A real document's text: longer than a file name may be (4 KB)."""
    document = dict(WIDGETS, info={"title": "Long widgets", "version": "1"})
    document["info"]["description"] = "A widget. " * 500
    return yaml.safe_dump(document)


def test_a_plugin_exiting_is_skipped_and_logged_the_others_still_load(
    entry_points, caplog
):
    entry_points(("bye", f"{__name__}:exits"), ("widgets", f"{__name__}:widgets_text"))

    with caplog.at_level(logging.ERROR, logger="weir.plugins"):
        found = plugins.plugin_documents()

    assert list(found) == ["widgets"]
    assert any("Plugin bye (weir.apps" in line for line in caplog.messages)


def test_a_second_plugin_with_a_taken_slug_is_refused_and_logged(entry_points, caplog):
    entry_points(
        ("widgets", f"{__name__}:widgets_text"),
        ("widgets", f"{__name__}:widgets_document"),
    )

    with caplog.at_level(logging.ERROR, logger="weir.plugins"):
        found = plugins.plugin_documents()

    assert found["widgets"]["info"]["title"] == "Widgets from text"
    assert any(
        "Plugin widgets (weir.apps" in line and "taken" in line
        for line in caplog.messages
    )


def test_the_catalogue_refuses_a_plugin_taking_a_vendored_slug(entry_points, caplog):
    entry_points(("slack", f"{__name__}:widgets_document"))
    catalogue.plugins.cache_clear()

    with caplog.at_level(logging.ERROR, logger="weir.plugins"):
        found = catalogue.plugins()
    catalogue.plugins.cache_clear()

    assert found == {}
    assert any("Plugin slack (weir.apps" in line for line in caplog.messages)


def test_a_plugin_giving_its_documents_text_past_4_kb_is_an_app(entry_points):
    entry_points(("long", f"{__name__}:widgets_long_text"))

    assert plugins.plugin_documents()["long"]["info"]["title"] == "Long widgets"
