"""The run store's hot statements are prepared on PostgreSQL, and can be told
not to be (`DB_PREPARED_STATEMENTS`, for a pooler that cannot keep them)."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection

from flows.engine import sql, store
from flows.engine.new_run import new_run
from flows.models import FlowRun
from tests.config.test_settings import PRODUCTION_ENV, print_settings
from tests.factories import FlowFactory
from tests.flows.graphs import chain, trigger

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="prepared statements: PostgreSQL"
    ),
]


@pytest.fixture
def flow():
    return FlowFactory(nodes=chain(trigger())[0], edges=[])


def prepared_statements() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in cursor.fetchall()]


def fast_run(flow) -> FlowRun:
    """A fast synchronous run's one write: the whole run with its steps."""
    run = new_run(flow, "webhook", {"name": "Ada"}, {})
    step = {"run_id": run.id, "position": 0, "node_id": "t", "status": "succeeded"}
    assert store.finish_run(run, "succeeded", {"t": {}}, None, 1.0, steps=[step])
    return run


def test_a_fast_run_is_written_by_a_statement_prepared_once(flow):
    first, second = fast_run(flow), fast_run(flow)

    whole_run = [text for text in prepared_statements() if "flows_runstep" in text]
    assert len(whole_run) == 1, prepared_statements()
    assert FlowRun.objects.filter(pk__in=[first.pk, second.pk]).count() == 2
    assert FlowRun.objects.get(pk=second.pk).input == {"name": "Ada"}


def test_with_preparing_off_runs_are_stored_and_nothing_is_prepared(flow):
    connection.ensure_connection()
    driver = connection.connection
    kept, driver.prepare_threshold = driver.prepare_threshold, None  # the setting off
    before = prepared_statements()
    try:
        run = fast_run(flow)
        assert prepared_statements() == before
    finally:
        driver.prepare_threshold = kept
    assert FlowRun.objects.get(pk=run.pk).status == "succeeded"


def test_a_prepared_statement_still_raises_django_errors(flow):
    """Callers catch django.db's IntegrityError (a run whose flow is gone);
    here a negative step position breaks a check constraint."""
    with pytest.raises(IntegrityError):
        sql.execute(
            "default",
            "INSERT INTO flows_runstep (run_id, position, node_id, node_type,"
            " node_name, status, handle, logs, attempts)"
            " VALUES (gen_random_uuid(), -1, 'n', '', '', 'succeeded', '', '[]', '[]')",
            [],
        )


@pytest.mark.parametrize(
    ("value", "threshold"), [("", "2147483647"), ("false", "None")]
)
def test_the_setting_decides_whether_connections_prepare(value, threshold):
    env = {**PRODUCTION_ENV, "DATABASE_URL": "postgres://u@127.0.0.1:5432/weir"}
    if value:
        env["DB_PREPARED_STATEMENTS"] = value
    options = "s.DATABASES['default']['OPTIONS']"
    result = print_settings(f"{options}['prepare_threshold']", env)

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == threshold
