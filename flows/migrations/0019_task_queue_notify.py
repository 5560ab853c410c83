"""A trigger that wakes idle run workers when a task is queued.

flows/engine/queue_listener.py waits for it.

`NOTIFY weir_task_queued` from every INSERT into django-tasks-db's queue table,
once per statement, in the enqueueing transaction: PostgreSQL delivers it when
that transaction commits, so a worker never wakes before the task is visible.
A trigger rather than a call in our enqueue, so every path that enqueues
(webhooks, the run endpoint, the supervisor, a retry) wakes the workers.
PostgreSQL only: SQLite has no NOTIFY, and its workers poll briefly instead.
"""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION weir_task_queued() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('weir_task_queued', '');
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
CREATE TRIGGER weir_task_queued
    AFTER INSERT ON django_tasks_database_dbtaskresult
    FOR EACH STATEMENT EXECUTE FUNCTION weir_task_queued();
"""
DROP = """
DROP TRIGGER IF EXISTS weir_task_queued ON django_tasks_database_dbtaskresult;
DROP FUNCTION IF EXISTS weir_task_queued();
"""


def on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("flows", "0018_merge_nodes_wait"),
        ("django_tasks_database", "0021_conditional_partial_index_ordering"),
    ]

    operations = [migrations.RunPython(on_postgresql(CREATE), on_postgresql(DROP))]
