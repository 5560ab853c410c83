"""The admin index's runs at a glance: last hour by status, queue, oldest running."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from flows.models import FlowRun
from tests.factories import FlowRunFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff():
    client = Client()
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    return client


def aged(minutes: float, **fields) -> FlowRun:
    run = FlowRunFactory(**fields)
    created = timezone.now() - timedelta(minutes=minutes)
    FlowRun.objects.filter(pk=run.pk).update(created_at=created)
    return run


def overview_of(response) -> str:
    html = response.content.decode()
    start = html.index('id="run-overview"')
    return html[start : html.index("</table>", start)]


def test_the_admin_index_counts_the_last_hours_runs_by_status(staff):
    aged(5, status="succeeded")
    aged(10, status="succeeded")
    aged(20, status="failed")
    aged(90, status="failed")  # older than an hour

    response = staff.get("/admin/")

    assert response.status_code == 200
    overview = overview_of(response)
    assert "Last hour (3)" in overview
    assert "succeeded: 2" in overview
    assert "failed: 1" in overview
    assert "timed_out: 0" in overview


def test_the_admin_index_shows_the_queue_depth_and_the_oldest_running_run(staff):
    aged(1, status="queued")
    aged(2, status="queued")
    aged(3, status="running", flow__name="Recent job")
    aged(125, status="running", flow__name="Stuck job")

    overview = overview_of(staff.get("/admin/"))

    assert '<td id="queue-depth">2 queued</td>' in overview
    stuck = FlowRun.objects.get(flow__name="Stuck job")
    assert f"/admin/flows/flowrun/{stuck.pk}/change/" in overview
    assert "Stuck job</a>, running for 2" in overview and "hours" in overview


def test_the_admin_index_says_none_when_nothing_runs(staff):
    overview = overview_of(staff.get("/admin/"))

    assert "Last hour (0)" in overview
    assert '<td id="queue-depth">0 queued</td>' in overview
    assert '<td id="oldest-running">none</td>' in overview


def test_the_overview_costs_three_queries(staff, django_assert_num_queries):
    aged(3, status="running")
    with django_assert_num_queries(3 + 3):  # session, user, app list's log + ours
        staff.get("/admin/")
