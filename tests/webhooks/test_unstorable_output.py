"""A webhook whose flow makes an unstorable value answers with the run, not a 500.

Before, on PostgreSQL, a code node returning "\\u0000" made the webhook answer
500 `internal_error` and left the run `running` forever. Committed for real
(transaction=True), as a server does.
"""

from __future__ import annotations

import pytest
from django.test import Client

from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, trigger

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    "source",
    ["return 'a\\u0000b';", "return ['\\ud800'];"],
    ids=["nul", "lone-surrogate"],
)
def test_an_unstorable_output_fails_the_run_and_the_webhook_says_so(alice, source):
    nodes, edges = chain(trigger(), code("c", source))
    flow = FlowFactory(owner=alice, nodes=nodes, edges=edges)

    response = Client().post(
        f"/api/webhooks/{flow.id}", "{}", content_type="application/json"
    )

    assert response.status_code == 500
    body = response.json()
    assert body["error"]["code"] == "invalid_output"
    assert body["error"]["node_id"] == "c"
    run = FlowRun.objects.get(flow=flow)
    assert str(run.id) == body["run_id"]
    assert run.status == FlowRun.Status.FAILED
    assert run.finished_at is not None
    assert run.steps.get(node_id="c").status == "failed"
