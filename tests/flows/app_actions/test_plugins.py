"""Documents from the `weir.apps` entry points: a working one becomes an app,
a broken one is logged and skipped."""

from __future__ import annotations

import logging
from importlib.metadata import EntryPoint

import pytest

from flows.app_actions import plugins
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

    with caplog.at_level(logging.ERROR, logger=plugins.__name__):
        found = plugins.plugin_documents()

    assert sorted(found) == ["text", "widgets"]
    assert found["text"]["info"]["title"] == "Widgets from text"
    skipped = [record.getMessage() for record in caplog.records]
    assert any("'boom'" in line for line in skipped)
    assert any("'nowhere'" in line for line in skipped)


def test_a_plugin_giving_a_path_reads_the_file(entry_points, tmp_path, monkeypatch):
    path = tmp_path / "widgets.yaml"
    path.write_bytes(widgets_yaml(title="Widgets from a file"))
    monkeypatch.setattr(
        __import__(__name__, fromlist=["x"]), "widgets_path", path, raising=False
    )
    entry_points(("file", f"{__name__}:widgets_path"))

    assert plugins.plugin_documents()["file"]["info"]["title"] == "Widgets from a file"
