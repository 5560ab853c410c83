"""The lease thread's INSERT of a lasting run, refused or failing
(flows/engine/deferred.py, `store_due`).

An INSERT can be refused (a value the database will not take; before flows
migration 0048, the foreign key of a flow deleted in the run's first
moments: that INSERT is now not made). Before, that exception left the tick
at once: the other lasting runs were not stored and no lease was renewed
(`renew_once` comes after it) on any tick until that run ended, so a long
run's neighbours could lose their leases and be taken from a live process.
"""

from __future__ import annotations

import threading
import time
from unittest import mock

import pytest
from django.db import IntegrityError, OperationalError, connections

from flows.engine import deferred, store
from flows.engine.new_run import new_run
from flows.models import Flow, FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_pending(alice):
    nodes, edges = chain(trigger(), node("t", "transform", values={}))
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    runs = [new_run(flow, "manual", {"n": n}, {}) for n in range(2)]
    for run in runs:
        deferred.defer(run)
    yield runs
    for run in runs:
        deferred.settle(run)


def refusing(run_id, error):
    insert = store.insert_if_flow_exists
    tried: list = []

    def insert_run(run):
        if run.pk == run_id:
            tried.append(run.pk)
            raise error
        return insert(run)

    patch = mock.patch.object(store, "insert_if_flow_exists", side_effect=insert_run)
    return patch, tried


def test_a_refused_insert_stores_the_other_runs_and_is_not_tried_again(two_pending):
    refused, other = two_pending
    patch, tried = refusing(refused.pk, IntegrityError("flow_id not present"))
    later = time.monotonic() + 1

    with patch:
        deferred.store_due(later)
        deferred.store_due(later + 0.25)

    assert FlowRun.objects.get(pk=other.pk).status == "running"
    assert not FlowRun.objects.filter(pk=refused.pk).exists()
    assert tried == [refused.pk]  # given up: stored (or refused) when it ends
    assert refused._state.adding  # so its end is an INSERT, which says why


def test_a_run_whose_flow_was_deleted_in_its_first_moments_is_not_stored(
    two_pending,
):
    gone = two_pending[0]
    Flow.objects.filter(pk=gone.flow_id).delete()

    deferred.store_due(time.monotonic() + 1)

    assert not FlowRun.objects.exists()
    assert gone._state.adding  # its end is an INSERT, which finds the flow gone too


def test_a_database_away_leaves_the_run_for_the_next_tick(two_pending):
    away, other = two_pending
    patch, tried = refusing(away.pk, OperationalError("connection refused"))
    later = time.monotonic() + 1

    with patch:
        deferred.store_due(later)
    deferred.store_due(later + 0.25)

    assert tried == [away.pk]
    assert FlowRun.objects.filter(pk__in=[away.pk, other.pk]).count() == 2


# Asserts how long it takes: `timing`, run alone by `make test`.
@pytest.mark.timing
def test_a_slow_connect_of_the_lease_thread_does_not_hold_up_the_runs_end(
    two_pending, monkeypatch
):
    """The executor ending a run waits on the lock the lease thread holds
    while it stores the run: for its INSERT only, not for its connect."""

    run = two_pending[0]
    wrapper = type(connections["default"])
    connect = wrapper.get_new_connection
    connecting = threading.Event()

    def slow_connect(self, params):
        connecting.set()
        time.sleep(1.5)
        return connect(self, params)

    monkeypatch.setattr(wrapper, "get_new_connection", slow_connect)

    def lease_tick():
        try:
            deferred.store_due(time.monotonic() + 1)
        finally:
            connections["default"].close()

    lease_thread = threading.Thread(target=lease_tick)
    lease_thread.start()
    assert connecting.wait(5)

    started = time.monotonic()
    deferred.settle(run)
    waited = time.monotonic() - started
    lease_thread.join()

    assert waited < 0.5
    assert run._state.adding  # the executor's end is the run's first write
