"""A run started again answers with its results only to a caller who may read
run data (`runs.data`, the `runs:read` scope).

A token with `flows:run` but not `runs:read` sees that a run exists, never
what it carried; `rerun` ran the stored input again and `retry` reused the
stored outputs, and both answered with every node's output: the hidden input
came back (a review of `main`, 2026-12-06).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.tokens.models import ApiToken
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, trigger

pytestmark = pytest.mark.django_db

SECRET = "CUSTOMER-DATA-7f3a"


def token(user, scopes) -> APIClient:
    _, value = ApiToken.issue(user, "t", scopes, timezone.now() + timedelta(days=1))
    return APIClient(HTTP_AUTHORIZATION=f"Bearer {value}")


@pytest.fixture
def failed_run_id(api, alice) -> str:
    nodes, edges = chain(
        trigger(),
        code("keep", "return {echo: input};"),
        code("boom", "throw new Error('fails');"),
    )
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    first = api.post(f"/api/flows/{flow.id}/run", {"card": SECRET}, format="json")
    assert first.json()["status"] == "failed"
    return first.json()["run_id"]


@pytest.mark.parametrize("verb", ["rerun", "retry"])
def test_a_token_without_runs_read_starts_it_again_without_reading_its_data(
    alice, failed_run_id, verb
):
    blind = token(alice, ["flows:read", "flows:run"])
    assert SECRET not in blind.get(f"/api/runs/{failed_run_id}").content.decode()

    again = blind.post(f"/api/runs/{failed_run_id}/{verb}")

    assert again.status_code == 200, again.content
    body = again.json()
    assert SECRET not in again.content.decode()
    assert body["results"] is None
    assert body["status"] == "failed"  # that it ran, and how it ended
    assert body["run_id"] != failed_run_id


@pytest.mark.parametrize("verb", ["rerun", "retry"])
def test_a_token_with_runs_read_gets_the_results(alice, failed_run_id, verb):
    seeing = token(alice, ["flows:read", "flows:run", "runs:read"])

    again = seeing.post(f"/api/runs/{failed_run_id}/{verb}")

    assert again.status_code == 200, again.content
    assert again.json()["results"]["keep"] == {"echo": {"card": SECRET}}
