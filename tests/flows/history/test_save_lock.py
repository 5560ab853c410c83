"""A flow being saved still takes new runs.

`save_flow` locks the flow's row until its transaction ends, so that two
saves meet `If-Match` one after the other. A new run's INSERT checks its
foreign key with a key-share lock on the same row: under `FOR UPDATE` it
waited for the save (webhooks and the lease thread's inserts stalled for as
long as a save's transaction lasted); under `FOR NO KEY UPDATE` it does not.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction

from accounts.audit.actor import Actor
from flows.history import save
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.processes import needs_postgres

pytestmark = [needs_postgres, pytest.mark.django_db(transaction=True)]


def test_a_run_of_a_flow_mid_save_is_stored_without_waiting(alice, monkeypatch):
    flow = FlowFactory(created_by=alice, name="Before")
    locked, release = threading.Event(), threading.Event()
    write_version = save._write_version

    def held(*args, **kwargs):
        locked.set()  # the flow's row is locked now, until the save commits
        release.wait(10)
        return write_version(*args, **kwargs)

    monkeypatch.setattr("flows.history.save._write_version", held)

    def saving():
        try:
            save.save_flow(flow, {"name": "After"}, actor=Actor(), source="edit")
        finally:
            connection.close()

    saver = threading.Thread(target=saving)
    saver.start()
    try:
        assert locked.wait(10)
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '2s'")
            FlowRun.objects.create(flow=flow, trigger="manual", status="running")
    finally:
        release.set()
        saver.join(10)

    assert FlowRun.objects.filter(flow=flow).count() == 1
    flow.refresh_from_db()
    assert (flow.name, flow.version) == ("After", 2)
