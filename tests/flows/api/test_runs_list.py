"""Run history with filters: `GET /api/flows/:id/runs` and `GET /api/runs`."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from flows.models import FlowRun
from tests.factories import FlowFactory, FlowRunFactory

pytestmark = pytest.mark.django_db


def run_at(flow, when: str, **fields) -> FlowRun:
    """A run created at `when` (ISO 8601, UTC)."""
    run = FlowRunFactory(flow=flow, **fields)
    moment = datetime.fromisoformat(when).replace(tzinfo=UTC)
    FlowRun.objects.filter(pk=run.pk).update(created_at=moment)
    return run


@pytest.fixture
def history(alice_flow):
    """Four runs of alice's flow on two days, different statuses and triggers."""
    return {
        "early_ok": run_at(alice_flow, "2026-11-20T08:00:00"),
        "early_failed": run_at(alice_flow, "2026-11-20T09:00:00", status="failed"),
        "late_webhook": run_at(alice_flow, "2026-11-21T10:00:00", trigger="webhook"),
        "late_failed_webhook": run_at(
            alice_flow, "2026-11-21T11:00:00", status="failed", trigger="webhook"
        ),
    }


def ids(response) -> list[str]:
    return [item["id"] for item in response.json()["results"]]


def names(history, *keys) -> list[str]:
    return [str(history[key].id) for key in keys]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("", ["late_failed_webhook", "late_webhook", "early_failed", "early_ok"]),
        ("status=failed", ["late_failed_webhook", "early_failed"]),
        ("trigger=webhook", ["late_failed_webhook", "late_webhook"]),
        ("status=failed&trigger=manual", ["early_failed"]),
        ("since=2026-11-21", ["late_failed_webhook", "late_webhook"]),
        ("until=2026-11-20", ["early_failed", "early_ok"]),
        (
            "since=2026-11-20T08:30:00Z&until=2026-11-21T11:00:00Z",
            ["late_webhook", "early_failed"],
        ),
        (
            "since=2026-11-20T10:30:00%2B02:00",
            ["late_failed_webhook", "late_webhook", "early_failed"],
        ),
    ],
)
def test_a_flows_history_filters_by_status_trigger_and_date(
    api, alice_flow, history, query, expected
):
    response = api.get(f"/api/flows/{alice_flow.id}/runs?{query}")

    assert response.status_code == 200
    assert ids(response) == names(history, *expected)
    assert response.json()["count"] == len(expected)


def test_the_history_pages_through_every_run(api, alice_flow):
    for hour in range(25):
        run_at(alice_flow, f"2026-11-20T{hour % 24:02d}:00:00", status="failed")

    first = api.get(f"/api/flows/{alice_flow.id}/runs?status=failed").json()
    second = api.get(f"/api/flows/{alice_flow.id}/runs?status=failed&page=2").json()

    assert first["count"] == 25
    assert len(first["results"]) == 20
    assert len(second["results"]) == 5
    assert second["next"] is None
    seen = {item["id"] for item in first["results"] + second["results"]}
    assert len(seen) == 25


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("status=exploded", "status"),
        ("trigger=carrier-pigeon", "trigger"),
        ("since=yesterday", "since"),
        ("until=2026-13-45", "until"),
    ],
)
def test_a_bad_filter_is_a_validation_error_naming_it(api, alice_flow, query, field):
    response = api.get(f"/api/flows/{alice_flow.id}/runs?{query}")
    across = api.get(f"/api/runs?{query}")

    for answer in (response, across):
        assert answer.status_code == 400
        error = answer.json()["error"]
        assert error["code"] == "validation_error"
        assert list(error["details"]) == [field]
        assert f"'{field}'" in error["message"]


def test_the_runs_list_spans_the_users_flows_only(api, alice, history, bob_flow):
    other = FlowFactory(created_by=alice, name="Second")
    newest = run_at(other, "2026-11-22T00:00:00")
    run_at(bob_flow, "2026-11-22T01:00:00")

    response = api.get("/api/runs")

    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 5
    assert body["results"][0]["id"] == str(newest.id)
    assert body["results"][0]["flow_name"] == "Second"
    assert body["results"][0]["flow"] == str(other.id)
    assert {"input", "results", "steps"}.isdisjoint(body["results"][0])


def test_the_runs_list_takes_the_same_filters(api, history):
    response = api.get("/api/runs?status=failed&trigger=webhook&since=2026-11-21")

    assert ids(response) == names(history, "late_failed_webhook")


def test_the_runs_list_costs_the_same_queries_for_many_runs(
    api, alice, django_assert_num_queries
):
    for index in range(30):
        run_at(FlowFactory(created_by=alice), f"2026-11-20T{index % 24:02d}:00:00")

    # session, user, page (flows joined): a first page that is not full is its
    # own count (flows/run_pages.py)
    with django_assert_num_queries(3):
        response = api.get("/api/runs?page_size=100")

    assert len(response.json()["results"]) == 30


def test_anonymous_gets_401_on_the_runs_list(anon, history):
    response = anon.get("/api/runs")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"


def test_one_run_is_still_there_under_its_id(api, history):
    run = history["early_ok"]

    response = api.get(f"/api/runs/{run.id}")

    assert response.status_code == 200
    assert response.json()["steps"] == []
