"""The queue table's NOTIFY trigger stays quiet for an enqueue that wakes the
workers itself, after its commit (flows/engine/queue_notify.py says why).

Such an enqueue sets `weir.notify` to 'later' for its own transaction; every
other INSERT into the queue table notifies in its transaction as before.
PostgreSQL only, as migration 0019.
"""

from django.db import migrations

QUIET = """
CREATE OR REPLACE FUNCTION weir_task_queued() RETURNS trigger AS $$
BEGIN
    IF current_setting('weir.notify', true) IS DISTINCT FROM 'later' THEN
        PERFORM pg_notify('weir_task_queued', '');
    END IF;
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
"""
ALWAYS = """
CREATE OR REPLACE FUNCTION weir_task_queued() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('weir_task_queued', '');
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
"""


def on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("flows", "0029_audit_workspace")]

    operations = [migrations.RunPython(on_postgresql(QUIET), on_postgresql(ALWAYS))]
