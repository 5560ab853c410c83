"""A flow's webhook may be signed the way GitHub, Stripe or Slack sign (issue 36):
`webhook_signature_scheme`, and the flow-changed trigger (0028) written again
to watch it too, since a webhook reads it (`COLUMNS`, which a test keeps equal
to `flows.engine.store.WEBHOOK_FIELDS`)."""

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
    "webhook_signature_scheme",
    "webhook_response_mode",
)
BEFORE = tuple(column for column in COLUMNS if column != "webhook_signature_scheme")


def trigger(columns):
    sql = f"""
DROP TRIGGER IF EXISTS weir_flow_changed ON flows_flow;
CREATE TRIGGER weir_flow_changed
    AFTER UPDATE OF {", ".join(columns)} OR DELETE ON flows_flow
    FOR EACH ROW EXECUTE FUNCTION weir_flow_changed();
"""

    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("flows", "0031_workspaces_and_audit_move_to_accounts")]

    operations = [
        migrations.AddField(
            model_name="flow",
            name="webhook_signature_scheme",
            field=models.CharField(
                choices=[
                    ("standard", "Standard Webhooks"),
                    ("github", "GitHub (X-Hub-Signature-256)"),
                    ("stripe", "Stripe (Stripe-Signature)"),
                    ("slack", "Slack (X-Slack-Signature)"),
                ],
                default="standard",
                help_text="How the webhook's deliveries are signed with the secret.",
                max_length=16,
            ),
        ),
        migrations.RunPython(trigger(COLUMNS), trigger(BEFORE)),
    ]
