"""A trigger that tells web processes a webhook target changed (flows/targets.py).

PostgreSQL only: SQLite has no NOTIFY, and there the cache is never used. The
columns are those of `flows.engine.store.WEBHOOK_FIELDS` (a test keeps them
equal): a flow's other columns change often (the scheduler's
`schedule_checked_at`, every second) and would empty the cache for nothing.
"""

from django.db import migrations

COLUMNS = (
    "id",
    "owner_id",
    "version",
    "nodes",
    "edges",
    "webhook_enabled",
    "webhook_secret",
    "webhook_response_mode",
)

CREATE = f"""
CREATE OR REPLACE FUNCTION weir_flow_changed() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('weir_flow_changed', OLD.id::text);
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
CREATE TRIGGER weir_flow_changed
    AFTER UPDATE OF {", ".join(COLUMNS)} OR DELETE ON flows_flow
    FOR EACH ROW EXECUTE FUNCTION weir_flow_changed();
"""
DROP = """
DROP TRIGGER IF EXISTS weir_flow_changed ON flows_flow;
DROP FUNCTION IF EXISTS weir_flow_changed();
"""


def on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("flows", "0012_flow_pins")]

    operations = [migrations.RunPython(on_postgresql(CREATE), on_postgresql(DROP))]
