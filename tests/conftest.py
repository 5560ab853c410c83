"""The suite's shared cast: alice and bob, their API clients and their flows."""

from __future__ import annotations

import importlib
import os
import socket

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from rest_framework.test import APIClient

from accounts.workspaces.access import forget_accounts
from core.http import ratelimit_batched
from core.startup import HEAVY_SDKS
from flows.engine import fair_queue
from tests import db_template
from tests.factories import FlowFactory, UserFactory

# The servers and workers the suite starts leave the heavy SDKs for first use
# (2-4 s of CPU less per process); a test whose processes call a provider,
# Qdrant or an MCP server inside a tight bound sets it back to "true" (the
# browser tests' server does: it is one per worker, and chats in many tests).
os.environ.setdefault("PRELOAD_SDKS", "false")

if not settings.TESTING:
    pytest.exit("Run the tests with WEIR_TESTING=1 (make test does).", returncode=4)

# Django's test client loads the middleware anew for every client, and
# WhiteNoise, which reads static files through the finders under TESTING, then
# walks and stats every static file: ~0.1 s of CPU a test, a fifth of the
# in-process part's. Here it looks a file up when one is asked for instead.
# The servers the suite starts load it once, as production does.
settings.WHITENOISE_AUTOREFRESH = True

# The LLM protocol server fixture (`llm_server`) for agent and chat-page tests.
pytest_plugins = [
    "tests.llm_server",
    "tests.http_server",
    "tests.knowledge.bases",
    "tests.http_answers",
    "tests.oauth_provider",
    "tests.mcp_server",
    "tests.gunicorn_server",
    "tests.openapi_contract",
    "tests.processes",
]


# Fixtures that start other processes: a test using one is marked `processes`
# (tests that start one themselves carry the mark in their module).
PROCESS_FIXTURES = {
    "processes",
    "gunicorn",
    "granian",
    "web_server",
    "private_postgres",
    "frozen_redis",
}


def pytest_collection_modifyitems(items):
    for item in items:
        if PROCESS_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.processes)
        # make test runs the `timing` part on two workers with
        # `--dist loadgroup`: the timing tests that start processes (floods of
        # requests, workers under load) one after another on one worker, the
        # others, which mostly wait on a clock, beside them.
        if item.get_closest_marker("timing") and item.get_closest_marker("processes"):
            item.add_marker(pytest.mark.xdist_group("timing_processes"))
    items[:] = spread_out_processes(items)


def spread_out_processes(items: list) -> list:
    """`items` with the `processes` tests spread evenly over the first two
    thirds of the others, in their own order.

    make test runs both kinds in one pytest-xdist session, which hands each
    worker a run of consecutive tests: spread out, every worker gets a share
    of the tests that mostly wait on processes beside those that keep the CPU
    busy, and the longest waits start early instead of ending the session."""
    waiting = [item for item in items if item.get_closest_marker("processes")]
    busy = [item for item in items if not item.get_closest_marker("processes")]
    if not waiting or not busy:
        return items
    every = max(1, len(busy) * 2 // 3 // len(waiting))
    spread = []
    for index, item in enumerate(busy):
        if index % every == 0 and waiting:
            spread.append(waiting.pop(0))
        spread.append(item)
    return spread + waiting


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    django_db_modify_db_settings_parallel_suffix, tmp_path_factory, request
):
    """On SQLite the test database is a file, not memory: servers that tests
    start in other processes (tests/gunicorn_server.py) open it too. The
    suite's own connections wait 1 s for a write lock, not production's 20:
    a test that meets a lock held by its own open transaction fails in a
    second instead of twenty (the tests that need a wait set their own). On
    PostgreSQL a test database is made as a copy of one migrated template
    (tests/db_template.py)."""
    from django.conf import settings
    from django.db import connections

    database = settings.DATABASES["default"]
    if connections["default"].vendor == "postgresql":
        db_template.use_template(database, remade=request.config.option.create_db)
    if database["ENGINE"] == "django.db.backends.sqlite3":
        path = tmp_path_factory.mktemp("db") / "test.sqlite3"
        database.setdefault("TEST", {})["NAME"] = str(path)
        database["OPTIONS"]["timeout"] = 1


@pytest.fixture(scope="session", autouse=True)
def _run_files_folder(tmp_path_factory):
    """Run files' bytes in a temporary folder, never the checkout's var/
    (tests/flows/files/test_s3.py points them at an S3 server instead)."""
    from django.test import override_settings

    folder = tmp_path_factory.mktemp("run_files")
    storages = {
        **settings.STORAGES,
        "run_files": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(folder), "base_url": None},
        },
    }
    with override_settings(STORAGES=storages, RUN_FILES_DIR=folder):
        yield folder


@pytest.fixture(autouse=True)
def _no_target_cache(settings):
    """Tests change flows inside a transaction that never commits, so PostgreSQL
    never sends the NOTIFY that keeps the webhook target cache fresh: off here,
    on in tests/flows/engine/test_webhook_cache.py and on every real server
    tests start."""
    settings.WEBHOOK_TARGET_CACHE = False


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Rate limits and replay windows live in the cache, and each process's last
    count of a queue in fair_queue; no test inherits another's."""
    cache.clear()
    ratelimit_batched.forget()
    fair_queue.forget()
    forget_accounts()
    yield
    cache.clear()
    ratelimit_batched.forget()
    fair_queue.forget()


KEPT_BY_FLUSH = {"django_content_type", "auth_permission"}


@pytest.fixture(autouse=True, scope="session")
def _flush_by_delete():
    """Empty the tables after a `transactional_db` test with DELETE, not
    TRUNCATE, on PostgreSQL.

    TRUNCATE gives every table and index a new file: 0.3-1 s for the ~40
    tables, after each of the ~500 such tests, where a DELETE of the few rows
    a test leaves takes milliseconds. Django's foreign keys are deferred, so
    the order does not matter; the rows' own triggers fire as for any delete.
    Content types and permissions are kept: the flush's `post_migrate` would
    make the same rows again, at 0.1-0.3 s a test.
    """
    from django.db.backends.postgresql.operations import DatabaseOperations

    truncate = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or not tables:
            return truncate(
                self,
                style,
                tables,
                reset_sequences=reset_sequences,
                allow_cascade=allow_cascade,
            )
        deletes = [
            f"DELETE FROM {self.quote_name(table)}"
            for table in tables
            if table not in KEPT_BY_FLUSH
        ]
        return ["SET CONSTRAINTS ALL DEFERRED", *deletes]

    DatabaseOperations.sql_flush = sql_flush
    yield
    DatabaseOperations.sql_flush = truncate


@pytest.fixture(autouse=True)
def _sdks_loaded_as_in_a_worker(request):
    """A `timing` test measures what a web or task worker does, and those load
    the heavy SDKs as they boot (core/startup.py): so does this process, before
    such a test's clock starts. Other tests import them on first use."""
    if request.node.get_closest_marker("timing"):
        for name in HEAVY_SDKS:
            importlib.import_module(name)


@pytest.fixture
def back_to_the_latest_schema():
    """For a test that migrates back to an older schema: every migration is
    applied again after it, as later tests need."""
    yield
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.fixture
def alice(db):
    return UserFactory(username="alice")


@pytest.fixture
def bob(db):
    return UserFactory(username="bob")


@pytest.fixture
def anon(db):
    return APIClient()


@pytest.fixture
def api(alice):
    """An API client signed in as alice through a real session cookie."""
    client = APIClient()
    client.force_login(alice)
    return client


@pytest.fixture
def bob_api(bob):
    client = APIClient()
    client.force_login(bob)
    return client


@pytest.fixture
def alice_client(alice):
    """A page client (Django's, not the API's) signed in as alice."""
    client = Client()
    client.force_login(alice)
    return client


@pytest.fixture
def alice_flow(alice):
    return FlowFactory(created_by=alice, name="Alice's flow")


@pytest.fixture
def bob_flow(bob):
    return FlowFactory(created_by=bob, name="Bob's flow")


@pytest.fixture
def hold_slots(settings):
    """Small admission caps, and `hold(owner_id, flow_id=None, workspace_id=None)`
    to occupy a slot of this process as a run in progress would; all given
    back afterwards."""
    from core.http.admission import SLOTS
    from flows.engine.admission import caps_for

    settings.SYNC_RUNS_PER_PROCESS = 3
    settings.SYNC_RUNS_PER_OWNER = 2
    settings.SYNC_RUNS_PER_ACCOUNT = 2
    settings.SYNC_RUNS_PER_FLOW = 1
    # Held slots count as slow at once, so a caller meeting them is refused
    # without waiting.
    settings.ADMISSION_SLOW_SECONDS = 0
    held: list[tuple[int, list]] = []

    def hold(owner_id=None, flow_id=None, workspace_id=None):
        caps = caps_for(owner_id, flow_id, workspace_id)
        held.append((SLOTS.take(caps, slow_after=0), caps))

    yield hold
    for ticket, caps in held:
        SLOTS.give_back(ticket, caps)


@pytest.fixture
def node_registry():
    """The node registry, restored afterwards: a test may register its own kinds."""
    from flows.nodes import NODE_KINDS

    saved = dict(NODE_KINDS)
    yield NODE_KINDS
    NODE_KINDS.clear()
    NODE_KINDS.update(saved)


@pytest.fixture
def closed_port():
    """A loopback port where nothing listens: a service that is down."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def json_logs():
    """Every log line written during the test, as production writes them (JSON)."""
    import io
    import logging

    from core.telemetry.logs import ContextFilter, JsonFormatter

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(ContextFilter())
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.addHandler(handler)
    yield stream
    root.removeHandler(handler)


@pytest.fixture
def credential_kinds(monkeypatch):
    """The credential-kind registry, restored afterwards: a test may register
    or remove kinds."""
    from flows.credentials import kinds

    registry = dict(kinds._KINDS)
    monkeypatch.setattr(kinds, "_KINDS", registry)
    return registry
