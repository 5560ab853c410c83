"""`POST /api/credentials/:id/test` through the production server
(`python -m config.serve`), as a browser calls it."""

from __future__ import annotations

import pytest

from tests.factories import make_credential
from tests.gunicorn_server import session_headers
from tests.http_server import base

TOKEN = "tok-served-probe-123"


@pytest.mark.django_db(transaction=True)
def test_the_production_server_tests_a_token_and_refuses_a_missing_url(
    granian, alice, server
):
    server.accepts = {f"Bearer {TOKEN}"}
    credential = make_credential(alice, "stripe", secrets={"token": TOKEN})
    web = granian(threads=2, HTTP_NODE_ALLOWLIST="127.0.0.1")
    path = f"/api/credentials/{credential.id}/test"
    url = f"{base(server)}/protected"

    tested = web.post_json(path, {"url": url}, session_headers(alice))
    refused = web.post_json(path, {}, session_headers(alice))

    assert tested.status == 200
    assert tested.json() == {"ok": True, "message": f"GET {url} answered 200 OK."}
    assert refused.status == 400
    assert refused.json()["error"]["code"] == "validation_error"
    assert list(refused.json()["error"]["details"]) == ["url"]
    assert server.hits == ["/protected"]
