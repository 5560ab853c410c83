"""`owner` becomes `created_by` (issue 23): who made the agent, kept for the
record; who may edit it or chat with it comes from its workspace's members.
The column is renamed, so no data moves."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("agents", "0010_merge_mcp_workspaces"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RenameField(model_name="agent", old_name="owner", new_name="created_by"),
        migrations.AlterField(
            model_name="agent",
            name="created_by",
            field=models.ForeignKey(
                blank=True,
                help_text="Who made it; access comes from the workspace's members.",
                null=True,
                on_delete=models.deletion.SET_NULL,
                related_name="agents",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
    ]
