"""Values the database cannot store never make a 500 or a run stuck `running`.

NUL characters, lone surrogates and deep nesting (core/storable.py) are refused
wherever they come in: a node's output fails the node with `invalid_output`, a
run's input is a 400, and what Weir writes around user data (logs, error
messages, a decoded HTTP body) has them replaced by U+FFFD.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from core.storable import MAX_NESTING
from flows.engine import run_flow
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, node, trigger

pytestmark = pytest.mark.django_db


def code_flow(owner, source: str):
    nodes, edges = chain(
        trigger(), code("c", source), node("after", "transform", values={"a": "1"})
    )
    return FlowFactory(created_by=owner, nodes=nodes, edges=edges)


def nested_js(depth: int) -> str:
    return f"let o = 1; for (let i = 0; i < {depth}; i++) o = [o]; return o;"


@pytest.mark.parametrize(
    "source",
    [
        "return 'a\\u0000b';",
        "return '\\ud800';",
        "return {['k\\u0000']: 1};",
        "return {deep: ['\\udc00']};",
        nested_js(MAX_NESTING + 1),
        nested_js(900),
        nested_js(1200),
    ],
    ids=[
        "nul",
        "lone-surrogate",
        "nul-in-key",
        "nested-surrogate",
        "one-level-too-deep",
        "900-deep",
        "1200-deep",
    ],
)
def test_an_unstorable_node_output_fails_the_node_and_the_run_is_stored(
    api, alice, source
):
    flow = code_flow(alice, source)

    response = api.post(f"/api/flows/{flow.id}/run")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "failed"
    assert body["error"]["node_id"] == "c"
    assert body["error"]["code"] == "invalid_output"
    run = FlowRun.objects.get(flow=flow)
    assert run.status == FlowRun.Status.FAILED
    assert run.results == {"trigger": {}}
    assert [(s.node_id, s.status) for s in run.steps.all()] == [
        ("trigger", "succeeded"),
        ("c", "failed"),
    ]
    assert api.get(f"/api/runs/{run.id}").status_code == 200
    assert api.get(f"/runs/{run.id}/").status_code == 200


def test_nesting_at_the_limit_is_a_normal_output(api, alice):
    flow = code_flow(alice, nested_js(MAX_NESTING - 1))

    response = api.post(f"/api/flows/{flow.id}/run")

    assert response.json()["status"] == "succeeded"
    assert FlowRun.objects.get(flow=flow).status == FlowRun.Status.SUCCEEDED


def test_nul_and_surrogates_in_logs_and_errors_are_replaced_not_fatal(api, alice):
    flow = code_flow(
        alice, "console.log('log \\u0000 \\ud800'); throw new Error('bad \\ud800');"
    )

    response = api.post(f"/api/flows/{flow.id}/run")

    body = response.json()
    assert body["error"]["code"] == "code_error"
    assert "\x00" not in body["error"]["message"]
    assert "bad \ufffd" in body["error"]["message"]
    step = FlowRun.objects.get(flow=flow).steps.get(node_id="c")
    assert step.logs == ["log \ufffd \ufffd"]
    assert "bad \ufffd" in step.error["message"]


def test_a_response_node_with_an_unstorable_body_leaves_no_response(api, alice):
    nodes, edges = chain(
        trigger(), node("reply", "response", body="x{{ String.fromCharCode(0xd800) }}")
    )
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    run = run_flow(flow, {}, FlowRun.Trigger.WEBHOOK)

    run.refresh_from_db()
    assert run.status == FlowRun.Status.FAILED
    assert run.error["code"] == "invalid_output"
    assert run.response is None


@pytest.mark.parametrize(
    "payload",
    [
        '{"a": "\\u0000"}',
        '{"\\u0000": 1}',
        '{"a": ["\\ud800"]}',
        '{"a": ' + "[" * 500 + "]" * 500 + "}",
        '{"a": ' + "[" * MAX_NESTING + "]" * MAX_NESTING + "}",
        '{"name": 1e400}',
        '{"a": [-2.5E+999]}',
    ],
    ids=[
        "nul",
        "nul-key",
        "lone-surrogate",
        "500-deep",
        "one-level-too-deep",
        "infinite-number",
        "negative-infinite-number",
    ],
)
def test_an_unstorable_run_input_is_a_400_and_starts_no_run(api, alice_flow, payload):
    response = api.post(
        f"/api/flows/{alice_flow.id}/run", payload, content_type="application/json"
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert FlowRun.objects.count() == 0


def test_run_flow_itself_fails_a_run_whose_input_cannot_be_stored(alice_flow):
    """Agents' tool calls reach run_flow without the API's check: the last guard."""
    run = run_flow(alice_flow, {"q": "tool \x00 args"}, FlowRun.Trigger.AGENT)

    run.refresh_from_db()
    assert run.status == FlowRun.Status.FAILED
    assert run.error["code"] == "invalid_input"
    assert run.input == {}
    assert run.steps.count() == 0


class BinaryHandler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        body = {
            "/pixel.gif": (b"GIF89a\x00\x01binary", "image/gif"),
            "/nul.json": (b'{"a": "x\\u0000y"}', "application/json"),
            "/deep.json": (b"[" * 5000 + b"]" * 5000, "application/json"),
            "/huge.json": (b'{"total": 1e400}', "application/json"),
        }[self.path]
        self.send_response(200)
        self.send_header("Content-Type", body[1])
        self.send_header("Content-Length", str(len(body[0])))
        self.end_headers()
        self.wfile.write(body[0])


@pytest.fixture
def binary_server(settings):
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.1"]
    server = ThreadingHTTPServer(("127.0.0.1", 0), BinaryHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def fetch_flow(owner, url: str, **data):
    fetch = node("h", "http_request", method="GET", url=url, **data)
    nodes, edges = chain(trigger(), fetch)
    return FlowFactory(created_by=owner, nodes=nodes, edges=edges)


def test_nul_bytes_in_a_fetched_body_are_replaced(api, alice, binary_server):
    # Read as text on purpose: `auto` would keep an image as a run file.
    flow = fetch_flow(alice, f"{binary_server}/pixel.gif", response_format="text")

    response = api.post(f"/api/flows/{flow.id}/run")

    assert response.status_code == 200
    assert response.json()["status"] == "succeeded"
    run = FlowRun.objects.get(flow=flow)
    assert run.results["h"]["body"] == "GIF89a\ufffd\x01binary"


def test_a_fetched_json_value_with_a_nul_fails_the_node(api, alice, binary_server):
    flow = fetch_flow(alice, f"{binary_server}/nul.json")

    response = api.post(f"/api/flows/{flow.id}/run")

    assert response.json()["error"]["code"] == "invalid_output"
    assert FlowRun.objects.get(flow=flow).status == FlowRun.Status.FAILED


def test_fetched_json_too_deep_to_parse_fails_the_node(api, alice, binary_server):
    flow = fetch_flow(alice, f"{binary_server}/deep.json")

    response = api.post(f"/api/flows/{flow.id}/run")

    assert response.json()["error"]["code"] == "invalid_output"
    assert FlowRun.objects.get(flow=flow).status == FlowRun.Status.FAILED


def test_a_fetched_number_too_large_to_store_fails_the_node(api, alice, binary_server):
    flow = fetch_flow(alice, f"{binary_server}/huge.json")

    response = api.post(f"/api/flows/{flow.id}/run")

    assert response.status_code == 200
    assert response.json()["error"]["code"] == "invalid_output"
    run = FlowRun.objects.get(flow=flow)
    assert run.status == FlowRun.Status.FAILED
    assert run.error["node_id"] == "h"
