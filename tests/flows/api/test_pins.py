"""Pinned outputs: set through the API, used by the builder's test runs only,
and "Run this node" on pinned or last-run upstream outputs."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.audit.models import AuditEvent
from accounts.models import Membership, Workspace
from accounts.tokens.models import ApiToken
from flows.engine import run_flow
from flows.models import Flow, FlowRun
from tests.factories import FlowFactory, webhook_code_graph
from tests.flows.graphs import chain, code, trigger

pytestmark = pytest.mark.django_db

FETCH = "throw new Error('the real API must not be called in a test run');"


@pytest.fixture
def flow(alice):
    """trigger -> fetch (would fail) -> shape -> report."""
    nodes, edges = chain(
        trigger(),
        code("fetch", FETCH),
        code("shape", "return {count: prev.items.length};"),
        code("report", "return {text: 'got ' + prev.count};"),
    )
    return FlowFactory(created_by=alice, nodes=nodes, edges=edges)


def pin(api, flow, pins):
    return api.patch(f"/api/flows/{flow.id}", {"pins": pins}, format="json")


def test_a_test_run_with_pins_uses_the_pinned_output(api, flow):
    assert pin(api, flow, {"fetch": {"items": [1, 2, 3]}}).status_code == 200

    response = api.post(f"/api/flows/{flow.id}/run?pins=true", {}, format="json")

    body = response.json()
    assert body["status"] == "succeeded"
    assert body["results"]["report"] == {"text": "got 3"}
    step = FlowRun.objects.get().steps.get(node_id="fetch")
    assert step.logs == ["Pinned output: the node did not run."]


def test_pins_never_apply_to_webhooks_or_runs_without_the_opt_in(api, client, flow):
    pin(api, flow, {"fetch": {"items": [1]}})

    hook = client.post(f"/api/webhooks/{flow.id}", {}, content_type="application/json")
    plain = api.post(f"/api/flows/{flow.id}/run", {}, format="json")

    assert hook.status_code == 500  # fetch ran for real, and failed
    assert plain.json()["status"] == "failed"
    assert plain.json()["error"]["node_id"] == "fetch"


@pytest.mark.parametrize(
    ("pins", "message"),
    [
        (["fetch"], "Pins must be an object mapping node ids to outputs."),
        ({"ghost": 1}, "'ghost' is not a node of this flow."),
        ({"trigger": {}}, "'Trigger': triggers and branching nodes cannot be pinned."),
        (
            {"fetch": "a\u0000b"},
            "The pinned output of 'Fetch'",
        ),
    ],
)
def test_bad_pins_are_refused_with_a_field_error(api, flow, pins, message):
    response = pin(api, flow, pins)

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert error["details"]["pins"][0].startswith(message)
    flow.refresh_from_db()
    assert flow.pins == {}


def test_an_oversized_pin_is_refused(api, flow, settings):
    settings.RUN_MAX_OUTPUT_BYTES = 100

    response = pin(api, flow, {"fetch": {"items": list(range(100))}})

    assert response.status_code == 400
    assert "the limit is 100" in response.json()["error"]["details"]["pins"][0]


def test_deleting_a_pinned_node_unpins_it(api, flow):
    pin(api, flow, {"fetch": {"items": []}, "shape": {"count": 0}})
    nodes = [n for n in flow.nodes if n["id"] != "shape"]
    edges = [e for e in flow.edges if "shape" not in (e["source"], e["target"])]

    response = api.patch(
        f"/api/flows/{flow.id}", {"nodes": nodes, "edges": edges}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["pins"] == {"fetch": {"items": []}}


def test_run_this_node_uses_pins_and_the_last_run_and_nothing_after(api, flow):
    pin(api, flow, {"fetch": {"items": [1, 2]}})

    response = api.post(f"/api/flows/{flow.id}/nodes/shape/run", {}, format="json")

    body = response.json()
    assert body["status"] == "succeeded"
    assert body["results"]["shape"] == {"count": 2}
    steps = dict(FlowRun.objects.get().steps.values_list("node_id", "status"))
    assert steps == {
        "trigger": "succeeded",
        "fetch": "succeeded",
        "shape": "succeeded",
        "report": "skipped",
    }


def test_run_this_node_takes_upstream_outputs_from_the_last_run(api, alice):
    nodes, edges = chain(
        trigger(),
        code("first", "return {n: input.n * 2};"),
        code("second", "return prev.n + 1;"),
    )
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    run_flow(flow, {"n": 20}, FlowRun.Trigger.MANUAL)
    flow.nodes[1]["data"]["code"] = FETCH  # "first" would fail if it ran again
    flow.save()

    response = api.post(f"/api/flows/{flow.id}/nodes/second/run")

    assert response.json()["results"]["second"] == 41


def test_run_this_node_of_an_unknown_node_is_404(api, flow, bob_api):
    assert api.post(f"/api/flows/{flow.id}/nodes/nope/run").status_code == 404
    assert bob_api.post(f"/api/flows/{flow.id}/nodes/shape/run").status_code == 404


def test_exports_leave_pins_out(api, flow):
    pin(api, flow, {"fetch": {"items": ["secret-ish test data"]}})

    exported = api.get(f"/api/flows/{flow.id}/export")

    assert "secret-ish" not in json.dumps(exported.json())


def test_a_token_without_runs_read_runs_a_node_without_the_last_runs_data(alice):
    nodes, edges = webhook_code_graph("return input;")
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    run_flow(flow, {"card": "LAST-RUN-SECRET"}, FlowRun.Trigger.MANUAL)
    later = timezone.now() + timedelta(days=1)

    def run_node(scopes):
        _, value = ApiToken.issue(alice, "t", scopes, later)
        client = APIClient(HTTP_AUTHORIZATION=f"Bearer {value}")
        return client.post(f"/api/flows/{flow.id}/nodes/greet/run")

    seeing = run_node(["flows:run", "runs:read"]).content.decode()
    assert "LAST-RUN-SECRET" in seeing
    blind = run_node(["flows:run"])
    assert blind.status_code == 200, blind.content
    assert "LAST-RUN-SECRET" not in blind.content.decode()
    assert blind.json()["results"]["greet"] == {}


def test_a_token_without_runs_read_runs_a_node_without_the_pins(api, alice, flow):
    pin(api, flow, {"fetch": {"items": ["PINNED"]}})
    _, value = ApiToken.issue(
        alice, "t", ["flows:run"], timezone.now() + timedelta(days=1)
    )
    client = APIClient(HTTP_AUTHORIZATION=f"Bearer {value}")

    body = client.post(f"/api/flows/{flow.id}/nodes/shape/run").json()

    assert body["status"] == "failed"
    assert body["error"]["node_id"] == "fetch"  # it ran again: the pin is unused
    assert "PINNED" not in json.dumps(body)


@pytest.mark.parametrize("role, shown", [("viewer", False), ("runner", True)])
def test_pins_are_shown_only_to_a_role_that_reads_run_data(
    alice, bob, bob_api, flow, role, shown
):
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="owner")
    Membership.objects.create(workspace=team, user=bob, role=role)
    Flow.objects.filter(pk=flow.pk).update(
        workspace=team, pins={"fetch": {"card": "PINNED-RUN-DATA"}}
    )

    one = bob_api.get(f"/api/flows/{flow.id}").json()
    [listed] = bob_api.get("/api/flows").json()
    page = Client()
    page.force_login(bob)
    builder = page.get(f"/flows/{flow.id}/").content.decode()

    assert ("pins" in one) is shown
    assert ("PINNED-RUN-DATA" in json.dumps(listed)) is shown
    assert ("PINNED-RUN-DATA" in builder) is shown


@pytest.mark.parametrize("mode", ["", "&async=true"])
def test_a_token_without_runs_read_runs_the_flow_without_the_pins(
    api, alice, flow, mode
):
    """R6's hole on the whole-flow run: `?pins=true` (the builder's test
    runs) must not hand a `flows:run` token the pinned copies of run outputs."""
    pin(api, flow, {"fetch": {"items": ["PINNED"]}})
    _, value = ApiToken.issue(
        alice, "t", ["flows:run"], timezone.now() + timedelta(days=1)
    )
    client = APIClient(HTTP_AUTHORIZATION=f"Bearer {value}")

    response = client.post(f"/api/flows/{flow.id}/run?pins=true{mode}")

    assert response.status_code in (200, 202), response.content
    assert "PINNED" not in response.content.decode()
    run = FlowRun.objects.get()
    assert not run.request_meta.get("use_pins")  # a queued run ignores them too
    if not mode:
        assert response.json()["error"]["node_id"] == "fetch"  # it ran for real


def test_run_this_node_is_in_the_audit_log_like_any_run_started_by_hand(
    api, alice, flow
):
    response = api.post(f"/api/flows/{flow.id}/nodes/shape/run", {}, format="json")

    assert response.status_code == 200
    run = FlowRun.objects.get()
    event = AuditEvent.objects.get(action="run.started")
    assert (event.actor, event.target_id) == (alice, str(run.pk))
    assert event.changes == {"flow_id": str(flow.pk), "status": run.status}
