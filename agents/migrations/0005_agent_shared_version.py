"""Agents users make themselves: `shared` and `version` (issue 25).

Agents made before this were set up by admins for everyone, so they stay
shared; new ones are their owner's only.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("agents", "0004_agent_credential")]

    operations = [
        migrations.AddField(
            model_name="agent",
            name="shared",
            field=models.BooleanField(default=True),
        ),
        migrations.AlterField(
            model_name="agent",
            name="shared",
            field=models.BooleanField(
                default=False,
                help_text="Every signed-in user may chat with it (only its owner "
                "edits it).",
            ),
        ),
        migrations.AddField(
            model_name="agent",
            name="version",
            field=models.PositiveIntegerField(default=1),
        ),
    ]
