"""The webhook target cache (flows/engine/webhook_cache.py): fewer reads, never stale.

These tests commit (transaction=True), as the API and the admin do, so that
PostgreSQL sends the trigger's NOTIFY to the cache's listener thread.
"""

from __future__ import annotations

import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from flows.engine import plan, store, webhook_cache
from flows.models import Flow
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, trigger
from tests.processes import needs_postgres
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), needs_postgres]
CACHE = webhook_cache.targets
FLOW_TABLE = connection.ops.quote_name(Flow._meta.db_table)


@pytest.fixture(autouse=True)
def cache_on(settings):
    settings.WEBHOOK_TARGET_CACHE = True
    CACHE.webhook_target(FlowFactory().pk)  # starts the listener
    assert wait_until(lambda: CACHE.listening, 10)
    yield
    CACHE.stop()


def code_flow(owner, body: str) -> Flow:
    nodes, edges = chain(trigger(), code("c", body))
    return FlowFactory(created_by=owner, nodes=nodes, edges=edges)


def post(client, flow, body="{}"):
    return client.post(
        f"/api/webhooks/{flow.pk}", body, content_type="application/json"
    )


def flow_reads(queries) -> int:
    """Reads of the flow's row for its target; not the run's INSERT, which
    checks in the same statement that its flow still exists."""
    return sum(
        f"FROM {FLOW_TABLE}" in q["sql"] and "INSERT INTO" not in q["sql"]
        for q in queries
    )


def cached(flow) -> bool:
    return flow.pk in CACHE._flows


def test_a_webhook_reads_its_flow_once_then_from_memory(alice, client):
    flow = code_flow(alice, "return 1;")

    with CaptureQueriesContext(connection) as first:
        assert post(client, flow).status_code == 200
    with CaptureQueriesContext(connection) as second:
        assert post(client, flow).status_code == 200

    assert (flow_reads(first), flow_reads(second)) == (1, 0)


def test_each_webhook_gets_its_own_copy_of_the_cached_flow(alice):
    """What Django pickles of the cached flow (`__getstate__`, as `copy.copy`
    copies it), and what one request sets on its copy (an attribute, a related
    object, the state) stays with that request."""
    flow = code_flow(alice, "return 1;")
    first = CACHE.webhook_target(flow.pk)
    pickled = CACHE._flows[flow.pk].__getstate__()

    first.webhook_secret = "set by one request"
    first._state.fields_cache["workspace"] = "loaded by one request"
    first._state.db = "elsewhere"
    second = CACHE.webhook_target(flow.pk)

    assert second is not first and second._state is not first._state
    assert vars(second) == {**pickled, "_state": second._state}
    assert vars(second._state) == vars(pickled["_state"])
    assert second.webhook_secret == flow.webhook_secret


def test_a_cached_flow_is_planned_once_then_again_after_a_change(
    alice, api, client, monkeypatch
):
    flow = code_flow(alice, "return 1;")
    planned, make_plan = [], plan._plan
    monkeypatch.setattr(
        plan,
        "_plan",
        lambda flow, trigger: planned.append(trigger) or make_plan(flow, trigger),
    )

    answers = [post(client, flow).status_code for _ in range(3)]
    assert (answers, planned) == ([200, 200, 200], ["webhook"])
    Flow.objects.filter(pk=flow.pk).update(
        nodes=chain(trigger(), code("c", "return 2;"))[0]
    )

    assert wait_until(lambda: not cached(flow), 2)
    assert post(client, flow).json()["results"]["c"] == 2
    assert planned == ["webhook", "webhook"]


def test_methods_a_cached_flow_takes_change_with_its_webhook_node(alice, client):
    flow = code_flow(alice, "return 1;")
    assert client.get(f"/api/webhooks/{flow.pk}").status_code == 405
    nodes, _ = chain(trigger(), code("c", "return 1;"))
    nodes[0]["data"] = {"methods": ["GET", "POST"]}

    Flow.objects.filter(pk=flow.pk).update(nodes=nodes)

    assert wait_until(lambda: not cached(flow), 2)
    assert client.get(f"/api/webhooks/{flow.pk}").status_code == 200


def test_new_code_saved_through_the_api_runs_on_the_next_webhook(alice, api, client):
    flow = code_flow(alice, "return 'old';")
    assert post(client, flow).json()["results"]["c"] == "old"
    nodes, edges = chain(trigger(), code("c", "return 'new';"))

    saved = api.patch(
        f"/api/flows/{flow.pk}",
        {"name": flow.name, "nodes": nodes, "edges": edges, "version": flow.version},
        format="json",
    )

    assert saved.status_code == 200, saved.content
    assert wait_until(lambda: not cached(flow), 2)
    assert post(client, flow).json()["results"]["c"] == "new"


def test_a_disabled_webhook_is_404_at_once(alice, client):
    flow = code_flow(alice, "return 1;")
    assert post(client, flow).status_code == 200

    Flow.objects.filter(pk=flow.pk).update(webhook_enabled=False)

    assert wait_until(lambda: not cached(flow), 2)
    assert post(client, flow).status_code == 404


def test_a_rotated_secret_refuses_the_old_one(alice, client, api):
    flow = code_flow(alice, "return 1;")
    assert post(client, flow).status_code == 200  # unsigned, cached

    rotated = api.post(f"/api/flows/{flow.pk}/webhook-secret")

    assert rotated.status_code in (200, 201), rotated.content
    assert wait_until(lambda: not cached(flow), 2)
    assert post(client, flow).status_code == 401  # now it must be signed


def test_a_deleted_flow_is_404(alice, client):
    flow = code_flow(alice, "return 1;")
    assert post(client, flow).status_code == 200

    Flow.objects.filter(pk=flow.pk).delete()

    assert wait_until(lambda: not cached(flow), 2)
    assert post(client, flow).status_code == 404


def test_unrelated_columns_do_not_empty_the_cache(alice, client):
    """The scheduler writes `schedule_checked_at` every second."""
    flow = code_flow(alice, "return 1;")
    assert post(client, flow).status_code == 200

    Flow.objects.filter(pk=flow.pk).update(schedule_checked_at=timezone.now())
    time.sleep(0.3)

    assert cached(flow)


def test_the_trigger_watches_exactly_the_columns_a_webhook_reads():
    from importlib import import_module

    migration = import_module("flows.migrations.0032_webhook_signature_scheme")
    columns = {Flow._meta.get_field(name).column for name in store.WEBHOOK_FIELDS}

    assert set(migration.COLUMNS) == columns


def test_while_the_listener_is_cut_off_webhooks_read_the_database(alice, client):
    flow = code_flow(alice, "return 'old';")
    assert post(client, flow).status_code == 200
    assert cached(flow)

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            # This test database's only: other pytest-xdist workers have theirs.
            "WHERE application_name = %s AND datname = current_database()",
            [webhook_cache.LISTENER_NAME],
        )
    assert wait_until(lambda: not CACHE.listening, 5)
    nodes, edges = chain(trigger(), code("c", "return 'new';"))
    Flow.objects.filter(pk=flow.pk).update(nodes=nodes, edges=edges)  # unheard

    with CaptureQueriesContext(connection) as queries:
        answer = post(client, flow).json()
    assert answer["results"]["c"] == "new"
    assert flow_reads(queries) == 1
    # Once it listens again, it starts from an empty cache.
    assert wait_until(lambda: CACHE.listening, 10)
    assert not cached(flow)
    assert post(client, flow).json()["results"]["c"] == "new"


def test_a_deactivated_owners_webhook_is_404_at_once(alice, client):
    flow = code_flow(alice, "return 1;")
    assert post(client, flow).status_code == 200

    type(alice).objects.filter(pk=alice.pk).update(is_active=False)

    assert wait_until(lambda: not cached(flow), 2)
    assert post(client, flow).status_code == 404
