"""The run endpoints: run a flow, list its runs, show one run with its steps."""

from __future__ import annotations

import json

import pytest

from flows.engine import run_flow
from flows.models import FlowRun
from tests.factories import FlowFactory, FlowRunFactory
from tests.flows.graphs import chain, chain_flow, code, trigger

pytestmark = pytest.mark.django_db


def test_running_a_flow_with_a_json_object_answers_the_run_result(api, alice_flow):
    response = api.post(
        f"/api/flows/{alice_flow.id}/run", {"name": "Ada"}, format="json"
    )

    assert response.status_code == 200
    body = response.json()
    assert body["success"] is True
    assert body["status"] == "succeeded"
    assert body["results"]["greet"] == {"greeting": "hi Ada"}
    assert body["error"] is None
    run = FlowRun.objects.get(pk=body["run_id"])
    assert run.trigger == "manual"
    assert run.input == {"name": "Ada"}
    assert run.steps.count() == 2


def test_running_with_no_body_uses_an_empty_input(api, alice):
    flow = chain_flow(trigger(), code("a", "return input"), created_by=alice)

    response = api.post(f"/api/flows/{flow.id}/run")

    assert response.status_code == 200
    assert response.json()["results"]["a"] == {}
    assert FlowRun.objects.get().input == {}


def test_a_failed_run_still_answers_200_with_success_false(api, alice):
    nodes, edges = chain(trigger(), code("boom", "throw new Error('bad')"))
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    response = api.post(f"/api/flows/{flow.id}/run", {}, format="json")

    assert response.status_code == 200
    body = response.json()
    assert body["success"] is False
    assert body["status"] == "failed"
    assert body["error"]["node_id"] == "boom"
    assert body["error"]["code"] == "code_error"
    assert FlowRun.objects.get().status == "failed"


@pytest.mark.parametrize("payload", ["[1, 2]", '"text"', "3", "null"])
def test_a_body_that_is_not_a_json_object_is_refused(api, alice_flow, payload):
    response = api.post(
        f"/api/flows/{alice_flow.id}/run", payload, content_type="application/json"
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert not FlowRun.objects.exists()


def test_malformed_json_is_invalid_json(api, alice_flow):
    response = api.post(
        f"/api/flows/{alice_flow.id}/run", "{nope", content_type="application/json"
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_json"
    assert not FlowRun.objects.exists()


def test_anonymous_cannot_run_a_flow(anon, alice_flow):
    response = anon.post(f"/api/flows/{alice_flow.id}/run", {}, format="json")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
    assert not FlowRun.objects.exists()


def test_running_another_users_flow_is_not_found(api, bob_flow):
    response = api.post(f"/api/flows/{bob_flow.id}/run", {}, format="json")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert not FlowRun.objects.exists()


def test_the_runs_list_is_newest_first_and_paginated(
    api, alice_flow, django_assert_max_num_queries
):
    runs = [run_flow(alice_flow, {"n": n}, "manual") for n in range(22)]

    with django_assert_max_num_queries(6):
        response = api.get(f"/api/flows/{alice_flow.id}/runs")

    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 22
    assert [item["id"] for item in body["results"]] == [
        str(run.id) for run in reversed(runs)
    ][:20]
    first = body["results"][0]
    assert first["status"] == "succeeded"
    assert first["trigger"] == "manual"
    assert first["duration"] > 0
    second_page = api.get(body["next"]).json()
    assert [item["id"] for item in second_page["results"]] == [
        str(runs[1].id),
        str(runs[0].id),
    ]


def test_the_runs_list_shows_only_that_flows_runs(api, alice, alice_flow):
    FlowRunFactory(flow=FlowFactory(created_by=alice))
    mine = FlowRunFactory(flow=alice_flow)

    body = api.get(f"/api/flows/{alice_flow.id}/runs").json()

    assert [item["id"] for item in body["results"]] == [str(mine.id)]


def test_anonymous_cannot_list_runs(anon, alice_flow):
    response = anon.get(f"/api/flows/{alice_flow.id}/runs")

    assert response.status_code == 401


def test_another_users_runs_are_not_found(api, bob_flow):
    FlowRunFactory(flow=bob_flow)

    response = api.get(f"/api/flows/{bob_flow.id}/runs")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_a_run_shows_with_every_step(api, alice_flow):
    run = run_flow(alice_flow, {"name": "Ada"}, "manual")

    response = api.get(f"/api/runs/{run.id}")

    assert response.status_code == 200
    body = response.json()
    assert body["id"] == str(run.id)
    assert body["flow"] == str(alice_flow.id)
    assert body["status"] == "succeeded"
    assert body["input"] == {"name": "Ada"}
    assert body["results"]["greet"] == {"greeting": "hi Ada"}
    assert [step["node_id"] for step in body["steps"]] == ["trigger", "greet"]
    step = body["steps"][1]
    assert step["status"] == "succeeded"
    assert step["output"] == {"greeting": "hi Ada"}
    assert step["logs"] == []
    assert step["error"] is None
    assert step["started_at"] and step["finished_at"]
    assert step["duration"] >= 0


def test_anonymous_cannot_see_a_run(anon, alice_flow):
    run = FlowRunFactory(flow=alice_flow)

    assert anon.get(f"/api/runs/{run.id}").status_code == 401


def test_another_users_run_is_not_found(api, bob_flow):
    run = FlowRunFactory(flow=bob_flow)

    response = api.get(f"/api/runs/{run.id}")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_a_malformed_run_id_is_not_found(api):
    response = api.get("/api/runs/not-a-uuid")

    assert response.status_code == 404
    assert json.loads(response.content)["error"]["code"] == "not_found"


def test_a_timed_out_run_answers_200_with_its_status(api, alice, settings):
    settings.CODE_TIMEOUT_MS = 200
    flow = chain_flow(trigger(), code("spin", "while (true) {}"), created_by=alice)

    response = api.post(f"/api/flows/{flow.id}/run", {}, format="json")

    assert response.status_code == 200
    body = response.json()
    assert body["success"] is False
    assert body["status"] == "timed_out"
    assert body["error"]["node_id"] == "spin"
    assert FlowRun.objects.get().status == "timed_out"


def test_a_body_that_is_not_json_is_unsupported(api, alice_flow):
    response = api.post(
        f"/api/flows/{alice_flow.id}/run", "name=Ada", content_type="text/plain"
    )

    assert response.status_code == 415
    assert response.json()["error"]["code"] == "unsupported_media_type"
    assert not FlowRun.objects.exists()


def test_a_run_shows_each_attempt_of_a_node_that_retried(api, alice):
    boom = {**code("boom", "throw new Error('flaky');"), "retry": {"max_attempts": 2}}
    nodes, edges = chain(trigger(), boom)
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    run = run_flow(flow, {}, FlowRun.Trigger.MANUAL)

    response = api.get(f"/api/runs/{run.id}")

    assert response.status_code == 200
    step = next(s for s in response.json()["steps"] if s["node_id"] == "boom")
    assert [(a["attempt"], a["status"]) for a in step["attempts"]] == [
        (1, "failed"),
        (2, "failed"),
    ]
    assert "flaky" in step["attempts"][1]["error"]["message"]
