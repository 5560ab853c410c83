"""The http_request node's answer settings are checked when a flow is saved:
each bad value is a 400 validation_error naming its field."""

from __future__ import annotations

import pytest

from flows.graph import validate_graph
from flows.nodes import NODE_KINDS
from tests.flows.graphs import node, trigger

URL = "https://api.example.com/items"


def problems(**data) -> list[tuple[str, str]]:
    graph = [trigger(), node("h", "http_request", url=URL, **data)]
    details = validate_graph(graph, []).as_details().get("nodes", [])
    return [(problem["field"], problem["message"]) for problem in details]


def fields(**data) -> list[str]:
    return [field for field, _ in problems(**data)]


def test_the_builders_new_node_starts_valid_and_failing_on_error_answers():
    data = NODE_KINDS["http_request"].default_data

    assert data["on_http_error"] == "fail"
    assert data["response_format"] == "auto"
    assert data["query"] == []
    assert data["pagination"] is None
    graph = [trigger(), {**node("h", "http_request"), "data": dict(data)}]
    assert validate_graph(graph, []).as_details() == {}


@pytest.mark.parametrize(
    "data",
    [
        {"on_http_error": "output", "response_format": "text"},
        {"response_format": "json", "query": [{"name": "q", "value": "{{ input.q }}"}]},
        {"query": [{"name": "n", "value": 1}, {"name": "n", "value": None}]},
        {"pagination": {"mode": "link", "items": "data", "max_pages": 1000}},
        {"pagination": {"mode": "cursor", "next": "meta.next", "param": "after"}},
        {"pagination": {"mode": "page", "param": "page", "start": 0}},
    ],
)
def test_good_answer_settings_are_valid(data):
    assert problems(**data) == []


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"on_http_error": "ignore"}, "data.on_http_error"),
        ({"on_http_error": None}, "data.on_http_error"),
        ({"response_format": "xml"}, "data.response_format"),
        ({"query": {"q": "x"}}, "data.query"),
        ({"query": [{"name": "", "value": "x"}]}, "data.query"),
        ({"query": [{"name": "q", "value": {"a": 1}}]}, "data.query"),
        ({"query": [{"name": "q", "other": 1}]}, "data.query"),
        ({"query": [{"name": "q"}] * 101}, "data.query"),
        ({"pagination": "link"}, "data.pagination"),
        ({"pagination": {"mode": "offset"}}, "data.pagination"),
        ({"pagination": {"mode": "link", "param": "p"}}, "data.pagination"),
        ({"pagination": {"mode": "cursor", "param": "after"}}, "data.pagination.next"),
        ({"pagination": {"mode": "cursor", "next": "n"}}, "data.pagination.param"),
        ({"pagination": {"mode": "page", "param": " "}}, "data.pagination.param"),
        ({"pagination": {"mode": "link", "items": 3}}, "data.pagination.items"),
        ({"pagination": {"mode": "link", "max_pages": 0}}, "data.pagination.max_pages"),
        (
            {"pagination": {"mode": "link", "max_pages": 1001}},
            "data.pagination.max_pages",
        ),
        (
            {"pagination": {"mode": "page", "param": "p", "start": -1}},
            "data.pagination.start",
        ),
    ],
)
def test_each_bad_answer_setting_is_refused_on_its_field(data, field):
    assert fields(**data) == [field]


def test_a_mode_names_the_settings_it_takes():
    assert problems(pagination={"mode": "link", "param": "p", "start": 1}) == [
        (
            "data.pagination",
            "Mode link takes no param, start; it takes items, max_pages, mode.",
        )
    ]


@pytest.mark.django_db
def test_a_bad_pagination_is_a_400_validation_error_naming_the_field(api, alice):
    http = node("h", "http_request", url=URL, pagination={"mode": "page"})

    response = api.post(
        "/api/flows", {"name": "Pages", "nodes": [trigger(), http]}, format="json"
    )

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert error["details"]["nodes"] == [
        {
            "index": 1,
            "field": "data.pagination.param",
            "message": "Mode page needs the query parameter.",
        }
    ]
