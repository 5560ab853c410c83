"""The portable flow format: what leaves the server in an export."""

from __future__ import annotations

import pytest

from flows.api.portable import export_filename, export_node_data
from flows.models import Flow


@pytest.mark.parametrize(
    "name",
    ["Authorization", "cookie", "X-Auth-Token", "X-API-Key", "api_key", "X-Secret"],
)
def test_secret_looking_header_values_are_blanked(name):
    node = {"type": "http_request", "data": {"headers": {name: "s3cr3t"}}}

    assert export_node_data(node)["headers"] == {name: ""}


def test_templated_and_ordinary_headers_are_kept():
    headers = {"Authorization": "{{ input.token }}", "Accept": "text/plain"}
    node = {"type": "http_request", "data": {"headers": headers, "url": "x"}}

    assert export_node_data(node) == {
        "headers": headers,
        "url": "x",
        "on_http_error": "fail",
    }


def test_other_kinds_keep_their_data_as_is():
    node = {"type": "transform", "data": {"values": {"token": "abc"}}}

    assert export_node_data(node) == {"values": {"token": "abc"}}


@pytest.mark.parametrize(
    ("name", "filename"),
    [
        ("My Flow", "my-flow.weir.json"),
        ('"; rm -rf /', "rm-rf.weir.json"),
        ("ÆØÅ", "flow.weir.json"),
    ],
)
def test_the_download_name_is_a_safe_slug(name, filename):
    assert export_filename(Flow(name=name)) == filename
