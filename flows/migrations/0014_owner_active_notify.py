"""A trigger that tells web processes an account was (de)activated, so the
webhook target cache (flows/engine/webhook_cache.py) drops that account's flows:
a deactivated owner's webhooks are 404 at once (issue 27 item 9).

PostgreSQL only, like 0013: it sends the same `weir_flow_changed` notice, once
per flow of the account, when `is_active` changes and at no other update.
"""

from django.conf import settings
from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION weir_owner_changed() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('weir_flow_changed', id::text)
        FROM flows_flow WHERE owner_id = NEW.id;
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
CREATE TRIGGER weir_owner_changed
    AFTER UPDATE OF is_active ON auth_user
    FOR EACH ROW WHEN (OLD.is_active IS DISTINCT FROM NEW.is_active)
    EXECUTE FUNCTION weir_owner_changed();
"""
DROP = """
DROP TRIGGER IF EXISTS weir_owner_changed ON auth_user;
DROP FUNCTION IF EXISTS weir_owner_changed();
"""


def on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("flows", "0013_flow_change_notify"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [migrations.RunPython(on_postgresql(CREATE), on_postgresql(DROP))]
