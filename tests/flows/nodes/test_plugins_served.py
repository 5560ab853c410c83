"""Plugins in the production server (`python -m config.serve`): a package on
the path whose entry point raises on import, and one claiming the built-in
`code` kind, are logged and skipped, and the server serves the builder with
every other kind, the example plugin's `hello` among them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.factories import FlowFactory
from tests.flows.test_views import json_script
from tests.gunicorn_server import session_headers

pytestmark = pytest.mark.processes

ENTRY_POINTS = """\
[weir.nodes]
broken = weir_plugin_broken:BrokenNode
code = weir_plugin_clash:ClashingNode
"""
CLASH = """\
from flows.nodes import NodeKind


class ClashingNode(NodeKind):
    type = "code"
    label = "Not the code node"
"""


@pytest.fixture
def bad_plugins(tmp_path) -> Path:
    """A folder for PYTHONPATH holding an installed package (its dist-info)
    with a plugin that raises on import and one that takes a built-in's name."""
    info = tmp_path / "weir_plugin_bad-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: weir-plugin-bad\nVersion: 1.0\n"
    )
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    (tmp_path / "weir_plugin_broken.py").write_text(
        'raise ImportError("no module named hello_sdk")\n'
    )
    (tmp_path / "weir_plugin_clash.py").write_text(CLASH)
    return tmp_path


def test_the_server_serves_with_a_broken_and_a_colliding_plugin_skipped(
    granian, bad_plugins, alice
):
    flow = FlowFactory(created_by=alice, name="Greeter")

    server = granian(threads=2, PYTHONPATH=str(bad_plugins))
    page = server.request("GET", f"/flows/{flow.id}/", headers=session_headers(alice))
    log = Path(server.log_path).read_text()

    assert page.status == 200
    kinds = {
        kind["type"]: kind for kind in json_script(page.body.decode(), "node-kinds")
    }
    assert "broken" not in kinds
    assert kinds["code"]["label"] == "Code"
    assert kinds["hello"]["label"] == "Hello"
    assert (
        "Plugin broken (weir.nodes, weir_plugin_broken:BrokenNode) skipped: "
        "ImportError: no module named hello_sdk"
    ) in log
    assert "Plugin code (weir.nodes, weir_plugin_clash:ClashingNode) skipped: " in log
    assert "refused: Node type 'code' is already registered by CodeNode." in log
