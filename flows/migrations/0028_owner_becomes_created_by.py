"""`owner` becomes `created_by` on flows and credentials (issue 23): who made
it, kept for the record; access comes from the workspace's members. Deleting
that user no longer deletes what the workspace holds (SET_NULL).

The column is renamed, so no data moves. PostgreSQL's triggers name their
columns by number and keep working; the function of 0014 names `owner_id` in
its text, so it is written again, and the flow-changed trigger is written
again with the new column names (`COLUMNS`, which a test keeps equal to
`flows.engine.store.WEBHOOK_FIELDS`).
"""

from django.conf import settings
from django.db import migrations, models

COLUMNS = (
    "id",
    "created_by_id",
    "workspace_id",
    "version",
    "nodes",
    "edges",
    "webhook_enabled",
    "webhook_secret",
    "webhook_response_mode",
)


def trigger(columns):
    return f"""
DROP TRIGGER IF EXISTS weir_flow_changed ON flows_flow;
CREATE TRIGGER weir_flow_changed
    AFTER UPDATE OF {", ".join(columns)} OR DELETE ON flows_flow
    FOR EACH ROW EXECUTE FUNCTION weir_flow_changed();
"""


def creator_changed(column):
    return f"""
CREATE OR REPLACE FUNCTION weir_owner_changed() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('weir_flow_changed', id::text)
        FROM flows_flow WHERE {column} = NEW.id;
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
    dependencies = [
        ("flows", "0027_flow_mcp_offered"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # The flow list reads one workspace's flows now (flow_workspace_created_idx).
        migrations.RemoveIndex(model_name="flow", name="flow_owner_created_idx"),
        migrations.RenameField(model_name="flow", old_name="owner", new_name="created_by"),
        migrations.AlterField(
            model_name="flow",
            name="created_by",
            field=models.ForeignKey(
                blank=True,
                help_text="Who made it; access comes from the workspace's members.",
                null=True,
                on_delete=models.deletion.SET_NULL,
                related_name="flows",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.RenameField(
            model_name="credential", old_name="owner", new_name="created_by"
        ),
        migrations.AlterField(
            model_name="credential",
            name="created_by",
            field=models.ForeignKey(
                blank=True,
                help_text="Who made it; access comes from the workspace's members.",
                null=True,
                on_delete=models.deletion.SET_NULL,
                related_name="credentials",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.RunPython(
            on_postgresql(creator_changed("created_by_id") + trigger(COLUMNS)),
            # Backwards this runs before the column is renamed back; the
            # trigger follows the column by number, the function by its text.
            on_postgresql(creator_changed("owner_id")),
        ),
    ]
