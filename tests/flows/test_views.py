"""The server-rendered pages: who may see them and what they show."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from flows.engine import run_flow
from flows.engine.background import enqueue_run
from flows.models import FlowRun
from flows.nodes import NODE_KINDS, http_request
from tests.factories import PASSWORD, AgentFactory, FlowFactory, FlowRunFactory


@pytest.fixture
def alice_run(alice_flow):
    return run_flow(alice_flow, {"name": "Ada"}, FlowRun.Trigger.MANUAL)


@pytest.fixture
def bob_run(bob_flow):
    return FlowRunFactory(flow=bob_flow)


def left_panel(html: str) -> str:
    match = re.search(r'<aside class="panel left-panel".*?</aside>', html, re.S)
    assert match, "the builder has a left panel"
    return match.group(0)


def json_script(html: str, element_id: str):
    match = re.search(
        rf'<script id="{element_id}" type="application/json">(.*?)</script>', html, re.S
    )
    return json.loads(match.group(1))


@pytest.mark.parametrize("path", ["/", "/agents/"])
def test_anonymous_visitors_are_sent_to_the_login_page(db, path):
    response = Client().get(path)

    assert response.status_code == 302
    assert response["Location"] == f"/login/?next={path}"


def test_anonymous_visitors_cannot_open_a_builder_or_a_run(alice_flow, alice_run):
    client = Client()

    for path in (f"/flows/{alice_flow.id}/", f"/runs/{alice_run.id}/"):
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/login/?next=")


def test_the_login_page_shows_the_error_next_to_the_form(alice):
    response = Client().post(
        "/login/", {"username": "alice", "password": "wrong"}, follow=False
    )

    assert response.status_code == 200
    assert "Wrong username or password" in response.content.decode()


def test_the_login_page_signs_in_with_the_right_password(alice):
    client = Client()
    response = client.post("/login/", {"username": "alice", "password": PASSWORD})

    assert response.status_code == 302
    assert response["Location"] == "/"
    assert client.get("/").status_code == 200


def test_the_flow_list_shows_only_the_users_own_flows(
    alice_client, alice_flow, bob_flow
):
    response = alice_client.get("/")

    html = response.content.decode()
    assert response.status_code == 200
    assert "Alice&#x27;s flow" in html
    assert "Bob&#x27;s flow" not in html


def test_the_flow_list_shows_node_count_last_run_and_webhook_state(alice_client, alice):
    flow = FlowFactory(created_by=alice, name="Greeter", webhook_enabled=False)
    FlowRunFactory(flow=flow, status=FlowRun.Status.SUCCEEDED)
    FlowRunFactory(flow=flow, status=FlowRun.Status.TIMED_OUT)

    html = alice_client.get("/").content.decode()

    row = re.search(r'<tr class="flow-row".*?</tr>', html, re.S).group(0)
    assert '<td class="num">2</td>' in row
    assert "status-timed_out" in row
    assert '<span class="pill off">Off</span>' in row


def test_the_flow_list_has_an_empty_state(alice_client):
    html = alice_client.get("/").content.decode()

    assert 'id="empty-flows"' in html
    assert "No flows yet" in html


def test_the_flow_list_costs_the_same_queries_for_many_flows(
    alice_client, alice, django_assert_max_num_queries
):
    for index in range(5):
        FlowRunFactory(flow=FlowFactory(created_by=alice, name=f"Flow {index}"))

    # Session, user, the user's workspaces (the switcher, and which flows)
    # with their pending invitations (the header's link), and one query for
    # the flows with their latest run.
    with django_assert_max_num_queries(4):
        response = alice_client.get("/")

    assert response.content.decode().count('class="flow-row"') == 5


def test_the_builder_shows_the_webhook_url_in_the_left_panel(
    alice_client, alice_flow, settings
):
    settings.BASE_URL = "https://weir.example.com"

    html = alice_client.get(f"/flows/{alice_flow.id}/").content.decode()

    panel = left_panel(html)
    url = f"https://weir.example.com/api/webhooks/{alice_flow.id}"
    assert f'<code class="url-box" id="webhook-url">{url}</code>' in panel
    assert json_script(html, "flow-data")["webhook_url"] == url


def test_the_webhook_panel_selects_the_flows_response_mode(alice_client, alice):
    flow = FlowFactory(created_by=alice, webhook_response_mode="immediately")

    html = alice_client.get(f"/flows/{flow.id}/").content.decode()

    panel = left_panel(html)
    assert '<select id="webhook-response-mode"' in panel
    assert '<option value="immediately" selected>' in panel
    assert '<option value="completed" >When the flow completes</option>' in panel


def test_the_builder_passes_the_flow_and_every_node_kind_as_json(
    alice_client, alice_flow
):
    html = alice_client.get(f"/flows/{alice_flow.id}/").content.decode()

    flow_data = json_script(html, "flow-data")
    assert flow_data["nodes"] == alice_flow.nodes
    assert flow_data["edges"] == alice_flow.edges
    assert flow_data["version"] == alice_flow.version
    kinds = [kind["type"] for kind in json_script(html, "node-kinds")]
    # The built-in kinds, those apps register (agents), then plugins' (hello).
    assert kinds == [
        "webhook",
        "form",
        "schedule",
        "code",
        "condition",
        "switch",
        "transform",
        "list",
        "http_request",
        "delay",
        "call_flow",
        "for_each",
        "wait",
        "response",
        "stop",
        "send_email",
        "postgres_query",
        "mcp_tool",
        "knowledge_search",
        "app_action",
        "agent",
        "hello",
    ]
    assert 'data-kind="http_request"' in left_panel(html)


def test_every_node_kind_carries_its_form_fields_and_default_data(
    alice_client, alice_flow
):
    html = alice_client.get(f"/flows/{alice_flow.id}/").content.decode()

    kinds = {kind["type"]: kind for kind in json_script(html, "node-kinds")}
    assert set(kinds) == set(NODE_KINDS)
    for type_name, kind in kinds.items():
        registered = NODE_KINDS[type_name]
        assert kind["default_data"] == registered.default_data
        assert kind["fields"], f"{type_name} declares no inspector fields"
        for field in kind["fields"]:
            assert field["path"].startswith("data.")
            assert field["label"]
            assert field["path"][len("data.") :] in kind["default_data"]
    http_method = kinds["http_request"]["fields"][0]
    assert http_method["path"] == "data.method"
    assert http_method["options"] == list(http_request.METHODS)
    assert "OPTIONS" in http_method["options"]


def test_a_flow_name_cannot_break_out_of_the_json_script(alice_client, alice):
    attack = "</script><script>alert(1)</script>"
    flow = FlowFactory(created_by=alice, name=attack)

    html = alice_client.get(f"/flows/{flow.id}/").content.decode()

    assert "<script>alert(1)" not in html
    assert json_script(html, "flow-data")["name"] == attack


def test_another_users_flow_is_not_found_in_the_builder(alice_client, bob_flow):
    response = alice_client.get(f"/flows/{bob_flow.id}/")

    assert response.status_code == 404
    assert "Bob" not in response.content.decode()


def test_an_unknown_flow_id_is_not_found(alice_client):
    assert alice_client.get("/flows/not-a-uuid/").status_code == 404
    missing = "/flows/00000000-0000-0000-0000-000000000000/"
    assert alice_client.get(missing).status_code == 404


def test_the_run_page_shows_each_step_in_order(alice_client, alice_run):
    html = alice_client.get(f"/runs/{alice_run.id}/").content.decode()

    steps = re.findall(r'<li class="timeline-step status-(\w+)">', html)
    assert steps == ["succeeded", "succeeded"]
    assert html.index("Webhook") < html.index("Greet")
    assert "&quot;greeting&quot;: &quot;hi Ada&quot;" in html


def test_the_run_page_escapes_outputs_and_logs(alice_client, alice):
    attack = "<img src=x onerror=alert(1)>"
    nodes = [
        {"id": "t", "type": "webhook", "name": "T", "data": {}},
        {
            "id": "c",
            "type": "code",
            "name": "C",
            "data": {"code": f"console.log({attack!r}); return {attack!r};"},
        },
    ]
    edges = [{"id": "e", "source": "t", "target": "c", "sourceHandle": None}]
    run = run_flow(
        FlowFactory(created_by=alice, nodes=nodes, edges=edges), {}, "manual"
    )

    html = alice_client.get(f"/runs/{run.id}/").content.decode()

    assert run.status == "succeeded"
    assert attack not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_another_users_run_is_not_found(alice_client, bob_run):
    response = alice_client.get(f"/runs/{bob_run.id}/")

    assert response.status_code == 404


def test_the_agents_page_lists_active_agents(alice_client):
    AgentFactory(name="Echo")
    AgentFactory(name="Retired", is_active=False)

    html = alice_client.get("/agents/").content.decode()

    assert "Echo" in html
    assert "Retired" not in html


def test_the_run_page_shows_why_a_run_failed(alice_client, alice):
    nodes = [
        {"id": "t", "type": "webhook", "name": "T", "data": {}},
        {
            "id": "c",
            "type": "code",
            "name": "Brew coffee",
            "data": {"code": "throw new Error('no coffee');"},
        },
    ]
    edges = [{"id": "e", "source": "t", "target": "c", "sourceHandle": None}]
    run = run_flow(
        FlowFactory(created_by=alice, nodes=nodes, edges=edges), {}, "manual"
    )

    html = alice_client.get(f"/runs/{run.id}/").content.decode()

    assert run.status == "failed"
    assert "<strong>Brew coffee failed</strong>" in html
    assert "no coffee" in html
    assert re.findall(r'<li class="timeline-step status-(\w+)">', html) == [
        "succeeded",
        "failed",
    ]


def test_the_builder_says_how_long_run_history_is_kept(
    alice_client, alice_flow, settings
):
    settings.RUN_RETENTION_DAYS = 30
    settings.RUN_RETENTION_MAX_PER_FLOW = 10_000

    html = alice_client.get(f"/flows/{alice_flow.id}/").content.decode()

    assert (
        "Run history is kept for 30 days and up to the newest 10,000 runs; "
        "pinned runs are kept." in html
    )


def test_the_builder_says_history_is_kept_when_no_limit_is_set(
    alice_client, alice_flow, settings
):
    settings.RUN_RETENTION_DAYS = 0
    settings.RUN_RETENTION_MAX_PER_FLOW = 0

    html = alice_client.get(f"/flows/{alice_flow.id}/").content.decode()

    assert "Run history is kept until you delete it." in html


def test_the_flows_address_redirects_to_the_flow_list(alice_client):
    response = alice_client.get("/flows/")

    assert response.status_code == 302
    assert response["Location"] == "/"


def test_a_queued_run_page_offers_cancel_and_follows_the_run(alice_client, alice_flow):
    run = enqueue_run(alice_flow, {}, FlowRun.Trigger.MANUAL)

    html = alice_client.get(f"/runs/{run.id}/").content.decode()

    assert '<button type="button" id="run-cancel" >Cancel run</button>' in html
    assert "js/run_detail.js" in html


def test_a_finished_run_page_has_no_cancel(alice_client, alice_run):
    html = alice_client.get(f"/runs/{alice_run.id}/").content.decode()

    assert "run-cancel" not in html
    assert "run_detail.js" not in html
