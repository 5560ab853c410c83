"""The database away answers 503 `unavailable` with Retry-After, never a 500,
and a database that stops answering cannot hold a thread for long."""

from __future__ import annotations

import contextlib
import socket
import threading
import time

import psycopg
import pytest
from django.conf import settings
from django.db import OperationalError, connection
from rest_framework.test import APIClient

from tests.factories import FlowFactory


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def database_down():
    """Every query fails as with the database gone.

    PostgreSQL: the connection goes to a closed port. SQLite's in-memory test
    database would vanish with its connection, so there each query fails the
    way a lost disk fails it (as Django presents it, an OperationalError),
    through Django's own execute-wrapper hook.
    """
    if connection.vendor != "postgresql":

        def refuse(*args):
            raise OperationalError("disk I/O error")

        with connection.execute_wrapper(refuse):
            yield
        return
    saved = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict.update(HOST="127.0.0.1", PORT=str(free_port()))
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(saved)


def assert_unavailable(response):
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "unavailable"
    assert int(response["Retry-After"]) >= 1


def test_the_api_answers_503_while_the_database_is_down(transactional_db, alice):
    flow = FlowFactory(created_by=alice)
    client = APIClient()
    client.force_login(alice)

    with database_down():
        listed = client.get("/api/flows")
        one = client.get(f"/api/flows/{flow.id}")

    assert_unavailable(listed)
    assert_unavailable(one)
    assert client.get(f"/api/flows/{flow.id}").status_code == 200


def test_a_webhook_answers_503_while_the_database_is_down(transactional_db, alice):
    flow = FlowFactory(created_by=alice)

    with database_down():
        response = APIClient().post(f"/api/webhooks/{flow.id}", {"a": 1}, format="json")

    assert_unavailable(response)
    assert (
        APIClient()
        .post(f"/api/webhooks/{flow.id}", {"a": 1}, format="json")
        .status_code
        == 200
    )


class SilentServer:
    """Accepts TCP connections and never says a word: a frozen database host."""

    def __init__(self):
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(8)
        self.port = self.socket.getsockname()[1]
        self.held = []
        threading.Thread(target=self.hold, daemon=True).start()

    def hold(self):
        while True:
            try:
                self.held.append(self.socket.accept()[0])
            except OSError:
                return


def test_a_frozen_database_host_is_given_up_on_within_the_connect_timeout():
    server = SilentServer()
    started = time.monotonic()

    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(
            host="127.0.0.1",
            port=server.port,
            user="weir",
            dbname="weir",
            **settings.POSTGRES_OPTIONS,
        )

    assert time.monotonic() - started < settings.DB_CONNECT_TIMEOUT_SECONDS + 2
    server.socket.close()
