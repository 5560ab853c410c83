"""What a webhook answers: the response node's output, or the run result."""

from __future__ import annotations

import pytest
from django.test import Client

from flows.models import Flow, FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, trigger


def response_flow(owner, data: dict) -> Flow:
    nodes = response_flow_nodes(data)
    edges = [{"id": "e1", "source": "trigger", "target": "reply", "sourceHandle": None}]
    return FlowFactory(created_by=owner, nodes=nodes, edges=edges)


def response_flow_nodes(data: dict) -> list[dict]:
    return [
        {
            "id": "trigger",
            "type": "webhook",
            "name": "Webhook",
            "position": {"x": 0, "y": 0},
            "data": {"method": "POST"},
        },
        {
            "id": "reply",
            "type": "response",
            "name": "Reply",
            "position": {"x": 200, "y": 0},
            "data": data,
        },
    ]


def post(flow, payload: str):
    return Client().post(
        f"/api/webhooks/{flow.id}", payload, content_type="application/json"
    )


def test_the_templated_status_headers_and_json_body_are_sent(alice):
    flow = response_flow(
        alice,
        {
            "status": 201,
            "headers": {"X-Greeted": "{{ input.name }}"},
            "body": {"hello": "{{ input.name }}", "count": "{{ input.count }}"},
        },
    )

    response = post(flow, '{"name": "Ada", "count": 3}')

    assert response.status_code == 201
    assert response["X-Greeted"] == "Ada"
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"hello": "Ada", "count": 3}
    assert FlowRun.objects.get(flow=flow).status == FlowRun.Status.SUCCEEDED


def test_a_text_body_is_sent_as_text_unless_the_node_names_a_type(alice):
    plain = response_flow(alice, {"body": "hi {{ input.name }}"})
    xml = response_flow(
        alice,
        {"body": "<hi>{{ input.name }}</hi>", "headers": {"Content-Type": "text/xml"}},
    )

    plain_response = post(plain, '{"name": "Ada"}')
    xml_response = post(xml, '{"name": "Ada"}')

    assert plain_response.status_code == 200
    assert plain_response["Content-Type"] == "text/plain; charset=utf-8"
    assert plain_response.content == b"hi Ada"
    assert xml_response["Content-Type"] == "text/xml"
    assert xml_response.content == b"<hi>Ada</hi>"


@pytest.mark.parametrize("header", ["Set-Cookie", "Transfer-Encoding", "Connection"])
def test_saving_a_response_node_with_an_unsafe_header_is_refused(api, alice, header):
    flow = response_flow(alice, {"body": "x"})
    nodes = flow.nodes
    nodes[1]["data"]["headers"] = {header: "x"}

    response = api.patch(f"/api/flows/{flow.id}", {"nodes": nodes}, format="json")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    flow.refresh_from_db()
    assert "headers" not in flow.nodes[1]["data"]


@pytest.mark.parametrize("status", [199, 600, "200"])
def test_saving_a_response_status_outside_200_to_599_is_refused(api, alice, status):
    flow = response_flow(alice, {"body": "x"})
    nodes = flow.nodes
    nodes[1]["data"]["status"] = status

    response = api.patch(f"/api/flows/{flow.id}", {"nodes": nodes}, format="json")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"


def test_a_header_value_injecting_a_new_line_fails_the_run(alice):
    flow = response_flow(alice, {"headers": {"X-Name": "{{ input.name }}"}})

    response = post(flow, '{"name": "Ada\\r\\nSet-Cookie: a=b"}')

    assert response.status_code == 500
    assert "Set-Cookie" not in response
    assert response.json()["status"] == "failed"
    assert FlowRun.objects.get(flow=flow).status == FlowRun.Status.FAILED


@pytest.mark.parametrize(
    "status, body, content_type",
    [
        (404, "no such order", "text/plain; charset=utf-8"),
        (400, "<error>bad</error>", "application/xml"),
        (422, {"ok": False}, "application/json"),
        (503, "down for a minute", "text/plain; charset=utf-8"),
    ],
)
def test_an_error_status_from_the_flow_reaches_the_caller_as_sent(
    alice, status, body, content_type
):
    """The API's error envelope is for Weir's errors, never the flow's own answer."""
    headers = {"X-Flow": "yes"}
    if content_type == "application/xml":
        headers["Content-Type"] = content_type
    flow = response_flow(alice, {"status": status, "headers": headers, "body": body})

    response = post(flow, "{}")

    assert response.status_code == status
    assert response["Content-Type"] == content_type
    assert response["X-Flow"] == "yes"
    expected = body.encode() if isinstance(body, str) else b'{"ok": false}'
    assert response.content == expected
    assert FlowRun.objects.get(flow=flow).status == FlowRun.Status.SUCCEEDED


def test_a_templated_status_is_saved_through_the_api(api):
    nodes = response_flow_nodes({"status": "{{ input.code }}", "body": "x"})
    body = {"name": "Reply", "nodes": nodes, "edges": []}

    response = api.post("/api/flows", body, format="json")

    assert response.status_code == 201
    flow = Flow.objects.get(id=response.json()["id"])
    assert flow.nodes[1]["data"]["status"] == "{{ input.code }}"


def test_the_status_can_be_a_template_rendered_at_run_time(alice):
    flow = response_flow(alice, {"status": "{{ input.code }}", "body": "queued"})

    number = post(flow, '{"code": 202}')
    text = post(flow, '{"code": "201"}')

    assert number.status_code == 202
    assert number.content == b"queued"
    assert text.status_code == 201
    runs = FlowRun.objects.filter(flow=flow)
    assert {run.response["status"] for run in runs} == {201, 202}


@pytest.mark.parametrize("code", ["700", '"abc"', "true", "199", "null", "201.5"])
def test_a_templated_status_outside_200_to_599_fails_the_run(alice, code):
    flow = response_flow(alice, {"status": "{{ input.code }}", "body": "x"})

    response = post(flow, f'{{"code": {code}}}')

    assert response.status_code == 500
    body = response.json()
    assert body["status"] == "failed"
    assert body["error"]["node_id"] == "reply"
    assert body["error"]["code"] == "invalid_status"
    run = FlowRun.objects.get(flow=flow)
    assert run.status == FlowRun.Status.FAILED
    assert run.response is None


def test_a_stored_status_outside_200_to_599_is_never_sent(alice):
    """A status the API would refuse, written straight to the database."""
    flow = response_flow(alice, {"status": 99, "body": "x"})

    response = post(flow, "{}")

    assert response.status_code == 500
    assert response.json()["error"]["code"] == "invalid_status"
    assert FlowRun.objects.get(flow=flow).status == FlowRun.Status.FAILED


def test_a_header_value_outside_latin_1_fails_the_run(alice):
    flow = response_flow(alice, {"headers": {"X-Name": "{{ input.name }}"}})

    response = post(flow, '{"name": "Ada 😀"}')

    assert response.status_code == 500
    assert "X-Name" not in response
    assert response.json()["error"]["code"] == "invalid_header"
    assert FlowRun.objects.get(flow=flow).status == FlowRun.Status.FAILED


def test_a_latin_1_header_value_is_sent(alice):
    flow = response_flow(alice, {"headers": {"X-Name": "{{ input.name }}"}})

    response = post(flow, '{"name": "Zoë"}')

    assert response.status_code == 200
    assert response["X-Name"] == "Zoë"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "source",
    ["return 'a\\u0000b';", "return ['\\ud800'];"],
    ids=["nul", "lone-surrogate"],
)
def test_an_unstorable_output_fails_the_run_and_the_webhook_says_so(alice, source):
    """Before, on PostgreSQL, a code node returning "\\u0000" made the webhook
    answer 500 `internal_error` and left the run `running` forever. Committed for
    real (transaction=True), as a server does."""
    nodes, edges = chain(trigger(), code("c", source))
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    response = post(flow, "{}")

    assert response.status_code == 500
    body = response.json()
    assert body["error"]["code"] == "invalid_output"
    assert body["error"]["node_id"] == "c"
    run = FlowRun.objects.get(flow=flow)
    assert str(run.id) == body["run_id"]
    assert run.status == FlowRun.Status.FAILED
    assert run.finished_at is not None
    assert run.steps.get(node_id="c").status == "failed"


def test_a_header_value_with_a_control_character_answers_invalid_header(alice):
    flow = response_flow(
        alice, {"headers": {"X-Name": "a{{ String.fromCharCode(11) }}b"}}
    )

    response = post(flow, "{}")

    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    assert "X-Name" not in response
    assert response.json()["error"]["code"] == "invalid_header"
    assert FlowRun.objects.get(flow=flow).status == FlowRun.Status.FAILED
