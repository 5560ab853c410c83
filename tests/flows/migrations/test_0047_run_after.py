"""0047: a run queued to retry before runs were their own tasks keeps its wait:
its `run_after` is the end of the wait its lease was set from; other queued
runs stay due at once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.flows.migrations.test_0033_http_request_on_http_error_output import (
    migrate,
)

BEFORE = [("flows", "0046_form_password")]
AFTER = [("flows", "0047_run_after")]


@pytest.mark.django_db(transaction=True)
def test_a_run_queued_to_retry_is_not_taken_before_its_wait_ends(
    back_to_the_latest_schema,
):
    old = migrate(BEFORE)
    ada = old.get_model("auth", "User").objects.create(username="ada")
    team = old.get_model("accounts", "Workspace").objects.create(name="Ops", slug="ops")
    flow = old.get_model("flows", "Flow").objects.create(
        created_by=ada, workspace=team, name="Retries"
    )
    FlowRun = old.get_model("flows", "FlowRun")
    wait_ends = timezone.now() + timedelta(minutes=5)
    retrying = FlowRun.objects.create(
        flow=flow,
        status="queued",
        background=True,
        retry_state={"node_id": "boom", "attempts": []},
        lease_expires_at=wait_ends + timedelta(seconds=60),  # background.requeue's
    )
    fresh = FlowRun.objects.create(
        flow=flow,
        status="queued",
        background=True,
        lease_expires_at=timezone.now() + timedelta(seconds=60),
    )

    new = migrate(AFTER)

    runs = new.get_model("flows", "FlowRun").objects
    assert abs(runs.get(pk=retrying.pk).run_after - wait_ends) < timedelta(seconds=1)
    assert runs.get(pk=fresh.pk).run_after is None
