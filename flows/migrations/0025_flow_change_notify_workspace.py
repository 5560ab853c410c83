"""The flow-changed trigger (0013) also watches `workspace_id`: a webhook run
uses its workspace's credentials, so a flow moved to another workspace must
leave the target cache. The columns are `flows.engine.store.WEBHOOK_FIELDS`'
(a test keeps them equal). PostgreSQL only, as 0013."""

from django.db import migrations

OLD_COLUMNS = (
    "id",
    "owner_id",
    "version",
    "nodes",
    "edges",
    "webhook_enabled",
    "webhook_secret",
    "webhook_response_mode",
)
COLUMNS = (*OLD_COLUMNS[:2], "workspace_id", *OLD_COLUMNS[2:])


def trigger(columns):
    return f"""
DROP TRIGGER IF EXISTS weir_flow_changed ON flows_flow;
CREATE TRIGGER weir_flow_changed
    AFTER UPDATE OF {", ".join(columns)} OR DELETE ON flows_flow
    FOR EACH ROW EXECUTE FUNCTION weir_flow_changed();
"""


def on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("flows", "0024_merge_mcp_workspaces")]

    operations = [
        migrations.RunPython(
            on_postgresql(trigger(COLUMNS)), on_postgresql(trigger(OLD_COLUMNS))
        )
    ]
