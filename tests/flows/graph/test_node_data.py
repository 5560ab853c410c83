"""Each node kind's `data` is checked when a flow is saved (400 validation_error)."""

from __future__ import annotations

import pytest

from flows.graph import validate_graph
from flows.models import Flow
from tests.flows.graphs import node, trigger


def problems(*nodes):
    return validate_graph([trigger(), *nodes], []).as_details().get("nodes", [])


def fields(*nodes):
    return [(p["index"], p["field"]) for p in problems(*nodes)]


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"language": "javascript"}, "data.code"),
        ({"language": "javascript", "code": ""}, "data.code"),
        ({"language": "javascript", "code": "   "}, "data.code"),
        ({"language": "javascript", "code": 42}, "data.code"),
        ({"language": "python", "code": "return 1"}, "data.language"),
        ({"language": "javascript", "code": "x" * 100_001}, "data.code"),
    ],
)
def test_bad_code_node_data_is_refused(data, field):
    assert fields(node("c", "code", **data)) == [(1, field)]


def test_a_code_node_with_javascript_is_valid():
    assert problems(node("c", "code", language="javascript", code="return 1")) == []


@pytest.mark.parametrize("data", [{}, {"expression": ""}, {"expression": 3}])
def test_a_condition_needs_an_expression(data):
    assert fields(node("c", "condition", **data)) == [(1, "data.expression")]


@pytest.mark.parametrize("values", [None, "text", ["a"]])
def test_a_transform_needs_an_object_of_values(values):
    assert fields(node("t", "transform", values=values)) == [(1, "data.values")]


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"url": "https://example.com", "method": "FETCH"}, "data.method"),
        ({"method": "GET"}, "data.url"),
        ({"url": "ftp://example.com"}, "data.url"),
        ({"url": "file:///etc/passwd"}, "data.url"),
        ({"url": "https://example.com", "timeout_ms": 0}, "data.timeout_ms"),
        ({"url": "https://example.com", "timeout_ms": 10**9}, "data.timeout_ms"),
        ({"url": "https://example.com", "timeout_ms": "5"}, "data.timeout_ms"),
        ({"url": "https://example.com", "headers": {"X": 1}}, "data.headers"),
    ],
)
def test_bad_http_request_data_is_refused(data, field):
    assert fields(node("h", "http_request", **data)) == [(1, field)]


def test_an_http_request_with_a_templated_url_is_valid():
    data = {"method": "POST", "url": "{{ input.url }}", "timeout_ms": 500}
    assert problems(node("h", "http_request", **data)) == []


@pytest.mark.parametrize("ms", [-1, 30_001, "10", None, 1.5, True])
def test_a_delay_needs_whole_milliseconds_within_the_run_limit(ms):
    assert fields(node("d", "delay", ms=ms)) == [(1, "data.ms")]


@pytest.mark.parametrize("status", [199, 600, "200", True])
def test_a_response_status_must_be_200_to_599(status):
    assert fields(node("r", "response", status=status)) == [(1, "data.status")]


@pytest.mark.parametrize(
    "header",
    [
        "Set-Cookie",
        "set-cookie",
        "Connection",
        "Transfer-Encoding",
        "Content-Length",
        "Keep-Alive",
        "Upgrade",
        "TE",
        "Trailer",
        "Proxy-Authenticate",
        "Proxy-Connection",
    ],
)
def test_a_response_may_not_set_unsafe_headers(header):
    assert problems(node("r", "response", headers={header: "x"})) == [
        {
            "index": 1,
            "field": "data.headers",
            "message": f"Header {header!r} cannot be set by a flow.",
        }
    ]


@pytest.mark.parametrize(
    "name", ["X-Ünï", "Bad Name", "Bad Name:", "X:Y", "X\tY", "(x)", "", " "]
)
def test_a_response_header_name_must_be_an_http_token(name):
    assert problems(node("r", "response", headers={name: "x"})) == [
        {
            "index": 1,
            "field": "data.headers",
            "message": f"Header name {name!r} is not a valid HTTP field name "
            "(letters, digits and !#$%&'*+-.^_`|~ only).",
        }
    ]


@pytest.mark.parametrize(
    "value", ["a\r\nSet-Cookie: x=y", "a\nb", "nul\x00", "emoji 😀", "{{ x }}\n"]
)
def test_a_response_header_value_must_be_one_line_of_latin_1(value):
    assert problems(node("r", "response", headers={"X-Note": value})) == [
        {
            "index": 1,
            "field": "data.headers",
            "message": "Header 'X-Note' must be one line of Latin-1 text without "
            "control characters.",
        }
    ]


def test_a_response_status_may_be_a_template():
    assert problems(node("r", "response", status="{{ input.code }}")) == []


def test_a_response_with_ordinary_headers_is_valid():
    data = {"status": 201, "headers": {"X-Id": "{{ input.id }}"}, "body": {"a": 1}}
    assert problems(node("r", "response", **data)) == []


def test_a_webhook_trigger_takes_only_http_methods_it_knows():
    details = validate_graph([node("t", "webhook", methods=["GET", "TRACE"])], [])

    assert details.as_details()["nodes"] == [
        {
            "index": 0,
            "field": "data.methods",
            "message": "Choose one or more of GET, POST, PUT, PATCH, DELETE.",
        }
    ]


def test_a_webhook_keeps_at_most_fifty_named_headers():
    names = [f"x-{n}" for n in range(51)]
    details = validate_graph([node("t", "webhook", keep_headers=names)], [])

    assert details.as_details()["nodes"][0]["field"] == "data.keep_headers"


@pytest.mark.django_db
def test_saving_a_flow_with_bad_node_data_answers_400_with_the_node_index(api):
    body = {
        "name": "Broken",
        "nodes": [trigger(), node("c", "code", language="javascript", code="")],
        "edges": [],
    }

    response = api.post("/api/flows", body, format="json")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert error["details"]["nodes"] == [
        {"index": 1, "field": "data.code", "message": "Code must be non-empty text."}
    ]
    assert not Flow.objects.exists()


@pytest.mark.django_db
def test_patching_a_response_node_with_set_cookie_is_refused(api, alice_flow):
    nodes = [*alice_flow.nodes, node("r", "response", headers={"Set-Cookie": "a=b"})]

    response = api.patch(f"/api/flows/{alice_flow.id}", {"nodes": nodes}, format="json")

    assert response.status_code == 400
    assert response.json()["error"]["details"]["nodes"][0]["field"] == "data.headers"
    alice_flow.refresh_from_db()
    assert len(alice_flow.nodes) == 2


@pytest.mark.django_db
def test_saving_a_response_header_that_is_not_a_token_answers_400(api):
    body = {
        "name": "Reply",
        "nodes": [trigger(), node("r", "response", headers={"Bad Name:": "x"})],
        "edges": [],
    }

    response = api.post("/api/flows", body, format="json")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert error["details"]["nodes"] == [
        {
            "index": 1,
            "field": "data.headers",
            "message": "Header name 'Bad Name:' is not a valid HTTP field name "
            "(letters, digits and !#$%&'*+-.^_`|~ only).",
        }
    ]
    assert not Flow.objects.exists()
