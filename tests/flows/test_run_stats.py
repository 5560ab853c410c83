"""Run statistics for the Runs page's chart, and `GET /api/runs/stats`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from flows.models import FlowRun
from tests.factories import FlowFactory, FlowRunFactory

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 23, 12, 30, tzinfo=UTC)


def run_at(flow, moment, duration=None, **fields):
    run = FlowRunFactory(flow=flow, duration_ms=duration, **fields)
    FlowRun.objects.filter(pk=run.pk).update(created_at=moment)
    return run


def test_24h_counts_runs_per_hour_by_status_with_percentiles(alice_flow):
    this_hour = NOW.replace(minute=5)
    for duration in range(1, 21):  # 20 runs: 1..20 ms
        run_at(alice_flow, this_hour, float(duration))
    run_at(alice_flow, this_hour - timedelta(hours=2), 7.0, status="failed")
    run_at(alice_flow, NOW - timedelta(hours=30), 1.0)  # outside the range

    stats = FlowRun.objects.stats("24h", now=NOW)

    assert (stats["range"], stats["bucket"]) == ("24h", "hour")
    assert stats["since"] == "2026-11-22T13:00:00+00:00"
    assert len(stats["buckets"]) == 24
    last, two_ago = stats["buckets"][-1], stats["buckets"][-3]
    assert last["start"] == "2026-11-23T12:00:00+00:00"
    assert last["total"] == 20
    assert last["counts"]["succeeded"] == 20
    assert (last["p50"], last["p95"]) == (10.0, 19.0)  # nearest rank
    assert two_ago["counts"]["failed"] == 1
    assert (two_ago["p50"], two_ago["p95"]) == (7.0, 7.0)
    assert stats["buckets"][0]["total"] == 0
    assert stats["buckets"][0]["p50"] is None
    assert stats["total"] == 21
    assert stats["counts"]["failed"] == 1
    assert (stats["p50"], stats["p95"]) == (10.0, 19.0)


def test_30d_counts_per_day(alice_flow):
    run_at(alice_flow, NOW - timedelta(days=29), 5.0)
    run_at(alice_flow, NOW - timedelta(days=31), 5.0)

    stats = FlowRun.objects.stats("30d", now=NOW)

    assert stats["bucket"] == "day"
    assert len(stats["buckets"]) == 30
    assert stats["buckets"][0]["start"] == "2026-10-25T00:00:00+00:00"
    assert stats["buckets"][0]["total"] == 1
    assert stats["total"] == 1


def test_runs_still_running_count_but_have_no_duration(alice_flow):
    run_at(alice_flow, NOW, None, status="running")

    stats = FlowRun.objects.stats("7d", now=NOW)

    assert len(stats["buckets"]) == 168
    assert stats["counts"]["running"] == 1
    assert (stats["p50"], stats["p95"]) == (None, None)


def test_the_stats_endpoint_counts_only_the_callers_runs(api, alice_flow, bob_flow):
    run_at(alice_flow, datetime.now(UTC), 3.0)
    run_at(bob_flow, datetime.now(UTC), 9.0)

    response = api.get("/api/runs/stats?range=7d")

    assert response.status_code == 200
    body = response.json()
    assert body["total"] == 1
    assert body["p95"] == 3.0
    assert len(body["buckets"]) == 168


def test_the_stats_cost_the_same_queries_for_many_runs(
    api, alice, django_assert_num_queries
):
    flows = [FlowFactory(created_by=alice) for _ in range(3)]
    now = datetime.now(UTC)
    for index in range(60):
        run_at(flows[index % 3], now - timedelta(hours=index % 20), float(index))

    # session, user; counts, percentiles per bucket, percentiles overall
    with django_assert_num_queries(5):
        response = api.get("/api/runs/stats")

    assert response.json()["total"] == 60


def test_an_unknown_range_is_a_validation_error(api):
    response = api.get("/api/runs/stats?range=1y")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert error["details"] == {"range": ["Choose a range of 24h, 7d, 30d."]}


def test_anonymous_gets_401_on_the_stats(anon):
    response = anon.get("/api/runs/stats")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
