"""The webhook target cache across processes: a real gunicorn with two workers,
each with its own cache and listener, sees every committed change at once."""

from __future__ import annotations

from flows.models import Flow
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, trigger
from tests.processes import needs_postgres
from tests.waiting import wait_until

pytestmark = needs_postgres  # NOTIFY is PostgreSQL's
CALLS = 20  # enough for both workers to have cached the flow


def results(server, flow) -> set:
    answers = [server.post_json(f"/api/webhooks/{flow.pk}", {}) for _ in range(CALLS)]
    return {(a.status, a.json().get("results", {}).get("c")) for a in answers}


def test_every_worker_runs_the_new_code_as_soon_as_it_is_saved(gunicorn, alice):
    nodes, edges = chain(trigger(), code("c", "return 'old';"))
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    server = gunicorn(workers=2, threads=4, WEBHOOK_RATE_LIMIT="100000/min")
    assert results(server, flow) == {(200, "old")}

    nodes, edges = chain(trigger(), code("c", "return 'new';"))
    Flow.objects.filter(pk=flow.pk).update(nodes=nodes, edges=edges)

    # The NOTIFY is delivered as the UPDATE commits; allow for a busy machine.
    assert wait_until(lambda: results(server, flow) == {(200, "new")}, 2, 0.05)
    assert results(server, flow) == {(200, "new")}  # and it stays new


def test_a_disabled_webhook_answers_404_from_every_worker(gunicorn, alice):
    nodes, edges = chain(trigger(), code("c", "return 1;"))
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    server = gunicorn(workers=2, threads=4, WEBHOOK_RATE_LIMIT="100000/min")
    assert results(server, flow) == {(200, 1)}

    Flow.objects.filter(pk=flow.pk).update(webhook_enabled=False)

    assert wait_until(lambda: results(server, flow) == {(404, None)}, 2, 0.05)
