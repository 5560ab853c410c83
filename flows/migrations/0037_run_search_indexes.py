"""Runs searched by their data (`/api/runs?q=`, flows/run_search.py): on
PostgreSQL two trigram GIN indexes, one on the text of a run's input, results
and error, one on the text of a step's logs, so a substring search (ILIKE)
reads the index instead of every run. SQLite has no such index and scans.

Built CONCURRENTLY (the migration is not atomic), so an existing runs table
stays writable while they are made. The expressions must stay the ones
flows/run_search.py queries with (a test compares them)."""

from django.db import migrations

RUN_TEXT = (
    "((\"input\")::text || ' ' || (\"results\")::text || ' ' "
    "|| COALESCE((\"error\")::text, ''))"
)
STEP_TEXT = '(("logs")::text)'
INDEXES = (
    ("run_search_trgm_idx", "flows_flowrun", RUN_TEXT),
    ("runstep_logs_trgm_idx", "flows_runstep", STEP_TEXT),
)


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    # On a large runs table a build takes minutes: past DB_STATEMENT_TIMEOUT_MS.
    schema_editor.execute("SET statement_timeout = 0")
    for name, table, expression in INDEXES:
        # A build this migration began before and did not finish leaves an
        # invalid index under the name: made again, not kept.
        schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")
        schema_editor.execute(
            f"CREATE INDEX CONCURRENTLY {name} ON {table} "
            f"USING gin ({expression} gin_trgm_ops)"
        )
    schema_editor.execute("RESET statement_timeout")


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, _, _ in INDEXES:
        schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("flows", "0036_run_retry_of")]

    operations = [migrations.RunPython(create, drop, elidable=False)]
