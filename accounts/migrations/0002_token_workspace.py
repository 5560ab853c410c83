"""Each token reaches one workspace: its maker's personal one (made by
flows 0022 for every user)."""

import django.db.models.deletion
from django.db import migrations, models


def bind(apps, schema_editor):
    ApiToken = apps.get_model("accounts", "ApiToken")
    Workspace = apps.get_model("flows", "Workspace")
    for token in ApiToken.objects.filter(workspace__isnull=True).iterator():
        token.workspace = Workspace.objects.get(personal_of_id=token.user_id)
        token.save(update_fields=["workspace"])


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("flows", "0022_workspaces_fill"),
    ]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="workspace",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="api_tokens",
                to="flows.workspace",
            ),
        ),
        migrations.RunPython(bind, migrations.RunPython.noop),
    ]
