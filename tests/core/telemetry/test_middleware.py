"""The request id: a sane X-Request-ID is kept, anything else replaced; returned."""

from __future__ import annotations

import json
import re

import pytest


def test_a_request_without_an_id_gets_a_fresh_one(anon):
    first = anon.get("/healthz")["X-Request-ID"]
    second = anon.get("/healthz")["X-Request-ID"]

    assert re.fullmatch(r"[0-9a-f]{32}", first)
    assert first != second


def test_a_sane_request_id_from_the_client_is_kept(anon):
    response = anon.get("/healthz", headers={"X-Request-ID": "lb-7f3a:42"})

    assert response["X-Request-ID"] == "lb-7f3a:42"


@pytest.mark.parametrize(
    "given", ["a b", "x" * 129, 'id"}, "level": "forged', "id\nnext", ""]
)
def test_an_insane_request_id_is_replaced(anon, given):
    response = anon.get("/healthz", headers={"X-Request-ID": given})

    assert re.fullmatch(r"[0-9a-f]{32}", response["X-Request-ID"])


def test_every_line_of_a_request_carries_its_id(api, json_logs):
    response = api.get("/api/flows/not-a-uuid", headers={"X-Request-ID": "req-1"})

    assert response.status_code == 404
    lines = [json.loads(line) for line in json_logs.getvalue().splitlines()]
    assert lines, "Django logs the 404"
    assert all(line["request_id"] == "req-1" for line in lines)
