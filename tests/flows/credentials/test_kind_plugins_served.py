"""Credential-kind plugins in the production server (`python -m config.serve`):
a package whose entry point raises on import, and one claiming the built-in
`bearer` kind, are logged and skipped; the server starts and serves every
other kind, the example plugin's `hello_token` among them, and a credential of
it is created through real HTTP."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.gunicorn_server import session_headers

pytestmark = pytest.mark.processes

ENTRY_POINTS = """\
[weir.credential_kinds]
broken = weir_kind_broken:KIND
bearer = weir_kind_clash:KIND
"""
CLASH = """\
from flows.credentials.kinds import CredentialKind, KindField

KIND = CredentialKind("bearer", "Not bearer", (KindField("token", "T", secret=True),))
"""


@pytest.fixture
def bad_kind_plugins(tmp_path) -> str:
    """PYTHONPATH with an installed package (its dist-info) holding a kind
    plugin that raises on import and one that takes a built-in kind's name."""
    info = tmp_path / "weir_kinds_bad-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: weir-kinds-bad\nVersion: 1.0\n"
    )
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    (tmp_path / "weir_kind_broken.py").write_text(
        'raise ImportError("no module named hello_sdk")\n'
    )
    (tmp_path / "weir_kind_clash.py").write_text(CLASH)
    return os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))


def test_the_server_serves_kinds_with_a_broken_and_a_colliding_one_skipped(
    granian, bad_kind_plugins, alice
):
    server = granian(threads=2, PYTHONPATH=bad_kind_plugins)
    headers = session_headers(alice)
    served = server.request("GET", "/api/credential-kinds", headers=headers)
    created = server.request(
        "POST",
        "/api/credentials",
        body=json.dumps({"name": "hello", "kind": "hello_token", "token": "t-123"}),
        headers={**headers, "Content-Type": "application/json"},
    )
    log = Path(server.log_path).read_text()

    assert served.status == 200
    by_name = {kind["name"]: kind for kind in json.loads(served.body)}
    assert "broken" not in by_name
    assert by_name["bearer"]["label"] == "Bearer"
    assert by_name["hello_token"]["signs_http"] is True
    assert created.status == 201
    assert json.loads(created.body)["kind"] == "hello_token"
    assert (
        "Plugin broken (weir.credential_kinds, weir_kind_broken:KIND) skipped: "
        "ImportError: no module named hello_sdk"
    ) in log
    assert (
        "Plugin bearer (weir.credential_kinds, weir_kind_clash:KIND) skipped: "
        "refused: Credential kind 'bearer' is already registered."
    ) in log
