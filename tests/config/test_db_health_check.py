"""A pooled PostgreSQL connection the server ended is replaced before a request
uses it, and a healthy one is kept without a round trip (config/db/postgresql)."""

from __future__ import annotations

import io
import os
import resource

import psycopg
import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.db import connection

from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, trigger
from tests.waiting import wait_until

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL only"),
]


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def end_session(pid: int) -> None:
    """What a restart or an idle timeout does: the server ends the session."""
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    with psycopg.connect(**params, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [pid])
    wait_until(lambda: not connection.is_usable(), 5, 0.01)


def post_through_wsgi(path: str, body: bytes) -> str:
    """A request through Django's WSGI handler, as gunicorn sends it: unlike
    the test client, it checks pooled connections when the request starts."""
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(body)),
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.input": io.BytesIO(body),
        "wsgi.url_scheme": "http",
        "wsgi.errors": io.StringIO(),
    }
    status = []
    response = WSGIHandler()(environ, lambda line, headers: status.append(line))
    b"".join(response)
    response.close()
    return status[0]


def test_a_webhook_after_the_server_ended_the_session_runs_on_a_new_one():
    flow = FlowFactory(nodes=chain(trigger())[0], edges=[], webhook_enabled=True)
    old = backend_pid()
    end_session(old)

    assert connection.is_usable() is False
    status = post_through_wsgi(f"/api/webhooks/{flow.pk}", b'{"n": 1}')

    assert status.startswith("200"), status
    assert FlowRun.objects.filter(flow=flow, status="succeeded").count() == 1
    assert backend_pid() != old


def test_a_healthy_idle_connection_is_kept_without_asking_the_server(monkeypatch):
    old = backend_pid()
    driver = connection.connection

    def no_query(*args, **kwargs):
        raise AssertionError("the health check sent a query")

    monkeypatch.setattr(driver, "cursor", no_query)
    assert connection.is_usable() is True
    monkeypatch.undo()
    assert backend_pid() == old


@pytest.fixture
def many_open_files():
    """Over 1,024 files open, as in a busy process, so a new socket's number
    is past what select() can watch. Call it to fill the numbers freed since
    (the test's own closed connection, another thread's socket): a new file
    takes the lowest free number, so the next socket's is past 1,100."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2048:
        pytest.skip("the hard limit on open files is under 2,048")
    resource.setrlimit(resource.RLIMIT_NOFILE, (2048, hard))
    files: list[int] = []

    def fill():
        while not files or files[-1] < 1100:
            files.append(os.open(os.devnull, os.O_RDONLY))

    yield fill
    for fd in files:
        os.close(fd)
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_connection_numbered_past_1024_is_still_judged_without_a_query(
    many_open_files, monkeypatch
):
    connection.close()
    many_open_files()  # the closed connection's number taken too
    connection.ensure_connection()
    assert connection.connection.fileno() > 1024
    old = backend_pid()

    def no_query(*args, **kwargs):
        raise AssertionError("the health check sent a query")

    monkeypatch.setattr(connection.connection, "cursor", no_query)
    assert connection.is_usable() is True
    monkeypatch.undo()
    assert backend_pid() == old
    connection.close()  # not left on a number the next test's limit forbids
